package gang

import (
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
)

// SpecFromPodGang reads a PodGang in the terms of the rules, with its packing constraints at
// every level: the gang's, each topologyConstraintGroupConfig's (podgroup names it lists that
// the gang does not have are left out) and each podgroup's.
func SpecFromPodGang(pg *schedv1.PodGang) Spec {
	s := Spec{
		Key:         Key{Kind: KindPodGang, Namespace: pg.Namespace, Name: pg.Name},
		UID:         pg.UID,
		CreatedAt:   pg.CreationTimestamp.Time,
		Scheduled:   meta.IsStatusConditionTrue(pg.Status.Conditions, schedv1.ConditionScheduled),
		PodGroups:   make([]PodGroup, 0, len(pg.Spec.PodGroups)),
		Reservation: ReservationFromPodGang(pg),
	}
	if ref := pg.Spec.ReuseReservationRef; ref != nil && ref.Name != "" && (ref.Namespace == "" || ref.Namespace == pg.Namespace) {
		// Another namespace's capacity is not this gang's to hold.
		s.ReuseFrom = Key{Kind: KindPodGang, Namespace: pg.Namespace, Name: ref.Name}
	}
	for _, g := range pg.Spec.PodGroups {
		pods := make([]string, 0, len(g.PodReferences))
		for _, ref := range g.PodReferences {
			if ref.Namespace == "" || ref.Namespace == pg.Namespace {
				pods = append(pods, ref.Name)
			}
		}
		s.PodGroups = append(s.PodGroups, PodGroup{Name: g.Name, MinReplicas: g.MinReplicas, Pods: pods, Pack: packOf(g.TopologyConstraint)})
	}
	s.Pack = packOf(pg.Spec.TopologyConstraint)
	for _, c := range pg.Spec.TopologyConstraintGroupConfigs {
		gp := GroupPack{Name: c.Name, Pack: packOf(c.TopologyConstraint)}
		if gp.Pack == (Pack{}) {
			continue
		}
		for _, name := range c.PodGroupNames {
			for i := range s.PodGroups {
				if s.PodGroups[i].Name == name {
					gp.PodGroups = append(gp.PodGroups, i)
					break
				}
			}
		}
		if len(gp.PodGroups) > 0 {
			s.GroupPacks = append(s.GroupPacks, gp)
		}
	}
	return s
}

// packOf reads a PodGang topology constraint.
func packOf(tc *schedv1.TopologyConstraint) Pack {
	var p Pack
	if tc == nil || tc.PackConstraint == nil {
		return p
	}
	if r := tc.PackConstraint.Required; r != nil {
		p.Required = *r
	}
	if v := tc.PackConstraint.Preferred; v != nil {
		p.Preferred = *v
	}
	return p
}

// SpecFromPodGroup reads a scheduler-plugins PodGroup: one podgroup of minMember members,
// every pod labelled with the group's name.
func SpecFromPodGroup(pg *schedulingv1.PodGroup) Spec {
	s := Spec{
		Key:       Key{Kind: KindPodGroup, Namespace: pg.Namespace, Name: pg.Name},
		UID:       pg.UID,
		CreatedAt: pg.CreationTimestamp.Time,
		Scheduled: pg.Status.Phase == schedulingv1.PodGroupScheduled || pg.Status.Phase == schedulingv1.PodGroupRunning,
		PodGroups: []PodGroup{{Name: pg.Name, MinReplicas: pg.Spec.MinMember}},
	}
	if t := pg.Spec.ScheduleTimeoutSeconds; t != nil {
		s.ScheduleTimeout = time.Duration(*t) * time.Second
	}
	if len(pg.Spec.MinResources) > 0 {
		r := Resources{MilliCPU: pg.Spec.MinResources.Cpu().MilliValue(), Memory: pg.Spec.MinResources.Memory().Value()}
		if q, ok := pg.Spec.MinResources[v1.ResourceName(ResourceGPU)]; ok {
			r.GPU = q.Value()
		}
		s.MinResources = &r
	}
	return s
}

// AnnotationPreferredTopology, on an upstream PodGroup, names a node label whose value
// Phalanx prefers the group's members to share (the Workload API has required topology only).
const AnnotationPreferredTopology = "phalanx.dev/preferred-topology-key"

// SpecFromWorkloadPodGroup reads an upstream scheduling.k8s.io PodGroup: one podgroup whose
// quorum is schedulingPolicy.gang.minCount (1 under the basic policy: no quorum), members are
// the pods naming it in spec.schedulingGroup. The group was established before when its
// PodGroupInitiallyScheduled condition is True (upstream's terminal "first placement done").
// Its required topology constraint is the required packing; priority, preemptionPolicy and
// disruptionMode feed the queue order and preemption.
func SpecFromWorkloadPodGroup(pg *schedulingv1beta1.PodGroup) Spec {
	minCount := int32(1)
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		minCount = g.MinCount
	}
	s := Spec{
		Key:       Key{Kind: KindWorkloadPodGroup, Namespace: pg.Namespace, Name: pg.Name},
		UID:       pg.UID,
		CreatedAt: pg.CreationTimestamp.Time,
		Scheduled: meta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled),
		PodGroups: []PodGroup{{Name: pg.Name, MinReplicas: minCount}},
		Priority:  pg.Spec.Priority,
	}
	if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		s.Pack.Required = c.Topology[0].Key
	}
	s.Pack.Preferred = pg.Annotations[AnnotationPreferredTopology]
	if p := pg.Spec.PreemptionPolicy; p != nil && *p == schedulingv1beta1.PreemptNever {
		s.PreemptNever = true
	}
	if d := pg.Spec.DisruptionMode; d != nil {
		switch {
		case d.All != nil:
			s.DisruptionMode = DisruptionAll
		case d.Single != nil:
			s.DisruptionMode = DisruptionSingle
		}
	}
	return s
}

// ScheduledCondition is the PodGang Scheduled condition for a gang status.
func ScheduledCondition(st Status, generation int64) metav1.Condition {
	c := metav1.Condition{Type: schedv1.ConditionScheduled, ObservedGeneration: generation}
	switch {
	case st.Established:
		c.Status, c.Reason = metav1.ConditionTrue, "QuorumBound"
		c.Message = "every podgroup reached minReplicas bound pods; the gang is established"
		if st.PackNote != "" {
			c.Message += "; preferred packing not kept: " + st.PackNote
		}
		// The transition is when the quorum bound, not when the status got written.
		if !st.EstablishedAt.IsZero() {
			c.LastTransitionTime = metav1.NewTime(st.EstablishedAt)
		}
	case st.Wait.Reason != "":
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, st.Wait.Reason, st.Wait.Message
	default:
		c.Status, c.Reason = metav1.ConditionFalse, "WaitingForQuorum"
		c.Message = "the gang is placed all-or-nothing and has not reached its quorum"
	}
	return c
}

// UnschedulableCondition is the PodGang Unschedulable condition for a gang status: True
// with the reason it waits for, or False.
func UnschedulableCondition(st Status, generation int64) metav1.Condition {
	if st.Wait.Reason != "" {
		return metav1.Condition{Type: schedv1.ConditionUnschedulable, Status: metav1.ConditionTrue,
			Reason: st.Wait.Reason, Message: st.Wait.Message, ObservedGeneration: generation}
	}
	return metav1.Condition{Type: schedv1.ConditionUnschedulable, Status: metav1.ConditionFalse,
		Reason: "NotWaiting", Message: "nothing blocks the gang", ObservedGeneration: generation}
}
