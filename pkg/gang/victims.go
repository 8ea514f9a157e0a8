package gang

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Gang-aware preemption chooses victims in units that can be evicted without leaving a gang
// below its minimum: a pod of no gang, a member above its podgroup's minimum (it can go alone),
// or a whole gang (every member still on a node, together). A member is never a unit of its
// own when that would break its gang.

// Candidate is a pod on a node that the preemptor may evict (lower priority, not protected by
// the caller's rules).
type Candidate struct {
	Pod      *v1.Pod
	Node     string
	Priority int32
	// GPUs the pod requests.
	GPUs int64
	// Started is when the pod started (or was created); the youngest go first.
	Started time.Time
}

// Unit is what is evicted together.
type Unit struct {
	// Gang is the gang of the unit's pods; zero for a pod of no gang.
	Gang Key
	// Whole is set when the unit is a whole gang; otherwise it is one pod (of no gang, or a
	// member above its gang's minimum).
	Whole bool
	// BreaksGang marks a unit of one member that its gang's minimum needs, allowed alone only
	// by the gang object (disruptionMode single); such units go after the members a gang can
	// spare and before whole gangs.
	BreaksGang bool
	Pods       []Candidate
	// Priority is the highest priority among the pods, GPUs their sum, Newest the start of
	// the youngest.
	Priority int32
	GPUs     int64
	Newest   time.Time
}

func newUnit(k Key, whole bool, pods []Candidate) Unit {
	u := Unit{Gang: k, Whole: whole, Pods: pods}
	for i, c := range pods {
		if i == 0 || c.Priority > u.Priority {
			u.Priority = c.Priority
		}
		if c.Started.After(u.Newest) {
			u.Newest = c.Started
		}
		u.GPUs += c.GPUs
	}
	return u
}

// VictimUnits groups the candidates by the gang rules. A member of a gang the store knows
// is a unit of its own when it is a surge member or, in its podgroup, one of the bound
// non-surge members beyond minReplicas (the highest indexes first). The other members form
// one whole-gang unit with every member of the gang that remains, only when every bound
// member of the gang is a candidate: a gang that would keep a member the preemptor may not
// evict cannot be evicted whole (that member would be stranded below the minimum), so only
// its extras are units. Pods of no gang (or of a gang the store does not know) are units of
// their own. A gang object's disruption mode changes the member rule: DisruptionSingle makes
// the members the minimum needs units of their own too (BreaksGang) instead of one whole
// unit, DisruptionAll allows only the whole gang (its extras included).
func (s *Store) VictimUnits(cands []Candidate) []Unit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	byGang := map[Key][]Candidate{}
	var units []Unit
	for _, c := range cands {
		k, ok := s.membership.KeyOf(c.Pod)
		if e := s.gangs[k]; !ok || e == nil || e.spec == nil {
			units = append(units, newUnit(Key{}, false, []Candidate{c}))
			continue
		}
		byGang[k] = append(byGang[k], c)
	}
	keys := make([]Key, 0, len(byGang))
	for k := range byGang {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		units = append(units, s.gangUnitsLocked(s.gangs[k], k, byGang[k])...)
	}
	return units
}

func (s *Store) gangUnitsLocked(e *entry, k Key, cands []Candidate) []Unit {
	if e.spec.DisruptionMode == DisruptionAll {
		return wholeGangLocked(e, k, cands)
	}
	byName := make(map[string]Candidate, len(cands))
	for _, c := range cands {
		byName[c.Pod.Name] = c
	}
	var units []Unit
	var rest []Candidate
	wholeOK := true
	for i, pg := range e.spec.PodGroups {
		var bound []*member
		for _, m := range e.members {
			if m.Group == i && m.State == Bound && !m.Surge {
				bound = append(bound, m)
			}
		}
		sort.Slice(bound, func(a, b int) bool { return bound[a].Index > bound[b].Index })
		extra := max(len(bound)-int(pg.MinReplicas), 0)
		for j, m := range bound {
			c, ok := byName[m.Name]
			switch {
			case !ok:
				wholeOK = false
			case j < extra:
				units = append(units, newUnit(k, false, []Candidate{c}))
			default:
				rest = append(rest, c)
			}
		}
	}
	for _, m := range e.members {
		if c, ok := byName[m.Name]; ok && m.State == Bound && m.Surge {
			units = append(units, newUnit(k, false, []Candidate{c}))
		} else if !ok && m.State == Bound && m.Group < 0 {
			wholeOK = false
		}
	}
	sort.Slice(rest, func(a, b int) bool { return rest[a].Pod.Name < rest[b].Pod.Name })
	switch {
	case e.spec.DisruptionMode == DisruptionSingle:
		// The gang object lets each member go alone, those its minimum needs too: they come
		// after the members the gang can spare (Unit.BreaksGang).
		for _, c := range rest {
			u := newUnit(k, false, []Candidate{c})
			u.BreaksGang = true
			units = append(units, u)
		}
	case wholeOK && len(rest) > 0:
		units = append(units, newUnit(k, true, rest))
	}
	return units
}

// SelectVictims chooses the units to evict so that fits holds for them, preferring, in this
// order: the lowest priorities; the fewest gangs evicted whole (units of one pod go before
// whole gangs); the fewest GPUs; the youngest. It returns ok false, and nothing, when even
// evicting every unit does not make room: the preemptor then preempts nothing.
//
// fits reports whether the preemptor fits once the given units are gone; it is called
// O(units) times. The choice: the lowest priority level whose units (with every lower level's)
// make room; within it, one unit alone if one suffices (the first in preference order), or
// else units added largest first until they do; then every chosen unit that is not needed is
// reprieved, most valuable first (highest priority, whole gangs, most GPUs, oldest).
func SelectVictims(units []Unit, fits func([]Unit) bool) ([]Unit, bool) {
	if len(units) == 0 || !fits(units) {
		return nil, false
	}
	sorted := append([]Unit(nil), units...)
	sort.SliceStable(sorted, func(i, j int) bool { return preferredVictim(sorted[i], sorted[j]) })
	// The lowest level that makes room, with all below it.
	var base, level []Unit
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Priority == sorted[i].Priority {
			j++
		}
		if fits(sorted[:j]) {
			base, level = sorted[:i], sorted[i:j]
			break
		}
		i = j
	}
	chosen := append([]Unit(nil), base...)
	single := false
	for _, u := range level {
		if fits(append(append([]Unit(nil), base...), u)) {
			chosen, single = append(chosen, u), true
			break
		}
	}
	if !single {
		largest := append([]Unit(nil), level...)
		sort.SliceStable(largest, func(i, j int) bool {
			if largest[i].Whole != largest[j].Whole {
				return !largest[i].Whole
			}
			return largest[i].GPUs > largest[j].GPUs
		})
		for _, u := range largest {
			chosen = append(chosen, u)
			if fits(chosen) {
				break
			}
		}
	}
	// Reprieve what is not needed, the most valuable first.
	order := append([]Unit(nil), chosen...)
	sort.SliceStable(order, func(i, j int) bool { return preferredVictim(order[j], order[i]) })
	keep := map[int]bool{}
	for i := range order {
		keep[i] = true
	}
	for i := range order {
		keep[i] = false
		var rest []Unit
		for j, u := range order {
			if keep[j] {
				rest = append(rest, u)
			}
		}
		if len(rest) == 0 || !fits(rest) {
			keep[i] = true
		}
	}
	var out []Unit
	for i, u := range order {
		if keep[i] {
			out = append(out, u)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return preferredVictim(out[i], out[j]) })
	return out, true
}

// preferredVictim orders units from the one to evict first: lower priority, a single pod
// before a whole gang, a pod its gang can spare before one its minimum needs, fewer GPUs,
// younger, then by name for a stable order.
func preferredVictim(a, b Unit) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if a.Whole != b.Whole {
		return !a.Whole
	}
	if a.BreaksGang != b.BreaksGang {
		return !a.BreaksGang
	}
	if a.GPUs != b.GPUs {
		return a.GPUs < b.GPUs
	}
	if !a.Newest.Equal(b.Newest) {
		return a.Newest.After(b.Newest)
	}
	return a.Pods[0].Pod.Name < b.Pods[0].Pod.Name
}

// wholeGangLocked is the one unit of a gang that may only be taken whole (disruptionMode all):
// every bound member, surge and above-minimum ones too, or nothing when one of them is not a
// candidate.
func wholeGangLocked(e *entry, k Key, cands []Candidate) []Unit {
	byName := make(map[string]Candidate, len(cands))
	for _, c := range cands {
		byName[c.Pod.Name] = c
	}
	var all []Candidate
	for _, m := range e.members {
		if m.State != Bound {
			continue
		}
		c, ok := byName[m.Name]
		if !ok {
			return nil
		}
		all = append(all, c)
	}
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Pod.Name < all[b].Pod.Name })
	return []Unit{newUnit(k, true, all)}
}
