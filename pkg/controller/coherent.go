package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// coherentScope is the set of template cliques an update under Coherent changes: those whose
// template differs from the last complete revision's (in.complete), which stays the same for
// the whole update (the planner's slices must keep every changed component until its last
// slice is made again, after its old members are gone), and those with a pod of another
// template (a template set back to the complete revision, by hand or by rollbackOnFailure,
// moves the members of the abandoned one back in slices). Nil when the strategy is not
// Coherent, or when no complete revision is known (the planner then takes the components with
// a member off the target, above the desired count or missing).
func coherentScope(pcs *grovev1.PodCliqueSet, obs *observed, in rolloutInputs) map[string]bool {
	if !coherent(pcs) || in.complete == nil {
		return nil
	}
	before := workload.TemplateHashes(workload.ReplicaPCS(pcs, map[int]*grovev1.PodCliqueSetTemplateSpec{0: in.complete}, 0))
	scope := map[string]bool{}
	for name, h := range in.hashes {
		if before[name] != h {
			scope[name] = true // a clique the complete revision does not have counts as changed
		}
	}
	for _, p := range obs.pods {
		if clique := p.Labels[workload.LabelCliqueTemplate]; p.Labels[grovev1.LabelPodTemplateHash] != in.hashes[clique] {
			scope[clique] = true
		}
	}
	return scope
}

func coherent(pcs *grovev1.PodCliqueSet) bool {
	return pcs.Spec.UpdateStrategy != nil && pcs.Spec.UpdateStrategy.Type == grovev1.CoherentStrategyType
}

// coherentUnitName names the slices of PodCliqueSet replica r as one unit (in waits, blocked
// surges and the SurgeBlocked condition).
func coherentUnitName(pcs string, r int) string { return fmt.Sprintf("%s-%d-slices", pcs, r) }

// coherentBudgets are the PodCliqueSet-level budgets in slices (grovev1.SetBudgets).
func coherentBudgets(pcs *grovev1.PodCliqueSet) (maxSurge, maxUnavailable intstr.IntOrString) {
	return grovev1.SetBudgets(pcs.Spec.UpdateStrategy)
}

// coherentSet is the Coherent part of the planner's Set: the PodCliqueSet-level budgets in
// slices, each replica's slice unit name and the units in scope (those with a clique in scope;
// nil scope: the planner decides).
func coherentSet(pcs *grovev1.PodCliqueSet, replicas []update.Replica, scope map[string]bool) update.CoherentSet {
	cs := update.CoherentSet{}
	cs.MaxSurge, cs.MaxUnavailable = coherentBudgets(pcs)
	for _, rep := range replicas {
		cs.Names = append(cs.Names, coherentUnitName(pcs.Name, rep.Index))
		if scope == nil {
			continue
		}
		changed := map[string]bool{}
		for _, c := range pcs.Spec.Template.Cliques {
			if scope[c.Name] {
				changed[workload.PodCliqueName(pcs.Name, rep.Index, c.Name)] = true
			}
		}
		for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
			for _, cn := range g.CliqueNames {
				if scope[cn] {
					changed[workload.ScalingGroupName(pcs.Name, rep.Index, g.Name)] = true
				}
			}
		}
		cs.Changed = append(cs.Changed, changed)
	}
	return cs
}

// memberOf is the update member a pod belongs to (workload.MemberOf).
func memberOf(p *corev1.Pod) update.MemberRef { return workload.MemberOf(p.Labels) }

// sliceMembers records, from the plan's slice actions and the pods that carry a slice label,
// which members the desired world puts in which slice gang (ro.sliceGangs, by member key), and
// which slices the update replaces (ro.replacedSlices: member key to the slice gang that will
// hold the capacity its pods free; ro.drainingSlices: those gangs, and the ones whose members
// are still going or gone). A member created alone into a slice (the slice is
// completed) joins its gang only while the slice is in flight (some pod still carries the
// label); a slice that has landed is completed by a member of the regular gangs.
func (ro *rollout) sliceMembers(pcs *grovev1.PodCliqueSet, obs *observed) {
	inFlight := map[string]bool{}
	for _, p := range obs.pods {
		if g := p.Labels[grovev1.LabelCoherentSlice]; g != "" && p.DeletionTimestamp == nil {
			ro.sliceGangs[memberOf(p)] = g
			inFlight[g] = true
		}
	}
	for _, a := range ro.plan.Actions {
		if a.Slice == nil {
			continue
		}
		g := workload.SliceGangName(pcs.Name, a.Slice.Replica, a.Slice.Index)
		key := a.Ref()
		switch {
		case a.Type == update.Create && (a.Slice.Whole || inFlight[g]):
			ro.sliceGangs[key] = g
		case a.Type == update.Delete && !a.Surge:
			ro.replacedSlices[key] = g
			ro.drainingSlices[g] = true
		}
	}
	if p := ro.plan.Coherent; p != nil {
		for _, k := range p.Draining {
			ro.drainingSlices[workload.SliceGangName(pcs.Name, p.Replica, k)] = true
		}
	}
}

// landSlices returns the pods of every coherent slice that has landed to their regular gangs:
// once every pod of a slice gang exists, is bound and Ready, the gang's hold is released and
// the pods' label phalanx.dev/coherent-slice removed, so that the replica's gangs are what they
// are outside an update (the slice gang object goes in the next pass, when no pod names it).
// Surge slices keep their gang: their pods go at the end of the update.
func (a *applier) landSlices(obs *observed, want *workload.World) error {
	pods := obs.podsBy(grovev1.LabelCoherentSlice) // read only
	if len(pods) == 0 {
		return nil // no slice in flight (every pass outside a Coherent update)
	}
	wantCount := map[string]int{}
	for _, g := range want.PodGangs {
		if g.Labels[grovev1.LabelCoherentSlice] == "" {
			continue
		}
		for _, pg := range g.Spec.PodGroups {
			wantCount[g.Name] += len(pg.PodReferences)
		}
	}
	surge := surgeMembers(want)
	for _, g := range slices.Sorted(maps.Keys(pods)) {
		ps := pods[g]
		if g == "" {
			continue
		}
		if len(ps) != wantCount[g] || obs.gangs[g] == nil {
			// Not every member made yet; or the cache does not show the slice gang (a watch
			// re-established after an API server restart): its hold could not be released
			// before its pods leave it.
			continue
		}
		landed := true
		for _, p := range ps {
			landed = landed && p.DeletionTimestamp == nil && p.Spec.NodeName != "" && workload.PodReady(p) && !surge[p.Name]
		}
		if !landed {
			continue
		}
		// The slice gang's hold (the capacity its drained old slice freed) is released first:
		// once its pods leave it, the hold would count nothing as taken back and keep the whole
		// footprint from the next slice until it expired.
		if err := a.releaseHold(obs.gangs[g]); err != nil {
			return err
		}
		for _, p := range ps {
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{grovev1.LabelCoherentSlice: nil}}})
			if _, err := a.c.kube.CoreV1().Pods(a.pcs.Namespace).Patch(a.ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); ignoreNotFound(err) != nil {
				return fmt.Errorf("returning pod %s of the landed slice %s to its regular gang: %w", p.Name, g, err)
			}
		}
		metrics.SlicesLanded.Inc()
		klog.FromContext(a.ctx).V(2).Info("Coherent slice landed", "podCliqueSet", klog.KObj(a.pcs), "slice", g, "pods", len(ps))
		if a.c.recorder != nil {
			a.c.recorder.Eventf(a.pcs, corev1.EventTypeNormal, ReasonSliceLanded, "coherent slice %s is available (%d pods); its pods return to their regular gangs", g, len(ps))
		}
	}
	return nil
}

// releaseHold removes a gang's reservation and the reference to one (a gang that names one
// without carrying it takes the footprint of the named gang as a new hold) when no replacement
// will come for it: before a slice's pods leave its gang (the slice landed), and before a gang
// is deleted for good (no longer wanted: a slice given up by a template set back or a rollback,
// a scale-in). Its hold would otherwise keep the capacity from everyone else until it expired,
// as the lingering hold of a deleted gang too (the scheduler keeps that one for gangs deleted to
// be made again: ReplicaRecreate, which does not come here). Nil is left alone.
func (a *applier) releaseHold(g *schedv1.PodGang) error {
	if g == nil || (g.Annotations[schedv1.AnnotationReservation] == "" && g.Spec.ReuseReservationRef == nil) {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{schedv1.AnnotationReservation: nil}},
		"spec":     map[string]any{"reuseReservationRef": nil},
	})
	if _, err := a.c.client.SchedulerV1alpha1().PodGangs(a.pcs.Namespace).Patch(a.ctx, g.Name, types.MergePatchType, patch, metav1.PatchOptions{}); ignoreNotFound(err) != nil {
		return fmt.Errorf("releasing the hold of PodGang %s: %w", g.Name, err)
	}
	return nil
}

// ReasonSliceLanded is the event reason when a coherent slice is available.
const ReasonSliceLanded = "SliceLanded"

// surgeMembers are the desired pods above their unit's desired count: surge pods of
// standalone cliques and the pods of surge scaling-group replicas.
func surgeMembers(want *workload.World) map[string]bool {
	groupReplicas := map[string]int{}
	for _, sg := range want.ScalingGroups {
		groupReplicas[sg.Name] = int(sg.Spec.Replicas)
	}
	out := map[string]bool{}
	for _, p := range want.Pods {
		if p.Labels[grovev1.LabelSurge] == "true" {
			out[p.Name] = true
		}
		if sg := p.Labels[grovev1.LabelPodCliqueScalingGroup]; sg != "" &&
			index.Parse(p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]) >= groupReplicas[sg] {
			out[p.Name] = true
		}
	}
	return out
}

// coherentProgress writes the slice state of the replica under update into its progress entry
// and the scope of the update (Grove's updatedStandalonePodCliques and
// updatedPodCliqueScalingGroups).
func coherentProgress(p *grovev1.PodCliqueSetUpdateProgress, pcs *grovev1.PodCliqueSet, ro *rollout) {
	p.UpdatedStandalonePodCliques, p.UpdatedPodCliqueScalingGroups = nil, nil
	if !coherent(pcs) {
		return
	}
	inGroup := map[string]bool{}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, cn := range g.CliqueNames {
			inGroup[cn] = true
			if ro.scope[cn] && !slices.Contains(p.UpdatedPodCliqueScalingGroups, g.Name) {
				p.UpdatedPodCliqueScalingGroups = append(p.UpdatedPodCliqueScalingGroups, g.Name)
			}
		}
	}
	for _, c := range pcs.Spec.Template.Cliques {
		if ro.scope[c.Name] && !inGroup[c.Name] {
			p.UpdatedStandalonePodCliques = append(p.UpdatedStandalonePodCliques, c.Name)
		}
	}
	cp := ro.plan.Coherent
	for i := range p.CurrentlyUpdating {
		u := &p.CurrentlyUpdating[i]
		u.InFlightPodGangs, u.Slices, u.Components = nil, nil, nil
		if cp == nil || int(u.ReplicaIndex) != cp.Replica {
			continue
		}
		for _, k := range cp.InFlight {
			u.InFlightPodGangs = append(u.InFlightPodGangs, workload.SliceGangName(pcs.Name, cp.Replica, k))
		}
		u.Slices = &grovev1.CoherentSlices{Desired: int32(cp.Slices), Updated: int32(cp.Updated), Surge: int32(cp.Surge),
			ServingSetsUpdated: int32(cp.ServingUpdated), ServingSetsOutdated: int32(cp.ServingOutdated)}
		for _, c := range cp.Capacity {
			u.Components = append(u.Components, grovev1.ComponentCapacity{Name: c.Unit, MinAvailable: int32(c.MinAvailable),
				Updated: int32(c.Updated), Outdated: int32(c.Outdated)})
		}
	}
}
