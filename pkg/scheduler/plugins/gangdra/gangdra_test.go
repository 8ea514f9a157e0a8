package gangdra

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

func memberPod(gangName, name string, claim bool) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{grovev1.LabelPodGang: gangName}}}
	if claim {
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("shared")}}
	}
	return p
}

// A member with claims is in its gang's group cycle only between enter and leave (the
// scheduler core reads the same field to tell a pod-group cycle of its own); two members of a
// gang share one group cycle, two gangs have two; a pod without claims or of no gang, and a
// cycle that is a pod-group cycle of the scheduler's own, are left as they are.
func TestEnterLeavesNothingSet(t *testing.T) {
	p := &Plugin{}
	a, b := framework.NewCycleState(), framework.NewCycleState()
	leaveA := p.enter(a, memberPod("g", "g-0", true))
	groupA := a.GetPodGroupSchedulingCycle()
	if groupA == nil {
		t.Fatal("a member with a claim is not in its gang's group cycle")
	}
	leaveA()
	if a.GetPodGroupSchedulingCycle() != nil || a.IsPodGroupSchedulingCycle() {
		t.Fatal("the member's cycle is left a pod-group cycle after the call")
	}
	leaveB := p.enter(b, memberPod("g", "g-1", true))
	if b.GetPodGroupSchedulingCycle() != groupA {
		t.Error("two members of one gang are not in one group cycle")
	}
	leaveB()
	other := framework.NewCycleState()
	leave := p.enter(other, memberPod("h", "h-0", true))
	if other.GetPodGroupSchedulingCycle() == groupA {
		t.Error("two gangs share a group cycle")
	}
	leave()

	for name, pod := range map[string]*v1.Pod{"no claim": memberPod("g", "g-2", false), "no gang": {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain"},
		Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("c")}}}}} {
		cs := framework.NewCycleState()
		leave := p.enter(cs, pod)
		if cs.GetPodGroupSchedulingCycle() != nil {
			t.Errorf("%s: put into a group cycle", name)
		}
		leave()
	}
	own := framework.NewCycleState()
	theirs := NewGroupCycle()
	own.SetPodGroupSchedulingCycle(theirs)
	leave = p.enter(own, memberPod("g", "g-3", true))
	leave()
	if own.GetPodGroupSchedulingCycle() != theirs {
		t.Error("the scheduler's own pod-group cycle was replaced or cleared")
	}
}

// A gang's group cycle unused for idleAfter is dropped at the next sweep; one in use is kept.
func TestGroupsSweepIdle(t *testing.T) {
	var gs groups
	t0 := time.Unix(1000, 0)
	old := gs.of(gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "old"}, t0)
	busy := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "busy"}
	gs.of(busy, t0)
	gs.of(busy, t0.Add(idleAfter-time.Minute))
	gs.of(busy, t0.Add(idleAfter+2*time.Minute)) // sweeps
	if len(gs.m) != 1 || gs.m[busy] == nil {
		t.Fatalf("after the sweep: %d group cycles, busy kept %v", len(gs.m), gs.m[busy] != nil)
	}
	if again := gs.of(gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "old"}, t0.Add(idleAfter+3*time.Minute)); again == old {
		t.Error("the idle gang's group cycle was kept")
	}
}
