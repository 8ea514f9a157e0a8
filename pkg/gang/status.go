package gang

import (
	"time"
)

// Phase of a gang, as written to PodGang status.
type Phase string

const (
	PhasePending  Phase = "Pending"
	PhaseStarting Phase = "Starting"
	PhaseRunning  Phase = "Running"
)

// Status is the scheduler's view of a gang, for its status and events.
type Status struct {
	Exists      bool
	Established bool
	// EstablishedAt is when this scheduler saw the quorum bind (zero if it did not).
	EstablishedAt time.Time
	Phase         Phase
	Wait          Wait
	Members       int
	Bound         int
	Nodes         int
	// Binding: the quorum is placed and the gang not yet established (Store.Binding), read
	// with the rest, so that a status writer never judges counts from before the last bind by
	// a Binding read after it.
	Binding bool
	// Served: a member for this scheduler has been seen (now or earlier, while the gang
	// object lived). Status writers touch only served gangs.
	Served bool
	// Disruption is set while the gang carries the mark of a preemption that took it whole
	// and it has not been established again since.
	Disruption *Disruption
	// PackNote says which preferred packing levels the placement could not keep, "" when it
	// kept them all.
	PackNote string
}

// Status summarises a gang.
func (s *Store) Status(k Key) Status {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return Status{}
	}
	st := Status{Exists: e.spec != nil, Established: establishedLocked(e), EstablishedAt: e.establishedAt, Wait: currentWaitLocked(e), Members: len(e.members), Served: e.served, PackNote: e.packNote, Binding: bindingLocked(e)}
	nodes := map[string]struct{}{}
	for _, m := range e.members {
		if m.State == Bound {
			st.Bound++
			nodes[m.Node] = struct{}{}
		}
	}
	st.Nodes = len(nodes)
	st.Phase = phaseLocked(e)
	if d := e.disruption; d != nil && !(st.Established && e.establishedAt.After(d.At)) {
		st.Disruption = d
	}
	return st
}

// currentWaitLocked is the gang's recorded wait while it still holds: a wait for the gang
// object or for members to be created ends when they are here, though it is recorded again
// (or cleared) only by the members' next attempt. Every gang of a workload created before the
// scheduler starts waits so for an instant (the informers deliver members one by one, and pods
// before gang objects or after), and a status written from that wait would say members are
// missing when none is.
func currentWaitLocked(e *entry) Wait {
	switch e.wait.Reason {
	case ReasonGangNotFound:
		if e.spec != nil {
			return Wait{}
		}
	case ReasonWaitingForMembers:
		if e.spec != nil && len(missingLocked(e)) == 0 {
			return Wait{}
		}
	}
	return e.wait
}

// phaseLocked is Grove's phase of a gang: Pending while no member is bound, Running when every
// member (surge members aside) is bound and Running and every podgroup has its minReplicas,
// Starting in between.
func phaseLocked(e *entry) Phase {
	bound, all := 0, true
	for _, m := range e.members {
		if m.Surge {
			continue
		}
		if m.State == Bound {
			bound++
		}
		all = all && m.State == Bound && m.Running
	}
	switch {
	case bound == 0:
		return PhasePending
	case !all || !establishedLocked(e):
		return PhaseStarting
	}
	return PhaseRunning
}

// WaitingByReason counts, by kind and reason, the gangs that are not established and wait
// (for metrics).
func (s *Store) WaitingByReason() map[[2]string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[[2]string]int{}
	for k, e := range s.gangs {
		if e.spec == nil || e.wait.Reason == "" || establishedLocked(e) {
			continue
		}
		out[[2]string{k.Kind.String(), e.wait.Reason}]++
	}
	return out
}
