package gang

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
)

func anyPlaced(e *entry) bool {
	for _, m := range e.members {
		if m.State == Bound || m.State == Assumed {
			return true
		}
	}
	return false
}

// establishedLocked: rule 3. The gang's quorum bound once (seen by this scheduler or recorded
// as Scheduled=True on the object) and some member is still bound.
func establishedLocked(e *entry) bool {
	return e.spec != nil && (!e.establishedAt.IsZero() || e.spec.Scheduled) && e.bound > 0
}

// quorumLocked: rule 1. Every podgroup has minReplicas non-surge members bound (or assumed,
// when withAssumed).
func quorumLocked(e *entry, withAssumed bool) bool {
	if e.spec == nil {
		return false
	}
	for i, pg := range e.spec.PodGroups {
		if count(e, i, withAssumed) < pg.MinReplicas {
			return false
		}
	}
	return true
}

func count(e *entry, group int, withAssumed bool) int32 {
	var n int32
	for _, m := range e.members {
		if m.Group == group && !m.Surge && (m.State == Bound || (withAssumed && m.State == Assumed)) {
			n++
		}
	}
	return n
}

// Established reports rule 3 for a gang.
func (s *Store) Established(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && establishedLocked(e)
}

// QuorumMet reports rule 1: bound + assumed non-surge members reach minReplicas in every
// podgroup.
func (s *Store) QuorumMet(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && quorumLocked(e, true)
}

// SettleQuorum is Permit's one store call for a member of gang k: whether the gang's quorum
// is met with bound and assumed members (QuorumMet), and, when it is, what Permit settles: the
// plan that placed the quorum is dropped and the gang's wait cleared (cleared: the wait was
// not empty, so the gang's status is to be written), and pending lists the members still
// pending (its extras, to be woken). The write lock is taken only when there is a plan or a
// wait to clear: once for a gang whose members the Binder permits one after another.
func (s *Store) SettleQuorum(k Key) (met, cleared bool, pending []*v1.Pod) {
	s.mu.RLock()
	e := s.gangs[k]
	if e == nil || !quorumLocked(e, true) {
		s.mu.RUnlock()
		return false, false, nil
	}
	if e.plan == nil && e.wait == (Wait{}) {
		pending = pendingLocked(e)
		s.mu.RUnlock()
		return true, false, pending
	}
	s.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if e = s.gangs[k]; e == nil || !quorumLocked(e, true) {
		return false, false, nil
	}
	cleared = e.wait != (Wait{})
	e.plan, e.wait = nil, Wait{}
	return true, cleared, pendingLocked(e)
}

// Binding reports whether gang k's quorum is placed but the gang is not established yet: its
// binds are in flight, or the bind that completed it is recorded and the establishment that
// follows it (Establish, run by whoever recorded the bind or the spec) has not run yet. A
// status written now would be out of date within the binds' round trips; the establishment
// (or the release of a failed bind) has it written.
func (s *Store) Binding(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && bindingLocked(e)
}

// bindingLocked is Binding of e. A quorum bound with nothing bound (podgroups of minReplicas
// 0) never establishes the gang, so it is not binding either.
func bindingLocked(e *entry) bool {
	if establishedLocked(e) || !quorumLocked(e, true) {
		return false
	}
	return !quorumLocked(e, false) || e.bound > 0
}

// QuorumBound reports whether bound non-surge members alone reach minReplicas in every
// podgroup: further members are extras that no sibling waits for.
func (s *Store) QuorumBound(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && quorumLocked(e, false)
}

// QuorumProgress describes how far each podgroup is from quorum, for messages:
// "leader 1/1, worker 1/2".
func (s *Store) QuorumProgress(k Key) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil || e.spec == nil {
		return "gang not found"
	}
	parts := make([]string, 0, len(e.spec.PodGroups))
	for i, pg := range e.spec.PodGroups {
		parts = append(parts, fmt.Sprintf("%s %d/%d", pg.Name, count(e, i, true), pg.MinReplicas))
	}
	return strings.Join(parts, ", ")
}

// Admissible is the PreEnqueue decision for a pod: may it enter the active queue? It decides on
// what the store holds, and writes nothing: a member not yet recorded counts as missing until
// the pod informer's handler records it and wakes the gang.
func (s *Store) Admissible(pod *v1.Pod) (bool, Wait) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.admissibleLocked(pod)
}

// Gate is Admissible for the pod informer's handler: a pod that is not admitted has its
// gang's wait recorded in the same critical section as the decision, so that an outcome
// recorded meanwhile by another member's cycle (a failed attempt) is never overwritten by this
// older decision. changed reports whether the gang's wait changed.
func (s *Store) Gate(pod *v1.Pod) (admitted bool, w Wait, changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	admitted, w = s.admissibleLocked(pod)
	if admitted {
		return true, w, false
	}
	k, _ := s.membership.KeyOf(pod)
	if e := s.gangs[k]; e != nil && e.wait != w {
		e.wait, changed = w, true
	}
	return false, w, changed
}

func (s *Store) admissibleLocked(pod *v1.Pod) (bool, Wait) {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return true, Wait{}
	}
	e := s.gangs[k]
	if e == nil || e.spec == nil {
		return false, Wait{ReasonGangNotFound, fmt.Sprintf("waiting for %s to be created", k)}
	}
	if base, ok := s.membership.BaseOf(pod); ok && base != k {
		if be := s.gangs[base]; be == nil || !establishedLocked(be) {
			return false, Wait{ReasonWaitingForBase, fmt.Sprintf("scaled gang %s waits until its base PodGang %s is established (its quorum bound)", k.Name, base.Name)}
		}
	}
	if s.membership.IsSurge(pod) {
		if !establishedLocked(e) {
			return false, Wait{ReasonWaitingEstablished, fmt.Sprintf("surge member waits until %s is established", k)}
		}
		return true, Wait{}
	}
	if m := e.members[pod.Name]; m != nil && m.Group < 0 {
		return false, Wait{ReasonNotInPodGroup, fmt.Sprintf("pod is in no podgroup of %s (not in podReferences, no podgroup named after its clique)", k)}
	}
	if missing := missingLocked(e); len(missing) > 0 {
		return false, Wait{ReasonWaitingForMembers, fmt.Sprintf("%s waits for members to be created or ungated: %s", k, strings.Join(missing, "; "))}
	}
	return true, Wait{}
}

// missingLocked lists the podgroups with fewer than minReplicas non-surge members present
// and ungated, as "worker has 1 of 2".
func missingLocked(e *entry) []string {
	if e.spec == nil {
		return []string{"the gang object does not exist"}
	}
	var missing []string
	for i, pg := range e.spec.PodGroups {
		var present int32
		for _, m := range e.members {
			if m.Group == i && !m.Surge && m.State != Gated {
				present++
			}
		}
		if present < pg.MinReplicas {
			missing = append(missing, fmt.Sprintf("%s has %d of %d", pg.Name, present, pg.MinReplicas))
		}
	}
	return missing
}

// IsMember reports whether pod (this UID) is a recorded member of its gang: false once its
// deletion has been seen.
func (s *Store) IsMember(pod *v1.Pod) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, _, m := s.memberLocked(pod)
	return m != nil
}

// memberLocked returns pod's gang (the zero Key when it is in none), the gang's entry and its
// recorded member of pod's UID (nil when not, or no longer, recorded).
func (s *Store) memberLocked(pod *v1.Pod) (Key, *entry, *member) {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return k, nil, nil
	}
	e := s.gangs[k]
	if e == nil {
		return k, nil, nil
	}
	if m := e.members[pod.Name]; m != nil && m.UID == pod.UID {
		return k, e, m
	}
	return k, e, nil
}

// MembersPresent reports whether every podgroup of the gang has minReplicas non-surge
// members present and ungated: the gang can be attempted.
func (s *Store) MembersPresent(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && e.spec != nil && len(missingLocked(e)) == 0
}
