package gang

import (
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Minimums first (rule 6 of the package doc). The queue puts the members a gang needs for its
// minimum before members above any minimum (QueueKey.Extra), but it orders only the pods it
// holds at one moment: when capacity arrives a node at a time (nodes uncordoned, added by an
// autoscaler, freed one by one), the first node is offered to whatever is queued, the minimum
// that needs two nodes does not fit yet, and an extra takes the node. Then the minimum never
// fits: two gangs short, where holding the node would have completed one.
//
// So a gang whose minimum (first quorum, or an established gang's deficit) failed to fit holds
// the extras of every other gang of equal or lower priority in its profile: they are turned
// away in PreFilter until the minimum is placed, for at most extraHold from the gang's first
// failed attempt. The bound keeps a minimum that cannot fit at all from starving extras: once
// it passed, the gang holds nothing until it has been placed and falls short again, or until
// capacity arrives. Capacity arriving is counted in schedulable nodes (added, uncordoned):
// while an extra of the gang's own workload (its base gang's, a sibling scaled gang's) sees
// more of them in its cycle than the gang's last failed attempt did, the gang has not been
// tried on them yet and holds the extra (whatever its bound); its next failure, if it still
// does not fit, starts its hold afresh. So a minimum that waited longer than extraHold
// (Grove's GS-8: the scaled gangs failed, the test waited for other pods to become Ready, then
// uncordoned nodes one at a time) still gets each arriving node before its workload's extras,
// and a minimum that never fits costs them at most extraHold per arrival, and other
// workloads' extras only its first extraHold.
// Minimums are never held, so holds cannot wait on each other.

// SetExtraHold sets how long a gang short of its minimum may hold extras (0: never).
func (s *Store) SetExtraHold(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extraHold = d
}

// HeldExtra is PreFilter's minimums-first check for pod: when pod is above its gang's
// minimum (QueueKey.Extra) and another gang of equal or higher priority waits for its minimum
// within its hold, it returns that gang and when its hold ends at the latest. The holder
// chosen is the one that has waited longest. schedulableNodes counts the nodes of the pod's
// cycle that take new pods (nil: not known); it is called at most once, and only when a gang
// past its bound could still hold because capacity arrived since its last failure.
func (s *Store) HeldExtra(pod *v1.Pod, schedulableNodes func() int) (holder Key, until time.Time, held bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.extraHold <= 0 || len(s.short) == 0 {
		return Key{}, time.Time{}, false
	}
	k, e, m := s.memberLocked(pod)
	if m == nil {
		return Key{}, time.Time{}, false
	}
	// The holders first: extraLocked walks the pod's podgroup, and most cycles find no holder.
	prio := s.priorityLocked(pod)
	now := s.now()
	seen := -1
	var since time.Time
	for hk := range s.short {
		he := s.gangs[hk]
		if hk == k || he == nil || he.spec == nil || he.shortSince.IsZero() || placedQuorumLocked(he) || gangPriorityLocked(he) < prio {
			continue
		}
		end, ok := s.holdsLocked(he, hk, k, now, func() int {
			if seen < 0 && schedulableNodes != nil {
				seen = schedulableNodes()
			}
			return seen
		})
		if !ok {
			continue
		}
		if since.IsZero() || he.shortSince.Before(since) || (he.shortSince.Equal(since) && hk.String() < holder.String()) {
			holder, since, until = hk, he.shortSince, end
		}
	}
	if since.IsZero() || !extraLocked(e, m) {
		return Key{}, time.Time{}, false
	}
	return holder, until, true
}

// holdsLocked reports whether short gang he (key hk) holds the extras of gang k now, and
// until when at the latest. Any gang's extras within extraHold of its first failure; past it,
// only the extras of its own workload (its base gang's, its sibling scaled gangs'), within
// extraHold of a failure that saw more schedulable nodes than the one before, or while the
// extra's cycle sees more of them (seen: -1 not known) than its last failure did: it has not
// been tried on them yet. So a minimum that never fits does not hold every workload's extras
// anew at each node that arrives.
func (s *Store) holdsLocked(he *entry, hk, k Key, now time.Time, seen func() int) (time.Time, bool) {
	first := he.shortSince.Add(s.extraHold)
	own := s.sameWorkloadLocked(hk, k)
	if !own {
		return first, now.Before(first)
	}
	end := first
	if renewed := he.renewedAt.Add(s.extraHold); !he.renewedAt.IsZero() && renewed.After(end) {
		end = renewed
	}
	if now.Before(end) {
		return end, true
	}
	if n := seen(); n >= 0 && n > he.shortNodes {
		// Held for capacity the holder has not been tried on: its next failure renews the
		// hold; the latest end is a full hold from now.
		return now.Add(s.extraHold), true
	}
	return time.Time{}, false
}

// NoteHeld records that holder turned away members of gang k, so that TakeHeld returns k when
// holder's minimum is placed (nothing in the cluster changes then that would wake them).
func (s *Store) NoteHeld(holder, k Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.heldBy[holder] == nil {
		s.heldBy[holder] = map[Key]bool{}
	}
	s.heldBy[holder][k] = true
}

// TakeHeld returns the gangs whose extras holder turned away, and forgets them: once holder
// no longer holds (its minimum placed, its hold over, its object gone), the caller wakes them.
// While holder still holds, it returns nothing.
func (s *Store) TakeHeld(holder Key) []Key {
	s.mu.RLock()
	none := len(s.heldBy[holder]) == 0
	s.mu.RUnlock()
	if none {
		return nil // the common case (every Permit of a gang with its quorum asks): no write lock
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.heldBy[holder]
	if len(held) == 0 {
		return nil
	}
	if e := s.gangs[holder]; e != nil && s.holdingLocked(e, s.now()) {
		return nil
	}
	delete(s.heldBy, holder)
	keys := make([]Key, 0, len(held))
	for k := range held {
		keys = append(keys, k)
	}
	return keys
}

// HoldUntil returns when gang k's hold of extras ends at the latest, and whether it holds now.
func (s *Store) HoldUntil(k Key) (time.Time, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil || !s.holdingLocked(e, s.now()) {
		return time.Time{}, false
	}
	return holdEnd(e, s.extraHold), true
}

// holdEnd is when e's hold ends at the latest: extraHold after its first failure or its
// latest renewal.
func holdEnd(e *entry, hold time.Duration) time.Time {
	if e.renewedAt.After(e.shortSince) {
		return e.renewedAt.Add(hold)
	}
	return e.shortSince.Add(hold)
}

// holdingLocked: e failed to place its minimum (or was renewed) less than extraHold ago and
// still lacks it; for some extras at least (holdsLocked says whose).
func (s *Store) holdingLocked(e *entry, now time.Time) bool {
	return e.spec != nil && !e.shortSince.IsZero() && now.Before(holdEnd(e, s.extraHold)) && !placedQuorumLocked(e)
}

// noteShortLocked records a failed attempt of e (SetWaitSeen with a failed-attempt reason)
// that saw schedulableNodes nodes taking new pods (-1: not known): the first one while e lacks
// its minimum starts its hold, and a later one that saw more such nodes than the one before
// renews it for the gang's own workload (capacity arrived and was offered to the minimum
// first; holdsLocked). It also drops from s.short
// the gangs that are short no more (placed, or gone), so that the set stays as small as the
// gangs waiting now; a gang past its bound stays, as arriving capacity renews its hold.
func (s *Store) noteShortLocked(k Key, e *entry, schedulableNodes int) {
	for hk := range s.short {
		if he := s.gangs[hk]; he == nil || he.shortSince.IsZero() {
			delete(s.short, hk)
		}
	}
	if e.spec == nil || placedQuorumLocked(e) {
		return
	}
	switch {
	case e.shortSince.IsZero():
		e.shortSince, e.renewedAt = s.now(), time.Time{}
		s.short[k] = true
		if schedulableNodes < 0 {
			// Not known: arriving capacity cannot be told until a failure that counts it.
			schedulableNodes = math.MaxInt
		}
		e.shortNodes = schedulableNodes
	case schedulableNodes > e.shortNodes:
		e.renewedAt, e.shortNodes = s.now(), schedulableNodes
	case schedulableNodes >= 0:
		e.shortNodes = schedulableNodes
	}
}

// placedQuorumLocked: every podgroup of e has minReplicas non-surge members bound or assumed
// (quorumLocked with assumed members, from the counts recount keeps).
func placedQuorumLocked(e *entry) bool {
	if e.spec == nil || len(e.placed) != len(e.spec.PodGroups) {
		return false
	}
	for i, pg := range e.spec.PodGroups {
		if e.placed[i] < pg.MinReplicas {
			return false
		}
	}
	return true
}

// gangPriorityLocked is e's priority for the hold: its object's when it sets one, else the
// highest of its pending members' own.
func gangPriorityLocked(e *entry) int32 {
	if e.spec != nil && e.spec.Priority != nil {
		return *e.spec.Priority
	}
	var prio int32
	first := true
	for _, m := range e.members {
		if m.State != Pending || m.pod == nil {
			continue
		}
		if p := corev1helpers.PodPriority(m.pod); first || p > prio {
			prio, first = p, false
		}
	}
	return prio
}

// sameWorkloadLocked reports whether gangs a and b are a base gang and one of its scaled
// gangs, or two scaled gangs of one base.
func (s *Store) sameWorkloadLocked(a, b Key) bool {
	if s.scaled[a][b] || s.scaled[b][a] {
		return true
	}
	for _, scaled := range s.scaled {
		if scaled[a] && scaled[b] {
			return true
		}
	}
	return false
}

// holdForScaledLocked starts the hold of every gang based on base that lacks its minimum,
// when base has just been established: those minimums are next in line, and their pods may
// not be schedulable yet (Grove lifts its scheduling gate from a scaled gang's pods only once
// its PodClique status counts the base's pods scheduled, seconds after the binds). Without it,
// capacity that arrives in those seconds went to the base's extras, which were pending and
// held by nobody (Grove's GS-8 on kind: the four uncordoned nodes went to the base's three
// extras 0.5 s before Grove ungated the scaled gangs). The hold is the same as after a failure,
// bounded by extraHold; arriving nodes renew it only after the gang has failed on a count of
// them.
func (s *Store) holdForScaledLocked(base Key) {
	if s.extraHold <= 0 {
		return
	}
	for sk := range s.scaled[base] {
		e := s.gangs[sk]
		if e == nil || e.spec == nil || establishedLocked(e) || placedQuorumLocked(e) || !e.shortSince.IsZero() {
			continue
		}
		e.shortSince, e.shortNodes = s.now(), math.MaxInt
		s.short[sk] = true
	}
}
