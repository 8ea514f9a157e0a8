package update

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// sim plays a unit forward: each step applies the planner's actions; a created member becomes
// available on the next step (unless its revision is broken) and a deleted one disappears on
// the next step. It checks the budget invariants at every step.
type sim struct {
	t       *testing.T
	unit    Unit
	broken  map[string]bool
	pending map[int]bool // created last step
	trace   []string
	steps   int
	// prevMembers and prevAvailable are the counts after the previous step: the bounds hold
	// for what the update does, not for what a scale change just made of the unit.
	prevMembers, prevAvailable int
}

func newSim(t *testing.T, desired int, surge, unavail intstr.IntOrString, initial ...Member) *sim {
	return &sim{t: t, unit: Unit{Name: "u", Desired: desired, Target: "new", MaxSurge: surge, MaxUnavailable: unavail, Members: initial},
		broken: map[string]bool{}, pending: map[int]bool{}, prevMembers: len(initial), prevAvailable: len(initial)}
}

func oldMembers(n int) []Member {
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = Member{Index: i, Revision: "old", Available: true}
	}
	return ms
}

// step runs one planner call and one tick; it returns the planner's result.
func (s *sim) step() Result {
	s.t.Helper()
	s.steps++
	res, err := PlanUnit(s.unit)
	if err != nil {
		s.t.Fatal(err)
	}
	// tick: terminating members go, members created last step become available
	var next []Member
	for _, m := range s.unit.Members {
		if m.Terminating {
			continue
		}
		if s.pending[m.Index] {
			m.Available = !s.broken[m.Revision]
		}
		next = append(next, m)
	}
	s.pending = map[int]bool{}
	s.unit.Members = next
	var line []string
	for _, a := range res.Actions {
		line = append(line, a.String())
		switch a.Type {
		case Delete:
			for i := range s.unit.Members {
				if s.unit.Members[i].Index == a.Index {
					s.unit.Members[i].Terminating = true
				}
			}
		case Create:
			s.unit.Members = append(s.unit.Members, Member{Index: a.Index, Revision: a.Revision})
			s.pending[a.Index] = true
		}
	}
	if len(line) > 0 {
		s.trace = append(s.trace, strings.Join(line, ", "))
	}
	s.checkInvariants()
	return res
}

func (s *sim) checkInvariants() {
	s.t.Helper()
	surge, unavail, _ := Budgets(s.unit)
	n := len(s.unit.Members)
	if n > s.unit.Desired+surge && n > s.prevMembers {
		s.t.Fatalf("step %d: %d members exist, more than desired %d + maxSurge %d", s.steps, n, s.unit.Desired, surge)
	}
	available := 0
	for _, m := range s.unit.Members {
		if m.Available && !m.Terminating {
			available++
		}
	}
	if available < s.unit.Desired-unavail && available < s.prevAvailable && s.everAvailable() {
		s.t.Fatalf("step %d: %d available, fewer than desired %d - maxUnavailable %d", s.steps, available, s.unit.Desired, unavail)
	}
	s.prevMembers, s.prevAvailable = n, available
}

// everAvailable: the invariant on availability holds only for units that start healthy.
func (s *sim) everAvailable() bool { return len(s.broken) == 0 }

// run steps until the unit is done; it fails after max steps.
func (s *sim) run(max int) {
	s.t.Helper()
	for i := 0; i < max; i++ {
		if s.step().Done {
			return
		}
	}
	s.t.Fatalf("not done after %d steps; trace:\n%s", max, strings.Join(s.trace, "\n"))
}

func (s *sim) indices() string {
	var idx []string
	for _, m := range s.unit.Members {
		idx = append(idx, fmt.Sprintf("%d:%s", m.Index, m.Revision))
	}
	sort.Strings(idx)
	return strings.Join(idx, " ")
}

var (
	zero = intstr.FromInt32(0)
	one  = intstr.FromInt32(1)
	two  = intstr.FromInt32(2)
)

func expectTrace(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The design's PodClique example: replicas=3, maxSurge=1, maxUnavailable=0. Surge pod 3 first,
// then 0, 1 and 2 deleted and recreated one at a time, each after the previous is available,
// then the surge pod removed: final indices 0, 1, 2.
func TestPodCliqueSurgeExample(t *testing.T) {
	s := newSim(t, 3, one, zero, oldMembers(3)...)
	s.run(30)
	expectTrace(t, s.trace,
		"create u[3] (surge)",
		"delete u[0]",
		"create u[0]",
		"delete u[1]",
		"create u[1]",
		"delete u[2]",
		"create u[2]",
		"delete u[3] (surge)",
	)
	if got := s.indices(); got != "0:new 1:new 2:new" {
		t.Errorf("final members %s", got)
	}
}

// The design's scaling-group example: replicas=3, minAvailable=3, maxSurge=1,
// maxUnavailable=0: replica 3 (a scaled gang) first, full capacity throughout.
func TestScalingGroupSurgeExample(t *testing.T) {
	s := newSim(t, 3, one, zero, oldMembers(3)...)
	s.unit.Name = "prefill"
	s.run(30)
	if s.trace[0] != "create prefill[3] (surge)" || s.trace[len(s.trace)-1] != "delete prefill[3] (surge)" {
		t.Errorf("trace %v: want the surge replica first and removed last", s.trace)
	}
}

// A scaling group with maxUnavailable=1 and no surge: one replica at a time, delete then create.
func TestScalingGroupUnavailableOne(t *testing.T) {
	s := newSim(t, 3, zero, one, oldMembers(3)...)
	s.run(30)
	expectTrace(t, s.trace, "delete u[0]", "create u[0]", "delete u[1]", "create u[1]", "delete u[2]", "create u[2]")
}

// ReplicaRecreate replicas=2: surge 1 (the design's steps 1-8), unavailable 2 (both at once),
// unavailable 1 (one at a time).
func TestReplicaRecreateExamples(t *testing.T) {
	t.Run("maxSurge 1, maxUnavailable 0", func(t *testing.T) {
		s := newSim(t, 2, one, zero, oldMembers(2)...)
		s.run(30)
		expectTrace(t, s.trace, "create u[2] (surge)", "delete u[0]", "create u[0]", "delete u[1]", "create u[1]", "delete u[2] (surge)")
	})
	t.Run("maxUnavailable 2", func(t *testing.T) {
		s := newSim(t, 2, zero, two, oldMembers(2)...)
		s.run(30)
		expectTrace(t, s.trace, "delete u[0], delete u[1]", "create u[0], create u[1]")
	})
	t.Run("maxUnavailable 1", func(t *testing.T) {
		s := newSim(t, 2, zero, one, oldMembers(2)...)
		s.run(30)
		expectTrace(t, s.trace, "delete u[0]", "create u[0]", "delete u[1]", "create u[1]")
	})
}

func TestBudgetsRounding(t *testing.T) {
	cases := []struct {
		desired                int
		surge, unavail         intstr.IntOrString
		wantSurge, wantUnavail int
	}{
		{10, intstr.FromString("25%"), intstr.FromString("25%"), 3, 2},
		{3, intstr.FromString("50%"), intstr.FromString("50%"), 2, 1},
		{1, intstr.FromString("10%"), intstr.FromString("10%"), 1, 0},
		{4, zero, zero, 0, 1}, // both zero: never stuck
		{4, intstr.FromString("0%"), intstr.FromString("10%"), 0, 1}, // zero after rounding too
	}
	for _, tc := range cases {
		s, u, err := Budgets(Unit{Name: "u", Desired: tc.desired, MaxSurge: tc.surge, MaxUnavailable: tc.unavail})
		if err != nil || s != tc.wantSurge || u != tc.wantUnavail {
			t.Errorf("Budgets(%d, %s, %s) = %d, %d, %v; want %d, %d", tc.desired, tc.surge.String(), tc.unavail.String(), s, u, err, tc.wantSurge, tc.wantUnavail)
		}
	}
	if _, _, err := Budgets(Unit{Name: "u", Desired: 2, MaxSurge: intstr.FromString("x%"), MaxUnavailable: zero}); err == nil || !strings.Contains(err.Error(), "maxSurge") {
		t.Errorf("a malformed percentage must be an error naming the field, got %v", err)
	}
}

// Old members that are already unavailable are replaced first without spending the budget.
func TestUnhealthyOldMembersFirst(t *testing.T) {
	for _, tc := range []struct {
		unavail intstr.IntOrString
		want    string
	}{
		// The broken member already uses the budget of 1: only it goes.
		{one, "delete u[2]"},
		// With a budget of 2, one healthy member may go beside it.
		{two, "delete u[2], delete u[0]"},
	} {
		members := oldMembers(3)
		members[2].Available = false
		res, err := PlanUnit(Unit{Name: "u", Desired: 3, Target: "new", MaxSurge: zero, MaxUnavailable: tc.unavail, Members: members})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range res.Actions {
			got = append(got, a.String())
		}
		if strings.Join(got, ", ") != tc.want {
			t.Errorf("maxUnavailable %s: actions %v, want %s", tc.unavail.String(), got, tc.want)
		}
	}
}

// A new template during the update (rollover): members of the intermediate revision are
// replaced too and the update ends on the newest one.
func TestRollover(t *testing.T) {
	s := newSim(t, 3, one, zero, oldMembers(3)...)
	for i := 0; i < 4; i++ {
		s.step()
	}
	s.unit.Target = "newer"
	s.run(40)
	if got := s.indices(); got != "0:newer 1:newer 2:newer" {
		t.Errorf("final members %s", got)
	}
}

// Scale up and down during an update: new members use the newest template; indices end dense.
func TestScaleDuringUpdate(t *testing.T) {
	t.Run("up", func(t *testing.T) {
		s := newSim(t, 3, one, zero, oldMembers(3)...)
		s.step()
		s.step()
		s.unit.Desired = 5
		s.run(40)
		if got := s.indices(); got != "0:new 1:new 2:new 3:new 4:new" {
			t.Errorf("final members %s", got)
		}
	})
	t.Run("down", func(t *testing.T) {
		s := newSim(t, 4, one, zero, oldMembers(4)...)
		s.step()
		s.step()
		s.unit.Desired = 2
		s.run(40)
		if got := s.indices(); got != "0:new 1:new" {
			t.Errorf("final members %s", got)
		}
	})
}

// A surge member that never becomes available stalls a maxUnavailable=0 update: the planner
// keeps waiting (the controller turns that into ProgressDeadlineExceeded) and says why.
func TestBrokenSurgeWaits(t *testing.T) {
	s := newSim(t, 3, one, zero, oldMembers(3)...)
	s.broken["new"] = true
	var res Result
	for i := 0; i < 10; i++ {
		res = s.step()
	}
	if res.Done || len(res.Actions) != 0 || !strings.Contains(res.Waiting, "not available yet") {
		t.Errorf("result %+v: want waiting for the surge member", res)
	}
	if got := s.indices(); got != "0:old 1:old 2:old 3:new" {
		t.Errorf("members %s: no old member may go while the surge is unavailable", got)
	}
}

// Terminating members hold their resources: they count against desired + maxSurge.
func TestTerminatingCountsAgainstSurge(t *testing.T) {
	members := oldMembers(3)
	members = append(members, Member{Index: 3, Revision: "old", Terminating: true})
	res, err := PlanUnit(Unit{Name: "u", Desired: 3, Target: "new", MaxSurge: one, MaxUnavailable: zero, Members: members})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Actions {
		if a.Type == Create {
			t.Errorf("created %s while a terminating member fills the surge budget", a)
		}
	}
}

func BenchmarkPlanUnit100(b *testing.B) {
	members := oldMembers(100)
	for i := 0; i < 50; i++ {
		members[i].Revision = "new"
	}
	u := Unit{Name: "replicas", Desired: 100, Target: "new", MaxSurge: intstr.FromString("10%"), MaxUnavailable: zero, Members: members}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := PlanUnit(u); err != nil {
			b.Fatal(err)
		}
	}
}

// Surge admission refused a surge member: with maxUnavailable 1 the update goes on without
// surge (delete then create), with maxUnavailable 0 it waits and says why; once the check
// admits the surge again, it proceeds as usual.
func TestSurgeBlocked(t *testing.T) {
	t.Run("maxSurge 1, maxUnavailable 1: falls back to the unavailable budget", func(t *testing.T) {
		s := newSim(t, 3, one, one, oldMembers(3)...)
		s.unit.SurgeBlocked = true
		s.run(30)
		expectTrace(t, s.trace, "delete u[0]", "create u[0]", "delete u[1]", "create u[1]", "delete u[2]", "create u[2]")
	})
	t.Run("maxSurge 1, maxUnavailable 0: waits, then proceeds once admitted", func(t *testing.T) {
		s := newSim(t, 3, one, zero, oldMembers(3)...)
		s.unit.SurgeBlocked = true
		res := s.step()
		if len(res.Actions) != 0 || !res.SurgeBlocked || res.Done {
			t.Fatalf("result = %+v", res)
		}
		if want := "no room for a surge member and maxUnavailable allows no old member to go (3 available, minimum 3)"; res.Waiting != want {
			t.Errorf("waiting = %q", res.Waiting)
		}
		s.unit.SurgeBlocked = false
		s.run(30)
		if s.trace[0] != "create u[3] (surge)" {
			t.Errorf("trace %v", s.trace)
		}
	})
	t.Run("an existing surge member is kept when more surge is refused", func(t *testing.T) {
		u := Unit{Name: "u", Desired: 3, Target: "new", MaxSurge: two, MaxUnavailable: zero, SurgeBlocked: true,
			Members: append(oldMembers(3), Member{Index: 3, Revision: "new", Available: true})}
		res, err := PlanUnit(u)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range res.Actions {
			got = append(got, a.String())
		}
		// The one surge member lets one old member go; no second surge member is made.
		if strings.Join(got, ", ") != "delete u[0]" || !res.SurgeBlocked {
			t.Errorf("actions %v, blocked %v", got, res.SurgeBlocked)
		}
	})
	t.Run("no surge wanted: not reported blocked", func(t *testing.T) {
		u := Unit{Name: "u", Desired: 3, Target: "new", MaxSurge: one, MaxUnavailable: zero, SurgeBlocked: true,
			Members: []Member{{Index: 0, Revision: "new", Available: true}, {Index: 1, Revision: "new", Available: true}, {Index: 2, Revision: "new", Available: true}}}
		res, _ := PlanUnit(u)
		if res.SurgeBlocked || !res.Done {
			t.Errorf("result = %+v", res)
		}
	})
}

// A readiness blip must not become an outage: when old members turn unready together, no more
// go in one pass than present - minAvailable - (new members not yet available), as the
// Deployment controller caps cleanupUnhealthyReplicas; one may go when nothing is in flight.
func TestUnhealthyFlapCapped(t *testing.T) {
	for _, tc := range []struct {
		name      string
		desired   int
		surge     intstr.IntOrString
		unavail   intstr.IntOrString
		unready   []int
		newUnread int // members at the target that are not available yet (indices desired..)
		want      string
	}{
		{"all 4 flap, maxUnavailable 1: one goes", 4, zero, one, []int{0, 1, 2, 3}, 0, "delete u[0]"},
		{"all 4 flap, maxUnavailable 2: two go", 4, zero, two, []int{0, 1, 2, 3}, 0, "delete u[0], delete u[1]"},
		{"one broken, maxUnavailable 0, surge 1 (full cluster): it still goes", 3, one, zero, []int{2}, 0, "delete u[2], create u[3] (surge)"},
		{"a new member is not Ready yet: the unready old one waits", 3, one, zero, []int{2}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			members := oldMembers(tc.desired)
			for _, i := range tc.unready {
				members[i].Available = false
			}
			for j := 0; j < tc.newUnread; j++ {
				members = append(members, Member{Index: tc.desired + j, Revision: "new"})
			}
			res, err := PlanUnit(Unit{Name: "u", Desired: tc.desired, Target: "new", MaxSurge: tc.surge, MaxUnavailable: tc.unavail, Members: members})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range res.Actions {
				got = append(got, a.String())
			}
			if strings.Join(got, ", ") != tc.want {
				t.Errorf("actions %q, want %q", got, tc.want)
			}
		})
	}
}

// Paused: no member of the old revision is replaced and no surge member is created or
// removed; a missing member is created (self-healing) and scale-in removes what is above the
// desired count; resumed, the update completes.
func TestPausedUnit(t *testing.T) {
	cases := []struct {
		name    string
		unit    Unit
		want    []string
		waiting string
		done    bool
	}{
		{name: "update not started: nothing",
			unit:    Unit{Desired: 3, Members: oldMembers(3)},
			waiting: "paused: 3 members run an older revision than new"},
		{name: "mid-update: the surge member is kept, nothing replaced",
			unit:    Unit{Desired: 3, Members: append(oldMembers(3)[1:], Member{Index: 0, Revision: "new", Available: true}, Member{Index: 3, Revision: "new", Available: true})},
			waiting: "paused: 2 members run an older revision than new"},
		{name: "a lost member is recreated at the target",
			unit: Unit{Desired: 3, Members: oldMembers(3)[1:]},
			want: []string{"create u[0]"}, waiting: "paused: 2 members run an older revision than new"},
		{name: "scale-in removes what is above the desired count",
			unit: Unit{Desired: 2, Members: oldMembers(3)},
			want: []string{"delete u[2] (surge)"}, waiting: "paused: 2 members run an older revision than new"},
		{name: "an update already complete is done",
			unit: Unit{Desired: 2, Members: []Member{{Index: 0, Revision: "new", Available: true}, {Index: 1, Revision: "new", Available: true}}},
			done: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := tc.unit
			u.Name, u.Target, u.MaxSurge, u.MaxUnavailable, u.Paused = "u", "new", one, zero, true
			res, err := PlanUnit(u)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range res.Actions {
				got = append(got, a.String())
			}
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") || res.Waiting != tc.waiting || res.Done != tc.done {
				t.Errorf("got %v waiting %q done %v; want %v waiting %q done %v", got, res.Waiting, res.Done, tc.want, tc.waiting, tc.done)
			}
		})
	}
	// Resumed, the same unit rolls on to the end.
	s := newSim(t, 3, one, zero, oldMembers(3)...)
	s.unit.Paused = true
	for i := 0; i < 5; i++ {
		if s.step().Done {
			t.Fatal("a paused update reported done")
		}
	}
	if got := s.indices(); got != "0:old 1:old 2:old" {
		t.Fatalf("paused for 5 steps, members %s", got)
	}
	s.unit.Paused = false
	s.run(30)
	if got := s.indices(); got != "0:new 1:new 2:new" {
		t.Errorf("resumed, members %s", got)
	}
}
