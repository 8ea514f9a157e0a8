// Package podgang is the PodGang scheduler plugin: a thin adapter from the scheduling
// framework's hooks to the gang rules of pkg/gang. Gangs are scheduler.grove.io PodGangs
// (pods labelled grove.io/podgang) or, through the same engine, scheduling.x-k8s.io
// PodGroups (pods labelled scheduling.x-k8s.io/pod-group).
//
// State lives in a gang.Store fed by informers; the plugin keeps only timers for back-off
// wake-ups and a status writer.
package podgang

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/client/informers/externalversions"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
)

// Name is the plugin name in scheduler profiles.
const Name = "PodGang"

// stateKey is where PreFilter leaves what Score needs.
const stateKey fwk.StateKey = Name

// Plugin is the PodGang plugin.
type Plugin struct {
	handle fwk.Handle
	store  *gang.Store
	args   config.PodGangArgs
	status *statusWriter

	timersMu sync.Mutex
	timers   map[gang.Key]*time.Timer
}

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.QueueSortPlugin   = &Plugin{}
	_ fwk.PreFilterPlugin   = &Plugin{}
	_ fwk.PostFilterPlugin  = &Plugin{}
	_ fwk.ScorePlugin       = &Plugin{}
	_ fwk.ReservePlugin     = &Plugin{}
	_ fwk.PermitPlugin      = &Plugin{}
	_ fwk.PostBindPlugin    = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
)

// New builds the plugin: it validates its args, starts a PodGang informer and hooks the
// scheduler's pod informer into the gang store.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	store := gang.NewStore(gang.Membership{SurgeLabel: args.SurgeLabelKey}, time.Now)
	// The scheduler's client config asks for protobuf, which custom resources do not speak.
	cfg := rest.CopyConfig(h.KubeConfig())
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: creating the PodGang client: %w", Name, err)
	}
	factory := externalversions.NewSharedInformerFactory(client, 0)
	gangs := factory.Scheduler().V1alpha1().PodGangs()
	p := &Plugin{handle: h, store: store, args: args, timers: map[gang.Key]*time.Timer{}}
	p.status = newStatusWriter(client, gangs.Lister(), store, h.EventRecorder())

	if _, err := gangs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.onPodGang(obj) },
		UpdateFunc: func(_, obj any) { p.onPodGang(obj) },
		DeleteFunc: func(obj any) { p.onPodGangDelete(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := h.SharedInformerFactory().Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.onPod(obj) },
		UpdateFunc: func(_, obj any) { p.onPod(obj) },
		DeleteFunc: func(obj any) { p.onPodDelete(obj) },
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("%s: informer for %v did not sync", Name, typ)
		}
	}
	go p.status.run(ctx)
	klog.FromContext(ctx).Info("PodGang plugin ready", "permitTimeout", args.PermitWaitingTime(), "backoff", args.Backoff(), "surgeLabel", args.SurgeLabelKey)
	return p, nil
}

func decodeArgs(obj runtime.Object) (config.PodGangArgs, error) {
	args := config.PodGangArgs{}
	switch a := obj.(type) {
	case nil:
	case *config.PodGangArgs:
		args = *a.DeepCopy()
	default:
		return args, fmt.Errorf("%s: want args of type PodGangArgs, got %T", Name, obj)
	}
	config.SetDefaultsPodGangArgs(&args)
	if errs := config.ValidatePodGangArgs(nil, &args); len(errs) > 0 {
		return args, fmt.Errorf("%s: invalid args: %w", Name, errs.ToAggregate())
	}
	return args, nil
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

// Store exposes the gang store (for the surge-admission check and tests).
func (p *Plugin) Store() *gang.Store { return p.store }

// PreEnqueue keeps a gang member out of the active queue until its gang can be attempted:
// the gang exists, its base is established (scaled gangs), it is established (surge members),
// and each podgroup has minReplicas members present and ungated.
func (p *Plugin) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	ok, wait := p.store.Admit(pod)
	if ok {
		return nil
	}
	if k, isMember := p.store.Membership().KeyOf(pod); isMember {
		p.setWait(k, wait)
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, wait.Message)
}

// Less orders the queue by priority, then gang creation time, gang name and member index, so
// that the members of one gang are popped together. Pods without a gang use their queue
// time and name in place of the gang's.
func (p *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	if pa, pb := a.GetPriority(), b.GetPriority(); pa != pb {
		return pa > pb
	}
	podA, podB := podOf(a), podOf(b)
	if podA == nil || podB == nil {
		return a.GetTimestamp().Before(b.GetTimestamp())
	}
	ta, nsA, nameA, ia := p.sortKey(a, podA)
	tb, nsB, nameB, ib := p.sortKey(b, podB)
	switch {
	case !ta.Equal(tb):
		return ta.Before(tb)
	case nsA != nsB:
		return nsA < nsB
	case nameA != nameB:
		return nameA < nameB
	}
	return ia < ib
}

func (p *Plugin) sortKey(e fwk.QueuedEntityInfo, pod *v1.Pod) (time.Time, string, string, int) {
	if t, name, idx, ok := p.store.SortKey(pod); ok {
		return t, pod.Namespace, name, idx
	}
	return e.GetTimestamp(), pod.Namespace, pod.Name, 0
}

func podOf(e fwk.QueuedEntityInfo) *v1.Pod {
	if pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo }); ok && pi.GetPodInfo() != nil {
		return pi.GetPodInfo().GetPod()
	}
	return nil
}

// PreFilter rejects members of a gang in back-off, and a gang whose members still to be
// placed cannot fit into the free capacity of the cluster (or of any domain of its required
// packing label) before any member holds resources. With required packing it narrows the
// nodes to the gang's domain.
func (p *Plugin) PreFilter(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	k, ok := p.store.UpsertPod(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	if left, why := p.store.Backoff(k); left > 0 {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("%s backs off for %s after: %s", k, left.Round(100*time.Millisecond), why))
	}
	spec, _ := p.store.Spec(k)
	cs := &cycleState{gpus: gang.RequestsOf(pod).GPU, preferredKey: spec.Pack.Preferred}
	state.Write(stateKey, cs)
	reject := func(reason, msg string) (*fwk.PreFilterResult, *fwk.Status) {
		cs.gangRejected = true
		p.setWait(k, gang.Wait{Reason: reason, Message: msg})
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
	}
	if !p.store.Membership().IsSurge(pod) {
		if need, n := p.store.PendingNeed(k); n > 0 {
			if free := freeCapacity(nodes); !free.Fits(need) {
				return reject(gang.ReasonInsufficient,
					fmt.Sprintf("%s cannot fit its %d unplaced members into the cluster: %s", k, n, free.Shortfall(need)))
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
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// PostFilter runs when a member fits no node. Unless the member is a surge member or its gang
// already holds its quorum bound, the gang is released as a whole: waiting siblings are
// rejected at once, so that an incomplete gang never sits on GPUs. A member that the Filter
// plugins rejected also puts its gang in back-off; a gang that PreFilter found too big waits
// for capacity events instead, keeping the reason PreFilter gave.
func (p *Plugin) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	k, ok := p.store.Membership().KeyOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	if p.store.Membership().IsSurge(pod) || p.store.QuorumBound(k) {
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: member placed on its own does not fit", k))
	}
	if raw, err := state.Read(stateKey); err == nil && raw.(*cycleState).gangRejected {
		p.rejectWaiting(k, "the gang does not fit as a whole")
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s does not fit as a whole", k))
	}
	msg := fmt.Sprintf("member %s fits no node (see its FailedScheduling event); the gang is released and retried as a whole", pod.Name)
	p.releaseGang(ctx, k, gang.ReasonMemberUnschedulable, msg)
	return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s: %s", k, msg))
}

// Reserve records that the member holds a node.
func (p *Plugin) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	p.store.Assume(pod, node)
	return nil
}

// Unreserve runs when a reserved member is rejected (Permit timeout, a sibling's failure, a
// failed bind). An incomplete gang is released as a whole and backs off.
func (p *Plugin) Unreserve(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	p.store.Forget(pod)
	k, ok := p.store.Membership().KeyOf(pod)
	if !ok || p.store.Membership().IsSurge(pod) || p.store.QuorumBound(k) {
		return
	}
	p.releaseGang(ctx, k, gang.ReasonPermitTimeout,
		fmt.Sprintf("member %s was released before the gang reached its quorum (%s); the gang is retried as a whole", pod.Name, p.store.QuorumProgress(k)))
}

// Permit holds a member until its gang's quorum (bound + assumed non-surge members in every
// podgroup) is reached, then lets every waiting member go. Surge members of an established
// gang go at once and never wait.
func (p *Plugin) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	k, ok := p.store.Membership().KeyOf(pod)
	if !ok {
		return nil, 0
	}
	if p.store.Membership().IsSurge(pod) {
		if p.store.Established(k) {
			return nil, 0
		}
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("surge member waits until %s is established", k)), 0
	}
	if p.store.QuorumMet(k) {
		p.allowWaiting(k)
		p.setWait(k, gang.Wait{})
		return nil, 0
	}
	timeout := p.args.PermitWaitingTime()
	if spec, ok := p.store.Spec(k); ok && spec.ScheduleTimeout > 0 {
		timeout = spec.ScheduleTimeout
	}
	p.setWait(k, gang.Wait{Reason: gang.ReasonWaitingForMembers,
		Message: fmt.Sprintf("placed members wait for the quorum: %s", p.store.QuorumProgress(k))})
	return fwk.NewStatus(fwk.Wait, fmt.Sprintf("waiting for the quorum of %s", k)), timeout
}

// PostBind records the bind; the bind that completes the quorum establishes the gang.
func (p *Plugin) PostBind(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, node string) {
	k, ok := p.store.Membership().KeyOf(pod)
	if !ok {
		return
	}
	if p.store.MarkBound(pod, node) {
		klog.FromContext(ctx).V(2).Info("Gang established", "gang", k.String(), "nodes", len(p.store.PlacedNodes(k)))
		p.status.established(k)
	}
	p.status.enqueue(k)
}

// allowWaiting lets every member of the gang that waits in Permit go.
func (p *Plugin) allowWaiting(k gang.Key) {
	m := p.store.Membership()
	p.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if wk, ok := m.KeyOf(wp.GetPod()); ok && wk == k {
			wp.Allow(Name)
		}
	})
}

// rejectWaiting rejects every member of the gang that waits in Permit.
func (p *Plugin) rejectWaiting(k gang.Key, msg string) {
	m := p.store.Membership()
	p.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if wk, ok := m.KeyOf(wp.GetPod()); ok && wk == k {
			wp.Reject(Name, msg)
		}
	})
}

// releaseGang rejects the gang's waiting members, starts its back-off and schedules the
// members' return to the active queue when the back-off ends.
func (p *Plugin) releaseGang(ctx context.Context, k gang.Key, reason, msg string) {
	p.rejectWaiting(k, msg)
	p.setWait(k, gang.Wait{Reason: reason, Message: msg})
	d := p.args.Backoff()
	if !p.store.StartBackoff(k, d, msg) {
		return
	}
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
		pods := map[string]*v1.Pod{}
		for _, pod := range p.store.PendingPods(k) {
			pods[pod.Name] = pod
		}
		if len(pods) > 0 {
			p.handle.Activate(logger, pods)
		}
	})
}

func (p *Plugin) setWait(k gang.Key, w gang.Wait) {
	if p.store.SetWait(k, w) {
		p.status.enqueue(k)
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

func (p *Plugin) onPodGang(obj any) {
	if pg := toPodGang(obj); pg != nil {
		spec := gang.SpecFromPodGang(pg)
		p.store.SetSpec(spec)
		p.status.enqueue(spec.Key)
	}
}

func (p *Plugin) onPodGangDelete(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if pg := toPodGang(obj); pg != nil {
		p.store.DeleteSpec(gang.Key{Kind: gang.KindPodGang, Namespace: pg.Namespace, Name: pg.Name})
	}
}

func (p *Plugin) onPod(obj any) {
	if pod, ok := obj.(*v1.Pod); ok {
		if k, ok := p.store.UpsertPod(pod); ok {
			p.status.enqueue(k)
		}
	}
}

func (p *Plugin) onPodDelete(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if pod, ok := obj.(*v1.Pod); ok {
		p.store.DeletePod(pod)
		if k, ok := p.store.Membership().KeyOf(pod); ok {
			p.status.enqueue(k)
		}
	}
}
