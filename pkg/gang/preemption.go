package gang

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Gang-aware preemption (docs/architecture.md rule 9) keeps two records in the store: on the preemptor,
// the victims it evicted and the room it planned, held for it with the replacement-hold
// machinery (the preemption is a reservation of the room it frees, so that a third pod cannot
// take it); on each victim gang, that it is a disruption target, and for whom.

// ReasonWaitingForPreemption is the wait of a gang whose victims are terminating.
const ReasonWaitingForPreemption = "WaitingForPreemption"

// ConditionDisruptionTarget is Grove's PodGang condition for a gang about to be terminated;
// Phalanx sets it, with ReasonPreempted, on the gangs it preempts (and on nothing else).
const (
	ConditionDisruptionTarget = "DisruptionTarget"
	ReasonPreempted           = "PreemptedByPhalanx"
)

// Preemption is what the scheduler started for a preemptor gang.
type Preemption struct {
	// Victims are the evicted pods, as namespace/name.
	Victims []string
	// Gangs are the gangs evicted whole or in part, by String().
	Gangs []string
	// Nodes are the requests of the preemptor's members on their planned nodes: the room held
	// for them while the victims terminate.
	Nodes map[string]Resources
	// Since is when the victims were chosen; Until when the preemptor stops waiting for them
	// (it may preempt again after that, if it still does not fit).
	Since, Until time.Time
	// Priority is the preemptor's: its hold does not keep out pods of higher priority.
	Priority int32
	// Claims are the victims' ResourceClaims whose devices the preemptor counts on (allocated
	// and reserved for victims alone): it waits for their deallocation as for the victims.
	Claims []ClaimRef
}

// ClaimRef names one ResourceClaim object (its UID tells it from a later claim of the name).
type ClaimRef struct {
	Namespace, Name string
	UID             types.UID
}

// StartPreemption records that the gang evicted victims to make room: its members then wait
// for them (PreemptionInFlight) and, while holds are on, the room in p.Nodes is held for them
// as a reservation starting now.
func (s *Store) StartPreemption(k Key, p Preemption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryLocked(k)
	cp := p
	e.preemption = &cp
	e.preemptHold = &Reservation{Since: p.Since, Nodes: p.Nodes}
	if e.reservation() != nil {
		s.reserving[k] = true
	}
	s.clearVictimsLocked(e)
	e.victimsLeft = make(map[string]bool, len(p.Victims))
	for _, v := range p.Victims {
		e.victimsLeft[v] = true
		s.victimOf[v] = k
	}
}

// VictimGone records that a pod (namespace/name) was deleted: when it was a victim of a
// preemption, its preemptor waits for one victim less. It returns the preemptor and true when
// that was its last victim: the caller wakes it (the QueueingHint of the same deletion may have
// run before this record and skipped it).
func (s *Store) VictimGone(name string) (Key, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.victimOf[name]
	if !ok {
		return Key{}, false
	}
	delete(s.victimOf, name)
	e := s.gangs[k]
	if e == nil {
		return Key{}, false
	}
	delete(e.victimsLeft, name)
	return k, len(e.victimsLeft) == 0
}

// WaitsForVictims reports whether the gang's preemption (window open) still waits for a
// victim other than gone (namespace/name, the pod whose deletion is being looked at: the
// QueueingHint may run before or after the informer handler that records it). A deletion
// that leaves victims behind cannot make room for the gang, so it does not wake it.
func (s *Store) WaitsForVictims(k Key, gone string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if !s.preemptingLocked(e) {
		return false
	}
	for v := range e.victimsLeft {
		if v != gone {
			return true
		}
	}
	return false
}

// clearVictimsLocked forgets the victims e's preemption waited for.
func (s *Store) clearVictimsLocked(e *entry) {
	for v := range e.victimsLeft {
		delete(s.victimOf, v)
	}
	e.victimsLeft = nil
}

// PreemptionInFlight returns the gang's preemption while its window is open. The record is
// dropped when the gang's quorum binds.
func (s *Store) PreemptionInFlight(k Key) (Preemption, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if !s.preemptingLocked(e) {
		return Preemption{}, false
	}
	return *e.preemption, true
}

// preemptingLocked reports whether e has a preemption whose window is open.
func (s *Store) preemptingLocked(e *entry) bool {
	return e != nil && e.preemption != nil && s.now().Before(e.preemption.Until)
}

// Disruption says that the scheduler preempted (members of) a gang, and for whom.
type Disruption struct {
	Message string
	At      time.Time
}

// MarkDisrupted records that the gang was preempted whole (msg names the preemptor). It
// returns false when the gang already carried the same mark.
func (s *Store) MarkDisrupted(k Key, msg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return false
	}
	if e.disruption != nil && e.disruption.Message == msg {
		return false
	}
	e.disruption = &Disruption{Message: msg, At: s.now()}
	return true
}

// DisruptionTargetCondition is the gang's DisruptionTarget condition while it carries a
// preemption mark, and ok false otherwise. The mark stays until the gang is established again
// (a gang preempted whole is formed from scratch when its owner recreates its pods).
func DisruptionTargetCondition(st Status, generation int64) (metav1.Condition, bool) {
	if st.Disruption == nil {
		return metav1.Condition{}, false
	}
	return metav1.Condition{Type: ConditionDisruptionTarget, Status: metav1.ConditionTrue, Reason: ReasonPreempted,
		Message: st.Disruption.Message, ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(st.Disruption.At)}, true
}

// ClearedDisruptionTarget is the condition that replaces a DisruptionTarget condition Phalanx
// wrote once the gang no longer carries the mark; a DisruptionTarget of another writer (the
// operator's, any other reason) is left alone (docs/architecture.md rule 10).
func ClearedDisruptionTarget(live []metav1.Condition, generation int64) (metav1.Condition, bool) {
	for _, c := range live {
		if c.Type == ConditionDisruptionTarget && c.Reason == ReasonPreempted && c.Status == metav1.ConditionTrue {
			return metav1.Condition{Type: ConditionDisruptionTarget, Status: metav1.ConditionFalse, Reason: "Rescheduled",
				Message: "the gang was placed again after its preemption", ObservedGeneration: generation}, true
		}
	}
	return metav1.Condition{}, false
}

// PreemptionCandidates are the pods of nodes that a preemptor of priority prio may evict:
// lower priority (a member's is its gang's, see PriorityOf), not terminating, not members of the preemptor's own gang (own; zero Key
// for a pod of no gang), not the preemptor pods themselves.
func (s *Store) PreemptionCandidates(pods []*v1.Pod, prio int32, own Key, started func(*v1.Pod) time.Time) []Candidate {
	var out []Candidate
	s.mu.RLock()
	for _, p := range pods {
		pp := s.priorityLocked(p)
		if p.DeletionTimestamp != nil || pp >= prio {
			continue
		}
		if k, ok := s.membership.KeyOf(p); ok && own != (Key{}) && k == own {
			continue
		}
		out = append(out, Candidate{Pod: p, Node: p.Spec.NodeName, Priority: pp, GPUs: RequestsOf(p).GPU, Started: started(p)})
	}
	s.mu.RUnlock()
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pod, out[j].Pod
		return a.Namespace < b.Namespace || (a.Namespace == b.Namespace && a.Name < b.Name)
	})
	return out
}
