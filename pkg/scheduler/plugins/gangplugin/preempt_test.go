package gangplugin

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// A unit violates a budget when more of its pods match it than the budget allows to go; pods
// the budget already counts as disrupted, other namespaces and non-matching labels do not count.
func TestViolatesPDB(t *testing.T) {
	pod := func(ns, name, app string) gang.Candidate {
		return gang.Candidate{Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}}}
	}
	pdb := func(allowed int32, disrupted ...string) *policyv1.PodDisruptionBudget {
		b := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"},
			Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, DisruptedPods: map[string]metav1.Time{}}}
		for _, d := range disrupted {
			b.Status.DisruptedPods[d] = metav1.Now()
		}
		return b
	}
	whole := gang.Unit{Whole: true, Pods: []gang.Candidate{pod("ns", "a-0", "a"), pod("ns", "a-1", "a")}}
	for _, tc := range []struct {
		name string
		unit gang.Unit
		pdbs []*policyv1.PodDisruptionBudget
		want bool
	}{
		{"two pods, none allowed", whole, []*policyv1.PodDisruptionBudget{pdb(0)}, true},
		{"two pods, one allowed", whole, []*policyv1.PodDisruptionBudget{pdb(1)}, true},
		{"two pods, two allowed", whole, []*policyv1.PodDisruptionBudget{pdb(2)}, false},
		{"one counted as disrupted already", whole, []*policyv1.PodDisruptionBudget{pdb(1, "a-1")}, false},
		{"other labels", gang.Unit{Pods: []gang.Candidate{pod("ns", "b-0", "b")}}, []*policyv1.PodDisruptionBudget{pdb(0)}, false},
		{"other namespace", gang.Unit{Pods: []gang.Candidate{pod("other", "a-0", "a")}}, []*policyv1.PodDisruptionBudget{pdb(0)}, false},
		{"no budget", whole, nil, false},
	} {
		if got := violatesPDB(tc.unit, tc.pdbs); got != tc.want {
			t.Errorf("%s: violatesPDB = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Victim sets compare as units do: the lower highest priority first, then fewer whole gangs,
// fewer GPUs, fewer pods.
func TestCheaperVictimSet(t *testing.T) {
	u := func(prio int32, whole bool, gpus int64, pods int) gang.Unit {
		return gang.Unit{Priority: prio, Whole: whole, GPUs: gpus, Pods: make([]gang.Candidate, pods)}
	}
	for _, tc := range []struct {
		name string
		a, b []gang.Unit
	}{
		{"lower priority", []gang.Unit{u(10, true, 16, 2)}, []gang.Unit{u(20, false, 8, 1)}},
		{"one gang before two", []gang.Unit{u(10, true, 16, 2)}, []gang.Unit{u(10, true, 8, 1), u(10, true, 8, 1)}},
		{"fewer GPUs", []gang.Unit{u(10, true, 8, 1)}, []gang.Unit{u(10, true, 16, 2)}},
	} {
		if !cheaper(tc.a, tc.b) || cheaper(tc.b, tc.a) {
			t.Errorf("%s: want a cheaper than b, not the other way", tc.name)
		}
	}
}
