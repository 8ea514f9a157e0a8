package gangplugin

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// PlanPlainPods sets whether the profiles place a pod of no gang with their planner (the
// default) or leave it to kube-scheduler's own search in its cycle (--plain-pod-plans=false).
func (r *Runtime) PlanPlainPods(on bool) { r.plainSearch.Store(!on) }

// plansPlainPods reports whether pods of no gang are placed with the planner.
func (r *Runtime) plansPlainPods() bool { return !r.plainSearch.Load() }

// planAlone places a pod of no gang with the profile's planner and narrows its cycle to the
// node found, so that the Filter verdicts of the pods alike before it are not computed again
// on the nodes that did not change since (the planner keeps them while a node's generation
// stands: docs/architecture.md, "Pods of no gang"). The pass runs the profile's own PreFilter,
// Filter, PreScore and Score plugins, with the gang plugin's hold check, over the nodes the
// cycle would search (percentageOfNodesToScore, rotating start), and picks the node with the
// highest weighted score, as the cycle would; the cycle then runs every Filter plugin on that
// node alone and binds there.
//
// ok is false, and the cycle searches every node as kube-scheduler does, when the pass has
// nothing to offer: no planner or plans turned off; a pod nominated to a node (the framework
// tries that node first) or that did not fit at its last attempt (its cycle's own search gives
// the per-node verdicts that preemption weighs and the rejecting plugins whose events wake it
// again); claims or volumes (nothing of theirs is kept across passes); and a pass that found no
// node or failed.
func (p *Adapter) planAlone(ctx context.Context, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, bool) {
	if p.opts.Runtime == nil || !p.opts.Runtime.plansPlainPods() || !alonePlannable(pod) {
		return nil, false
	}
	pl := p.planner()
	if pl == nil || !pl.Plans(pod) {
		return nil, false
	}
	res, err := pl.Plan(ctx, PlanInput{Snapshot: p.handle.SnapshotSharedLister(), Pods: []*v1.Pod{pod}, Nodes: nodes, Filter: p.holdsFilter(), Alone: true})
	switch {
	case err != nil:
		metrics.PlainPodPlans.WithLabelValues("Error").Inc()
		klog.FromContext(ctx).V(2).Info("Planning a pod of no gang failed; searching every node", "pod", klog.KObj(pod), "err", err)
		return nil, false
	case res.Failed != nil:
		metrics.PlainPodPlans.WithLabelValues("NoPlacement").Inc()
		return nil, false
	}
	metrics.PlainPodPlans.WithLabelValues("Placed").Inc()
	return &fwk.PreFilterResult{NodeNames: sets.New(res.Nodes[pod.Name])}, true
}

// alonePlannable reports whether a pod of no gang may be planned (planAlone): not nominated,
// not found unschedulable before (PodScheduled false for another reason than its scheduling
// gates), with no resource claims and no volume claims.
func alonePlannable(pod *v1.Pod) bool {
	if pod.Status.NominatedNodeName != "" || len(pod.Spec.ResourceClaims) > 0 {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason != v1.PodReasonSchedulingGated {
			return false
		}
	}
	return !slices.ContainsFunc(pod.Spec.Volumes, func(v v1.Volume) bool {
		return v.PersistentVolumeClaim != nil || v.Ephemeral != nil
	})
}
