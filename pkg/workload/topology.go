package workload

import (
	"fmt"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// TopologyName is the Grove ClusterTopologyBinding a PodCliqueSet's topology constraints name
// (topologyName on the set, a scaling group or a clique; a level that names none inherits it),
// "" when none does. Grove allows one per set; a set that names two gets an error naming both.
func TopologyName(pcs *grovev1.PodCliqueSet) (string, error) {
	name, where := "", ""
	note := func(tc *grovev1.TopologyConstraint, at string) error {
		switch {
		case tc == nil || tc.TopologyName == "":
		case name == "":
			name, where = tc.TopologyName, at
		case tc.TopologyName != name:
			return fmt.Errorf("%s.topologyName %q differs from %s.topologyName %q: one ClusterTopologyBinding per PodCliqueSet", at, tc.TopologyName, where, name)
		}
		return nil
	}
	t := &pcs.Spec.Template
	if err := note(t.TopologyConstraint, "spec.template.topologyConstraint"); err != nil {
		return "", err
	}
	for i := range t.PodCliqueScalingGroupConfigs {
		if err := note(t.PodCliqueScalingGroupConfigs[i].TopologyConstraint, fmt.Sprintf("spec.template.podCliqueScalingGroups[%d].topologyConstraint", i)); err != nil {
			return "", err
		}
	}
	for i := range t.Cliques {
		if err := note(t.Cliques[i].TopologyConstraint, fmt.Sprintf("spec.template.cliques[%d].topologyConstraint", i)); err != nil {
			return "", err
		}
	}
	return name, nil
}

// TopologyDomains are the packing domains a PodCliqueSet's constraints name, in template order,
// each once.
func TopologyDomains(pcs *grovev1.PodCliqueSet) []string {
	var out []string
	seen := map[string]bool{}
	add := func(tc *grovev1.TopologyConstraint) {
		for _, d := range []string{tc.RequiredDomain(), tc.PreferredDomain()} {
			if d != "" && !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	t := &pcs.Spec.Template
	add(t.TopologyConstraint)
	for i := range t.PodCliqueScalingGroupConfigs {
		add(t.PodCliqueScalingGroupConfigs[i].TopologyConstraint)
	}
	for i := range t.Cliques {
		add(t.Cliques[i].TopologyConstraint)
	}
	return out
}

// TopologyKeysOf is the domain -> node label key view of a ClusterTopologyBinding's levels
// (Observed.TopologyKeys).
func TopologyKeysOf(b *grovev1.ClusterTopologyBinding) map[string]string {
	keys := make(map[string]string, len(b.Spec.Levels))
	for _, l := range b.Spec.Levels {
		keys[l.Domain] = l.Key
	}
	return keys
}
