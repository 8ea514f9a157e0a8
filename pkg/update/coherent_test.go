package update

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// csim plays PodCliqueSet replicas under Coherent forward as sim does a unit: each step runs
// PlanCoherent on the state, then a tick (terminating members go, members created on the
// previous step become available unless their slice is incomplete: a slice is one gang,
// placed all-or-nothing), then applies the actions. It checks the slice invariants at every
// step.
type csim struct {
	t        *testing.T
	replicas []CoherentReplica
	// gangOf is the coherent slice a created member was made with ("" for members made
	// alone); pending are the members created on the previous step.
	gangOf  map[string]string
	pending map[string]bool
	trace   []string
	steps   int
	// outage: the budgets allow every slice of a replica to be unavailable at once.
	outage bool
}

func key(unit string, i int) string { return fmt.Sprintf("%s[%d]", unit, i) }

// component is a unit of old, available members.
func component(name string, desired, minAvailable int, revision string) Unit {
	u := Unit{Name: name, Desired: desired, MinAvailable: minAvailable, Target: "new", MaxSurge: zero, MaxUnavailable: one}
	for i := 0; i < desired; i++ {
		u.Members = append(u.Members, Member{Index: i, Revision: revision, Available: true})
	}
	return u
}

func newCsim(t *testing.T, surge, unavail intstr.IntOrString, replicas int, units ...Unit) *csim {
	s := &csim{t: t, gangOf: map[string]string{}, pending: map[string]bool{}}
	for r := 0; r < replicas; r++ {
		cr := CoherentReplica{Replica: Replica{Index: r, Scheduled: true}, Name: fmt.Sprintf("replica-%d", r), MaxSurge: surge, MaxUnavailable: unavail,
			Changed: map[string]bool{}}
		for _, u := range units {
			u.Members = append([]Member(nil), u.Members...)
			if replicas > 1 {
				u.Name = fmt.Sprintf("%d-%s", r, u.Name)
			}
			cr.Changed[u.Name] = len(u.Members) > 0 && u.Members[0].Revision != u.Target
			cr.Units = append(cr.Units, u)
		}
		s.replicas = append(s.replicas, cr)
	}
	return s
}

func (s *csim) step() Plan {
	s.t.Helper()
	s.steps++
	p, err := PlanCoherent(s.replicas)
	if err != nil {
		s.t.Fatal(err)
	}
	before := s.serving()
	exists := map[string]bool{}
	for ri := range s.replicas {
		for ui := range s.replicas[ri].Units {
			u := &s.replicas[ri].Units[ui]
			for _, m := range u.Members {
				if !m.Terminating {
					exists[key(u.Name, m.Index)] = true
				}
			}
		}
	}
	gangComplete := map[string]bool{}
	for k, g := range s.gangOf {
		if g != "" {
			if _, ok := gangComplete[g]; !ok {
				gangComplete[g] = true
			}
			gangComplete[g] = gangComplete[g] && exists[k]
		}
	}
	next := map[string]bool{}
	for ri := range s.replicas {
		for ui := range s.replicas[ri].Units {
			u := &s.replicas[ri].Units[ui]
			var keep []Member
			for _, m := range u.Members {
				if m.Terminating {
					continue
				}
				k := key(u.Name, m.Index)
				if s.pending[k] {
					if g := s.gangOf[k]; g != "" && !gangComplete[g] {
						next[k] = true // its gang waits for the rest of the slice
					} else {
						m.Available = true
					}
				}
				keep = append(keep, m)
			}
			u.Members = keep
		}
	}
	s.pending = next
	var line []string
	for _, a := range p.Actions {
		line = append(line, a.String())
		u := s.unit(a.Unit)
		switch a.Type {
		case Delete:
			for i := range u.Members {
				if u.Members[i].Index == a.Index {
					u.Members[i].Terminating = true
				}
			}
		case Create:
			for _, m := range u.Members {
				if m.Index == a.Index {
					s.t.Fatalf("step %d: %s on an index a member holds", s.steps, a)
				}
			}
			k := key(a.Unit, a.Index)
			u.Members = append(u.Members, Member{Index: a.Index, Revision: a.Revision})
			s.pending[k], s.gangOf[k] = true, ""
			if a.Slice != nil && a.Slice.Whole {
				s.gangOf[k] = fmt.Sprintf("%d/%d/%d", a.Slice.Replica, a.Slice.Index, s.steps)
			}
		}
	}
	if len(line) > 0 {
		s.trace = append(s.trace, strings.Join(line, ", "))
	}
	if after := s.serving(); after < before && after < 1 && !s.outage {
		s.t.Fatalf("step %d: no complete serving set left in a replica (trace %v)", s.steps, s.trace)
	}
	return p
}

// serving is the fewest complete serving sets of any replica: for each, the sets at the
// target plus the sets at the old revision, counted over the units with an old member or a
// surge member (those in the update).
func (s *csim) serving() int {
	fewest := -1
	for _, cr := range s.replicas {
		sets := servingSets(cr.Units)
		if fewest < 0 || sets < fewest {
			fewest = sets
		}
	}
	return fewest
}

func servingSets(units []Unit) int {
	upd, old := -1, -1
	for _, u := range units {
		if u.Desired == 0 {
			continue
		}
		m := min(max(u.MinAvailable, 1), u.Desired)
		n, o := 0, 0
		for _, mem := range u.Members {
			if mem.Available && !mem.Terminating {
				if mem.Revision == u.Target {
					n++
				} else {
					o++
				}
			}
		}
		if upd < 0 || n/m < upd {
			upd = n / m
		}
		if old < 0 || o/m < old {
			old = o / m
		}
	}
	return max(upd, 0) + max(old, 0)
}

func (s *csim) unit(name string) *Unit {
	for ri := range s.replicas {
		for ui := range s.replicas[ri].Units {
			if s.replicas[ri].Units[ui].Name == name {
				return &s.replicas[ri].Units[ui]
			}
		}
	}
	s.t.Fatalf("no unit %s", name)
	return nil
}

func (s *csim) run(max int) {
	s.t.Helper()
	for i := 0; i < max; i++ {
		if s.step().Done {
			return
		}
	}
	s.t.Fatalf("not done after %d steps; trace:\n%s", max, strings.Join(s.trace, "\n"))
}

func (s *csim) members() string {
	var out []string
	for _, cr := range s.replicas {
		for _, u := range cr.Units {
			for _, m := range u.Members {
				out = append(out, fmt.Sprintf("%s:%s", key(u.Name, m.Index), m.Revision))
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// The design's prefill/decode example under Coherent (one PCS replica: frontend 3 pods,
// unchanged; prefill and decode groups of 2 replicas, minAvailable 1, both changed), maxSurge
// 1: a new slice (one prefill and one decode replica above the desired count, one gang) is
// created and available before an old slice goes; each old slice is then replaced whole;
// the surge slice goes last. The frontend is never touched.
func TestCoherentPrefillDecodeSurge(t *testing.T) {
	s := newCsim(t, one, zero, 1, component("frontend", 3, 1, "new"), component("prefill", 2, 1, "old"), component("decode", 2, 1, "old"))
	s.run(40)
	expectTrace(t, s.trace,
		"create prefill[2] (surge), create decode[2] (surge)",
		"delete prefill[0], delete decode[0]",
		"create prefill[0], create decode[0]",
		"delete prefill[1], delete decode[1]",
		"create prefill[1], create decode[1]",
		"delete prefill[2] (surge), delete decode[2] (surge)",
	)
	if got := s.members(); got != "decode[0]:new decode[1]:new frontend[0]:new frontend[1]:new frontend[2]:new prefill[0]:new prefill[1]:new" {
		t.Errorf("final members %s", got)
	}
}

// The same with maxSurge 0 (maxUnavailable defaults to one slice): an old slice is drained
// first, as GREP-393 does, and recreated whole before the next one goes.
func TestCoherentPrefillDecodeNoSurge(t *testing.T) {
	s := newCsim(t, zero, zero, 1, component("frontend", 3, 1, "new"), component("prefill", 2, 1, "old"), component("decode", 2, 1, "old"))
	s.run(40)
	expectTrace(t, s.trace,
		"delete prefill[0], delete decode[0]",
		"create prefill[0], create decode[0]",
		"delete prefill[1], delete decode[1]",
		"create prefill[1], create decode[1]",
	)
}

// Two PCS replicas: one at a time, each by slices.
func TestCoherentReplicasOneAtATime(t *testing.T) {
	s := newCsim(t, one, zero, 2, component("prefill", 1, 1, "old"), component("decode", 1, 1, "old"))
	s.run(40)
	expectTrace(t, s.trace,
		"create 0-prefill[1] (surge), create 0-decode[1] (surge)",
		"delete 0-prefill[0], delete 0-decode[0]",
		"create 0-prefill[0], create 0-decode[0]",
		"delete 0-prefill[1] (surge), delete 0-decode[1] (surge)",
		"create 1-prefill[1] (surge), create 1-decode[1] (surge)",
		"delete 1-prefill[0], delete 1-decode[0]",
		"create 1-prefill[0], create 1-decode[0]",
		"delete 1-prefill[1] (surge), delete 1-decode[1] (surge)",
	)
}

// Slices of components of different sizes: frontend 3 pods (minAvailable 1) and decode 2
// replicas (minAvailable 1) make 2 slices; the last takes the rest of the frontend. A surge
// slice is one of each; maxUnavailable 2 slices with no surge drains both at once.
func TestCoherentSliceShapes(t *testing.T) {
	s := newCsim(t, one, zero, 1, component("frontend", 3, 1, "old"), component("decode", 2, 1, "old"))
	s.run(40)
	expectTrace(t, s.trace,
		"create frontend[3] (surge), create decode[2] (surge)",
		"delete frontend[0], delete decode[0]",
		"create frontend[0], create decode[0]",
		"delete frontend[1], delete frontend[2], delete decode[1]",
		"create frontend[1], create frontend[2], create decode[1]",
		"delete frontend[3] (surge), delete decode[2] (surge)",
	)
	s = newCsim(t, zero, two, 1, component("frontend", 3, 1, "old"), component("decode", 2, 1, "old"))
	s.outage = true
	s.run(40)
	expectTrace(t, s.trace,
		"delete frontend[0], delete decode[0], delete frontend[1], delete frontend[2], delete decode[1]",
		"create frontend[0], create decode[0], create frontend[1], create frontend[2], create decode[1]",
	)
}

// Only the changed component is in the slices: a decode-only change rolls decode alone, in
// slices of its minAvailable (2 of 4).
func TestCoherentOnlyChangedComponents(t *testing.T) {
	s := newCsim(t, one, zero, 1, component("prefill", 2, 1, "new"), component("decode", 4, 2, "old"))
	s.run(40)
	expectTrace(t, s.trace,
		"create decode[4] (surge), create decode[5] (surge)",
		"delete decode[0], delete decode[1]",
		"create decode[0], create decode[1]",
		"delete decode[2], delete decode[3]",
		"create decode[2], create decode[3]",
		"delete decode[4] (surge), delete decode[5] (surge)",
	)
}

// A member of an old slice lost during the update (evicted) makes its slice replaced whole at
// the new revision, not completed alone next to old members; a member of a new slice that is
// lost is recreated alone (the slice exists at the target).
func TestCoherentLostMembers(t *testing.T) {
	old := CoherentReplica{Replica: Replica{Index: 0, Scheduled: true, Units: []Unit{component("prefill", 2, 1, "old"), component("decode", 2, 1, "old")}},
		Name: "replica-0", MaxSurge: zero, MaxUnavailable: one}
	old.Units[1].Members = old.Units[1].Members[1:] // decode[0] lost
	p, err := PlanCoherent([]CoherentReplica{old})
	if err != nil {
		t.Fatal(err)
	}
	if got := actionStrings(p); got != "delete prefill[0]" {
		t.Errorf("old slice with a lost member: %s, want its other member deleted (the slice is then made whole)", got)
	}
	cur := CoherentReplica{Replica: Replica{Index: 0, Scheduled: true, Units: []Unit{component("prefill", 2, 1, "old"), component("decode", 2, 1, "old")}},
		Name: "replica-0", MaxSurge: zero, MaxUnavailable: one}
	cur.Units[0].Members[0].Revision, cur.Units[1].Members[0].Revision = "new", "new"
	cur.Units[1].Members = cur.Units[1].Members[1:] // decode[0] of the new slice lost
	if p, err = PlanCoherent([]CoherentReplica{cur}); err != nil {
		t.Fatal(err)
	}
	if got := actionStrings(p); got != "create decode[0]" || p.Actions[0].Slice == nil || p.Actions[0].Slice.Whole {
		t.Errorf("new slice with a lost member: %s, want the member recreated into its slice", got)
	}
	if p.Coherent == nil || fmt.Sprint(p.Coherent.Changed) != "[prefill decode]" || p.Coherent.Slices != 2 || p.Coherent.ServingOutdated != 1 || p.Coherent.ServingUpdated != 0 {
		t.Errorf("progress %+v", p.Coherent)
	}
}

// A scale of a changed component during the update is accepted: the slices are counted again
// and the update completes at the new size.
func TestCoherentScaleDuringUpdate(t *testing.T) {
	s := newCsim(t, one, zero, 1, component("prefill", 2, 1, "old"), component("decode", 2, 1, "old"))
	for i := 0; i < 3; i++ {
		s.step()
	}
	s.unit("decode").Desired = 3
	s.unit("prefill").Desired = 1
	s.run(40)
	if got := s.members(); got != "decode[0]:new decode[1]:new decode[2]:new prefill[0]:new" {
		t.Errorf("final members %s", got)
	}
}

// Paused: no slice is drained or created for the update; a lost member is made again.
func TestCoherentPaused(t *testing.T) {
	cr := CoherentReplica{Replica: Replica{Index: 0, Scheduled: true, Units: []Unit{component("prefill", 2, 1, "old"), component("decode", 2, 1, "old")}},
		Name: "replica-0", MaxSurge: one, MaxUnavailable: zero, Paused: true}
	cr.Units[1].Members = cr.Units[1].Members[1:]
	p, err := PlanCoherent([]CoherentReplica{cr})
	if err != nil {
		t.Fatal(err)
	}
	if got := actionStrings(p); got != "create decode[0]" {
		t.Errorf("paused: %s, want only the lost member made again", got)
	}
}

// TestRandomizedCoherentUpdates plays PodCliqueSets of 1-2 replicas of 1-3 components (random
// sizes, minAvailable, which components change, budgets in slices), with readiness delays, a
// capacity that may refuse surge slices, controller crashes between any two actions, scales
// of a component at a random step, and (in some runs) a member lost. The members of a slice
// created whole become available together (one gang). Invariants at every step:
// never a replica in which a changed component's old and new revisions are both below its
// minimum because of the update, when the budgets leave a slice available (maxSurge >= 1 or
// more slices than maxUnavailable); unchanged components never touched (without a scale or a
// loss); at most S + maxSurge slices' worth of members; no index held twice; one replica in
// flight at a time. Without a
// refused surge the update completes with exactly indices 0..desired-1 at the new revision.
func TestRandomizedCoherentUpdates(t *testing.T) {
	runSims(t, "TestRandomizedCoherentUpdates", simulateCoherent)
}

// coherentTrace, when set, gets a line per step of simulateCoherent (for replaying a seed).
var coherentTrace func(string)

func simulateCoherent(seed int64) string {
	r := rand.New(rand.NewSource(seed))
	n := 1 + r.Intn(2)
	nc := 1 + r.Intn(3)
	type comp struct {
		desired, min int
		changed      bool
	}
	comps := make([]comp, nc)
	anyChanged := false
	for i := range comps {
		d := 1 + r.Intn(4)
		comps[i] = comp{desired: d, min: 1 + r.Intn(d), changed: r.Intn(3) > 0}
		anyChanged = anyChanged || comps[i].changed
	}
	if !anyChanged {
		comps[0].changed = true
	}
	surgeB, unavailB := randBudget(r, 2), randBudget(r, 2)
	scaleAt, lossAt := -1, -1
	if r.Intn(4) == 0 {
		scaleAt = r.Intn(30)
	}
	if r.Intn(5) == 0 {
		lossAt = r.Intn(30)
	}
	refuseSurge := r.Intn(6) == 0
	replicas := make([]CoherentReplica, n)
	for ri := range replicas {
		cr := CoherentReplica{Replica: Replica{Index: ri, Scheduled: true}, Name: fmt.Sprintf("r%d", ri), MaxSurge: surgeB, MaxUnavailable: unavailB,
			Changed: map[string]bool{}}
		for ci, c := range comps {
			rev := "new"
			if c.changed {
				rev = "old"
			}
			u := component(fmt.Sprintf("r%d-c%d", ri, ci), c.desired, c.min, rev)
			cr.Units = append(cr.Units, u)
			cr.Changed[u.Name] = c.changed
		}
		replicas[ri] = cr
	}
	readyIn := map[string]int{}
	disturbed := false
	for step := 0; step < 600; step++ {
		if step == scaleAt {
			u := &replicas[r.Intn(n)].Units[r.Intn(nc)]
			u.Desired = 1 + r.Intn(4)
			u.MinAvailable = min(u.MinAvailable, u.Desired)
			disturbed = true
		}
		if step == lossAt {
			u := &replicas[r.Intn(n)].Units[r.Intn(nc)]
			if len(u.Members) > 0 {
				u.Members = u.Members[1:]
				disturbed = true
			}
		}
		// the world moves: terminating members go; created ones become available after their
		// delay (the members of a slice created whole share theirs: one gang)
		for ri := range replicas {
			for ui := range replicas[ri].Units {
				u := &replicas[ri].Units[ui]
				var keep []Member
				for _, m := range u.Members {
					if m.Terminating {
						continue
					}
					k := key(u.Name, m.Index)
					if !m.Available {
						if readyIn[k] == 0 {
							m.Available = true
						} else {
							readyIn[k]--
						}
					}
					keep = append(keep, m)
				}
				u.Members = keep
			}
			replicas[ri].SurgeBlocked = refuseSurge
		}
		p, err := PlanCoherent(replicas)
		if err != nil {
			return err.Error()
		}
		if coherentTrace != nil {
			var st []string
			for _, cr := range replicas {
				for _, u := range cr.Units {
					for _, m := range u.Members {
						st = append(st, fmt.Sprintf("%s:%s/%v/%v", key(u.Name, m.Index), m.Revision, m.Available, m.Terminating))
					}
				}
			}
			coherentTrace(fmt.Sprintf("step %d: %v -> %s", step, st, actionStrings(p)))
		}
		if p.Done {
			for _, cr := range replicas {
				for _, u := range cr.Units {
					for _, m := range u.Members {
						if m.Revision != u.Target || !m.Available || m.Terminating {
							return fmt.Sprintf("step %d: done with %s at %q (available %v)", step, key(u.Name, m.Index), m.Revision, m.Available)
						}
					}
					if msg := exactIndices(u); msg != "" {
						return fmt.Sprintf("step %d: done with %s", step, msg)
					}
				}
			}
			return ""
		}
		// serving sets and slices before the step, per replica
		before := make([]int, n)
		for ri, cr := range replicas {
			before[ri] = servingSets(scopeUnits(cr))
		}
		actions := p.Actions
		if len(actions) > 0 && r.Intn(4) == 0 {
			actions = actions[:r.Intn(len(actions)+1)]
		}
		gangDelay := r.Intn(3)
		for _, a := range actions {
			var u *Unit
			var cr *CoherentReplica
			for ri := range replicas {
				for ui := range replicas[ri].Units {
					if replicas[ri].Units[ui].Name == a.Unit {
						u, cr = &replicas[ri].Units[ui], &replicas[ri]
					}
				}
			}
			if u == nil {
				return fmt.Sprintf("step %d: action %s names no unit", step, a)
			}
			if !disturbed && !comps[indexOfUnit(cr, u.Name)].changed {
				return fmt.Sprintf("step %d: action %s touches a component the update did not change", step, a)
			}
			switch a.Type {
			case Delete:
				for i := range u.Members {
					if u.Members[i].Index == a.Index {
						u.Members[i].Terminating = true
					}
				}
			case Create:
				for _, m := range u.Members {
					if m.Index == a.Index {
						return fmt.Sprintf("step %d: %s on an index a member holds", step, a)
					}
				}
				k := key(a.Unit, a.Index)
				u.Members = append(u.Members, Member{Index: a.Index, Revision: a.Revision})
				readyIn[k] = r.Intn(3)
				if a.Slice != nil && a.Slice.Whole {
					readyIn[k] = gangDelay
				}
			}
		}
		inFlight := 0
		for _, cr := range replicas {
			settled := true
			for _, u := range cr.Units {
				n := 0
				for _, m := range u.Members {
					settled = settled && m.Available && !m.Terminating && m.Index < u.Desired
					n++
				}
				settled = settled && n == u.Desired
			}
			if !settled {
				inFlight++
			}
		}
		if !disturbed && inFlight > 1 {
			return fmt.Sprintf("step %d: %d replicas in flight at once (one PodCliqueSet replica at a time)", step, inFlight)
		}
		for ri, cr := range replicas {
			units := scopeUnits(cr)
			sets := servingSets(units)
			slices := -1
			for _, u := range units {
				if u.Desired == 0 {
					continue
				}
				if k := u.Desired / min(max(u.MinAvailable, 1), u.Desired); slices < 0 || k < slices {
					slices = k
				}
			}
			surge, unavail, _ := Budgets(Unit{Desired: max(slices, 0), MaxSurge: surgeB, MaxUnavailable: unavailB})
			if !disturbed && slices > 0 && sets < 1 && before[ri] >= 1 && slices > unavail {
				return fmt.Sprintf("step %d: replica %d has no complete serving set of its changed components (old and new both below a minimum); %d slices, surge %d, unavailable %d", step, ri, slices, surge, unavail)
			}
			for _, u := range units {
				m := min(max(u.MinAvailable, 1), u.Desired)
				if !disturbed && slices > 0 && len(u.Members) > u.Desired+surge*m {
					return fmt.Sprintf("step %d: %s has %d members, more than desired %d + %d surge slices of %d", step, u.Name, len(u.Members), u.Desired, surge, m)
				}
			}
		}
	}
	if refuseSurge {
		return ""
	}
	return fmt.Sprintf("not done after 600 steps (%d replicas, components %+v, surge %v, unavailable %v)", n, comps, surgeB, unavailB)
}

// scopeUnits are the units of cr the update changes.
func scopeUnits(cr CoherentReplica) []Unit {
	var out []Unit
	for _, u := range cr.Units {
		if cr.Changed[u.Name] {
			out = append(out, u)
		}
	}
	return out
}

func indexOfUnit(cr *CoherentReplica, name string) int {
	for i, u := range cr.Units {
		if u.Name == name {
			return i
		}
	}
	return -1
}

// BenchmarkPlanCoherent100 plans a replica whose prefill and decode (100 members each,
// minAvailable 1: 100 slices) are halfway through a Coherent update with a surge slice.
func BenchmarkPlanCoherent100(b *testing.B) {
	cr := CoherentReplica{Replica: Replica{Index: 0, Scheduled: true}, Name: "r0", MaxSurge: one, MaxUnavailable: zero,
		Changed: map[string]bool{"prefill": true, "decode": true}}
	for _, name := range []string{"prefill", "decode"} {
		u := component(name, 100, 1, "old")
		for i := 0; i < 50; i++ {
			u.Members[i].Revision = "new"
		}
		u.Members = append(u.Members, Member{Index: 100, Revision: "new", Available: true})
		cr.Units = append(cr.Units, u)
	}
	replicas := []CoherentReplica{cr}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PlanCoherent(replicas); err != nil {
			b.Fatal(err)
		}
	}
}
