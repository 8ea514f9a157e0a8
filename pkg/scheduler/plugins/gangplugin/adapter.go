// Package gangplugin adapts the scheduling framework's hooks to the gang rules of pkg/gang.
// The PodGang and PodGroup plugins each embed an Adapter for their kind of gang; both share
// one gang.Store per scheduler profile, so that one queue order and one engine serve every
// gang of the profile.
package gangplugin

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// StatusSink is told when a gang may need its status or events written.
type StatusSink interface {
	// Enqueue asks for the gang's status to be brought up to date.
	Enqueue(k gang.Key)
	// Established reports that the gang's quorum just bound.
	Established(k gang.Key)
}

// Options configure an Adapter.
type Options struct {
	// Name is the plugin name (used to allow and reject waiting pods).
	Name string
	// Kind is the kind of gang the adapter serves; pods of other gangs are skipped.
	Kind gang.Kind
	// PermitTimeout is how long members wait in Permit for their quorum unless the gang sets
	// its own.
	PermitTimeout time.Duration
	// Backoff is how long a released gang waits before it is tried again.
	Backoff time.Duration
	// GangEvent is the framework event resource of the gang objects ("<plural>.<version>.<group>").
	GangEvent fwk.EventResource
	// ToSpec reads a gang object (typed or unstructured) into a gang spec.
	ToSpec func(obj any) (gang.Spec, bool)
}

// Adapter implements the gang hooks for one kind of gang.
type Adapter struct {
	opts   Options
	handle fwk.Handle
	store  *gang.Store
	status StatusSink

	timersMu sync.Mutex
	timers   map[gang.Key]*time.Timer
	// holdBlocked are the pods a reservation of the key's gang kept off nodes, woken by
	// holdTimers when it ends.
	holdBlocked map[gang.Key]map[string]*v1.Pod
	holdTimers  map[gang.Key]*time.Timer
}

// NewAdapter returns an adapter on the profile's shared store. status may be set later with
// SetStatusSink (it usually needs the store).
func NewAdapter(h fwk.Handle, store *gang.Store, o Options) *Adapter {
	return &Adapter{opts: o, handle: h, store: store, timers: map[gang.Key]*time.Timer{},
		holdBlocked: map[gang.Key]map[string]*v1.Pod{}, holdTimers: map[gang.Key]*time.Timer{}}
}

// stateKey is where PreFilter leaves what PostFilter and Score need; one per plugin, since
// both gang plugins of a profile see every pod.
func (p *Adapter) stateKey() fwk.StateKey { return fwk.StateKey(p.opts.Name) }

// SetStatusSink sets where status work goes.
func (p *Adapter) SetStatusSink(s StatusSink) { p.status = s }

// Name returns the plugin name.
func (p *Adapter) Name() string { return p.opts.Name }

// Store returns the shared gang store.
func (p *Adapter) Store() *gang.Store { return p.store }

// ours reports whether the pod is for this scheduler profile; pods of other schedulers are
// left alone, their gangs too.
func (p *Adapter) ours(pod *v1.Pod) bool {
	return p.handle == nil || pod.Spec.SchedulerName == p.handle.ProfileName()
}

// keyOf returns the pod's gang when it is of this adapter's kind.
func (p *Adapter) keyOf(pod *v1.Pod) (gang.Key, bool) {
	k, ok := p.store.Membership().KeyOf(pod)
	return k, ok && k.Kind == p.opts.Kind
}

// PreEnqueue keeps a gang member out of the active queue until its gang can be attempted:
// the gang exists, its base is established (scaled gangs), it is established (surge members),
// and each podgroup has minReplicas members present and ungated.
func (p *Adapter) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	k, ok := p.keyOf(pod)
	if !ok {
		return nil
	}
	admitted, wait := p.store.Admit(pod)
	if admitted {
		return nil
	}
	p.setWait(k, wait)
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, wait.Message)
}

// PreFilter rejects members of a gang in back-off, and a gang whose members still to be
// placed cannot fit into the free capacity of the cluster (or of any domain of its required
// packing label) before any member holds resources. With required packing it narrows the
// nodes to the gang's domain.
func (p *Adapter) PreFilter(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	k, ok := p.keyOf(pod)
	if !ok {
		if p.opts.Kind == gang.KindPodGang && p.store.HasActiveHolds() {
			return nil, nil // not a PodGang member, but its Filter must keep it off held capacity
		}
		return nil, fwk.NewStatus(fwk.Skip)
	}
	p.store.UpsertPod(pod)
	if left, why := p.store.Backoff(k); left > 0 {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("%s backs off for %s after: %s", k, left.Round(100*time.Millisecond), why))
	}
	spec, _ := p.store.Spec(k)
	cs := &cycleState{gpus: gang.RequestsOf(pod).GPU, preferredKey: spec.Pack.Preferred}
	state.Write(p.stateKey(), cs)
	reject := func(reason, msg string) (*fwk.PreFilterResult, *fwk.Status) {
		cs.gangRejected = true
		p.setWait(k, gang.Wait{Reason: reason, Message: msg})
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
	}
	if !p.store.Membership().IsSurge(pod) {
		if need, n := p.store.PendingNeed(k); n > 0 {
			free := freeCapacity(nodes)
			if !free.Fits(need) {
				return reject(gang.ReasonInsufficient,
					fmt.Sprintf("%s cannot fit its %d unplaced members into the cluster: %s", k, n, free.Shortfall(need)))
			}
			if p.store.HasActiveHolds() {
				if held, holds := p.heldTotal(nodes, k); len(holds) > 0 && !free.Sub(held).Fits(need) {
					// Only the holds are in the way: wake the gang when they end.
					p.noteHoldBlocked(pod, holds)
					metrics.ReservationBlockedPods.Inc()
					return reject(gang.ReasonInsufficient, fmt.Sprintf("%s cannot fit its %d unplaced members into the cluster while capacity is held for replacements (until %s): %s",
						k, n, holds[0].Until.UTC().Format(time.RFC3339), free.Sub(held).Shortfall(need)))
				}
			}
		}
	}
	var result *fwk.PreFilterResult
	if key := spec.Pack.Required; key != "" {
		domain, names, msg := p.chooseDomain(k, key, pod, nodes)
		if domain == "" {
			return reject(gang.ReasonNoTopologyDomain, msg)
		}
		result = &fwk.PreFilterResult{NodeNames: names}
	}
	if cs.preferredKey != "" {
		cs.preferredDomain = p.preferredDomain(k, cs.preferredKey, nodes)
	}
	return result, nil
}

// PreFilterExtensions: none; the plugin does not track other pods of the cycle.
func (p *Adapter) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// PostFilter runs when a member fits no node. Unless the member is a surge member or its gang
// already holds its quorum bound, the gang is released as a whole: waiting siblings are
// rejected at once, so that an incomplete gang never sits on GPUs. A member that the Filter
// plugins rejected also puts its gang in back-off; a gang that PreFilter found too big waits
// for capacity events instead, keeping the reason PreFilter gave.
func (p *Adapter) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	k, ok := p.keyOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	if p.store.Membership().IsSurge(pod) || p.store.QuorumBound(k) {
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: member placed on its own does not fit", k))
	}
	if raw, err := state.Read(p.stateKey()); err == nil && raw.(*cycleState).gangRejected {
		p.rejectWaiting(k, "the gang does not fit as a whole")
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s does not fit as a whole", k))
	}
	msg := fmt.Sprintf("member %s fits no node (see its FailedScheduling event); the gang is released and retried as a whole", pod.Name)
	p.releaseGang(ctx, k, gang.ReasonMemberUnschedulable, msg)
	return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: %s", k, msg))
}

// Reserve records that the member holds a node.
func (p *Adapter) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	if _, ok := p.keyOf(pod); ok {
		p.store.Assume(pod, node)
	}
	return nil
}

// Unreserve runs when a reserved member is rejected (Permit timeout, a sibling's failure, a
// failed bind). An incomplete gang is released as a whole and backs off.
func (p *Adapter) Unreserve(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	k, ok := p.keyOf(pod)
	if !ok {
		return
	}
	p.store.Forget(pod)
	if p.store.Membership().IsSurge(pod) || p.store.QuorumBound(k) {
		return
	}
	metrics.PermitRejections.WithLabelValues(p.opts.Kind.String(), gang.ReasonPermitTimeout).Inc()
	p.releaseGang(ctx, k, gang.ReasonPermitTimeout,
		fmt.Sprintf("member %s was released before the gang reached its quorum (%s); the gang is retried as a whole", pod.Name, p.store.QuorumProgress(k)))
}

// Permit holds a member until its gang's quorum (bound + assumed non-surge members in every
// podgroup) is reached, then lets every waiting member go. Members of an established gang
// whose quorum is bound (surge, extra or replacement members) go at once and never wait.
func (p *Adapter) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	k, ok := p.keyOf(pod)
	if !ok {
		return nil, 0
	}
	if p.store.Membership().IsSurge(pod) {
		if p.store.Established(k) {
			return nil, 0
		}
		metrics.PermitRejections.WithLabelValues(p.opts.Kind.String(), "SurgeNotEstablished").Inc()
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("surge member waits until %s is established", k)), 0
	}
	if p.store.QuorumMet(k) {
		p.allowWaiting(k)
		p.setWait(k, gang.Wait{})
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
	p.setWait(k, gang.Wait{Reason: gang.ReasonWaitingForMembers,
		Message: fmt.Sprintf("placed members wait for the quorum: %s", p.store.QuorumProgress(k))})
	metrics.PermitWaits.WithLabelValues(p.opts.Kind.String()).Inc()
	return fwk.NewStatus(fwk.Wait, fmt.Sprintf("waiting for the quorum of %s", k)), timeout
}

// PostBind records the bind; the bind that completes the quorum establishes the gang.
func (p *Adapter) PostBind(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, node string) {
	k, ok := p.keyOf(pod)
	if !ok {
		return
	}
	if p.store.MarkBound(pod, node) {
		p.established(klog.FromContext(ctx), k)
	}
	p.status.Enqueue(k)
}

// established reports a gang that just became established and wakes those who waited for it:
// its surge members and the scaled gangs based on it. Waking them must not depend on the
// status write that follows.
func (p *Adapter) established(logger klog.Logger, k gang.Key) {
	logger.V(2).Info("Gang established", "gang", k.String(), "nodes", len(p.store.PlacedNodes(k)))
	if spec, ok := p.store.Spec(k); ok && !spec.CreatedAt.IsZero() {
		metrics.GangTimeToPlaced.WithLabelValues(k.Kind.String()).Observe(time.Since(spec.CreatedAt).Seconds())
	}
	p.status.Established(k)
	p.activate(logger, k, "")
	p.activatePods(logger, p.store.PendingPodsBasedOn(k))
}

// allowWaiting lets every member of the gang that waits in Permit go.
func (p *Adapter) allowWaiting(k gang.Key) {
	m := p.store.Membership()
	p.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if wk, ok := m.KeyOf(wp.GetPod()); ok && wk == k {
			wp.Allow(p.opts.Name)
		}
	})
}

// rejectWaiting rejects every member of the gang that waits in Permit.
func (p *Adapter) rejectWaiting(k gang.Key, msg string) {
	m := p.store.Membership()
	p.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if wk, ok := m.KeyOf(wp.GetPod()); ok && wk == k {
			wp.Reject(p.opts.Name, msg)
		}
	})
}

// releaseGang rejects the gang's waiting members, starts its back-off and schedules the
// members' return to the active queue when the back-off ends.
func (p *Adapter) releaseGang(ctx context.Context, k gang.Key, reason, msg string) {
	p.rejectWaiting(k, msg)
	p.setWait(k, gang.Wait{Reason: reason, Message: msg})
	d := p.opts.Backoff
	if !p.store.StartBackoff(k, d, msg) {
		return
	}
	metrics.Backoffs.WithLabelValues(k.Kind.String(), reason).Inc()
	logger := klog.FromContext(ctx)
	logger.V(2).Info("Gang released and backing off", "gang", k.String(), "backoff", d, "reason", reason)
	p.timersMu.Lock()
	defer p.timersMu.Unlock()
	if t := p.timers[k]; t != nil {
		t.Stop()
	}
	p.timers[k] = time.AfterFunc(d, func() {
		p.timersMu.Lock()
		delete(p.timers, k)
		p.timersMu.Unlock()
		p.activate(logger, k, "")
	})
}

// activate moves the gang's pending members (but skip) back to the active queue, where
// PreEnqueue decides again. The framework requeues gated pods only on events it sees; a new
// unscheduled pod is not one of them (unless the GenericWorkload gate is on), so the plugin
// wakes the gang itself when its member set changes. It must not run under the queue's lock
// (PreEnqueue, QueueingHints).
func (p *Adapter) activate(logger klog.Logger, k gang.Key, skip string) {
	var pods []*v1.Pod
	for _, pod := range p.store.PendingPods(k) {
		if pod.Name != skip {
			pods = append(pods, pod)
		}
	}
	p.activatePods(logger, pods)
}

func (p *Adapter) activatePods(logger klog.Logger, pods []*v1.Pod) {
	if len(pods) == 0 {
		return
	}
	m := make(map[string]*v1.Pod, len(pods))
	for _, pod := range pods {
		m[pod.Namespace+"/"+pod.Name] = pod
	}
	p.handle.Activate(logger, m)
}

// BackoffScheduled reports whether a wake-up is pending for the gang (for tests).
func (p *Adapter) BackoffScheduled(k gang.Key) bool {
	p.timersMu.Lock()
	defer p.timersMu.Unlock()
	return p.timers[k] != nil
}

func (p *Adapter) setWait(k gang.Key, w gang.Wait) {
	if p.store.SetWait(k, w) {
		p.status.Enqueue(k)
	}
}

func freeCapacity(nodes []fwk.NodeInfo) gang.Resources {
	var free gang.Resources
	for _, n := range nodes {
		free = free.Add(nodeFree(n))
	}
	return free
}

func nodeFree(n fwk.NodeInfo) gang.Resources {
	alloc, req := n.GetAllocatable(), n.GetRequested()
	return gang.Resources{
		MilliCPU: alloc.GetMilliCPU() - req.GetMilliCPU(),
		Memory:   alloc.GetMemory() - req.GetMemory(),
		GPU:      alloc.GetScalarResources()[gang.ResourceGPU] - req.GetScalarResources()[gang.ResourceGPU],
	}
}

// GangHandlers keep the store current from an informer of gang objects.
func (p *Adapter) GangHandlers() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.onGang(obj) },
		UpdateFunc: func(_, obj any) { p.onGang(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if spec, ok := p.opts.ToSpec(obj); ok {
				p.store.DeleteSpec(spec.Key)
			}
		},
	}
}

func (p *Adapter) onGang(obj any) {
	if spec, ok := p.opts.ToSpec(obj); ok {
		p.store.SetSpec(spec)
		p.status.Enqueue(spec.Key)
	}
}

// PodHandlers keep the store current from the scheduler's pod informer.
func (p *Adapter) PodHandlers() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.onPod(obj) },
		UpdateFunc: func(_, obj any) { p.onPod(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*v1.Pod); ok {
				if k, ok := p.keyOf(pod); ok {
					p.store.DeletePod(pod)
					p.status.Enqueue(k)
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

func (p *Adapter) onPod(obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	k, ok := p.keyOf(pod)
	if !ok || !p.ours(pod) {
		return
	}
	p.store.UpsertPod(pod)
	p.status.Enqueue(k)
	if pod.Spec.NodeName != "" && p.store.Establish(k) {
		p.established(klog.Background(), k)
	}
	if pod.Spec.NodeName == "" && len(pod.Spec.SchedulingGates) == 0 && p.store.MembersPresent(k) {
		p.activate(klog.Background(), k, pod.Name)
	}
}

var (
	storesMu sync.Mutex
	stores   = map[fwk.Handle]*gang.Store{}
)

// SharedStore returns the gang store of a scheduler profile (one per framework handle), made
// with m the first time. A later caller with a different surge label gets an error: both
// plugins of a profile must read membership the same way.
func SharedStore(h fwk.Handle, m gang.Membership) (*gang.Store, error) {
	storesMu.Lock()
	defer storesMu.Unlock()
	if s := stores[h]; s != nil {
		if s.Membership() != m {
			return nil, fmt.Errorf("surge label %q differs from %q of the other gang plugin of this profile", m.SurgeLabel, s.Membership().SurgeLabel)
		}
		return s, nil
	}
	s := gang.NewStore(m, time.Now)
	stores[h] = s
	metrics.Register()
	metrics.AddGangState(s)
	return s, nil
}

// StoreOf returns the gang store of a scheduler profile, nil when no gang plugin made one.
func StoreOf(h fwk.Handle) *gang.Store {
	storesMu.Lock()
	defer storesMu.Unlock()
	return stores[h]
}

// JSONConfig copies a client config for custom resources: the scheduler's own config asks
// for protobuf, which custom resources do not speak.
func JSONConfig(c *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(c)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	return cfg
}

// InformerFactory is the part of a generated informer factory that Start needs.
type InformerFactory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool
}

// Start feeds the store from the gang informer and the scheduler's pod informer, starts the
// factory, waits for its caches and runs the status queue until ctx ends.
func (p *Adapter) Start(ctx context.Context, factory InformerFactory, gangs cache.SharedIndexInformer, status *StatusQueue) error {
	if _, err := gangs.AddEventHandler(p.GangHandlers()); err != nil {
		return err
	}
	if _, err := p.handle.SharedInformerFactory().Core().V1().Pods().Informer().AddEventHandler(p.PodHandlers()); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("%s: informer for %v did not sync", p.opts.Name, typ)
		}
	}
	go status.Run(ctx)
	return nil
}
