// Package admission holds what stands between a user's PodCliqueSet and the controller: the
// defaulting and validation rules (served as webhooks over TLS by phalanx-scheduler), and the
// gang-aware surge admission check that the controller asks before it creates a surge member.
//
// The rules are pure functions of the object (and of the old object on update), so that every
// one of them is table-tested without an API server; the webhook server only decodes, calls
// them and encodes the answer.
package admission

import (
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// Default fills the unset fields of a PodCliqueSet with their documented defaults:
//
//   - updateStrategy.type RollingUpdate, progressDeadlineSeconds 600;
//   - under RollingUpdate, every standalone clique and every scaling group gets an
//     updateStrategy with maxUnavailable 1 and maxSurge 0 where unset;
//   - under ReplicaRecreate and Coherent, the PodCliqueSet-level rollingUpdate gets maxSurge 0
//     and maxUnavailable 1 where unset (Coherent with a maxSurge other than 0: maxUnavailable
//     0, so that a new slice is available before an old one goes), and component strategies
//     equal to the RollingUpdate default are removed
//     (they were defaulted while the type was RollingUpdate; anything else is left for
//     validation to reject, so that no user setting is dropped silently);
//   - clique minAvailable = replicas; scaling group replicas and minAvailable 1.
//
// It never changes a field the user set, except for removing defaulted component strategies
// as said above. It is idempotent.
func Default(pcs *grovev1.PodCliqueSet) {
	spec := &pcs.Spec
	if spec.UpdateStrategy == nil {
		spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{}
	}
	us := spec.UpdateStrategy
	if us.Type == "" {
		us.Type = grovev1.RollingUpdateStrategyType
	}
	if us.ProgressDeadlineSeconds == nil {
		us.ProgressDeadlineSeconds = ptr.To(grovev1.DefaultProgressDeadlineSeconds)
	}
	inGroup := map[string]bool{}
	for i := range spec.Template.PodCliqueScalingGroupConfigs {
		g := &spec.Template.PodCliqueScalingGroupConfigs[i]
		if g.Replicas == nil {
			g.Replicas = ptr.To[int32](1)
		}
		if g.MinAvailable == nil {
			g.MinAvailable = ptr.To[int32](1)
		}
		for _, c := range g.CliqueNames {
			inGroup[c] = true
		}
	}
	for i := range spec.Template.Cliques {
		c := &spec.Template.Cliques[i]
		if c.Spec.MinAvailable == nil {
			c.Spec.MinAvailable = ptr.To(c.Spec.Replicas)
		}
	}
	switch us.Type {
	case grovev1.RollingUpdateStrategyType, grovev1.RollingRecreateStrategyType:
		for i := range spec.Template.Cliques {
			c := &spec.Template.Cliques[i]
			if !inGroup[c.Name] {
				c.UpdateStrategy = defaultComponent(c.UpdateStrategy, c.RollingUpdate)
			}
		}
		for i := range spec.Template.PodCliqueScalingGroupConfigs {
			g := &spec.Template.PodCliqueScalingGroupConfigs[i]
			g.UpdateStrategy = defaultComponent(g.UpdateStrategy, g.RollingUpdate)
		}
	case grovev1.ReplicaRecreateStrategyType, grovev1.CoherentStrategyType:
		surge, unavailable := grovev1.SetBudgets(us)
		if us.RollingUpdate == nil {
			us.RollingUpdate = &grovev1.RollingUpdateBudget{}
		}
		us.RollingUpdate.MaxSurge, us.RollingUpdate.MaxUnavailable = &surge, &unavailable
		for i := range spec.Template.Cliques {
			if isDefaultComponent(spec.Template.Cliques[i].UpdateStrategy) {
				spec.Template.Cliques[i].UpdateStrategy = nil
			}
		}
		for i := range spec.Template.PodCliqueScalingGroupConfigs {
			if isDefaultComponent(spec.Template.PodCliqueScalingGroupConfigs[i].UpdateStrategy) {
				spec.Template.PodCliqueScalingGroupConfigs[i].UpdateStrategy = nil
			}
		}
	}
}

// defaultComponent is s with the budgets the controller reads (grovev1.ComponentBudgets:
// Grove's rollingUpdate.maxUnavailable where s leaves maxUnavailable unset, then 0/1) written.
func defaultComponent(s *grovev1.ComponentUpdateStrategy, grove *grovev1.RollingUpdateConfiguration) *grovev1.ComponentUpdateStrategy {
	surge, unavailable := grovev1.ComponentBudgets(s, grove)
	if s == nil {
		s = &grovev1.ComponentUpdateStrategy{}
	}
	s.MaxSurge, s.MaxUnavailable = &surge, &unavailable
	return s
}

// isDefaultComponent reports whether s is exactly what Default sets under RollingUpdate.
func isDefaultComponent(s *grovev1.ComponentUpdateStrategy) bool {
	return s != nil && s.MaxUnavailable != nil && s.MaxSurge != nil &&
		*s.MaxUnavailable == grovev1.DefaultComponentMaxUnavailable && *s.MaxSurge == grovev1.DefaultComponentMaxSurge
}
