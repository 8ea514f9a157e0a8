package controller

import (
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// gangSpecEqual reports whether the live gang spec cur is the desired want, leaving out the
// reservation reference (set on the live object only). It compares field by field, as
// apiequality.Semantic.DeepEqual does (a nil and an empty list are equal), without reflection:
// every pass compares every gang of its set, and the reflective comparison was half of the
// apply step's time at 900 pods (make perf-updates). TestGangSpecEqualIsSemantic holds the
// two to the same answers and fails when PodGangSpec gains a field this does not compare.
func gangSpecEqual(want, cur schedv1.PodGangSpec) bool {
	if want.PriorityClassName != cur.PriorityClassName || len(want.PodGroups) != len(cur.PodGroups) ||
		len(want.TopologyConstraintGroupConfigs) != len(cur.TopologyConstraintGroupConfigs) ||
		!constraintEqual(want.TopologyConstraint, cur.TopologyConstraint) {
		return false
	}
	for i := range want.PodGroups {
		a, b := &want.PodGroups[i], &cur.PodGroups[i]
		if a.Name != b.Name || a.MinReplicas != b.MinReplicas || len(a.PodReferences) != len(b.PodReferences) ||
			!constraintEqual(a.TopologyConstraint, b.TopologyConstraint) {
			return false
		}
		for j := range a.PodReferences {
			if a.PodReferences[j] != b.PodReferences[j] {
				return false
			}
		}
	}
	for i := range want.TopologyConstraintGroupConfigs {
		a, b := &want.TopologyConstraintGroupConfigs[i], &cur.TopologyConstraintGroupConfigs[i]
		if a.Name != b.Name || len(a.PodGroupNames) != len(b.PodGroupNames) || !constraintEqual(a.TopologyConstraint, b.TopologyConstraint) {
			return false
		}
		for j := range a.PodGroupNames {
			if a.PodGroupNames[j] != b.PodGroupNames[j] {
				return false
			}
		}
	}
	return true
}

func constraintEqual(a, b *schedv1.TopologyConstraint) bool {
	if a == nil || b == nil {
		return a == b
	}
	pa, pb := a.PackConstraint, b.PackConstraint
	if pa == nil || pb == nil {
		return pa == pb
	}
	return strPtrEqual(pa.Required, pb.Required) && strPtrEqual(pa.Preferred, pb.Preferred)
}

func strPtrEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
