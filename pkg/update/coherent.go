package update

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Coherent (Grove's GREP-393 strategy, with surge and budgets): the components a template
// change touches are replaced in coherent slices, one PodCliqueSet replica at a time.
//
// The components of a replica in the update's scope are its units with a member of an older
// revision. With m_c a component's minAvailable and d_c its desired count, the replica has
// S = min_c floor(d_c / m_c) slices; slice k < S-1 is indices [k*m_c, (k+1)*m_c) of every
// component in scope, the last slice also takes the rest up to d_c, and surge slices k >= S are
// m_c members of each above d_c. Each slice is a complete serving set (m_c available members of
// every changed component). The slices are one unit for PlanUnit, under the PodCliqueSet-level
// budgets counted in slices, so its rules hold for slices: never more than S + maxSurge, never
// fewer than S - maxUnavailable available because of the update, a surge slice available before
// an old one is drained when maxSurge >= 1, an old one drained first when it is 0.
//
// A slice is created whole (every missing member in one step, one gang at the scheduler),
// drained whole, and available when every member exists, runs the target and is available. A
// slice with a member missing is completed when its members run the target (a member lost,
// a step cut short); one of an older revision is replaced whole instead. Components out of
// scope are planned frozen: only their holes and excess change.

// SliceRef names a coherent slice: slice Index of PodCliqueSet replica Replica.
type SliceRef struct {
	Replica, Index int
	// Whole: the slice is created whole in this step, as one new gang; otherwise the action
	// completes or drains a slice that exists.
	Whole bool
}

// CoherentReplica is a PodCliqueSet replica under Coherent: its units (standalone cliques and
// scaling groups, each with MinAvailable) and the PodCliqueSet-level budgets, in slices.
type CoherentReplica struct {
	Replica
	// Name names the replica's slices as a unit (in waits and blocked surges).
	Name           string
	MaxSurge       intstr.IntOrString
	MaxUnavailable intstr.IntOrString
	// SurgeBlocked: the surge admission check found no room for a surge slice.
	SurgeBlocked bool
	Paused       bool
	// Changed are the units in the update's scope: those whose template the update changes
	// (the controller compares spec.template with the last complete revision). It must stay
	// the same for the whole update: a component whose old members are all gone is still in
	// it until its last slice is made again. Nil: when a unit of the replica has a member off
	// the target, the units with a member off the target, above the desired count, or
	// missing; else none (a creation, a scale or self-healing is not an update).
	Changed map[string]bool
}

// CoherentProgress is the state of the replica a Coherent update works on.
type CoherentProgress struct {
	Replica int
	// Changed are the units in the update's scope.
	Changed []string
	// Slices is S; Updated counts slices below S at the target and available; Surge the surge
	// slices that exist; InFlight the slices at the target that are not available yet.
	Slices, Updated, Surge int
	InFlight               []int
	// Draining are the slices below S that are being replaced: every member that exists is
	// terminating, or none exists (their replacements hold what they free).
	Draining []int
	// ServingUpdated and ServingOutdated are the complete serving sets at the target and at
	// older revisions: min over the changed units of floor(available / minAvailable).
	ServingUpdated, ServingOutdated int
	// MaxUnavailable is the replica\'s maxUnavailable resolved against Slices.
	MaxUnavailable int
	Capacity       []ComponentCapacity
}

// ComponentCapacity is one changed unit's available members per revision.
type ComponentCapacity struct {
	Unit                            string
	MinAvailable, Updated, Outdated int
}

// PlanCoherent updates PodCliqueSet replicas one at a time (NextReplica) in coherent slices.
func PlanCoherent(replicas []CoherentReplica) (Plan, error) {
	base := make([]Replica, len(replicas))
	for i := range replicas {
		base[i] = replicas[i].Replica
	}
	progress := make([]*CoherentProgress, len(replicas))
	p, err := planReplicas(base, func(i int, _ bool) (replicaPlan, error) {
		rp, prog, err := planCoherentReplica(replicas[i])
		progress[i] = prog
		return rp, err
	})
	for i := range replicas {
		if len(p.Updating) > 0 && replicas[i].Index == p.Updating[0] {
			p.Coherent = progress[i]
		}
	}
	return p, err
}

// slicing is the slice layout of a replica's units in scope.
type slicing struct {
	units []Unit
	size  []int // minAvailable of each, at least 1 and at most its desired count
	n     int   // S
}

func newSlicing(units []Unit) slicing {
	s := slicing{units: units, n: -1}
	for _, u := range units {
		m := min(max(u.MinAvailable, 1), u.Desired)
		s.size = append(s.size, m)
		if k := u.Desired / m; s.n < 0 || k < s.n {
			s.n = k
		}
	}
	return s
}

// chunk is the index range [lo, hi) of unit c in slice k.
func (s slicing) chunk(c, k int) (lo, hi int) {
	d, m := s.units[c].Desired, s.size[c]
	switch {
	case k >= s.n:
		lo = d + (k-s.n)*m
		return lo, lo + m
	case k == s.n-1:
		return k * m, d
	}
	return k * m, (k + 1) * m
}

// sliceOf is the slice of unit c's member at index i.
func (s slicing) sliceOf(c, i int) int {
	d, m := s.units[c].Desired, s.size[c]
	if i >= d {
		return s.n + (i-d)/m
	}
	return min(i/m, s.n-1)
}

// sliceState is what a slice's members are.
type sliceState struct {
	existing, total     int
	atTarget, available int
	terminating         bool
	missing             []Action // creates of its missing members
	members             []Action // deletes of its members that are not terminating
}

// planCoherentReplica plans the replica the update works on.
func planCoherentReplica(cr CoherentReplica) (replicaPlan, *CoherentProgress, error) {
	var scope, rest []Unit
	update := cr.Changed != nil
	for _, u := range cr.Units {
		update = update || outdated(u)
	}
	for _, u := range cr.Units {
		// Without a scope from the controller, a replica with no member off its target is not
		// under update (its creation, a scale, self-healing): its units are planned alone.
		if update && u.Desired > 0 && inScope(u, cr.Changed) {
			scope = append(scope, u)
		} else {
			rest = append(rest, u)
		}
	}
	rp := replicaPlan{done: true}
	for _, u := range rest {
		res, err := PlanUnit(frozen(u))
		if err != nil {
			return replicaPlan{}, nil, fmt.Errorf("replica %d: %w", cr.Index, err)
		}
		rp.add(cr.Index, u.Name, res)
	}
	if len(scope) == 0 {
		return rp, nil, nil
	}
	sl := newSlicing(scope)
	byIndex := make([]map[int]Member, len(sl.units))
	for c, u := range sl.units {
		byIndex[c] = make(map[int]Member, len(u.Members))
		for _, m := range u.Members {
			byIndex[c][m.Index] = m
		}
	}
	states := map[int]*sliceState{}
	state := func(k int) *sliceState {
		if states[k] == nil {
			st := &sliceState{}
			for c, u := range sl.units {
				lo, hi := sl.chunk(c, k)
				st.total += hi - lo
				for i := lo; i < hi; i++ {
					m, ok := byIndex[c][i]
					if !ok {
						st.missing = append(st.missing, Action{Unit: u.Name, Type: Create, Index: i, Revision: u.Target, Surge: k >= sl.n})
						continue
					}
					st.existing++
					if m.Revision == u.Target {
						st.atTarget++
					}
					if m.Terminating {
						st.terminating = true
						continue
					}
					if m.Available {
						st.available++
					}
					st.members = append(st.members, Action{Unit: u.Name, Type: Delete, Index: i, Revision: m.Revision, Surge: k >= sl.n})
				}
			}
			states[k] = st
		}
		return states[k]
	}
	for k := 0; k < sl.n; k++ {
		state(k)
	}
	prog := &CoherentProgress{Replica: cr.Index, Slices: sl.n}
	for c, u := range sl.units {
		cap := ComponentCapacity{Unit: u.Name, MinAvailable: sl.size[c]}
		for _, m := range u.Members {
			state(sl.sliceOf(c, m.Index))
			if m.Available && !m.Terminating {
				if m.Revision == u.Target {
					cap.Updated++
				} else {
					cap.Outdated++
				}
			}
		}
		prog.Changed = append(prog.Changed, u.Name)
		prog.Capacity = append(prog.Capacity, cap)
		upd, old := cap.Updated/cap.MinAvailable, cap.Outdated/cap.MinAvailable
		if c == 0 || upd < prog.ServingUpdated {
			prog.ServingUpdated = upd
		}
		if c == 0 || old < prog.ServingOutdated {
			prog.ServingOutdated = old
		}
	}
	const target, old = "target", "old"
	unit := Unit{Name: cr.Name, Desired: sl.n, Target: target, MaxSurge: cr.MaxSurge, MaxUnavailable: cr.MaxUnavailable,
		SurgeBlocked: cr.SurgeBlocked, Paused: cr.Paused}
	for _, k := range slices.Sorted(maps.Keys(states)) {
		st := states[k]
		if st.existing == 0 {
			continue
		}
		m := Member{Index: k, Revision: old, Terminating: st.terminating}
		if st.atTarget == st.existing {
			m.Revision = target
		}
		m.Available = st.available == st.total
		unit.Members = append(unit.Members, m)
		switch {
		case k >= sl.n:
			prog.Surge++
		case m.Available && m.Revision == target:
			prog.Updated++
		}
		if m.Revision == target && !m.Available && !m.Terminating {
			prog.InFlight = append(prog.InFlight, k)
		}
		if k < sl.n && m.Terminating && len(st.members) == 0 {
			prog.Draining = append(prog.Draining, k)
		}
	}
	for k := 0; k < sl.n; k++ {
		if states[k].existing == 0 {
			prog.Draining = append(prog.Draining, k)
		}
	}
	sort.Ints(prog.Draining)
	res, err := PlanUnit(unit)
	if err != nil {
		return replicaPlan{}, nil, fmt.Errorf("replica %d: %w", cr.Index, err)
	}
	_, prog.MaxUnavailable, _ = Budgets(unit)
	deleted := map[int]bool{}
	for _, a := range res.Actions {
		st := state(a.Index)
		ref := &SliceRef{Replica: cr.Index, Index: a.Index}
		var acts []Action
		switch a.Type {
		case Delete:
			deleted[a.Index] = true
			acts = st.members
		case Create:
			ref.Whole = true
			acts = st.missing
		}
		for _, act := range acts {
			act.Slice, act.Reason = ref, fmt.Sprintf("coherent slice %d: %s", a.Index, a.Reason)
			rp.actions = append(rp.actions, act)
		}
	}
	// A slice that exists at the target (or any, while paused: self-healing goes on) gets its
	// missing members back, unless it goes in this step.
	for _, m := range unit.Members {
		if deleted[m.Index] || (m.Revision != target && !cr.Paused) {
			continue
		}
		for _, act := range state(m.Index).missing {
			act.Slice, act.Reason = &SliceRef{Replica: cr.Index, Index: m.Index}, fmt.Sprintf("coherent slice %d: complete the slice", m.Index)
			rp.actions = append(rp.actions, act)
		}
	}
	res.Actions = nil // translated above
	rp.add(cr.Index, cr.Name, res)
	rp.done = rp.done && len(rp.actions) == 0
	return rp, prog, nil
}

// outdated reports whether a member of u runs another revision than its target.
func outdated(u Unit) bool {
	for _, m := range u.Members {
		if m.Revision != u.Target {
			return true
		}
	}
	return false
}

// inScope reports whether u is in the update's scope: named in changed, or when changed is
// nil, with a member off the target, above the desired count, or missing.
func inScope(u Unit, changed map[string]bool) bool {
	if changed != nil {
		return changed[u.Name]
	}
	below := 0
	for _, m := range u.Members {
		if m.Revision != u.Target || m.Index >= u.Desired {
			return true
		}
		below++
	}
	return below < u.Desired
}
