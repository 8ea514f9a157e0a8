package gangplugin

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
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
	// their nodes are copied without them, and the PreFilter state of every pod of the pass
	// discounts them. The snapshot is not written.
	Evicted []*v1.Pod
	// Score returns, for a pod of the pass and the nodes of the pods placed before it in the
	// pass, the gang plugin's own score of a node in [0, MaxNodeScore] (GPU bin-packing,
	// preferred packing), which the planner adds with the plugin's weight; nil for none.
	Score func(pod *v1.Pod, placed []fwk.NodeInfo) func(n fwk.NodeInfo) int64
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
// deficit of one member, a member the quorum does not need, members with volume or device
// claims): the cycle then runs over every node as it would without a plan.
func (p *Adapter) plan(ctx context.Context, k gang.Key, pod *v1.Pod, nodes []fwk.NodeInfo, narrowed *fwk.PreFilterResult, cs *cycleState) (result *fwk.PreFilterResult, st *fwk.Status, ok bool) {
	pl := p.planner()
	if pl == nil {
		return nil, nil, false
	}
	pods := p.store.DeficitPods(k)
	if len(pods) < 2 || !containsPod(pods, pod) || !plannable(pods) {
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
		p.releaseGang(ctx, k, gang.ReasonInsufficient, msg) // its back-off is what PostFilter sees

		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg), true
	}
	metrics.GangPlans.WithLabelValues(k.Kind.String(), "Placed").Inc()
	p.setPlan(k, res.Nodes)
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

// plannable reports whether the planner's plugins judge the pods as their own cycles would.
// The planner runs no volume or device-claim plugins (their Filter keeps per-cycle state in
// the plugin that a second instance cannot share): members with claims or volumes that bind
// are placed member by member.
func plannable(pods []*v1.Pod) bool {
	for _, pod := range pods {
		if len(pod.Spec.ResourceClaims) > 0 {
			return false
		}
		for _, vol := range pod.Spec.Volumes {
			if vol.PersistentVolumeClaim != nil || vol.Ephemeral != nil {
				return false
			}
		}
	}
	return true
}
