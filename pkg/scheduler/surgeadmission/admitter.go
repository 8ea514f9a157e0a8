// Package surgeadmission answers the update controller's surge question (pkg/surge) the way
// the scheduler would: it runs the profile's own PreFilter and Filter plugins on a snapshot of
// the scheduler's cache, honouring required packing and the capacity the gang store holds for
// replacements. It lives beside the scheduler because it is a scheduling simulation; the
// controller sees only the pkg/surge interface.
package surgeadmission

import (
	"context"
	"fmt"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerappconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedulermetrics "k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangplan"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/surge"
)

// filterPlugins are the in-tree Filter plugins a surge member is checked with: the default
// profile's, without the volume plugins (surge pods get their volumes like any replacement)
// and without the gang plugins (the check is for capacity, not for quorum).
var (
	filterPlugins    = []string{names.NodeUnschedulable, names.NodeName, names.TaintToleration, names.NodeAffinity, names.NodePorts, names.NodeResourcesFit, names.PodTopologySpread, names.InterPodAffinity}
	preFilterPlugins = []string{names.NodeAffinity, names.NodePorts, names.NodeResourcesFit, names.PodTopologySpread, names.InterPodAffinity}
)

// FrameworkAdmitter answers surge requests with the scheduling framework's own Filter plugins,
// configured as the scheduler's profile configures them, on a snapshot of the scheduler's
// cache (bound and assumed pods included). It places the pods one after another on copies of
// the node infos, so that the members of one surge gang compete for the same room, and binds
// nothing. Calls are serialized; each takes a fresh snapshot.
type FrameworkAdmitter struct {
	mu sync.Mutex
	fw framework.Framework
	// lister is what the framework's plugins read; refresh points it at a current snapshot.
	lister  *gangplan.SnapshotLister
	refresh func(ctx context.Context) (*internalcache.Snapshot, error)
	// gangs is the profile's gang store: capacity it holds for replacements is not room for
	// a surge (nil: no gang plugin in the profile, or a preview outside the scheduler).
	gangs *gang.Store
}

var _ surge.Admitter = &FrameworkAdmitter{}

// NewFrameworkAdmitter builds the admitter for the scheduler profile named profile, on the
// scheduler's own cache and its gang store in rt.
func NewFrameworkAdmitter(ctx context.Context, cc *schedulerappconfig.CompletedConfig, sched *scheduler.Scheduler, rt *gangplugin.Runtime, profile string) (*FrameworkAdmitter, error) {
	var base *config.KubeSchedulerProfile
	for i := range cc.ComponentConfig.Profiles {
		if cc.ComponentConfig.Profiles[i].SchedulerName == profile {
			base = &cc.ComponentConfig.Profiles[i]
		}
	}
	if base == nil {
		return nil, fmt.Errorf("surge admission: no scheduler profile named %q", profile)
	}
	lister := &gangplan.SnapshotLister{}
	fw, err := filterFramework(ctx, base, lister, cc.InformerFactory, cc.Client, cc.KubeConfig)
	if err != nil {
		return nil, err
	}
	snap := internalcache.NewEmptySnapshot()
	a := &FrameworkAdmitter{fw: fw, lister: lister, refresh: func(ctx context.Context) (*internalcache.Snapshot, error) {
		return snap, sched.Cache.UpdateSnapshot(klog.FromContext(ctx), snap)
	}}
	if h, ok := sched.Profiles[profile]; ok {
		a.gangs = rt.StoreOf(h)
	}
	return a, nil
}

// NewStaticAdmitter builds an admitter that answers on the world world returns (nodes and
// pods, bound ones on their nodes), with profile's Filter plugins: the same check as the
// scheduler's, for previews that run outside it (kubectl phalanx plan).
func NewStaticAdmitter(ctx context.Context, profile *config.KubeSchedulerProfile, kube kubernetes.Interface, world func() ([]*v1.Node, []*v1.Pod)) (*FrameworkAdmitter, error) {
	// The framework records into the scheduler's metrics, which only a scheduler registers.
	schedulermetrics.Register()
	lister := &gangplan.SnapshotLister{}
	factory := informers.NewSharedInformerFactory(kube, 0)
	fw, err := filterFramework(ctx, profile, lister, factory, kube, nil)
	if err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &FrameworkAdmitter{fw: fw, lister: lister, refresh: func(context.Context) (*internalcache.Snapshot, error) {
		nodes, pods := world()
		return internalcache.NewSnapshot(pods, nodes), nil
	}}, nil
}

// filterFramework is a framework with the profile's Filter plugins (and their PreFilter
// halves) only, reading nodes from lister.
func filterFramework(ctx context.Context, base *config.KubeSchedulerProfile, lister *gangplan.SnapshotLister, factory informers.SharedInformerFactory, kube kubernetes.Interface, kubeConfig *rest.Config) (framework.Framework, error) {
	set := func(ns []string) config.PluginSet {
		var s config.PluginSet
		for _, n := range ns {
			s.Enabled = append(s.Enabled, config.Plugin{Name: n})
		}
		return s
	}
	prof := &config.KubeSchedulerProfile{
		SchedulerName: base.SchedulerName,
		PluginConfig:  base.PluginConfig,
		Plugins: &config.Plugins{
			QueueSort: set([]string{names.PrioritySort}),
			PreFilter: set(preFilterPlugins),
			Filter:    set(filterPlugins),
			Bind:      set([]string{names.DefaultBinder}),
		},
	}
	opts := []frameworkruntime.Option{
		frameworkruntime.WithSnapshotSharedLister(lister),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithClientSet(kube),
		frameworkruntime.WithLogger(klog.FromContext(ctx).WithName("surge-admission")),
	}
	if kubeConfig != nil {
		opts = append(opts, frameworkruntime.WithKubeConfig(kubeConfig))
	}
	fw, err := frameworkruntime.NewFramework(ctx, frameworkplugins.NewInTreeRegistry(), prof, opts...)
	if err != nil {
		return nil, fmt.Errorf("surge admission: building the filter framework: %w", err)
	}
	// Plugins may have asked for informers nobody started yet.
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return fw, nil
}

// AdmitSurge reports whether every pod of req fits the cluster now, in one domain of
// req.PackDomain when set.
func (a *FrameworkAdmitter) AdmitSurge(ctx context.Context, req surge.Request) (surge.Verdict, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(req.Pods) == 0 {
		return surge.Verdict{Fits: true}, nil
	}
	snap, err := a.refresh(ctx)
	if err != nil {
		return surge.Verdict{}, fmt.Errorf("surge admission: snapshot: %w", err)
	}
	a.lister.Cur = snap
	nodes, err := snap.NodeInfos().List()
	if err != nil {
		return surge.Verdict{}, err
	}
	domains := groupByDomain(nodes, req)
	pods := sortedBySize(surge.AsCreated(req.Pods))
	req.Pods = pods
	var reasons []string
	for _, d := range domains {
		ok, why, err := a.place(ctx, pods, d.nodes)
		if err != nil {
			return surge.Verdict{}, err
		}
		if ok {
			return surge.Verdict{Fits: true}, nil
		}
		reasons = append(reasons, why)
	}
	return surge.Verdict{Message: shortfall(req, domains, reasons)}, nil
}

type domain struct {
	value string
	nodes []fwk.NodeInfo
}

// groupByDomain splits the nodes by req.PackDomain (one domain of all nodes without it),
// keeping only the anchors' domain when there are anchors, largest free GPU count first.
func groupByDomain(nodes []fwk.NodeInfo, req surge.Request) []domain {
	if req.PackDomain == "" {
		return []domain{{nodes: nodes}}
	}
	anchors := map[string]bool{}
	for _, n := range nodes {
		for _, a := range req.AnchorNodes {
			if n.Node().Name == a {
				anchors[n.Node().Labels[req.PackDomain]] = true
			}
		}
	}
	byValue := map[string][]fwk.NodeInfo{}
	for _, n := range nodes {
		v, ok := n.Node().Labels[req.PackDomain]
		if !ok || (len(anchors) > 0 && !anchors[v]) {
			continue
		}
		byValue[v] = append(byValue[v], n)
	}
	out := make([]domain, 0, len(byValue))
	for v, ns := range byValue {
		out = append(out, domain{value: v, nodes: ns})
	}
	sort.Slice(out, func(i, j int) bool {
		fi, fj := freeOf(out[i].nodes, gpu), freeOf(out[j].nodes, gpu)
		if fi != fj {
			return fi > fj
		}
		return out[i].value < out[j].value
	})
	return out
}

// place tries to put every pod on a copy of nodes with the Filter plugins, first fit, in the
// given order (largest first). It returns why the first pod that fits nowhere does not.
func (a *FrameworkAdmitter) place(ctx context.Context, pods []*v1.Pod, nodes []fwk.NodeInfo) (bool, string, error) {
	copies := make([]fwk.NodeInfo, len(nodes))
	for i, n := range nodes {
		copies[i] = n.Snapshot()
	}
	type placed struct {
		info fwk.PodInfo
		node fwk.NodeInfo
	}
	var done []placed
	for _, pod := range pods {
		state := framework.NewCycleState()
		res, st, _ := a.fw.RunPreFilterPlugins(ctx, state, pod)
		if st.Code() == fwk.Error {
			// A plugin failed: that is no answer, not "does not fit" (the pass is retried).
			return false, "", fmt.Errorf("PreFilter for surge pod %s: %w", pod.Name, st.AsError())
		}
		if !st.IsSuccess() {
			return false, fmt.Sprintf("pod %s: %s", pod.Name, st.Message()), nil
		}
		for _, p := range done {
			if st := a.fw.RunPreFilterExtensionAddPod(ctx, state, pod, p.info, p.node); !st.IsSuccess() {
				return false, "", st.AsError()
			}
		}
		var fitted fwk.NodeInfo
		counts := map[string]int{}
		for _, n := range copies {
			if res != nil && !res.AllNodes() && !res.NodeNames.Has(n.Node().Name) {
				continue
			}
			st := a.fw.RunFilterPlugins(ctx, state, pod, n)
			if st.Code() == fwk.Error {
				return false, "", fmt.Errorf("Filter for surge pod %s on node %s: %w", pod.Name, n.Node().Name, st.AsError())
			}
			if st.IsSuccess() && a.gangs != nil {
				if held, holds := gangplugin.HeldOn(a.gangs, n, gang.Key{}); len(holds) > 0 &&
					!gangplugin.NodeFree(n).Sub(held).Fits(gang.RequestsOf(pod)) {
					st = fwk.NewStatus(fwk.Unschedulable, "capacity held for a replacement")
				}
			}
			if st.IsSuccess() {
				fitted = n
				break
			}
			for _, r := range st.Reasons() {
				counts[r]++
			}
		}
		if fitted == nil {
			return false, fmt.Sprintf("pod %s fits no node (%s)", pod.Name, gangplan.Summarize(counts)), nil
		}
		bound := pod.DeepCopy()
		bound.Spec.NodeName = fitted.Node().Name
		info, err := framework.NewPodInfo(bound)
		if err != nil {
			return false, "", err
		}
		fitted.AddPodInfo(info)
		done = append(done, placed{info: info, node: fitted})
	}
	return true, "", nil
}

const gpu = v1.ResourceName("nvidia.com/gpu")

func sortedBySize(pods []*v1.Pod) []*v1.Pod {
	out := append([]*v1.Pod(nil), pods...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := requests(out[i]), requests(out[j])
		gi, gj := ri[gpu], rj[gpu]
		if c := gi.Cmp(gj); c != 0 {
			return c > 0
		}
		ci, cj := ri[v1.ResourceCPU], rj[v1.ResourceCPU]
		return ci.Cmp(cj) > 0
	})
	return out
}

func requests(p *v1.Pod) v1.ResourceList {
	return resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
}

// freeOf is the allocatable minus requested amount of r over schedulable nodes.
func freeOf(nodes []fwk.NodeInfo, r v1.ResourceName) int64 {
	var free int64
	for _, n := range nodes {
		if n.Node().Spec.Unschedulable {
			continue
		}
		free += freeOn(n, r)
	}
	return free
}

func freeOn(n fwk.NodeInfo, r v1.ResourceName) int64 {
	alloc, req := n.GetAllocatable(), n.GetRequested()
	switch r {
	case v1.ResourceCPU:
		return alloc.GetMilliCPU() - req.GetMilliCPU()
	case v1.ResourceMemory:
		return alloc.GetMemory() - req.GetMemory()
	}
	return alloc.GetScalarResources()[r] - req.GetScalarResources()[r]
}

// shortfall explains a refusal: the first resource (GPUs first) whose total the best domain
// cannot hold, or else the reason the placement failed in the best domain.
func shortfall(req surge.Request, domains []domain, reasons []string) string {
	need := v1.ResourceList{}
	for _, p := range req.Pods {
		for r, q := range requests(p) {
			cur := need[r]
			cur.Add(q)
			need[r] = cur
		}
	}
	in := ""
	if req.PackDomain != "" {
		in = " in one " + req.PackDomain
		if len(req.AnchorNodes) > 0 && len(domains) > 0 {
			in = fmt.Sprintf(" in %s %s (where its gang runs)", req.PackDomain, domains[0].value)
		}
	}
	for _, r := range []v1.ResourceName{gpu, v1.ResourceCPU, v1.ResourceMemory} {
		q, ok := need[r]
		if !ok || q.IsZero() {
			continue
		}
		amount := q.Value()
		if r == v1.ResourceCPU {
			amount = q.MilliValue()
		}
		var best int64
		if len(domains) > 0 {
			best = freeOf(domains[0].nodes, r)
		}
		if amount <= best {
			continue
		}
		show := func(v int64) string {
			if r == v1.ResourceCPU {
				return resource.NewMilliQuantity(v, resource.DecimalSI).String()
			}
			if r == v1.ResourceMemory {
				return resource.NewQuantity(v, resource.BinarySI).String()
			}
			return fmt.Sprint(v)
		}
		switch {
		case req.PackDomain == "":
			return fmt.Sprintf("%s needs %s %s for %d pod(s); %s free on schedulable nodes", req.What, show(amount), r, len(req.Pods), show(max(best, 0)))
		case len(domains) == 0:
			return fmt.Sprintf("%s needs %s %s for %d pod(s)%s; no node has the label %s", req.What, show(amount), r, len(req.Pods), in, req.PackDomain)
		case len(req.AnchorNodes) > 0:
			return fmt.Sprintf("%s needs %s %s for %d pod(s)%s; it has %s free", req.What, show(amount), r, len(req.Pods), in, show(max(best, 0)))
		default:
			return fmt.Sprintf("%s needs %s %s for %d pod(s)%s; the largest free %s has %s", req.What, show(amount), r, len(req.Pods), in, req.PackDomain, show(max(best, 0)))
		}
	}
	if len(reasons) > 0 {
		return fmt.Sprintf("%s does not fit%s: %s", req.What, in, reasons[0])
	}
	return fmt.Sprintf("%s does not fit%s", req.What, in)
}
