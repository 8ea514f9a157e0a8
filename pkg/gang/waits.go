package gang

import (
	"time"
)

// Wait says why a gang is not placed.
type Wait struct {
	Reason  string
	Message string
}

// Reasons for which a gang or member waits. They become the reason of the PodGang's
// Unschedulable condition.
const (
	ReasonGangNotFound        = "GangNotFound"
	ReasonWaitingForMembers   = "WaitingForMembers"
	ReasonWaitingForBase      = "WaitingForBaseGang"
	ReasonWaitingEstablished  = "WaitingForEstablishedGang"
	ReasonNotInPodGroup       = "NotInAnyPodGroup"
	ReasonInsufficient        = "InsufficientResources"
	ReasonNoTopologyDomain    = "NoTopologyDomainFits"
	ReasonSharedClaim         = "SharedResourceClaim"
	ReasonMemberUnschedulable = "MemberUnschedulable"
	ReasonPermitTimeout       = "QuorumTimeout"
	ReasonBackoff             = "BackOff"
)

// StartBackoff puts the gang in back-off for d unless it already is; it returns true when a
// new back-off started (the caller then schedules the wake-up).
func (s *Store) StartBackoff(k Key, d time.Duration, reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return false
	}
	now := s.now()
	if now.Before(e.backoffUntil) {
		return false
	}
	e.backoffUntil, e.backoffReason, e.domain, e.plan = now.Add(d), reason, "", nil
	return true
}

// Backoff returns how long the gang still backs off and why; 0 when it does not.
func (s *Store) Backoff(k Key) (time.Duration, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return 0, ""
	}
	if left := e.backoffUntil.Sub(s.now()); left > 0 {
		return left, e.backoffReason
	}
	return 0, ""
}

// SetWait records why the gang waits ("" reason clears it). It returns true when the
// reason or message changed, so that status and events are written only on change.
//
// While the gang's preemption waits for its victims, a failed attempt does not replace the
// WaitingForPreemption wait: the gang is expected not to fit until the victims are gone, and
// the status should say what it waits for, not flap between the two each retry.
func (s *Store) SetWait(k Key, w Wait) bool { return s.SetWaitSeen(k, w, -1) }

// SetWaitSeen is SetWait for an attempt made against a snapshot with schedulableNodes nodes
// that take new pods (-1: not known). A failed attempt that saw more of them than the gang's
// previous failure starts its hold of extras afresh (extrahold.go): capacity that arrived is
// offered to the minimum first.
func (s *Store) SetWaitSeen(k Key, w Wait, schedulableNodes int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return false
	}
	if failedAttempt(w.Reason) {
		s.noteShortLocked(k, e, schedulableNodes)
	}
	if e.wait == w {
		return false
	}
	if failedAttempt(w.Reason) && e.wait.Reason == ReasonWaitingForPreemption && s.preemptingLocked(e) {
		return false
	}
	e.wait = w
	return true
}

// FailedAttempt reports whether reason records a failed placement attempt (the waits that
// start or renew a gang's hold of extras).
func FailedAttempt(reason string) bool { return failedAttempt(reason) }

// failedAttempt reports whether reason records a failed placement attempt rather than
// progress or a missing prerequisite.
func failedAttempt(reason string) bool {
	switch reason {
	case ReasonMemberUnschedulable, ReasonPermitTimeout, ReasonInsufficient, ReasonNoTopologyDomain:
		return true
	}
	return false
}

// Unschedulable reports whether a gang waiting for reason could not be placed (a failed
// attempt, its back-off, a preemption it waits for, a member outside every podgroup), as
// opposed to waiting in the normal sequence (members still coming, placed members waiting for
// the rest of the quorum). Upstream PodGroups get PodGroupInitiallyScheduled=False with reason
// Unschedulable only for these.
func Unschedulable(reason string) bool {
	return failedAttempt(reason) || reason == ReasonBackoff || reason == ReasonWaitingForPreemption || reason == ReasonNotInPodGroup
}

// NeedsAttention reports whether a gang waiting for reason deserves a Warning event: a failed
// placement attempt, or a member that belongs to no podgroup. Waits that are part of the
// normal sequence (members still being created or gated, a base gang not yet placed, a surge
// member before its gang is established) are in the status only: an operator that creates
// every pod gated (Grove) would otherwise draw a Warning for every gang.
func NeedsAttention(reason string) bool {
	return failedAttempt(reason) || reason == ReasonNotInPodGroup
}

// SetProgress records w, a wait that only reports progress (members placed and waiting for
// the quorum), unless the gang's wait records a failed attempt: that stays until the gang is
// placed or fails for another cause, so that a retry that gets part of the way before it fails
// again does not rewrite the status twice per cycle. It returns true when the wait changed.
func (s *Store) SetProgress(k Key, w Wait) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil || e.wait == w || failedAttempt(e.wait.Reason) {
		return false
	}
	e.wait = w
	return true
}
