// Package surgeadmission answers the update controller's surge question (pkg/surge) the way
// the scheduler would: it asks the profile's gang planner (pkg/scheduler/gangplan) to place
// the surge member on a snapshot of the scheduler's cache, honouring required packing and the
// capacity the gang store holds for replacements. It lives beside the scheduler because it is
// a scheduling simulation; the controller sees only the pkg/surge interface.
package surgeadmission

import (
	"context"
	"fmt"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerappconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedulermetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangplan"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/surge"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
)

// FrameworkAdmitter answers surge requests with the profile's gang planner
// (pkg/scheduler/gangplan): the same simulation, with the same PreFilter, Filter and Score
// plugins configured as the profile configures them, that places a gang, on a snapshot of the
// scheduler's cache (bound and assumed pods included). The members of one surge gang are
// placed one after another, competing for the same room; nothing is bound. Calls are
// serialized; each takes a fresh snapshot.
type FrameworkAdmitter struct {
	mu      sync.Mutex
	planner gangplugin.Planner
	refresh func(ctx context.Context) (*internalcache.Snapshot, error)
	// gangs is the profile's gang store: capacity it holds for replacements is not room for
	// a surge (nil: no gang plugin in the profile, or a preview outside the scheduler).
	gangs *gang.Store
	// templates reads the ResourceClaimTemplates surge pods take claims from.
	templates TemplateGetter
}

var _ surge.Admitter = &FrameworkAdmitter{}

// NewFrameworkAdmitter builds the admitter for the scheduler profile named profile, on the
// scheduler's own cache, asking the profile's planner in rt (gangplan.Install gives every
// profile with gang plugins one; a profile without them gets a planner of its own).
func NewFrameworkAdmitter(ctx context.Context, cc *schedulerappconfig.CompletedConfig, sched *scheduler.Scheduler, rt *gangplugin.Runtime, profile string) (*FrameworkAdmitter, error) {
	var base *config.KubeSchedulerProfile
	for i := range cc.ComponentConfig.Profiles {
		if cc.ComponentConfig.Profiles[i].SchedulerName == profile {
			base = &cc.ComponentConfig.Profiles[i]
		}
	}
	h, ok := sched.Profiles[profile]
	if base == nil || !ok {
		return nil, fmt.Errorf("surge admission: no scheduler profile named %q", profile)
	}
	snap := internalcache.NewEmptySnapshot()
	a := &FrameworkAdmitter{planner: rt.PlannerOf(h), gangs: rt.StoreOf(h), refresh: func(ctx context.Context) (*internalcache.Snapshot, error) {
		return snap, sched.Cache.UpdateSnapshot(klog.FromContext(ctx), snap)
	}, templates: templateReader(cc.Client)}
	if a.planner == nil {
		pct := base.PercentageOfNodesToScore
		if pct == nil {
			pct = cc.ComponentConfig.PercentageOfNodesToScore
		}
		pl, err := gangplan.New(ctx, base, pct, frameworkruntime.WithInformerFactory(cc.InformerFactory),
			frameworkruntime.WithClientSet(cc.Client), frameworkruntime.WithKubeConfig(cc.KubeConfig), frameworkruntime.WithSharedCSIManager(h.SharedCSIManager()))
		if err != nil {
			return nil, fmt.Errorf("surge admission: %w", err)
		}
		// Its plugins may have asked for informers nobody started yet.
		cc.InformerFactory.Start(ctx.Done())
		cc.InformerFactory.WaitForCacheSync(ctx.Done())
		a.planner = pl
	}
	return a, nil
}

// NewStaticAdmitter builds an admitter that answers on the world world returns (nodes and
// pods, bound ones on their nodes), with a gang planner of profile: the same check as the
// scheduler's, for previews that run outside it (kubectl phalanx plan).
func NewStaticAdmitter(ctx context.Context, profile *config.KubeSchedulerProfile, kube kubernetes.Interface, world func() ([]*v1.Node, []*v1.Pod)) (*FrameworkAdmitter, error) {
	// The framework records into the scheduler's metrics, which only a scheduler registers.
	schedulermetrics.Register()
	factory := informers.NewSharedInformerFactory(kube, 0)
	pl, err := gangplan.New(ctx, profile, nil, frameworkruntime.WithInformerFactory(factory), frameworkruntime.WithClientSet(kube),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())))
	if err != nil {
		return nil, fmt.Errorf("surge admission: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &FrameworkAdmitter{planner: pl, refresh: func(context.Context) (*internalcache.Snapshot, error) {
		nodes, pods := world()
		return internalcache.NewSnapshot(pods, nodes), nil
	}, templates: templateReader(kube)}, nil
}

// templateReader reads ResourceClaimTemplates from the API server when a surge asks (no cache:
// surges are few, and a missing permission is then a refusal that says so, not a cache that
// never syncs).
func templateReader(kube kubernetes.Interface) TemplateGetter {
	return func(ctx context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
		return kube.ResourceV1().ResourceClaimTemplates(ns).Get(ctx, name, metav1.GetOptions{})
	}
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
	nodes, err := snap.NodeInfos().List()
	if err != nil {
		return surge.Verdict{}, err
	}
	pods := sortedBySize(surge.AsCreated(req.Pods))
	claims, err := withTemplateClaims(ctx, pods, a.templates)
	if err != nil {
		return surge.Verdict{Message: fmt.Sprintf("%s: %v", req.What, err)}, nil
	}
	req.Pods = pods
	filter := a.notHeld
	if len(req.Levels) > 0 {
		// The gang's packing levels: each pod in its podgroup's domains, which the gang's
		// placed members fix (the required gang-level key is one of them).
		pack, msg := packFor(req, nodes)
		if msg != "" {
			return surge.Verdict{Message: fmt.Sprintf("%s: %s", req.What, msg)}, nil
		}
		filter = func(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
			if why := pack.Outside(req.Levels, req.Groups[pod.Name], n.Node().Labels); why != "" {
				return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, why)
			}
			return a.notHeld(pod, n)
		}
		req.PackDomain = ""
	}
	domains := groupByDomain(nodes, req, a.freeOf)
	var reasons []string
	for _, d := range domains {
		ok, why, err := a.placeWith(ctx, snap, pods, claims, d.nodes, filter)
		if err != nil {
			return surge.Verdict{}, err
		}
		if ok {
			return surge.Verdict{Fits: true}, nil
		}
		reasons = append(reasons, why)
	}
	return surge.Verdict{Message: shortfall(req, domains, reasons, a.freeOf)}, nil
}

type domain struct {
	value string
	nodes []fwk.NodeInfo
}

// groupByDomain splits the nodes by req.PackDomain (one domain of all nodes without it),
// keeping only the anchors' domain when there are anchors, largest free GPU count first.
func groupByDomain(nodes []fwk.NodeInfo, req surge.Request, freeOf func([]fwk.NodeInfo, v1.ResourceName) int64) []domain {
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

// place asks the planner to put every pod on nodes, in the given order (largest first), with
// the capacity the gang store holds for replacements kept out. It returns why the first pod
// that fits nowhere does not.
func (a *FrameworkAdmitter) place(ctx context.Context, snap fwk.SharedLister, pods []*v1.Pod, nodes []fwk.NodeInfo) (bool, string, error) {
	return a.placeWith(ctx, snap, pods, nil, nodes, a.notHeld)
}

// placeWith is place with filter in place of the holds check alone.
func (a *FrameworkAdmitter) placeWith(ctx context.Context, snap fwk.SharedLister, pods []*v1.Pod, claims []*resourceapi.ResourceClaim, nodes []fwk.NodeInfo, filter func(*v1.Pod, fwk.NodeInfo) *fwk.Status) (bool, string, error) {
	res, err := a.planner.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: pods, Claims: claims, Nodes: nodes, Filter: filter})
	if err != nil {
		// A plugin failed: that is no answer, not "does not fit" (the pass is retried).
		return false, "", fmt.Errorf("surge admission: %w", err)
	}
	if res.Failed != nil {
		return false, fmt.Sprintf("pod %s fits no node (%s)", res.Failed.Name, res.Reason), nil
	}
	return true, "", nil
}

// notHeld refuses a node whose free capacity, less what the gang store holds there for
// replacements, cannot take pod.
func (a *FrameworkAdmitter) notHeld(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
	if a.gangs == nil {
		return nil
	}
	if held, holds := gangplugin.HeldOn(a.gangs, n, gang.Key{}); len(holds) > 0 && !gangplugin.NodeFree(n).Sub(held).Fits(gang.RequestsOf(pod)) {
		return fwk.NewStatus(fwk.Unschedulable, "capacity held for a replacement")
	}
	return nil
}

const gpu = v1.ResourceName("nvidia.com/gpu")

// withTemplateClaims makes, for pods not created yet, the claims they will get from
// ResourceClaimTemplates (Grove's resourceClaimTemplates) as kube-controller-manager will make
// them once each pod exists: the template's spec, the pod as controlling owner, the name in
// the pod's status. The planner's pass reads them as existing (PlanInput.Claims), so a surge is
// admitted only with devices for every member. A template that does not exist is an error
// that names it: the pod could never start. Such a claim did not exist before the pod, and
// the DRA plugin refuses a pod whose claim does not exist: without them, a surge of such pods
// was never admitted and an update with maxUnavailable 0 waited for ever
// (TestDRATemplateSurgeUpdate).
func withTemplateClaims(ctx context.Context, pods []*v1.Pod, templates TemplateGetter) ([]*resourceapi.ResourceClaim, error) {
	var claims []*resourceapi.ResourceClaim
	for _, p := range pods {
		for _, rc := range p.Spec.ResourceClaims {
			if rc.ResourceClaimTemplateName == nil {
				continue
			}
			if templates == nil {
				return nil, fmt.Errorf("pod %s takes claim %s from ResourceClaimTemplate %s, and surge admission reads no templates", p.Name, rc.Name, *rc.ResourceClaimTemplateName)
			}
			tmpl, err := templates(ctx, p.Namespace, *rc.ResourceClaimTemplateName)
			if err != nil {
				return nil, fmt.Errorf("pod %s takes claim %s from ResourceClaimTemplate %s/%s: %w", p.Name, rc.Name, p.Namespace, *rc.ResourceClaimTemplateName, err)
			}
			if p.UID == "" {
				p.UID = types.UID("surge-admission/" + p.Namespace + "/" + p.Name)
			}
			name := p.Name + "-" + rc.Name
			claim := &resourceapi.ResourceClaim{
				ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: name, UID: types.UID(string(p.UID) + "/" + rc.Name),
					Labels: tmpl.Labels, Annotations: tmpl.Annotations,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
				Spec: *tmpl.Spec.Spec.DeepCopy(),
			}
			claims = append(claims, claim)
			p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: rc.Name, ResourceClaimName: ptr.To(name)})
		}
	}
	return claims, nil
}

// TemplateGetter reads a ResourceClaimTemplate by namespace and name.
type TemplateGetter func(ctx context.Context, namespace, name string) (*resourceapi.ResourceClaimTemplate, error)

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

// freeOf is the allocatable minus requested amount of r over schedulable nodes, less what the
// gang store holds there for replacements: what a surge could take, as place sees it (a count
// that included held capacity explained a refusal with "24 free" when all 24 were held).
func (a *FrameworkAdmitter) freeOf(nodes []fwk.NodeInfo, r v1.ResourceName) int64 {
	var free int64
	for _, n := range nodes {
		if n.Node().Spec.Unschedulable {
			continue
		}
		f := freeOn(n, r)
		if a.gangs != nil && a.gangs.HasActiveHolds() {
			held, _ := gangplugin.HeldOn(a.gangs, n, gang.Key{})
			switch r {
			case gpu:
				f -= held.GPU
			case v1.ResourceCPU:
				f -= held.MilliCPU
			case v1.ResourceMemory:
				f -= held.Memory
			}
		}
		free += max(f, 0)
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
func shortfall(req surge.Request, domains []domain, reasons []string, freeOf func([]fwk.NodeInfo, v1.ResourceName) int64) string {
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

// packFor chooses the domains of req's packing levels for its pods among nodes (free
// capacity as the snapshot has it), its gang's placed members fixing theirs; the message
// names the level that has no room.
func packFor(req surge.Request, nodes []fwk.NodeInfo) (gang.Domains, string) {
	topo := make([]gang.TopoNode, len(nodes))
	for i, n := range nodes {
		topo[i] = gang.TopoNode{Name: n.Node().Name, Labels: n.Node().Labels, Free: gangplugin.NodeFree(n)}
	}
	members := append([]gang.TopoMember(nil), req.Placed...)
	for _, p := range req.Pods {
		if g, ok := req.Groups[p.Name]; ok {
			members = append(members, gang.TopoMember{Name: p.Name, Group: g, Requests: gang.RequestsOf(p)})
		}
	}
	return gang.ChooseDomains(req.Levels, topo, members)
}
