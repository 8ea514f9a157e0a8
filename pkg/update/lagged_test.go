package update

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"testing"
	"time"
)

// lagMember is a member of the true state of a lagged simulation.
type lagMember struct {
	Member
	uid     int
	readyIn int // steps until available once placed; -1: never (a failed pod)
	placed  bool
}

// lagEvent is one watch event on its way to the controller's view: the member's state after
// a write (present) or its removal.
type lagEvent struct {
	index   int
	member  Member
	uid     int
	present bool
	at      int // the step it is delivered
}

// TestRandomizedLaggedUpdates is TestRandomizedUpdates with a controller that plans from a
// view its informer delivers late: each write reaches the view 0-4 steps after it happened,
// in order for one member and out of order across members, and now and then the informer
// relists (the view becomes the true state at once). The controller keeps Expectations: a
// pass plans only when the view shows every create and delete of earlier passes. Invariants
// on the true state, as in TestRandomizedUpdates: never more than desired + maxSurge members,
// never fewer than desired - maxUnavailable available unless a failure did it, never a create
// on an index a member holds, and without failures and with room the update completes with
// indices exactly 0..desired-1.
func TestRandomizedLaggedUpdates(t *testing.T) {
	runSims(t, "TestRandomizedLaggedUpdates", func(seed int64) string { return simulateLagged(seed, true) })
}

// Without expectations the same lag breaks the invariants: the simulation can fail, and
// Expectations are what keeps TestRandomizedLaggedUpdates at 0.
func TestLaggedViewWithoutExpectationsViolates(t *testing.T) {
	violations := 0
	for seed := int64(1); seed <= 2000; seed++ {
		if simulateLagged(seed, false) != "" {
			violations++
		}
	}
	if violations == 0 {
		t.Fatal("2000 lagged runs without expectations kept every invariant: the lagged simulation does not exercise the lag")
	}
	t.Logf("without expectations: %d of 2000 lagged runs violate an invariant", violations)
}

func simulateLagged(seed int64, expect bool) string {
	r := rand.New(rand.NewSource(seed))
	sc, err := randomScenario(r)
	if err != nil {
		return err.Error()
	}
	u, desired, surge, unavail, failures, capacity, roomForSurge := sc.u, sc.desired, sc.surge, sc.unavail, sc.failures, sc.capacity, sc.roomForSurge
	maxLag := 1 + r.Intn(4)

	truth := map[int]*lagMember{}
	view := map[int]lagEvent{}
	var events []lagEvent
	lastAt := map[int]int{} // per member: its events are delivered in order
	nextUID := 0
	step := 0
	emit := func(m *lagMember, present bool) {
		at := step + r.Intn(maxLag+1)
		if at < lastAt[m.Index] {
			at = lastAt[m.Index]
		}
		lastAt[m.Index] = at
		events = append(events, lagEvent{index: m.Index, member: m.Member, uid: m.uid, present: present, at: at})
	}
	for i := 0; i < desired; i++ {
		nextUID++
		m := &lagMember{Member: Member{Index: i, Revision: "old", Available: true}, uid: nextUID, placed: true}
		truth[i] = m
		view[i] = lagEvent{index: i, member: m.Member, uid: m.uid, present: true}
	}
	var exp Expectations
	now := time.Unix(0, 0)
	for ; step < 800; step++ {
		now = now.Add(time.Second)
		// The world: terminating members go, created ones are placed and become ready.
		placed := 0
		for _, idx := range sortedKeys(truth) {
			m := truth[idx]
			if m.Terminating {
				delete(truth, idx)
				emit(m, false)
				continue
			}
			if m.placed {
				placed++
			}
		}
		for _, idx := range sortedKeys(truth) {
			m := truth[idx]
			changed := false
			if !m.placed && placed < capacity {
				m.placed, placed, changed = true, placed+1, true
			}
			if m.placed && !m.Available && m.readyIn >= 0 {
				if m.readyIn == 0 {
					m.Available, changed = true, true
				} else {
					m.readyIn--
				}
			}
			if changed {
				emit(m, true)
			}
		}
		// The informer: due events reach the view, or (rarely) a relist replaces it.
		if r.Intn(40) == 0 {
			view = map[int]lagEvent{}
			for idx, m := range truth {
				view[idx] = lagEvent{index: idx, member: m.Member, uid: m.uid, present: true}
			}
			events, lastAt = nil, map[int]int{}
		} else {
			var later []lagEvent
			for _, e := range events {
				switch {
				case e.at > step:
					later = append(later, e)
				case e.present:
					view[e.index] = e
				default:
					if v, ok := view[e.index]; ok && v.uid == e.uid {
						delete(view, e.index)
					}
				}
			}
			events = later
		}

		// The controller's pass.
		if expect {
			awaited, _ := exp.Observe(func(key string) (string, bool, bool) {
				idx, _ := strconv.Atoi(key)
				v, ok := view[idx]
				return strconv.Itoa(v.uid), v.member.Terminating, ok
			}, now)
			if len(awaited) > 0 {
				continue
			}
		}
		u.Members = u.Members[:0]
		for _, idx := range sortedKeys(view) {
			u.Members = append(u.Members, view[idx].member)
		}
		res, err := PlanUnit(u)
		if err != nil {
			return err.Error()
		}
		if res.Done {
			if len(events) > 0 {
				continue // the view may not show the end yet
			}
			tu := u
			tu.Members = nil
			for _, idx := range sortedKeys(truth) {
				tu.Members = append(tu.Members, truth[idx].Member)
			}
			if msg := exactIndices(tu); msg != "" {
				return "done with " + msg
			}
			return ""
		}
		actions := res.Actions
		if len(actions) > 0 && r.Intn(4) == 0 {
			actions = actions[:r.Intn(len(actions)+1)]
		}
		availBefore := available(truth)
		for _, a := range actions {
			key := strconv.Itoa(a.Index)
			switch a.Type {
			case Delete:
				m, ok := truth[a.Index]
				if !ok || m.Terminating {
					continue // NotFound, or already terminating: nothing changes
				}
				m.Terminating = true
				emit(m, true)
				exp.ExpectDelete(key, strconv.Itoa(m.uid), now)
			case Create:
				if _, ok := truth[a.Index]; ok {
					return fmt.Sprintf("step %d: create on index %d, which a member holds (the view lagged)", step, a.Index)
				}
				delay := r.Intn(3)
				if failures && r.Intn(5) == 0 {
					delay = -1
				}
				nextUID++
				m := &lagMember{Member: Member{Index: a.Index, Revision: a.Revision}, uid: nextUID, readyIn: delay}
				truth[a.Index] = m
				emit(m, true)
				exp.ExpectCreate(key, now)
			}
		}
		if len(truth) > desired+surge {
			return fmt.Sprintf("step %d: %d members, desired %d + maxSurge %d", step, len(truth), desired, surge)
		}
		if avail := available(truth); !failures && avail < desired-unavail && avail < availBefore {
			return fmt.Sprintf("step %d: the update took availability to %d, below desired %d - maxUnavailable %d", step, avail, desired, unavail)
		}
	}
	if !failures && roomForSurge {
		return fmt.Sprintf("not done after 800 steps (desired %d, surge %d, unavailable %d, capacity %d, lag %d)", desired, surge, unavail, capacity, maxLag)
	}
	return ""
}

func available(members map[int]*lagMember) int {
	n := 0
	for _, m := range members {
		if m.Available && !m.Terminating {
			n++
		}
	}
	return n
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

func TestExpectationsObserve(t *testing.T) {
	at := time.Unix(100, 0)
	var e Expectations
	e.ExpectCreate("a", at)
	e.ExpectDelete("b", "uid-b", at)
	e.ExpectDelete("c", "uid-c", at)
	view := map[string][3]any{ // uid, terminating, present
		"b": {"uid-b", false, true},
		"c": {"uid-c2", false, true}, // recreated under the same name: the deletion happened
	}
	seen := func(key string) (string, bool, bool) {
		v, ok := view[key]
		if !ok {
			return "", false, false
		}
		return v[0].(string), v[1].(bool), true
	}
	awaited, expired := e.Observe(seen, at.Add(time.Second))
	if fmt.Sprint(awaited) != "[a b]" || len(expired) != 0 {
		t.Fatalf("awaited %v expired %v, want [a b] and none", awaited, expired)
	}
	view["a"] = [3]any{"uid-a", false, true}
	view["b"] = [3]any{"uid-b", true, true} // terminating: the delete is seen
	if awaited, _ := e.Observe(seen, at.Add(2*time.Second)); len(awaited) != 0 || e.Pending() {
		t.Fatalf("awaited %v after the view showed both writes", awaited)
	}
	e.ExpectCreate("lost", at)
	if awaited, expired := e.Observe(seen, at.Add(ExpectationsTTL+time.Second)); len(awaited) != 0 || fmt.Sprint(expired) != "[lost]" {
		t.Fatalf("awaited %v expired %v, want the create expired after the TTL", awaited, expired)
	}
}
