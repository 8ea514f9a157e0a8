package gang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// planFixture: gang g needs 2 of podgroup w; members w-0 to w-2 pending, w-3 a surge member.
func planFixture() (*Store, *clock) {
	s, c := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	for i := 0; i < 3; i++ {
		s.UpsertPod(pod("g", "w", i))
	}
	s.UpsertPod(pod("g", "w", 3, surge))
	return s, c
}

// The plan covers the members the quorum needs (lowest indexes first, surge members never) and
// lives until the gang backs off, a planned member leaves, the quorum binds, or it is older
// than the caller's limit.
func TestPlanLifecycle(t *testing.T) {
	s, c := planFixture()
	deficit := s.DeficitPods(key("g"))
	if len(deficit) != 2 || deficit[0].Name != "g-w-0" || deficit[1].Name != "g-w-1" {
		t.Fatalf("deficit %v, want g-w-0 and g-w-1", names(deficit))
	}
	plan := map[string]string{"g-w-0": "n1", "g-w-1": "n2"}
	s.SetPlan(key("g"), plan)
	if n, ok := s.PlannedNode(key("g"), "g-w-1", time.Minute); !ok || n != "n2" {
		t.Fatalf("planned node of g-w-1: %q %v", n, ok)
	}
	if _, ok := s.PlannedNode(key("g"), "g-w-2", time.Minute); ok {
		t.Fatal("a member above the minimum has a planned node")
	}
	c.t = c.t.Add(2 * time.Minute)
	if _, ok := s.PlannedNode(key("g"), "g-w-0", time.Minute); ok {
		t.Fatal("a plan older than the limit was used")
	}

	s.SetPlan(key("g"), plan)
	s.StartBackoff(key("g"), time.Second, "x")
	if s.HasPlan(key("g")) {
		t.Fatal("the plan outlived the gang's release")
	}

	s.SetPlan(key("g"), plan)
	s.DeletePod(pod("g", "w", 2)) // not planned
	if !s.HasPlan(key("g")) {
		t.Fatal("the plan was dropped for a member it does not cover")
	}
	s.DeletePod(pod("g", "w", 1))
	if s.HasPlan(key("g")) {
		t.Fatal("the plan outlived a planned member")
	}

	s.UpsertPod(pod("g", "w", 1))
	s.SetPlan(key("g"), plan)
	s.Assume(pod("g", "w", 0), "n1")
	s.Assume(pod("g", "w", 1), "n2")
	s.MarkBound(pod("g", "w", 0), "n1")
	if !s.MarkBound(pod("g", "w", 1), "n2") {
		t.Fatal("the quorum's bind did not establish the gang")
	}
	if s.HasPlan(key("g")) {
		t.Fatal("the plan outlived the quorum")
	}
}

func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// Members assumed before their gang is established are placed with its quorum; a member
// assumed after it (a replacement, a member above the minimum) and surge members are not.
func TestWithQuorum(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	for i := 0; i < 3; i++ {
		s.UpsertPod(pod("g", "w", i))
	}
	s.UpsertPod(pod("g", "w", 3, surge))
	s.Assume(pod("g", "w", 0), "n0")
	s.Assume(pod("g", "w", 1), "n1")
	s.MarkBound(pod("g", "w", 0), "n0")
	if !s.MarkBound(pod("g", "w", 1), "n1") {
		t.Fatal("not established")
	}
	s.Assume(pod("g", "w", 2), "n2")
	s.Assume(pod("g", "w", 3, surge), "n3")
	for i, want := range []bool{true, true, false, false} {
		opts := []podOpt{}
		if i == 3 {
			opts = append(opts, surge)
		}
		if got := s.WithQuorum(pod("g", "w", i, opts...)); got != want {
			t.Errorf("member %d: WithQuorum %v, want %v", i, got, want)
		}
	}
	s.Forget(pod("g", "w", 2))
	s.DeletePod(pod("g", "w", 0))
	s.DeletePod(pod("g", "w", 1)) // nothing bound: no longer established
	s.Assume(pod("g", "w", 2), "n2")
	if !s.WithQuorum(pod("g", "w", 2)) {
		t.Error("a member assumed while the gang forms again is not placed with its quorum")
	}
}

// PlanFor answers, under one lock, what a member's PreFilter needs: its planned node while a
// plan is current, that it is left out of a current plan, or else the members its gang needs
// for its minimum ahead of it (an extra's view; nothing for a member of the minimum, a surge
// member, or once the minimum is placed).
func TestPlanForViews(t *testing.T) {
	s, c := planFixture()
	if v := s.PlanFor(key("g"), pod("g", "w", 0), time.Minute); v.Planned || v.Active || len(v.Ahead) != 0 {
		t.Errorf("a member of the minimum, no plan: %+v, want nothing", v)
	}
	if v := s.PlanFor(key("g"), pod("g", "w", 2), time.Minute); len(v.Ahead) != 2 || v.Ahead[0].Name != "g-w-0" || v.Ahead[1].Name != "g-w-1" {
		t.Errorf("the extra, no plan: ahead %v, want g-w-0 and g-w-1", names(v.Ahead))
	}
	if v := s.PlanFor(key("g"), pod("g", "w", 3, surge), time.Minute); len(v.Ahead) != 0 {
		t.Errorf("a surge member waits for the minimum here: %+v (its gang is established first, at Permit)", v)
	}
	s.SetPlan(key("g"), map[string]string{"g-w-0": "n1", "g-w-1": "n2"})
	if v := s.PlanFor(key("g"), pod("g", "w", 1), time.Minute); !v.Planned || v.Node != "n2" {
		t.Errorf("a planned member: %+v, want planned on n2", v)
	}
	if v := s.PlanFor(key("g"), pod("g", "w", 2), time.Minute); v.Planned || !v.Active || len(v.Ahead) != 0 {
		t.Errorf("the extra with a plan being placed: %+v, want active only", v)
	}
	c.t = c.t.Add(2 * time.Minute)
	if v := s.PlanFor(key("g"), pod("g", "w", 2), time.Minute); v.Active || len(v.Ahead) != 2 {
		t.Errorf("the extra past the plan's age: %+v, want the 2 members ahead again", v)
	}
	s.Assume(pod("g", "w", 0), "n1")
	s.Assume(pod("g", "w", 1), "n2")
	if v := s.PlanFor(key("g"), pod("g", "w", 2), 0); len(v.Ahead) != 0 {
		t.Errorf("the extra with the minimum assumed: %+v, want nothing ahead", v)
	}
	s.StartBackoff(key("g"), time.Second, "x") // drops the plan
	if v := s.PlanFor(key("g"), pod("g", "w", 2), 0); v.Active || len(v.Ahead) != 0 {
		t.Errorf("the extra with the minimum assumed and no plan: %+v, want nothing", v)
	}
}
