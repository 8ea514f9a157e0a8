package gangplugin

// This file is the one place that writes the gang store (guarded by TestOneStoreWriter). The
// informer handlers feed it gang objects and pods; the hooks report what the binding cycle did
// through the methods at the end. Everything else in the package only reads the store.

import (
	"context"
	"fmt"
	"reflect"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// GangHandlers keep the store current from an informer of gang objects.
func (p *Adapter) GangHandlers() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.onGang(obj) },
		UpdateFunc: func(_, obj any) { p.onGang(obj) },
		DeleteFunc: func(obj any) {
			final := true
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj, final = d.Obj, false // a relist's tombstone: the last state it carries may be stale
			}
			if spec, ok := p.opts.ToSpec(obj); ok {
				p.forgetSpec(spec.Key, final)
				p.classMayChange(spec.Key) // no spec, no minimum to exceed
				p.holdReleased(spec.Key)   // unless its hold lingers (a gang deleted to be made again)
				p.wakeHeld(spec.Key)       // a gang without object holds no extras
				// Its writer finds the object gone and forgets what it kept for it (the
				// Warning limiter, the settler); without this they stayed for every gang
				// deleted while no write of it was queued.
				p.status.Enqueue(spec.Key)
			}
		},
	}
}

// onGang records a gang object. A new or changed spec wakes the gang's pending members and
// the pending members of gangs based on it (see EventsToRegister: no hint does), and
// establishes a gang whose quorum it finds bound: members bound before their object arrived,
// or a minimum lowered to what is bound (no bind event follows to establish it).
func (p *Adapter) onGang(obj any) {
	spec, ok := p.opts.ToSpec(obj)
	if !ok {
		return
	}
	p.status.Enqueue(spec.Key)
	if p.recordSpec(spec) {
		p.classMayChange(spec.Key) // its minimums, priority or creation may have changed
		logger := klog.Background()
		if p.establish(spec.Key) {
			p.established(logger, spec.Key) // wakes the gang and the gangs based on it too
		} else {
			p.activate(logger, spec.Key)
			p.activatePods(logger, p.store.PendingPodsBasedOn(spec.Key))
		}
		p.holdReleased(spec.Key) // its reservation may be gone from the spec
	}
}

// PodHandlers keep the store current from the scheduler's pod informer.
func (p *Adapter) PodHandlers() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { p.onPod(obj) },
		UpdateFunc: func(oldObj, obj any) {
			p.onPodMoved(oldObj, obj)
			p.onPod(obj)
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*v1.Pod); ok {
				if k, last := p.store.VictimGone(pod.Namespace + "/" + pod.Name); last {
					// The last victim of k's preemption is gone: wake k (its QueueingHint for
					// this deletion may have run first and skipped it).
					p.activate(klog.Background(), k)
				}
				if k, ok := p.keyOf(pod); ok {
					p.forgetPod(pod)
					p.classMayChange(k) // a bound member gone: its gang may lack it again
					p.status.Enqueue(k)
					if pod.Spec.NodeName == "" {
						// A pending member gone may be one its gang's extras waited for
						// (Store.PlanFor's Ahead): they are tried again, one of them perhaps
						// in its place. No QueueingHint sees an unassigned pod's deletion.
						p.activate(klog.Background(), k)
					}
					// Members waiting in Permit for a quorum that can no longer form would
					// hold their nodes until the Permit timeout: release them now.
					if !p.store.QuorumBound(k) && !p.store.MembersPresent(k) {
						p.rejectWaiting(k, fmt.Sprintf("member %s was deleted; the gang waits for its members again", pod.Name))
					}
				}
			}
		},
	}
}

// onPodMoved forgets a pod in the gang it left when an update of its labels moved it to
// another (a coherent slice's member returned to its regular gang once the slice is
// available): without it, the old gang would count a member it no longer has.
func (p *Adapter) onPodMoved(oldObj, obj any) {
	old, ok := oldObj.(*v1.Pod)
	if !ok {
		return
	}
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	ko, okOld := p.keyOf(old)
	if kn, okNew := p.keyOf(pod); !okOld || (okNew && kn == ko) {
		return
	}
	p.store.MovedPod(old)
	p.classMayChange(ko)
	p.status.Enqueue(ko)
}

func (p *Adapter) onPod(obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	k, ok := p.keyOf(pod)
	if !ok || !p.ours(pod) {
		return
	}
	wake := p.observePod(pod)
	p.classMayChange(k) // a new pending member takes a rank, a bound one counts for the minimum
	if pod.Spec.NodeName == "" && len(pod.Spec.SchedulingGates) == 0 {
		// What PreEnqueue decides for this member, recorded as the gang's wait for its status
		// (PreEnqueue itself writes nothing).
		p.gate(k, pod)
	}
	p.status.Enqueue(k)
	if pod.Spec.NodeName != "" {
		switch {
		case p.establish(k):
			p.established(klog.Background(), k)
		case p.store.ReadBackEstablished(k):
			// Established by its object's record (a restart): no event, no new status, but
			// the members that waited for it go, as after Establish.
			logger := klog.Background()
			logger.V(2).Info("Gang established by its object's record", "gang", k.String())
			p.activate(logger, k)
			p.activatePods(logger, p.store.PendingPodsBasedOn(k))
		}
	}
	// Only a new or just-ungated member can admit its siblings; status writes of members (the
	// scheduler's own PodScheduled=False among them) wake nobody. The member itself is woken
	// too: the queue may have turned it away before this handler recorded it.
	if wake && pod.Spec.NodeName == "" && len(pod.Spec.SchedulingGates) == 0 && p.store.MembersPresent(k) {
		p.activate(klog.Background(), k)
	}
}

// InformerFactory is the part of a generated informer factory that Start needs.
type InformerFactory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool
}

// Start feeds the store from the gang informer and the scheduler's pod informer, starts the
// factory, waits for its caches and runs the status queue until ctx ends. When the API server
// does not serve the gang kind (its CRD is not installed: a Grove cluster has no PodGroup CRD)
// the plugin starts without it and starts the informer once the kind is served (see
// startWhenServed); until then the kind's members wait.
func (p *Adapter) Start(ctx context.Context, factory InformerFactory, gangs cache.SharedIndexInformer, status *StatusQueue) error {
	if _, err := gangs.AddEventHandler(p.GangHandlers()); err != nil {
		return err
	}
	if _, err := p.handle.SharedInformerFactory().Core().V1().Pods().Informer().AddEventHandler(p.PodHandlers()); err != nil {
		return err
	}
	p.pdbs = pdbLister(p.handle) // before the factory starts, so that its informer runs
	p.AttachGate(ctx)
	if err := p.startWhenServed(ctx, factory); err != nil {
		return err
	}
	var elected <-chan struct{}
	if p.opts.Runtime != nil {
		elected = p.opts.Runtime.Elected()
	}
	go status.Run(ctx, elected)
	return nil
}

// setWait records why the gang waits and asks for its status to be written when that changed.
func (p *Adapter) setWait(k gang.Key, w gang.Wait) { p.setWaitSeen(k, w, -1) }

// setWaitSeen is setWait for an attempt of a scheduling cycle that saw seen schedulable nodes
// (-1: not known; a failed attempt that saw more than the last renews the gang's hold of
// extras, gang.Store.SetWaitSeen).
func (p *Adapter) setWaitSeen(k gang.Key, w gang.Wait, seen int) {
	if p.store.SetWaitSeen(k, w, seen) {
		p.status.Enqueue(k)
	}
}

// gate records, for a member of gang k the informer delivered, why the gang waits when
// PreEnqueue would turn the member away: the decision and the wait it records are one store
// write (gang.Store.Gate).
func (p *Adapter) gate(k gang.Key, pod *v1.Pod) (bool, gang.Wait) {
	admitted, w, changed := p.store.Gate(pod)
	if changed {
		p.status.Enqueue(k)
	}
	return admitted, w
}

// setProgress records a progress wait (see gang.Store.SetProgress).
func (p *Adapter) setProgress(k gang.Key, w gang.Wait) {
	if p.store.SetProgress(k, w) {
		p.status.Enqueue(k)
	}
}

// recordSpec records a gang object (informer); true when it is new or changed.
func (p *Adapter) recordSpec(spec gang.Spec) bool { return p.store.SetSpec(spec) }

// forgetSpec forgets a deleted gang object; final when the deletion came with its last state
// (gang.Store.DeleteSpec).
func (p *Adapter) forgetSpec(k gang.Key, final bool) { p.store.DeleteSpec(k, final) }

// recordPod records a member as the queue has it (PreFilter; the queue's copy may be newer
// than the informer's).
func (p *Adapter) recordPod(pod *v1.Pod) { p.store.UpsertPod(pod) }

// observePod records a member from the pod informer; true when its siblings are to be woken
// (gang.Store.ObservePod).
func (p *Adapter) observePod(pod *v1.Pod) bool {
	_, _, wake := p.store.ObservePod(pod)
	return wake
}

// forgetPod removes a deleted member.
func (p *Adapter) forgetPod(pod *v1.Pod) { p.store.DeletePod(pod) }

// establish marks the gang established when its quorum is bound (a restart reads it back from
// bound pods); true when this call established it.
func (p *Adapter) establish(k gang.Key) bool { return p.store.Establish(k) }

// assumed records that Reserve gave the member a node.
// The queue order is not told: the members a gang places are those its minimum needs first,
// which leaves its other members' classes as they were (a pass of a gang of 512 would have it
// check the gang's queued members at each member's Reserve).
func (p *Adapter) assumed(pod *v1.Pod, node string) { p.store.Assume(pod, node) }

// unassumed drops the member's assumed node (Unreserve): its gang lacks it again.
func (p *Adapter) unassumed(pod *v1.Pod) {
	p.store.Forget(pod)
	if k, ok := p.keyOf(pod); ok {
		p.classMayChange(k)
	}
}

// bound records a successful bind (PostBind); true when it completed the quorum.
func (p *Adapter) bound(pod *v1.Pod, node string) bool { return p.store.MarkBound(pod, node) }

// startBackoff puts the gang in back-off; true when it was not backing off already.
func (p *Adapter) startBackoff(k gang.Key, d time.Duration, why string) bool {
	return p.store.StartBackoff(k, d, why)
}

// noteHeld records that holder turned away members of gang k (extrahold.go).
func (p *Adapter) noteHeld(holder, k gang.Key) { p.store.NoteHeld(holder, k) }

// takeHeld returns, once holder holds no more, the gangs whose extras it turned away.
func (p *Adapter) takeHeld(holder gang.Key) []gang.Key { return p.store.TakeHeld(holder) }

// setPlan records where the gang's planning pass put its members.
func (p *Adapter) setPlan(k gang.Key, nodes map[string]string) { p.store.SetPlan(k, nodes) }

// ConfirmDeparture tells the store which reservation gang k's object carries on the API
// server now (zero: none), read after a bound member left it unheld
// (gang.Store.ConfirmDeparture), and wakes the pods the unconfirmed hold kept off when it ends.
func (p *Adapter) ConfirmDeparture(k gang.Key, liveSince time.Time) {
	if p.store.ConfirmDeparture(k, liveSince) {
		p.holdReleased(k)
	}
}

// settleQuorum is Permit's store call (gang.Store.SettleQuorum): whether k's quorum is
// placed, with its plan and wait cleared then (the status written when the wait changed), and
// the members still pending.
func (p *Adapter) settleQuorum(k gang.Key) (bool, []*v1.Pod) {
	met, cleared, pending := p.store.SettleQuorum(k)
	if cleared {
		p.status.Enqueue(k)
	}
	return met, pending
}

// recordPreemption records the victims a gang preempted and the room held for it.
func (p *Adapter) recordPreemption(k gang.Key, pf gang.Preemption) { p.store.StartPreemption(k, pf) }

// markDisrupted marks a gang preempted whole (its DisruptionTarget condition).
func (p *Adapter) markDisrupted(k gang.Key, note string) { p.store.MarkDisrupted(k, note) }

// setDomain records the topology domain chosen for the gang.
func (p *Adapter) setDomain(k gang.Key, domain string) { p.store.SetDomain(k, domain) }

// setPackNote records which preferred packing levels the gang's placement could not keep; it
// reports whether that changed.
func (p *Adapter) setPackNote(k gang.Key, note string) bool { return p.store.SetPackNote(k, note) }
