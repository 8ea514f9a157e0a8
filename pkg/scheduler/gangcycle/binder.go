// Package gangcycle binds a gang's planned members from the scheduling cycle whose pass placed
// them: the gang leaves the queue once (docs/architecture.md, "One cycle per gang").
//
// kube-scheduler runs one cycle per pod. After the gang plugin's pass has placed every member
// of a quorum on one snapshot, the other members' own cycles would only confirm their one node
// and wait in Permit for each other. The Binder does in the first member's Permit what those
// cycles would do: for each member, the profile's PreFilter, its Filter on the planned node (the
// node as the pass left it, with the members placed before), assume in the scheduler's cache,
// Reserve, then Permit once all are assumed (the quorum is met, so nobody waits), and a binding
// goroutine that runs WaitOnPermit, PreBind, Bind and PostBind as kube-scheduler's binding
// cycle does. A member it took leaves the scheduling queue; a member whose binding fails is
// unreserved, forgotten and handed to the scheduler's failure handler, which puts it back in
// the queue as a failed binding cycle would.
package gangcycle

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/profile"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

var _ gangplugin.Binder = (*Binder)(nil)

// Binder is gangplugin.Binder on a running kube-scheduler.
type Binder struct {
	// ctx is the scheduler's: a binding outlives the cycle that started it.
	ctx      context.Context
	cache    internalcache.Cache
	queue    internalqueue.SchedulingQueue
	profiles profile.Map
	failure  scheduler.FailureHandlerFn
	// slots bounds the members in PreBind and Bind at once (MaxConcurrentBinds).
	slots chan struct{}
}

// MaxConcurrentBinds is how many members the Binder has in PreBind and Bind at once. A gang's
// members are sent to binding together; 512 binds at once exceed what one HTTP/2 connection
// to the API server carries (its streams, 250 by default), and the client then dials a new TLS
// connection for nearly every waiting request: a gang of 512 spent about a second in hundreds of
// TLS handshakes (goroutine dumps of make perf's 512-member gang: 419 binds waiting for a
// stream, 320 dials in progress). Below the stream limit they share the open connection. A
// client binding the same 512 pods with no scheduler (the perf harness's client-binds
// configurations, one run each, 2026-12-07): 1,483 pods/s with 32 binds in flight, 1,470 with
// 128, 991 with 512.
const MaxConcurrentBinds = 128

// Usable reports why sched cannot have a Binder ("" when it can): extenders filter and bind
// outside the framework, and NominatedNodeNameForExpectation writes each member's nominated
// node in its own binding cycle; with either, members keep their own cycles.
func Usable(sched *scheduler.Scheduler) string {
	switch {
	case len(sched.Extenders) > 0:
		return "the scheduler has extenders"
	case utilfeature.DefaultFeatureGate.Enabled(features.NominatedNodeNameForExpectation):
		return "NominatedNodeNameForExpectation is on"
	}
	return ""
}

// New returns the Binder of sched; ctx is the scheduler's (bindings run until it ends).
func New(ctx context.Context, sched *scheduler.Scheduler, opts ...Option) *Binder {
	b := &Binder{ctx: ctx, cache: sched.Cache, queue: sched.SchedulingQueue, profiles: sched.Profiles, failure: sched.FailureHandler,
		slots: make(chan struct{}, MaxConcurrentBinds)}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Option configures a Binder.
type Option func(*Binder)

// WithMaxConcurrentBinds sets how many members the Binder has in PreBind and Bind at once
// (MaxConcurrentBinds when not given; at least 1).
func WithMaxConcurrentBinds(n int) Option {
	return func(b *Binder) { b.slots = make(chan struct{}, max(n, 1)) }
}

// member is a gang member taken by the Binder: assumed on node, reserved.
type member struct {
	info  *framework.QueuedPodInfo // the queue's, copied, with the node set
	node  string
	state *framework.CycleState
	start time.Time
}

// BindPlanned implements gangplugin.Binder.
func (b *Binder) BindPlanned(ctx context.Context, profileName string, placed gangplugin.Placement, members []gangplugin.Placement) int {
	fw, ok := b.profiles[profileName]
	if !ok {
		return 0
	}
	logger := klog.FromContext(ctx)
	// The pods each node holds in this cycle beyond the snapshot: the members placed on it.
	onNode := map[string][]*v1.Pod{placed.Node: {placed.Pod}}
	taken := make([]*member, 0, len(members))
	for _, m := range members {
		t, why := b.take(ctx, fw, m, onNode[m.Node])
		if t == nil {
			logger.V(2).Info("Gang member left to its own cycle", "pod", klog.KObj(m.Pod), "node", m.Node, "reason", why)
			break
		}
		taken = append(taken, t)
		onNode[m.Node] = append(onNode[m.Node], t.info.Pod)
	}
	for _, t := range taken {
		waits, st := fw.RunPermitPlugins(ctx, t.state, t.info.Pod, t.node)
		switch {
		case st.IsWait():
			fw.AddWaitingPod(t.info.Pod, waits)
		case !st.IsSuccess():
			b.fail(fw, t, st)
			continue
		}
		go b.bind(fw, t)
	}
	return len(taken)
}

// take runs m's cycle up to Reserve on its planned node and takes it out of the queue; nil
// and the reason when m is not to be taken (nothing of it is then left assumed or reserved).
func (b *Binder) take(ctx context.Context, fw framework.Framework, m gangplugin.Placement, coPlaced []*v1.Pod) (*member, string) {
	logger := klog.FromContext(ctx)
	queued, ok := b.queue.GetPod(m.Pod.Name, m.Pod.Namespace, m.Pod.Spec.SchedulingGroup)
	switch {
	case !ok:
		return nil, "not in the scheduling queue"
	case queued.Pod.UID != m.Pod.UID:
		return nil, "recreated since the pass"
	case queued.Gated():
		return nil, "gated in the scheduling queue"
	case queued.Pod.Spec.NodeName != "" || queued.Pod.DeletionTimestamp != nil:
		return nil, "bound or being deleted"
	}
	if assumed, err := b.cache.IsAssumedPod(queued.Pod); err != nil || assumed {
		return nil, "already assumed"
	}
	info := queued.DeepCopy()
	pod := info.Pod
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	res, st, _ := fw.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		return nil, "PreFilter: " + st.Message()
	}
	if res != nil && !res.AllNodes() && !res.NodeNames.Has(m.Node) {
		return nil, "PreFilter leaves out the planned node"
	}
	ni, err := fw.SnapshotSharedLister().NodeInfos().Get(m.Node)
	if err != nil {
		return nil, fmt.Sprintf("planned node: %v", err)
	}
	view := ni.Snapshot()
	for _, co := range coPlaced {
		pi, err := framework.NewPodInfo(co)
		if err != nil {
			return nil, fmt.Sprintf("member placed before it: %v", err)
		}
		view.AddPodInfo(pi)
	}
	if st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, view); !st.IsSuccess() {
		return nil, "Filter on the planned node: " + st.Message()
	}
	pod.Spec.NodeName = m.Node
	if utilfeature.DefaultFeatureGate.Enabled(features.DRANodeAllocatableResources) {
		pod.Status.NodeAllocatableResourceClaimStatuses = dynamicresources.ExtractPodNodeAllocatableResourceClaimStatus(logger, state, m.Node)
	}
	if err := b.cache.AssumePod(logger, pod); err != nil {
		return nil, fmt.Sprintf("assume: %v", err)
	}
	b.queue.DeleteNominatedPodIfExists(pod)
	if st := fw.RunReservePluginsReserve(ctx, state, pod, m.Node); !st.IsSuccess() {
		fw.RunReservePluginsUnreserve(ctx, state, pod, m.Node)
		if err := b.cache.ForgetPod(logger, pod); err != nil {
			logger.Error(err, "Forgetting a gang member whose Reserve failed", "pod", klog.KObj(pod))
		}
		return nil, "Reserve: " + st.Message()
	}
	// Its attempt is this one: the queue counts attempts at its pop, which it now never has.
	info.Attempts++
	now := time.Now()
	if info.InitialAttemptTimestamp == nil {
		info.InitialAttemptTimestamp = &now
	}
	b.queue.Delete(logger, queued.Pod)
	return &member{info: info, node: m.Node, state: state, start: now}, ""
}

// bind is t's binding cycle, as kube-scheduler's (bindingCycle), on the scheduler's context.
func (b *Binder) bind(fw framework.Framework, t *member) {
	ctx := b.ctx
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(t.info.Pod))
	ctx = klog.NewContext(ctx, logger)
	schedmetrics.Goroutines.WithLabelValues(schedmetrics.Binding).Inc()
	defer schedmetrics.Goroutines.WithLabelValues(schedmetrics.Binding).Dec()
	pod := t.info.Pod
	if st := fw.WaitOnPermit(ctx, pod); !st.IsSuccess() {
		b.fail(fw, t, st)
		return
	}
	select {
	case b.slots <- struct{}{}:
		defer func() { <-b.slots }()
	case <-ctx.Done():
		b.fail(fw, t, fwk.AsStatus(context.Cause(ctx)))
		return
	}
	bindCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// A pod in PreBind can be preempted: the preemptor cancels it through this entry.
	fw.AddPodInPreBind(pod.UID, cancel)
	defer fw.RemovePodInPreBind(pod.UID)
	if st := fw.RunPreBindPlugins(bindCtx, t.state, pod, t.node); !st.IsSuccess() {
		b.fail(fw, t, st)
		return
	}
	if inPreBind := fw.GetPodInPreBind(pod.UID); inPreBind != nil && !inPreBind.MarkPrebound() {
		b.fail(fw, t, fwk.AsStatus(context.Cause(bindCtx)))
		return
	}
	if st := fw.RunBindPlugins(bindCtx, t.state, pod, t.node); !st.IsSuccess() {
		logger.V(1).Info("Failed to bind pod")
		b.fail(fw, t, st)
		return
	}
	fw.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, t.node)
	logger.V(2).Info("Successfully bound pod to node", "node", t.node, "boundWithGang", true)
	schedmetrics.PodScheduled(fw.ProfileName(), schedmetrics.SinceInSeconds(t.start))
	schedmetrics.PodSchedulingAttempts.Observe(float64(t.info.Attempts))
	schedmetrics.PodSchedulingSLIDuration.WithLabelValues(attemptsLabel(t.info.Attempts)).Observe(schedmetrics.SinceInSeconds(*t.info.InitialAttemptTimestamp))
	fw.RunPostBindPlugins(ctx, t.state, pod, t.node)
	if toActivate, err := t.state.Read(framework.PodsToActivateKey); err == nil {
		if m := toActivate.(*framework.PodsToActivate).Map; len(m) > 0 {
			b.queue.Activate(logger, m)
		}
	}
}

// fail undoes t's Reserve and assumption and hands it to the scheduler's failure handler,
// which records the failure on the pod and puts it back in the queue (after its back-off),
// as kube-scheduler does for a failed binding cycle. The status goes as an error: the queue's
// hints for a rejection read the events of the pod's time in flight, which a member taken from
// the queue never had.
func (b *Binder) fail(fw framework.Framework, t *member, st *fwk.Status) {
	ctx := b.ctx
	logger := klog.FromContext(ctx)
	pod := t.info.Pod
	fw.RunReservePluginsUnreserve(ctx, t.state, pod, t.node)
	if err := b.cache.ForgetPod(logger, pod); err != nil {
		logger.Error(err, "Forgetting a gang member whose binding failed", "pod", klog.KObj(pod))
	} else {
		// Its room is free again, as if it had been deleted.
		b.queue.MoveAllToActiveOrBackoffQueue(logger, framework.EventAssignedPodDelete, pod, nil, func(p *v1.Pod) bool { return p.UID != pod.UID })
	}
	err := fmt.Errorf("binding with its gang's quorum on %s: %s", t.node, st.Message())
	b.failure(ctx, fw, t.info, fwk.AsStatus(err), &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride}, t.start)
}

// attemptsLabel is kube-scheduler's label of attempts (getAttemptsLabel): capped at 15+.
func attemptsLabel(n int) string {
	if n >= 15 {
		return "15+"
	}
	return fmt.Sprint(n)
}
