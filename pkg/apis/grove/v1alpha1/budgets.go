package v1alpha1

import "k8s.io/apimachinery/pkg/util/intstr"

// The update budgets, with their defaults, are read here and only here: the defaulting webhook
// writes what these return into the object, and the controller plans with what they return
// from the object as stored, so a PodCliqueSet stored without the webhook (a restore, a webhook
// outage under failurePolicy Ignore) is updated with the same budgets.

// DefaultComponentMaxSurge and DefaultComponentMaxUnavailable are a standalone clique's or
// scaling group's budgets when none is given: one member at a time, no surge.
var (
	DefaultComponentMaxSurge       = intstr.FromInt32(0)
	DefaultComponentMaxUnavailable = intstr.FromInt32(1)
)

// ComponentBudgets are the budgets of a standalone clique or a scaling group under
// RollingUpdate: updateStrategy's maxSurge and maxUnavailable; where updateStrategy leaves
// maxUnavailable unset, Grove's rollingUpdate.maxUnavailable; else the defaults (0 and 1).
func ComponentBudgets(s *ComponentUpdateStrategy, grove *RollingUpdateConfiguration) (maxSurge, maxUnavailable intstr.IntOrString) {
	maxSurge, maxUnavailable = DefaultComponentMaxSurge, DefaultComponentMaxUnavailable
	if grove != nil && grove.MaxUnavailable != nil {
		maxUnavailable = intstr.FromInt32(*grove.MaxUnavailable)
	}
	if s != nil {
		if s.MaxSurge != nil {
			maxSurge = *s.MaxSurge
		}
		if s.MaxUnavailable != nil {
			maxUnavailable = *s.MaxUnavailable
		}
	}
	return maxSurge, maxUnavailable
}

// SetBudgets are the PodCliqueSet-level budgets (spec.updateStrategy.rollingUpdate) of
// ReplicaRecreate (in PCS replicas) and Coherent (in slices): as given, else maxSurge 0 and
// maxUnavailable 1 (Coherent: CoherentDefaultMaxUnavailable of the maxSurge).
func SetBudgets(s *PodCliqueSetUpdateStrategy) (maxSurge, maxUnavailable intstr.IntOrString) {
	var ru *RollingUpdateBudget
	if s != nil {
		ru = s.RollingUpdate
	}
	if ru == nil {
		ru = &RollingUpdateBudget{}
	}
	maxSurge, maxUnavailable = intstr.FromInt32(0), intstr.FromInt32(1)
	if s != nil && s.Type == CoherentStrategyType {
		maxUnavailable = CoherentDefaultMaxUnavailable(ru.MaxSurge)
	}
	if ru.MaxSurge != nil {
		maxSurge = *ru.MaxSurge
	}
	if ru.MaxUnavailable != nil {
		maxUnavailable = *ru.MaxUnavailable
	}
	return maxSurge, maxUnavailable
}
