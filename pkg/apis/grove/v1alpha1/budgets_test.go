package v1alpha1

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestComponentBudgets(t *testing.T) {
	two := intstr.FromInt32(2)
	pct := intstr.FromString("25%")
	for _, c := range []struct {
		name                string
		s                   *ComponentUpdateStrategy
		grove               *RollingUpdateConfiguration
		wantSurge, wantUnav string
	}{
		{"nothing given", nil, nil, "0", "1"},
		{"Grove's maxUnavailable alone", nil, &RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](3)}, "0", "3"},
		{"Grove's progressDeadline only", nil, &RollingUpdateConfiguration{}, "0", "1"},
		{"updateStrategy wins over Grove's", &ComponentUpdateStrategy{MaxUnavailable: &two}, &RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](3)}, "0", "2"},
		{"surge only: Grove's maxUnavailable still read", &ComponentUpdateStrategy{MaxSurge: &pct}, &RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](0)}, "25%", "0"},
	} {
		surge, unav := ComponentBudgets(c.s, c.grove)
		if surge.String() != c.wantSurge || unav.String() != c.wantUnav {
			t.Errorf("%s: %s/%s, want %s/%s", c.name, surge.String(), unav.String(), c.wantSurge, c.wantUnav)
		}
	}
}

func TestSetBudgets(t *testing.T) {
	one := intstr.FromInt32(1)
	for _, c := range []struct {
		name                string
		s                   *PodCliqueSetUpdateStrategy
		wantSurge, wantUnav string
	}{
		{"no strategy", nil, "0", "1"},
		{"ReplicaRecreate, nothing given", &PodCliqueSetUpdateStrategy{Type: ReplicaRecreateStrategyType}, "0", "1"},
		{"Coherent with surge: no slice down first", &PodCliqueSetUpdateStrategy{Type: CoherentStrategyType, RollingUpdate: &RollingUpdateBudget{MaxSurge: &one}}, "1", "0"},
		{"Coherent without surge: one slice drained first", &PodCliqueSetUpdateStrategy{Type: CoherentStrategyType}, "0", "1"},
		{"given", &PodCliqueSetUpdateStrategy{Type: ReplicaRecreateStrategyType, RollingUpdate: &RollingUpdateBudget{MaxSurge: &one, MaxUnavailable: &one}}, "1", "1"},
	} {
		surge, unav := SetBudgets(c.s)
		if surge.String() != c.wantSurge || unav.String() != c.wantUnav {
			t.Errorf("%s: %s/%s, want %s/%s", c.name, surge.String(), unav.String(), c.wantSurge, c.wantUnav)
		}
	}
}
