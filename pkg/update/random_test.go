package update

import (
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

var simRuns = flag.Int("update.sim-runs", 2000, "randomized update simulations to run (raise it for a longer search)")

type simMember struct {
	Member
	readyIn int // steps until a created member becomes available; -1: never (a failed pod)
	placed  bool
}

func randBudget(r *rand.Rand, desired int) intstr.IntOrString {
	if r.Intn(3) == 0 {
		return intstr.FromString(fmt.Sprintf("%d%%", r.Intn(101)))
	}
	return intstr.FromInt32(int32(r.Intn(3)))
}

// TestRandomizedUpdates plays random units forward with random readiness delays, pod
// failures, a capacity limit, and controller crashes between any two actions (only a random
// prefix of a step's actions is applied). At every step: never more than desired + maxSurge
// members, never fewer than desired - maxUnavailable available unless a failure did it, no
// two members on one index. Without failures and with room for desired + maxSurge, the update
// completes with indices exactly 0..desired-1. A failing seed is printed for replay.
func TestRandomizedUpdates(t *testing.T) {
	runSims(t, "TestRandomizedUpdates", simulate)
}

// runSims runs seeds 1..update.sim-runs of sim, every one (a violation does not stop the
// search), logs "<name>: N runs, V invariant violations" (make simulate prints it) and fails
// with the first few violating seeds.
func runSims(t *testing.T, name string, sim func(seed int64) string) {
	t.Helper()
	var violations []string
	for seed := int64(1); seed <= int64(*simRuns); seed++ {
		if msg := sim(seed); msg != "" {
			violations = append(violations, fmt.Sprintf("seed %d: %s (replay: go test ./pkg/update -run %s -update.sim-runs=%d)", seed, msg, name, seed))
		}
	}
	t.Logf("%s: %d runs, %d invariant violations", name, *simRuns, len(violations))
	if len(violations) > 0 {
		t.Fatalf("%d of %d runs violate an invariant; first: %s", len(violations), *simRuns, strings.Join(violations[:min(3, len(violations))], "; "))
	}
}

// scenario is a random unit of a simulation: its budgets resolved, whether pods fail, and
// the capacity (sometimes less room than the surge budget).
type scenario struct {
	u                       Unit
	desired, surge, unavail int
	failures                bool
	capacity                int
	roomForSurge            bool
}

func randomScenario(r *rand.Rand) (scenario, error) {
	desired := r.Intn(7)
	u := Unit{Name: "u", Desired: desired, Target: "new", MaxSurge: randBudget(r, desired), MaxUnavailable: randBudget(r, desired)}
	surge, unavail, err := Budgets(u)
	if err != nil {
		return scenario{}, err
	}
	failures := r.Intn(4) == 0
	capacity := desired + surge
	if r.Intn(3) == 0 {
		capacity = desired + r.Intn(surge+1)
	}
	return scenario{u: u, desired: desired, surge: surge, unavail: unavail, failures: failures, capacity: capacity,
		roomForSurge: capacity >= desired+surge || surge == 0}, nil
}

func simulate(seed int64) string {
	r := rand.New(rand.NewSource(seed))
	sc, err := randomScenario(r)
	if err != nil {
		return err.Error()
	}
	u, desired, surge, unavail, failures, capacity := sc.u, sc.desired, sc.surge, sc.unavail, sc.failures, sc.capacity
	var members []*simMember
	for i := 0; i < desired; i++ {
		members = append(members, &simMember{Member: Member{Index: i, Revision: "old", Available: true}, placed: true})
	}
	roomForSurge := sc.roomForSurge
	// Sometimes the update is paused for a while (updateStrategy.paused): no step of it then.
	pauseFrom, pauseTo := -1, -1
	if r.Intn(3) == 0 {
		pauseFrom = r.Intn(20)
		pauseTo = pauseFrom + 1 + r.Intn(30)
	}
	for step := 0; step < 400; step++ {
		u.Paused = step >= pauseFrom && step < pauseTo
		// world moves: terminating members go, created ones get placed and become ready
		var next []*simMember
		placed := 0
		for _, m := range members {
			if m.Terminating {
				continue
			}
			next = append(next, m)
			if m.placed {
				placed++
			}
		}
		members = next
		for _, m := range members {
			if !m.placed && placed < capacity {
				m.placed, placed = true, placed+1
			}
			if m.placed && !m.Available && m.readyIn >= 0 {
				if m.readyIn == 0 {
					m.Available = true
				} else {
					m.readyIn--
				}
			}
		}
		u.Members = u.Members[:0]
		for _, m := range members {
			u.Members = append(u.Members, m.Member)
		}
		res, err := PlanUnit(u)
		if err != nil {
			return err.Error()
		}
		if res.Done {
			if msg := exactIndices(u); msg != "" {
				return "done with " + msg
			}
			return ""
		}
		if u.Paused {
			if msg := pausedStepViolation(u, res); msg != "" {
				return fmt.Sprintf("step %d (paused): %s", step, msg)
			}
		}
		// a crash may cut the step short after any action
		actions := res.Actions
		if len(actions) > 0 && r.Intn(4) == 0 {
			actions = actions[:r.Intn(len(actions)+1)]
		}
		availBefore := 0
		for _, m := range members {
			if m.Available && !m.Terminating {
				availBefore++
			}
		}
		for _, a := range actions {
			switch a.Type {
			case Delete:
				for _, m := range members {
					if m.Index == a.Index && !m.Terminating {
						m.Terminating = true
					}
				}
			case Create:
				for _, m := range members {
					if m.Index == a.Index {
						return fmt.Sprintf("step %d: create on index %d, which a member holds", step, a.Index)
					}
				}
				delay := r.Intn(3)
				if failures && r.Intn(5) == 0 {
					delay = -1
				}
				members = append(members, &simMember{Member: Member{Index: a.Index, Revision: a.Revision}, readyIn: delay})
			}
		}
		if len(members) > desired+surge {
			return fmt.Sprintf("step %d: %d members, desired %d + maxSurge %d", step, len(members), desired, surge)
		}
		avail := 0
		for _, m := range members {
			if m.Available && !m.Terminating {
				avail++
			}
		}
		if !failures && avail < desired-unavail && avail < availBefore {
			return fmt.Sprintf("step %d: the update took availability to %d, below desired %d - maxUnavailable %d", step, avail, desired, unavail)
		}
	}
	if !failures && roomForSurge {
		return fmt.Sprintf("not done after 400 steps (desired %d, surge %d, unavailable %d, capacity %d)", desired, surge, unavail, capacity)
	}
	return ""
}

// pausedStepViolation reports a step that a paused unit must not take: a member of an older
// revision replaced, a surge member created, the surge member of an update in flight removed.
func pausedStepViolation(u Unit, res Result) string {
	revision := map[int]string{}
	outdated := false
	for _, m := range u.Members {
		revision[m.Index] = m.Revision
		outdated = outdated || (m.Index < u.Desired && !m.Terminating && m.Revision != u.Target)
	}
	for _, a := range res.Actions {
		switch {
		case a.Type == Create && a.Index >= u.Desired:
			return fmt.Sprintf("surge member %d created", a.Index)
		case a.Type == Delete && a.Index < u.Desired:
			return fmt.Sprintf("member %d (revision %s) deleted", a.Index, revision[a.Index])
		case a.Type == Delete && outdated && revision[a.Index] == u.Target:
			return fmt.Sprintf("surge member %d of the paused update removed", a.Index)
		}
	}
	return ""
}

// desired=0: every member goes, nothing is created.
func TestDesiredZero(t *testing.T) {
	s := newSim(t, 0, one, zero, oldMembers(2)...)
	s.run(10)
	if got := s.indices(); got != "" {
		t.Errorf("members left: %s", got)
	}
}

// TestRandomizedRollingUpdates plays PodCliqueSets of 1-3 replicas (one unit each, random
// sizes and budgets, random readiness delays, a crash between any two actions) through
// PlanRollingUpdate. With no failure in the world, every replica that is short (a member
// missing, unavailable, terminating, or a surge member left) is short because of the update,
// so at every step: at most one replica in flight. When the plan says Done: every member of
// every replica is available at the target, none terminating, indices exactly 0..desired-1.
func TestRandomizedRollingUpdates(t *testing.T) {
	runSims(t, "TestRandomizedRollingUpdates", simulateReplicas)
}

// simulateReplicas rolls 1-3 PodCliqueSet replicas one at a time. In a third of the runs a
// rollingUpdate.partition holds the replicas below it at the old revision, as the controller
// does (their units target the old revision), and is lowered to 0 at a random step; invariant:
// no action ever touches a replica below the partition in force.
func simulateReplicas(seed int64) string {
	r := rand.New(rand.NewSource(seed))
	n := 1 + r.Intn(3)
	partition, lowerAt := 0, -1
	if r.Intn(3) == 0 {
		partition, lowerAt = r.Intn(n+1), r.Intn(60)
	}
	// In half the runs every replica also has a component the update does not change (all its
	// members at the target): it must never be touched, nor make a replica look started.
	unchanged := r.Intn(2) == 0
	type simReplica struct {
		unit    Unit
		members []*simMember
	}
	reps := make([]*simReplica, n)
	desired := 1 + r.Intn(4)
	surgeB, unavailB := randBudget(r, desired), randBudget(r, desired)
	for i := range reps {
		u := Unit{Name: fmt.Sprintf("replica-%d", i), Desired: desired, Target: "new", MaxSurge: surgeB, MaxUnavailable: unavailB}
		reps[i] = &simReplica{unit: u}
		for j := 0; j < desired; j++ {
			reps[i].members = append(reps[i].members, &simMember{Member: Member{Index: j, Revision: "old", Available: true}, placed: true})
		}
	}
	settled := func(sr *simReplica) bool {
		if len(sr.members) != desired {
			return false
		}
		for _, m := range sr.members {
			if m.Index >= desired || !m.Available || m.Terminating {
				return false
			}
		}
		return true
	}
	for step := 0; step < 400; step++ {
		if step == lowerAt {
			partition = 0
		}
		for i, sr := range reps {
			sr.unit.Target = "new"
			if i < partition {
				sr.unit.Target = "old"
			}
		}
		for _, sr := range reps {
			var next []*simMember
			for _, m := range sr.members {
				if m.Terminating {
					continue
				}
				if !m.Available {
					if m.readyIn == 0 {
						m.Available = true
					} else {
						m.readyIn--
					}
				}
				next = append(next, m)
			}
			sr.members = next
		}
		var replicas []Replica
		for i, sr := range reps {
			u := sr.unit
			u.Members = nil
			for _, m := range sr.members {
				u.Members = append(u.Members, m.Member)
			}
			rep := Replica{Index: i, Scheduled: true, Units: []Unit{u}}
			if unchanged {
				rep.Units = append(rep.Units, Unit{Name: fmt.Sprintf("unchanged-%d", i), Desired: 1, Target: sr.unit.Target, MaxSurge: surgeB, MaxUnavailable: unavailB,
					Members: []Member{{Index: 0, Revision: sr.unit.Target, Available: true}}})
			}
			replicas = append(replicas, rep)
		}
		p, err := PlanRollingUpdate(replicas)
		if err != nil {
			return err.Error()
		}
		if p.Done {
			for i, sr := range reps {
				if !settled(sr) {
					return fmt.Sprintf("step %d: done while replica %d is not settled", step, i)
				}
				seen := map[int]bool{}
				for _, m := range sr.members {
					if m.Revision != sr.unit.Target || seen[m.Index] {
						return fmt.Sprintf("step %d: done with replica %d member %d at %q (or twice)", step, i, m.Index, m.Revision)
					}
					seen[m.Index] = true
				}
			}
			if partition == 0 {
				return ""
			}
			// Done up to the partition: the held replicas wait for it to be lowered.
		}
		actions := p.Actions
		if len(actions) > 0 && r.Intn(4) == 0 {
			actions = actions[:r.Intn(len(actions)+1)]
		}
		for _, a := range actions {
			target := -1
			for i, sr := range reps {
				if sr.unit.Name == a.Unit {
					target = i
				}
			}
			if target < 0 {
				return fmt.Sprintf("step %d: action %s names no replica's unit", step, a)
			}
			if target < partition {
				return fmt.Sprintf("step %d: action %s touches replica %d below the partition %d", step, a, target, partition)
			}
			sr := reps[target]
			switch a.Type {
			case Delete:
				for _, m := range sr.members {
					if m.Index == a.Index && !m.Terminating {
						m.Terminating = true
					}
				}
			case Create:
				sr.members = append(sr.members, &simMember{Member: Member{Index: a.Index, Revision: a.Revision}, readyIn: r.Intn(3), placed: true})
			}
		}
		inFlight := 0
		for _, sr := range reps {
			if !settled(sr) {
				inFlight++
			}
		}
		if inFlight > 1 {
			return fmt.Sprintf("step %d: %d replicas in flight at once (RollingUpdate takes one PodCliqueSet replica at a time)", step, inFlight)
		}
	}
	return fmt.Sprintf("not done after 400 steps (%d replicas of %d, surge %v, unavailable %v, partition %d)", n, desired, surgeB, unavailB, partition)
}

// TestRandomizedOnDelete plays PodCliqueSets of 1-3 replicas of 1-2 units under OnDelete (the
// plan of Bypass's replicas) with users deleting random members, scales of random units and
// controller crashes between any two actions. At every step: the controller deletes no member
// below its unit's desired count (only what a scale-in leaves above it), creates only at the
// target and never on an index a member holds. Once the disturbances stop the plan completes
// with exactly indices 0..desired-1, the members the users deleted made again at the target
// and every other member still at its old revision.
func TestRandomizedOnDelete(t *testing.T) {
	runSims(t, "TestRandomizedOnDelete", simulateOnDelete)
}

func simulateOnDelete(seed int64) string {
	r := rand.New(rand.NewSource(seed))
	var replicas []Replica
	for i := 0; i < 1+r.Intn(3); i++ {
		rep := Replica{Index: i, Scheduled: true}
		for j := 0; j < 1+r.Intn(2); j++ {
			d := 1 + r.Intn(4)
			u := Unit{Name: fmt.Sprintf("r%d-u%d", i, j), Desired: d, Target: "new", MaxSurge: randBudget(r, d), MaxUnavailable: randBudget(r, d)}
			for k := 0; k < d; k++ {
				u.Members = append(u.Members, Member{Index: k, Revision: "old", Available: true})
			}
			rep.Units = append(rep.Units, u)
		}
		replicas = append(replicas, rep)
	}
	const quiet = 150 // no disturbance from this step on
	for step := 0; step < 300; step++ {
		// the world moves: terminating members go, created ones become available
		for ri := range replicas {
			for ui := range replicas[ri].Units {
				u := &replicas[ri].Units[ui]
				var keep []Member
				for _, m := range u.Members {
					if !m.Terminating {
						m.Available = true
						keep = append(keep, m)
					}
				}
				u.Members = keep
			}
		}
		if step < quiet {
			ri := r.Intn(len(replicas))
			u := &replicas[ri].Units[r.Intn(len(replicas[ri].Units))]
			switch x := r.Intn(12); {
			case x < 2 && len(u.Members) > 0: // a user deletes a member (or it is evicted)
				u.Members[r.Intn(len(u.Members))].Terminating = true
			case x == 2:
				u.Desired = r.Intn(5)
			}
		}
		bypassed, _ := Bypass(replicas)
		p, err := PlanRollingUpdate(bypassed)
		if err != nil {
			return err.Error()
		}
		if p.Done && step >= quiet {
			for _, rep := range replicas {
				for _, u := range rep.Units {
					if msg := exactIndices(u); msg != "" {
						return fmt.Sprintf("step %d: done with %s", step, msg)
					}
				}
			}
			return ""
		}
		actions := p.Actions
		if len(actions) > 0 && r.Intn(4) == 0 {
			actions = actions[:r.Intn(len(actions)+1)]
		}
		for _, a := range actions {
			var u *Unit
			for ri := range replicas {
				for ui := range replicas[ri].Units {
					if replicas[ri].Units[ui].Name == a.Unit {
						u = &replicas[ri].Units[ui]
					}
				}
			}
			if u == nil {
				return fmt.Sprintf("step %d: action %s names no unit", step, a)
			}
			switch a.Type {
			case Delete:
				if a.Index < u.Desired {
					return fmt.Sprintf("step %d: %s under OnDelete: the controller deleted a member below the desired count", step, a)
				}
				for i := range u.Members {
					if u.Members[i].Index == a.Index {
						u.Members[i].Terminating = true
					}
				}
			case Create:
				if a.Revision != u.Target {
					return fmt.Sprintf("step %d: %s at revision %q, not the target", step, a, a.Revision)
				}
				for _, m := range u.Members {
					if m.Index == a.Index {
						return fmt.Sprintf("step %d: %s on an index a member holds", step, a)
					}
				}
				u.Members = append(u.Members, Member{Index: a.Index, Revision: a.Revision})
			}
		}
	}
	return "not done 150 steps after the last disturbance"
}

// exactIndices says what is wrong when u's members are not exactly indices 0..desired-1 ("" when
// they are).
func exactIndices(u Unit) string {
	idx := make([]int, 0, len(u.Members))
	for _, m := range u.Members {
		idx = append(idx, m.Index)
	}
	sort.Ints(idx)
	for i, v := range idx {
		if v != i {
			return fmt.Sprintf("%s indices %v", u.Name, idx)
		}
	}
	if len(idx) != u.Desired {
		return fmt.Sprintf("%d members of %s, want %d", len(idx), u.Name, u.Desired)
	}
	return ""
}
