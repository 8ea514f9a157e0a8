package gang

import (
	"time"

	v1 "k8s.io/api/core/v1"
)

// UnconfirmedWindow bounds an unconfirmed departure hold (entry.unconfirmed) when the gang
// object cannot be read to confirm it.
const UnconfirmedWindow = 30 * time.Second

// DepartureCheck is asked, outside the store's lock, to read gang k's object from the API
// server and report with ConfirmDeparture: a bound member of k left while no reservation of k
// held (see entry.unconfirmed).
type DepartureCheck func(k Key)

// SetDepartureCheck makes the store hold the footprint of a bound member of a gang of kind
// that leaves while no reservation of the gang holds, until check confirms that no
// reservation is on its way (ConfirmDeparture). Without one (the default) such a departure
// frees its capacity at once. Call it before the store is fed.
func (s *Store) SetDepartureCheck(kind Kind, check DepartureCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.departureChecks == nil {
		s.departureChecks = map[Kind]DepartureCheck{}
	}
	s.departureChecks[kind] = check
}

// departedLocked notes that bound member m (removed from e already) left gang k. It returns
// the check to run (outside the lock) when the departure starts an unconfirmed hold: the gang
// has an object, holds are on, none of its reservations holds now, and its kind has a check.
//
// The reason: Phalanx's controller writes a gang's reservation before it deletes the members
// it replaces, but the scheduler reads gang objects and pods through separate watches, which
// are not ordered. When the deletion (and the release of the member's DRA claims) arrives
// before the new reservation, the capacity would be free and unheld for that moment, and a
// pending pod could take what the replacement needs. So the footprint of the gang on the
// member's node (the member's requests and those of the gang's other bound members there) is
// held until the gang object, read from the API server, shows whether a new reservation is
// coming (the watch then delivers it: SetSpec ends this hold) or not (ConfirmDeparture).
func (s *Store) departedLocked(k Key, e *entry, m *member, pod *v1.Pod) DepartureCheck {
	check := s.departureChecks[k.Kind]
	if check == nil || s.hold == 0 || e.spec == nil || m.State != Bound || m.Node == "" || s.evictedLocked(e, m, pod) {
		return nil
	}
	now := s.now()
	if s.activeLocked(e, now) {
		return nil
	}
	if !s.unconfirmedLocked(e, now) {
		e.unconfirmed = map[string]Resources{}
	}
	if _, ok := e.unconfirmed[m.Node]; !ok {
		fp := m.Requests
		for _, o := range e.members {
			if o.State == Bound && o.Node == m.Node {
				fp = fp.Add(o.Requests)
			}
		}
		e.unconfirmed[m.Node] = fp
	}
	e.unconfirmedAt = now
	e.unconfirmedOf = time.Time{}
	if r := e.reservation(); r != nil {
		e.unconfirmedOf = r.Since
	}
	s.reserving[k] = true
	return check
}

// evictedLocked reports whether m left because something evicted it, not to be replaced by the
// controller: a preemption's victim (this scheduler's: it is recorded, or its gang is marked
// preempted; or any other: the pod carries DisruptionTarget, as preemption, node-pressure and
// taint evictions set it). Holding its room would keep out the very pod it was evicted for.
func (s *Store) evictedLocked(e *entry, m *member, pod *v1.Pod) bool {
	if e.disruption != nil {
		return true
	}
	if _, victim := s.victimOf[pod.Namespace+"/"+pod.Name]; victim {
		return true
	}
	for _, p := range []*v1.Pod{pod, m.pod} {
		if p == nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.DisruptionTarget && c.Status == v1.ConditionTrue {
				return true
			}
		}
	}
	return false
}

// unconfirmedLocked: e holds an unconfirmed departure now.
func (s *Store) unconfirmedLocked(e *entry, now time.Time) bool {
	return e != nil && e.unconfirmed != nil && now.Before(e.unconfirmedAt.Add(UnconfirmedWindow))
}

// endUnconfirmedLocked ends e's unconfirmed hold.
func (s *Store) endUnconfirmedLocked(k Key, e *entry) {
	e.unconfirmed = nil
	if e.reservation() == nil {
		delete(s.reserving, k)
	}
}

// ConfirmDeparture reports what gang k's object carries on the API server now, read after a
// bound member left it unheld: liveSince is the Since of its reservation (zero: none, or the
// object is gone). When that is the reservation the store had when the member left, no new
// one is on its way and the unconfirmed hold ends; a newer one ends it when the watch brings
// it (SetSpec). It reports whether a hold ended (the pods it kept off are to be woken).
func (s *Store) ConfirmDeparture(k Key, liveSince time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil || e.unconfirmed == nil {
		return false
	}
	if !liveSince.IsZero() && !liveSince.Equal(e.unconfirmedOf) {
		return false
	}
	s.endUnconfirmedLocked(k, e)
	return true
}
