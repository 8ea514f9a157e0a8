package controller

import (
	"math/rand"
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// gangSpecEqual answers as the semantic comparison it replaces, on random specs drawn from a
// small alphabet (so that equal and nearly equal pairs are common) and on copies with one
// change; and it compares every field PodGangSpec has.
func TestGangSpecEqualIsSemantic(t *testing.T) {
	fields := map[reflect.Type]int{
		reflect.TypeOf(schedv1.PodGangSpec{}):                   5,
		reflect.TypeOf(schedv1.PodGroup{}):                      4,
		reflect.TypeOf(schedv1.TopologyConstraint{}):            1,
		reflect.TypeOf(schedv1.TopologyPackConstraint{}):        2,
		reflect.TypeOf(schedv1.TopologyConstraintGroupConfig{}): 3,
		reflect.TypeOf(schedv1.NamespacedName{}):                2,
	}
	for typ, n := range fields {
		if typ.NumField() != n {
			t.Errorf("%s has %d fields, gangSpecEqual compares %d: compare the new ones", typ, typ.NumField(), n)
		}
	}
	rng := rand.New(rand.NewSource(1))
	pick := func(vals ...string) string { return vals[rng.Intn(len(vals))] }
	str := func() *string {
		if rng.Intn(3) == 0 {
			return nil
		}
		return ptr.To(pick("", "rack", "zone"))
	}
	constraint := func() *schedv1.TopologyConstraint {
		switch rng.Intn(4) {
		case 0:
			return nil
		case 1:
			return &schedv1.TopologyConstraint{}
		}
		return &schedv1.TopologyConstraint{PackConstraint: &schedv1.TopologyPackConstraint{Required: str(), Preferred: str()}}
	}
	spec := func() schedv1.PodGangSpec {
		s := schedv1.PodGangSpec{PriorityClassName: pick("", "high"), TopologyConstraint: constraint()}
		if rng.Intn(2) == 0 {
			s.ReuseReservationRef = &schedv1.NamespacedName{Namespace: "ns", Name: pick("a", "b")}
		}
		for i := rng.Intn(3); i > 0; i-- {
			g := schedv1.PodGroup{Name: pick("a", "b"), MinReplicas: int32(rng.Intn(2)), TopologyConstraint: constraint()}
			if rng.Intn(4) == 0 {
				g.PodReferences = []schedv1.NamespacedName{}
			}
			for j := rng.Intn(3); j > 0; j-- {
				g.PodReferences = append(g.PodReferences, schedv1.NamespacedName{Namespace: pick("ns", "other"), Name: pick("p-0", "p-1")})
			}
			s.PodGroups = append(s.PodGroups, g)
		}
		for i := rng.Intn(2); i > 0; i-- {
			s.TopologyConstraintGroupConfigs = append(s.TopologyConstraintGroupConfigs, schedv1.TopologyConstraintGroupConfig{
				Name: pick("r0", "r1"), PodGroupNames: []string{pick("a", "b")}, TopologyConstraint: constraint()})
		}
		return s
	}
	semantic := func(want, cur schedv1.PodGangSpec) bool {
		want.ReuseReservationRef = cur.ReuseReservationRef
		return apiequality.Semantic.DeepEqual(want, cur)
	}
	equal := 0
	for i := 0; i < 200000; i++ {
		a, b := spec(), spec()
		if i%2 == 0 {
			b = *a.DeepCopy()
			b.ReuseReservationRef = nil
			if rng.Intn(2) == 0 && len(b.PodGroups) > 0 {
				b.PodGroups[0].TopologyConstraint = constraint()
			}
		}
		got, want := gangSpecEqual(a, b), semantic(a, b)
		if got != want {
			t.Fatalf("gangSpecEqual = %v, semantic = %v for\n%+v\n%+v", got, want, a, b)
		}
		if got {
			equal++
		}
	}
	if equal < 10000 {
		t.Errorf("only %d equal pairs: the draw does not test equality", equal)
	}
}
