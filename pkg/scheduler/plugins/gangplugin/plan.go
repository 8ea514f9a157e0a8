package gangplugin

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// Planner finds one node for each of a gang's pods against one view of the cluster, the pods
// placed earlier in the pass counting on their nodes for the later ones. It assumes, reserves
// and binds nothing. pkg/scheduler/gangplan implements it with the profile's own plugins.
type Planner interface {
	Plan(ctx context.Context, in PlanInput) (PlanResult, error)
	// Plans reports whether the planner judges pod as its own cycle would (it runs every
	// plugin the pod's Filter depends on): a gang with a member it does not plan is placed
	// member by member.
	Plans(pod *v1.Pod) bool
}

// PlanInput is one planning pass.
type PlanInput struct {
	// Snapshot is the scheduling cycle's snapshot, which Nodes come from.
	Snapshot fwk.SharedLister
	// Pods are placed in this order.
	Pods []*v1.Pod
	// Nodes are the candidates (the gang's required packing domain, or every node).
	Nodes []fwk.NodeInfo
	// Filter is the gang plugin's own check of a node (capacity held for replacements); nil
	// for none.
	Filter func(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status
	// Evicted are bound pods the pass treats as gone (preemption victims being weighed):
	// their nodes are copied without them, the PreFilter state of every pod of the pass
	// discounts them, and the devices of the ResourceClaims only they reserve count as free.
	// The snapshot is not written.
	Evicted []*v1.Pod
	// Freed are allocated ResourceClaims whose devices the pass counts as free: claims of pods
	// already gone, which kube-controller-manager is about to deallocate.
	Freed []*resourceapi.ResourceClaim
	// Claims are ResourceClaims that the pods use and that do not exist yet (a surge member's
	// claims from templates, made by the caller as kube-controller-manager will make them):
	// the pass reads them as existing. Nothing is written.
	Claims []*resourceapi.ResourceClaim
	// Score returns, for a pod of the pass and the nodes of the pods placed before it in the
	// pass, the gang plugin's own score of a node in [0, MaxNodeScore] (GPU bin-packing,
	// preferred packing), which the planner adds with the plugin's weight; nil for none.
	Score func(pod *v1.Pod, placed []fwk.NodeInfo) func(n fwk.NodeInfo) int64
	// Alone: the pass places one pod of no gang (planAlone); the verdicts it keeps are kept
	// apart from the gangs'.
	Alone bool
}

// PlanResult is where a pass put the pods, or which pod fitted nowhere and why.
type PlanResult struct {
	// Nodes maps pod name to node; complete only when Failed is empty.
	Nodes map[string]string
	// Failed is the first pod that fits no node once the ones before it are placed.
	Failed *v1.Pod
	// Reason summarizes the Filter verdicts for Failed ("3× Insufficient nvidia.com/gpu").
	Reason string
}

// planner is the profile's gang planner, nil when it has none (or no Runtime: unit tests).
func (p *Adapter) planner() Planner {
	if p.opts.Runtime == nil {
		return nil
	}
	return p.opts.Runtime.PlannerOf(p.handle)
}

// plannedNode returns the node its gang's plan gives the member, if any.
func (p *Adapter) plannedNode(k gang.Key, pod *v1.Pod) (string, bool) {
	return p.store.PlannedNode(k, pod.Name, p.opts.PermitTimeout)
}

// plan places, in one pass, every member the gang needs for its quorum when pod is one of
// them, and narrows pod's cycle to its node; a gang with no complete placement is released
// before any member holds a node. ok is false when planning has nothing to say (no planner, a
// deficit of one member, a member the quorum does not need, a member the planner does not
// plan: volumes that bind): the cycle then runs over every node as it would without a plan.
func (p *Adapter) plan(ctx context.Context, k gang.Key, pod *v1.Pod, nodes []fwk.NodeInfo, narrowed *fwk.PreFilterResult, cs *cycleState) (result *fwk.PreFilterResult, st *fwk.Status, ok bool) {
	pl := p.planner()
	if pl == nil {
		return nil, nil, false
	}
	pods := p.store.DeficitPods(k)
	if len(pods) < 2 || !containsPod(pods, pod) || !plannable(pl, pods) {
		return nil, nil, false
	}
	// narrowed is the gang's domain: the pack's filter keeps each member to its own levels'.
	cand := candidates(nodes, narrowed)
	in := PlanInput{Snapshot: p.handle.SnapshotSharedLister(), Pods: pods, Nodes: cand, Score: func(pod *v1.Pod, placed []fwk.NodeInfo) func(fwk.NodeInfo) int64 {
		member := &cycleState{gpus: gang.RequestsOf(pod).GPU}
		if cs.pack != nil {
			// A level with no domain prefers where the pass put its first members.
			member.prefs = cs.pack.prefs(pod, func(key string) string { return mostCommon(placed, key) })
		}
		return func(n fwk.NodeInfo) int64 { return gangScore(member, n) }
	}}
	in.Filter = p.holdsFilter()
	if cs.pack != nil {
		in.Filter = cs.pack.filter(in.Filter)
	}
	res, err := pl.Plan(ctx, in)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("planning %s: %w", k, err)), true
	}
	if res.Failed != nil {
		metrics.GangPlans.WithLabelValues(k.Kind.String(), "NoPlacement").Inc()
		// The message names the podgroup and the cause, not the member or the pass's counts
		// of earlier members: it stays the same while the cluster does, so that retries
		// rewrite no status.
		msg := fmt.Sprintf("%s has no placement for the %d members its quorum needs: a member of podgroup %s fits no node (%s); the gang is retried as a whole",
			k, len(pods), p.store.GroupName(res.Failed), res.Reason)
		p.releaseGang(ctx, k, gang.ReasonInsufficient, msg, schedulableNodes(nodes)) // its back-off is what PostFilter sees

		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg), true
	}
	metrics.GangPlans.WithLabelValues(k.Kind.String(), "Placed").Inc()
	p.setPlan(k, res.Nodes)
	for _, m := range pods {
		if m.Name != pod.Name {
			cs.placed = append(cs.placed, Placement{Pod: m, Node: res.Nodes[m.Name]})
		}
	}
	klog.FromContext(ctx).V(4).Info("Gang planned", "gang", k.String(), "members", len(res.Nodes))
	return &fwk.PreFilterResult{NodeNames: sets.New(res.Nodes[pod.Name])}, nil, true
}

// holdsFilter is the planner's check of the holds of other gangs (nil when none is active).
func (p *Adapter) holdsFilter() func(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
	if !p.store.HasActiveHolds() {
		return nil
	}
	return func(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
		st, _ := p.checkHolds(pod, n)
		return st
	}
}

func containsPod(pods []*v1.Pod, pod *v1.Pod) bool {
	for _, p := range pods {
		if p.Name == pod.Name {
			return true
		}
	}
	return false
}

// plannable reports whether the planner (nil: none) plans every one of pods.
func plannable(pl Planner, pods []*v1.Pod) bool {
	if pl == nil {
		return false
	}
	for _, pod := range pods {
		if !pl.Plans(pod) {
			return false
		}
	}
	return true
}
