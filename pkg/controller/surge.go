package controller

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/surge"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// ReasonInsufficientCapacity is the reason of SurgeBlocked=True.
const ReasonInsufficientCapacity = "InsufficientCapacity"

// admitSurges asks the surge admitter about every surge member the plan would create and
// returns the units whose surge does not fit, with the admitter's message. A unit is checked
// as a whole (all its new surge members together); the controller then plans again with
// those units' surge blocked, so that no doomed surge member is ever created.
func (c *Controller) admitSurges(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed, ro *rollout) (map[string]string, error) {
	type member struct {
		unit  string
		index int
		// check is what the member is checked with: its unit, or under Coherent the slices
		// of its PodCliqueSet replica (a surge slice is checked whole).
		check string
	}
	var members []member
	for _, a := range ro.plan.Actions {
		if a.Type == update.Create && a.Surge {
			check := a.Unit
			if a.Slice != nil {
				check = coherentUnitName(pcs.Name, a.Slice.Replica)
			}
			members = append(members, member{a.Unit, a.Index, check})
		}
	}
	if len(members) == 0 {
		return nil, nil
	}
	want := c.desiredOf(pcs.Namespace+"/"+pcs.Name).Desired(pcs, ro.observed(obs))
	gangs := map[string]gang.Spec{}
	for _, g := range want.PodGangs {
		gangs[g.Name] = gang.SpecFromPodGang(g)
	}
	byUnit := map[string][]*corev1.Pod{}
	var what = map[string][]string{}
	for _, m := range members {
		for _, p := range want.Pods {
			if obs.pods[p.Name] != nil || !isMemberPod(p, m.unit, m.index) {
				continue
			}
			byUnit[m.check] = append(byUnit[m.check], p)
		}
		idx := strconv.Itoa(m.index)
		if m.check != m.unit {
			idx = m.unit + "[" + idx + "]"
		}
		what[m.check] = append(what[m.check], idx)
	}
	blocked := map[string]string{}
	for _, unit := range sortedUnits(byUnit) {
		pods := byUnit[unit]
		name := fmt.Sprintf("surge %s[%s]", unit, strings.Join(what[unit], ","))
		for _, req := range surgeRequests(name, pods, gangs, obs) {
			v, err := c.admitter.AdmitSurge(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("surge admission for %s: %w", name, err)
			}
			if !v.Fits {
				metrics.SurgeAdmissions.WithLabelValues("blocked").Inc()
				blocked[unit] = v.Message
				klog.FromContext(ctx).V(2).Info("Surge blocked", "podCliqueSet", klog.KObj(pcs), "unit", unit, "message", v.Message)
				break
			}
		}
		if _, refused := blocked[unit]; !refused {
			metrics.SurgeAdmissions.WithLabelValues("granted").Inc()
		}
	}
	return blocked, nil
}

// isMemberPod reports whether p belongs to the surge member index of unit: a pod of a
// standalone clique, a replica of a scaling group, or a PodCliqueSet replica.
func isMemberPod(p *corev1.Pod, unit string, index int) bool {
	switch {
	case unit == replicasUnitName:
		return p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == strconv.Itoa(index)
	case p.Labels[grovev1.LabelPodCliqueScalingGroup] == unit:
		return p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == strconv.Itoa(index)
	default:
		// By labels, not name: an adopted pod keeps the name another operator gave it.
		return p.Labels[grovev1.LabelPodClique] == unit && p.Labels[grovev1.LabelPodCliquePodIndex] == strconv.Itoa(index)
	}
}

// surgeRequests splits a surge member's pods into admission requests: one request for all of
// them unless some of their gangs pack into a topology domain, then one per gang (each with
// its packing label and the nodes where the gang already runs, or with its packing levels).
func surgeRequests(what string, pods []*corev1.Pod, gangs map[string]gang.Spec, obs *observed) []surge.Request {
	byGang := map[string][]*corev1.Pod{}
	levels := map[string][]gang.Level{}
	packed := false
	for _, p := range pods {
		g := workload.GangOf(p.Labels)
		if _, seen := byGang[g]; !seen {
			spec := gangs[g]
			levels[g] = spec.Levels()
			packed = packed || spec.Pack.Required != "" || len(levels[g]) > 0
		}
		byGang[g] = append(byGang[g], p)
	}
	if !packed {
		return []surge.Request{{What: what, Pods: pods}}
	}
	var out []surge.Request
	for _, g := range sortedUnits(byGang) {
		req := surge.Request{What: what, Pods: byGang[g], PackDomain: gangs[g].Pack.Required}
		for _, p := range obs.pods {
			if workload.GangOf(p.Labels) == g && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				req.AnchorNodes = append(req.AnchorNodes, p.Spec.NodeName)
			}
		}
		sort.Strings(req.AnchorNodes)
		if len(levels[g]) > 0 {
			packLevels(&req, gangs[g], levels[g], obs)
		}
		out = append(out, req)
	}
	return out
}

// packLevels gives req the packing levels of gang spec (spec.Levels()): the podgroup of each
// of its pods and the gang's members on nodes (which fix their levels' domains).
func packLevels(req *surge.Request, spec gang.Spec, levels []gang.Level, obs *observed) {
	groupOf := map[string]int{}
	for i, pg := range spec.PodGroups {
		for _, name := range pg.Pods {
			groupOf[name] = i
		}
	}
	req.Levels, req.Groups = levels, map[string]int{}
	for _, p := range req.Pods {
		if g, ok := groupOf[p.Name]; ok {
			req.Groups[p.Name] = g
		}
	}
	for name, p := range obs.pods {
		g, ok := groupOf[name]
		if ok && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			req.Placed = append(req.Placed, gang.TopoMember{Name: name, Group: g, Requests: gang.RequestsOf(p), Node: p.Spec.NodeName})
		}
	}
	sort.Slice(req.Placed, func(i, j int) bool { return req.Placed[i].Name < req.Placed[j].Name })
}

func sortedUnits[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// surgeCondition is SurgeBlocked for the pass: True with the missing capacity and what the
// update does meanwhile, False when no surge waits.
func surgeCondition(pcs *grovev1.PodCliqueSet, ro *rollout, now metav1.Time) metav1.Condition {
	c := metav1.Condition{Type: grovev1.ConditionSurgeBlocked, ObservedGeneration: pcs.Generation, LastTransitionTime: now,
		Status: metav1.ConditionFalse, Reason: "NoSurgeWaiting", Message: "no surge member is waiting for capacity"}
	if len(ro.surgeBlocked) == 0 {
		return c
	}
	var parts []string
	for _, unit := range sortedUnits(ro.surgeBlocked) {
		then := "maxUnavailable is 0, so the update waits and resumes by itself when capacity appears (or allow maxUnavailable >= 1 to update without surge)"
		if ro.unavailable[unit] > 0 {
			then = fmt.Sprintf("the update goes on within maxUnavailable %d instead", ro.unavailable[unit])
		}
		parts = append(parts, fmt.Sprintf("%s; %s", ro.surgeBlocked[unit], then))
	}
	c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonInsufficientCapacity, strings.Join(parts, ". ")
	return c
}

// surgeBlockedNow reports whether the stored status says a surge waits (for the node handler).
func surgeBlockedNow(pcs *grovev1.PodCliqueSet) bool {
	return meta.IsStatusConditionTrue(pcs.Status.Conditions, grovev1.ConditionSurgeBlocked)
}
