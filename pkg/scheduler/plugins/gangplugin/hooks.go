package gangplugin

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// PreEnqueue keeps a gang member out of the active queue until its gang can be attempted:
// the gang exists, its base is established (scaled gangs), it is established (surge members),
// and each podgroup has minReplicas members present and ungated. It runs under the queue's
// lock and only reads the store, once: the pod informer's handler is the store's writer
// (feed.go). A member the queue holds before that handler recorded it (or newer than what it
// recorded) may be turned away as missing; the handler then records it, and its arrival
// wakes the gang, this member too (onPod). The gang's wait is recorded there as well.
// When the profile runs the GangGate plugin, that plugin admits (Gate) and this one passes
// every pod.
func (p *Adapter) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	if p.admission != nil && p.admission.Enabled() {
		return nil
	}
	return p.admit(pod)
}

// admit is PreEnqueue's admission of a member of this plugin's kind (nil for any other pod).
func (p *Adapter) admit(pod *v1.Pod) *fwk.Status {
	if _, ok := p.keyOf(pod); !ok {
		return nil
	}
	return p.admitMember(pod)
}

// admitMember is admit for a pod known to be a member of this plugin's kind.
func (p *Adapter) admitMember(pod *v1.Pod) *fwk.Status {
	if admitted, wait := p.store.Admissible(pod); !admitted {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, wait.Message)
	}
	return nil
}

// PreFilter rejects members of a gang in back-off, and a gang whose members still to be
// placed cannot fit into the free capacity of the cluster (or of any domain of its required
// packing label, or of any domain of a required level inside it) before any member holds
// resources. With required packing it narrows the nodes to the gang's domain, and to the
// domains of the member's own levels (pack.go). The first member of a quorum to be tried plans every member the
// quorum needs in one pass (plan.go); each planned member's cycle is narrowed to its node, and
// the gang's members the plan leaves out wait until its quorum is placed (Permit wakes them).
func (p *Adapter) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	k, member := p.store.Membership().KeyOf(pod) // keyOf, read once: a pod of no gang is planned below
	if !member || k.Kind != p.opts.Kind {
		if p.opts.Kind != gang.KindPodGang {
			return nil, fwk.NewStatus(fwk.Skip)
		}
		if !member {
			// A pod of no gang: the PodGang plugin of the profile plans it (one plugin does).
			if res, planned := p.planAlone(ctx, pod, nodes); planned {
				return res, nil // its Filter (the holds) runs on the node found
			}
		}
		if p.store.HasActiveHolds() {
			return nil, nil // not a PodGang member, but its Filter must keep it off held capacity
		}
		return nil, fwk.NewStatus(fwk.Skip)
	}
	p.recordPod(pod)
	if left, why := p.store.Backoff(k); left > 0 {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("%s backs off for %s after: %s", k, left.Round(100*time.Millisecond), why))
	}
	if st := p.holdExtra(state, k, pod, nodes); st != nil {
		return nil, st
	}
	surge := p.store.Membership().IsSurge(pod)
	if !surge {
		view := p.store.PlanFor(k, pod, p.opts.PermitTimeout)
		if view.Planned {
			// Planned with its gang: the pass already checked the gang's fit, domain and holds.
			return &fwk.PreFilterResult{NodeNames: sets.New(view.Node)}, nil
		}
		if view.Active || len(view.Ahead) > 0 {
			// An extra of a gang whose quorum is being placed, or of a gang short of its
			// minimum popped while the members that minimum needs were away from the active
			// queue (backing off): on its own it could take a node the quorum needs, and count
			// for a member of it at Permit (or release its own gang, round after round). The
			// members ahead of it are woken to be placed first, in one pass; the quorum's
			// Permit wakes this one.
			state.Write(p.stateKey(), &cycleState{extraHeld: true})
			p.activatePods(klog.FromContext(ctx), view.Ahead)
			why := "waits while the gang's planned quorum is placed"
			if !view.Active {
				why = fmt.Sprintf("waits while the gang first places the members its minimum needs (%d pending)", len(view.Ahead))
			}
			return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("above the minimum of %s: %s", k, why))
		}
	}
	spec, _ := p.store.Spec(k)
	cs := &cycleState{gpus: gang.RequestsOf(pod).GPU, nodes: nodes}
	state.Write(p.stateKey(), cs)
	reject := func(reason, msg string) (*fwk.PreFilterResult, *fwk.Status) {
		cs.gangRejected = true
		p.setWaitSeen(k, gang.Wait{Reason: reason, Message: msg}, schedulableNodes(nodes))
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
	}
	if msg, refused := p.refuseSharedClaim(k, pod); refused {
		return reject(gang.ReasonSharedClaim, msg)
	}
	if !surge {
		if need, n := p.store.PendingNeed(k); n > 0 {
			holding := p.store.HasActiveHolds()
			enough := &need
			if holding {
				enough = nil // the room the holds leave is the whole cluster's less theirs
			}
			free := freeCapacity(nodes, enough)
			if !free.Fits(need) {
				return reject(gang.ReasonInsufficient,
					fmt.Sprintf("%s cannot fit its %d unplaced members into the cluster: %s", k, n, free.Shortfall(need)))
			}
			if holding {
				if held, holds := p.heldTotal(nodes, k); len(holds) > 0 && !free.Sub(held).Fits(need) {
					// Only the holds are in the way: wake the gang when they end.
					p.noteHoldBlocked(pod, holds)
					metrics.ReservationBlockedPods.Inc()
					holders, until := holdSummary(holds)
					return reject(gang.ReasonInsufficient, fmt.Sprintf("%s cannot fit its %d unplaced members into the cluster while capacity is held for the replacements of PodGang %s (until %s): %s",
						k, n, holders, until.UTC().Format(time.RFC3339), free.Sub(held).Shortfall(need)))
				}
			}
		}
	}
	var result *fwk.PreFilterResult
	levels := spec.Levels()
	if key := spec.Pack.Required; key != "" && len(levels) == 0 {
		domain, names, msg := p.chooseDomain(k, key, pod, nodes)
		if domain == "" {
			return reject(gang.ReasonNoTopologyDomain, msg)
		}
		result = &fwk.PreFilterResult{NodeNames: names}
	}
	gangResult := result
	if len(levels) > 0 {
		pack, msg := p.packLevels(klog.FromContext(ctx), k, &spec, levels, pod, nodes)
		if msg != "" {
			return reject(gang.ReasonNoTopologyDomain, msg)
		}
		cs.pack = pack
		cs.prefs = pack.prefs(pod, func(key string) string { return p.preferredDomain(k, key, nodes) })
		gangResult, result = pack.gangNodes(nodes), pack.narrow(pod, nodes)
	}
	if !surge {
		if planned, st, ok := p.plan(ctx, k, pod, nodes, gangResult, cs); ok {
			return planned, st
		}
	}
	return result, nil
}

// PreFilterExtensions: none; the plugin does not track other pods of the cycle.
func (p *Adapter) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// PostFilter runs when a member fits no node. Unless the member is a surge member or its gang
// already holds its quorum bound, the gang is released as a whole: waiting siblings are
// rejected at once, so that an incomplete gang never sits on GPUs. A member that the Filter
// plugins rejected also puts its gang in back-off; a gang that PreFilter found too big waits
// for capacity events instead, keeping the reason PreFilter gave. Then gang-aware preemption
// (preempt.go) looks for victims for the gang's whole deficit; the PodGang plugin also
// preempts for the profile's pods of no gang, in place of DefaultPreemption.
func (p *Adapter) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	k, ok := p.keyOf(pod)
	if !ok {
		if _, member := p.store.Membership().KeyOf(pod); !member && p.opts.Kind == gang.KindPodGang {
			return p.preemptFor(ctx, pod)
		}
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	if raw, err := state.Read(p.stateKey()); err == nil && raw.(*cycleState).extraHeld {
		// Held for a gang's minimum (another gang's, or its own planned quorum): its own gang
		// did not fail, and preempting for it would take what the minimum waits for.
		return nil, fwk.NewStatus(fwk.Unschedulable, "held while a gang's minimum is placed")
	}
	released := p.release(ctx, state, pod, k)
	res, st := p.preemptFor(ctx, pod)
	if st.IsSuccess() {
		return res, st
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, released.Message()+"; "+st.Message())
}

// release is PostFilter's release of the gang of a member that fits no node (see PostFilter).
func (p *Adapter) release(ctx context.Context, state fwk.CycleState, pod *v1.Pod, k gang.Key) *fwk.Status {
	if p.store.Membership().IsSurge(pod) || p.store.QuorumBound(k) {
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: member placed on its own does not fit", k))
	}
	if left, _ := p.store.Backoff(k); left > 0 {
		// Released already (PreFilter turned the member away for the back-off, or a sibling's
		// failure released the gang): that release stands, and so does the reason it recorded.
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s backs off", k))
	}
	if raw, err := state.Read(p.stateKey()); err == nil && raw.(*cycleState).gangRejected {
		p.rejectWaiting(k, "the gang does not fit as a whole")
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s does not fit as a whole", k))
	}
	// The message names the podgroup, not the member: each cycle may try another member,
	// and a message that changed every cycle would be a new status write and event each time.
	msg := fmt.Sprintf("a member of podgroup %s fits no node (see the FailedScheduling events of its pods); the gang is released and retried as a whole", p.store.GroupName(pod))
	seen := -1 // a member placed by its gang's plan: the plan's failure counted them
	if raw, err := state.Read(p.stateKey()); err == nil {
		seen = schedulableNodes(raw.(*cycleState).nodes)
	}
	p.releaseGang(ctx, k, gang.ReasonMemberUnschedulable, msg, seen)
	return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: %s", k, msg))
}

// Reserve records that the member holds a node.
func (p *Adapter) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	if _, ok := p.keyOf(pod); ok {
		p.assumed(pod, node)
	}
	return nil
}

// Unreserve runs when a reserved member is rejected (Permit timeout, a sibling's failure, a
// failed bind). An incomplete gang is released as a whole and backs off, unless the member
// or a sibling its quorum needs was deleted while it was placed: the gang did not fail to
// fit, and its controller makes the members again at once (the deletion already released the
// siblings waiting in Permit; the replacements' arrival wakes the gang). Backing off then held
// a rolling update's replacement for the whole back-off (5 s, measured in make perf-updates:
// the queue admitted a replacement before the pod handler had seen its old siblings go).
func (p *Adapter) Unreserve(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	k, ok := p.keyOf(pod)
	if !ok {
		return
	}
	deleted := !p.store.IsMember(pod)
	// Met with this member still assumed: Permit let the whole quorum go, and this is a failed
	// bind (PreBind or Bind) of a placement whose other members bind.
	allowed := !deleted && p.store.QuorumMet(k)
	p.unassumed(pod)
	// A sibling may have bound before this one was released (PostBind leaves the status to
	// the bind that completes the quorum): bring the status up to date; unchanged, it is not
	// written.
	p.status.Enqueue(k)
	if deleted || p.store.Membership().IsSurge(pod) || p.store.QuorumBound(k) {
		return
	}
	if !p.store.MembersPresent(k) {
		p.rejectWaiting(k, fmt.Sprintf("%s lost members its quorum needs; it is tried again when they exist", k))
		return
	}
	if left, _ := p.store.Backoff(k); left > 0 {
		return // released as a whole already (a sibling failed): this is that release
	}
	if allowed {
		// Its siblings are bound or binding, and a back-off cannot take them back: the member
		// is tried again at once, alone (its node went, another scheduler's pod took the room,
		// a device claim changed under it).
		klog.FromContext(ctx).V(2).Info("Member's bind failed after its gang's quorum was placed; trying it again", "pod", klog.KObj(pod), "gang", k.String())
		return
	}
	metrics.PermitRejections.WithLabelValues(p.opts.Kind.String(), gang.ReasonPermitTimeout).Inc()
	p.releaseGang(ctx, k, gang.ReasonPermitTimeout,
		fmt.Sprintf("a member of podgroup %s was released before the gang reached its quorum; the gang is retried as a whole", p.store.GroupName(pod)), -1)
}

// Permit holds a member until its gang's quorum (bound + assumed non-surge members in every
// podgroup) is reached, then lets every waiting member go. Members of an established gang
// whose quorum is bound (surge, extra or replacement members) go at once and never wait. The
// member whose PreFilter planned its gang first has the Binder assume and bind the other
// planned members from this cycle (bindPlanned): the quorum is then met here, and nobody waits.
func (p *Adapter) Permit(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) (*fwk.Status, time.Duration) {
	k, ok := p.keyOf(pod)
	if !ok {
		return nil, 0
	}
	if raw, err := state.Read(p.stateKey()); err == nil {
		if cs := raw.(*cycleState); len(cs.placed) > 0 {
			p.bindPlanned(ctx, k, Placement{Pod: pod, Node: node}, cs.placed)
			cs.placed = nil
		}
	}
	if p.store.Membership().IsSurge(pod) {
		if p.store.Established(k) {
			return nil, 0
		}
		metrics.PermitRejections.WithLabelValues(p.opts.Kind.String(), "SurgeNotEstablished").Inc()
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("surge member waits until %s is established", k)), 0
	}
	if met, pending := p.settleQuorum(k); met {
		p.allowWaiting(k)
		p.wakeHeld(k) // its minimum is placed: the extras it held may take what is left
		// Its own extras, which waited while a plan was placed: woken whether or not the plan is
		// still recorded (a planned member's update or deletion drops it first), or they would
		// wait for the queue's periodic flush.
		p.activatePods(klog.FromContext(ctx), pending)
		return nil, 0
	}
	if !p.store.MembersPresent(k) {
		// Members were deleted while this one was being placed (the deletion could not
		// reject a pod that was not waiting yet): do not hold a node for a quorum that
		// cannot form.
		metrics.PermitRejections.WithLabelValues(p.opts.Kind.String(), "MembersLost").Inc()
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s lost members while this one was placed: %s", k, p.store.QuorumProgress(k))), 0
	}
	timeout := p.opts.PermitTimeout
	if spec, ok := p.store.Spec(k); ok && spec.ScheduleTimeout > 0 {
		timeout = spec.ScheduleTimeout
	}
	// A planned member waits only for its siblings' consecutive one-node cycles: that is not
	// worth a status write. A member placed on its own may wait longer, and says so (no
	// counts in the message: they would change with every member, a write each).
	if _, planned := p.plannedNode(k, pod); !planned {
		p.setProgress(k, gang.Wait{Reason: gang.ReasonWaitingForMembers,
			Message: "placed members wait in Permit for the rest of the quorum"})
	}
	metrics.PermitWaits.WithLabelValues(p.opts.Kind.String()).Inc()
	return fwk.NewStatus(fwk.Wait, fmt.Sprintf("waiting for the quorum of %s", k)), timeout
}

// PostBind records the bind; the bind that completes the quorum establishes the gang and
// has the gang's status written.
func (p *Adapter) PostBind(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, node string) {
	k, ok := p.keyOf(pod)
	if !ok {
		return
	}
	if p.bound(pod, node) {
		p.established(klog.FromContext(ctx), k)
	}
	p.holdReleased(k)
	if p.store.Binding(k) {
		// The rest of the quorum is binding: the bind that completes it writes the status
		// once (a failed bind releases the gang, which writes it too).
		return
	}
	p.status.Enqueue(k)
}
