package gang

import (
	"reflect"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
)

// SetSpec records the gang object (add or update) and reassigns members to podgroups. A
// hold left by a deleted object of the same name ends: the new object's reservation governs.
// A gang that names another in ReuseFrom and carries no reservation of its own reserves that
// gang's footprint (its bound members and those that left it within the hold window) as the
// store first sees it, from then on for the hold duration; Phalanx's own controller writes the
// reservation instead, which survives a restart of the scheduler.
//
// It reports whether the spec is new or differs from the one recorded: only then can the
// gang's pending members (or gangs based on it) have become admissible. A write of the gang's
// status that changes nothing the rules read (Phalanx's own status writes, mostly) is not.
func (s *Store) SetSpec(spec Spec) (changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLingeringLocked()
	e := s.entryLocked(spec.Key)
	sp := spec
	prev := e.spec
	changed = prev == nil || !reflect.DeepEqual(*prev, sp)
	e.spec, e.lingering = &sp, nil
	delete(s.leaving, sp.Key)
	switch {
	case sp.Reservation != nil || sp.ReuseFrom == (Key{}):
		e.reused = nil
	case e.reused == nil || prev == nil || prev.ReuseFrom != sp.ReuseFrom:
		e.reused = s.footprintLocked(sp.ReuseFrom)
	}
	if r := e.reservation(); e.unconfirmed != nil && r != nil && !r.Since.Equal(e.unconfirmedOf) {
		e.unconfirmed = nil // the reservation the departure waited for
	}
	if e.reservation() != nil || e.unconfirmed != nil {
		s.reserving[sp.Key] = true
	} else {
		delete(s.reserving, sp.Key)
	}
	s.notePriorityLocked(sp.Key, sp.Priority != nil)
	if changed {
		for _, m := range e.members {
			m.Group = groupOf(e.spec, m.pod)
		}
		e.recount()
	}
	return changed
}

// footprintLocked is what gang k holds and held, by node, as a reservation starting now: the
// requests of its bound members and of the bound members that left it within the hold
// window. Nil when holds are off or there is nothing.
func (s *Store) footprintLocked(k Key) *Reservation {
	e := s.gangs[k]
	if e == nil || s.hold == 0 {
		return nil
	}
	now := s.now()
	nodes := map[string]Resources{}
	for _, m := range e.members {
		if m.State == Bound && m.Node != "" {
			nodes[m.Node] = nodes[m.Node].Add(m.Requests)
		}
	}
	if s.leftFreshLocked(e, now) {
		for n, r := range e.left {
			nodes[n] = nodes[n].Add(r)
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	return &Reservation{Since: now, Nodes: nodes}
}

// olderThan reports whether resourceVersion a is older than b. Resource versions are opaque,
// but the API server's are etcd revisions: when both read as integers they are compared, and
// anything else counts as not older (the newer write wins as before).
func olderThan(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x < y
}

// recordLeftLocked notes that bound member m left e (see entry.left).
func (s *Store) recordLeftLocked(e *entry, m *member) {
	if s.hold == 0 || m.State != Bound || m.Node == "" {
		return
	}
	now := s.now()
	if !s.leftFreshLocked(e, now) {
		e.left = map[string]Resources{}
	}
	e.left[m.Node] = e.left[m.Node].Add(m.Requests)
	e.leftAt = now
}

// leftFreshLocked: e's members left it within the hold window.
func (s *Store) leftFreshLocked(e *entry, now time.Time) bool {
	return len(e.left) > 0 && now.Before(e.leftAt.Add(s.hold))
}

// dropIfEmptyLocked forgets k's entry when nothing keeps it: no object, no member, no
// lingering hold; an entry whose members left within the hold window stays in leaving.
func (s *Store) dropIfEmptyLocked(k Key, e *entry) {
	if len(e.members) > 0 || e.spec != nil || e.lingering != nil {
		return
	}
	if s.leftFreshLocked(e, s.now()) {
		s.leaving[k] = true
		return
	}
	delete(s.gangs, k)
	delete(s.scaled, k)
	delete(s.leaving, k)
}

// DeleteSpec forgets the gang object. Members that still exist stay, waiting for it. When
// final (the deletion came with the object's last state), an active hold stays too (see
// entry.lingering): the object is deleted to be created again, and between the deletion and
// the creation no other pod may take what its replacements need. A deletion learned from a
// relist (the informer's cache.DeletedFinalStateUnknown, after a watch broke: an API server
// restart) is not final: the reservation the store knows may have been released before the
// deletion (the controller releases a given-up slice gang's reservation, then deletes it), and
// kept on that stale state it held the capacity from every other gang for the rest of its
// window (TestCoherentDrainFirstAllOrNothing, under CI's load: the next slice waited two
// minutes). Its hold ends: a replacement that loses it competes for the room as any pod does.
func (s *Store) DeleteSpec(k Key, final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLingeringLocked()
	e := s.gangs[k]
	if e == nil {
		return
	}
	if final && s.activeLocked(e, s.now()) {
		e.lingering = e.reservation()
	} else {
		delete(s.reserving, k)
	}
	e.spec, e.reused, e.establishedAt, e.domain, e.readBackWoken = nil, nil, time.Time{}, "", false
	e.unconfirmed = nil // the object is gone: no reservation of it is on its way
	s.notePriorityLocked(k, false)
	s.dropIfEmptyLocked(k, e)
}

// notePriorityLocked records whether gang k's object sets a priority of its own.
func (s *Store) notePriorityLocked(k Key, set bool) {
	if set {
		s.prioritized[k] = true
	} else {
		delete(s.prioritized, k)
	}
	s.anyPriority.Store(len(s.prioritized) > 0)
}

// GangPriorities reports whether some gang object sets a priority of its own (lock-free: it is
// on the queue's hot path).
func (s *Store) GangPriorities() bool { return s.anyPriority.Load() }

// pruneLingeringLocked drops the holds of deleted gang objects whose window has closed or
// whose replacements took the capacity back, and the entries that nothing keeps any more.
func (s *Store) pruneLingeringLocked() {
	now := s.now()
	for k := range s.reserving {
		e := s.gangs[k]
		if e == nil || e.spec != nil || s.activeLocked(e, now) {
			continue
		}
		e.lingering = nil
		delete(s.reserving, k)
		s.dropIfEmptyLocked(k, e)
	}
	for k := range s.leaving {
		if e := s.gangs[k]; e == nil || !s.leftFreshLocked(e, now) {
			delete(s.leaving, k)
			if e != nil {
				s.dropIfEmptyLocked(k, e)
			}
		}
	}
}

// Spec returns a copy of the gang's spec, if the object has been seen.
func (s *Store) Spec(k Key) (Spec, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e := s.gangs[k]; e != nil && e.spec != nil {
		return *e.spec, true
	}
	return Spec{}, false
}

// UpsertPod records a pod (add or update) of this scheduler: callers pass only pods whose
// schedulerName is the profile's, which is what makes the gang one this scheduler serves. A
// terminating pod leaves its gang: it is being replaced and must not count toward quorum. The
// assumed mark of an unbound pod is kept. It returns the pod's gang, if it has one. The same
// resourceVersion again (the informer's, the queue's and PreFilter's copy of one object) is a
// no-op.
//
// PreFilter records the pod it is handed this way; the informer has nearly always recorded
// that version already, and then the call takes only the read lock.
func (s *Store) UpsertPod(pod *v1.Pod) (Key, bool) {
	if k, ok := s.membership.KeyOf(pod); ok && s.recorded(k, pod) {
		return k, true
	}
	k, ok, _ := s.upsertPod(pod, false)
	return k, ok
}

// recorded reports, under the read lock, whether the store holds pod at this
// resourceVersion or a newer one (nothing for UpsertPod to write). Terminating and finished
// pods are not: they leave their gang.
func (s *Store) recorded(k Key, pod *v1.Pod) bool {
	if pod.ResourceVersion == "" || pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return false
	}
	m := e.members[pod.Name]
	return m != nil && m.UID == pod.UID && (m.pod.ResourceVersion == pod.ResourceVersion || olderThan(pod.ResourceVersion, m.pod.ResourceVersion))
}

// ObservePod is UpsertPod for the pod informer's handler, which wakes siblings: wake is true
// the first time the informer delivers a member ungated (new to its gang, replacing a pod of
// its name, or just ungated), whoever recorded the pod first. Those are the only changes of a
// pending member that can make its siblings admissible; its other updates (status writes,
// the scheduler's PodScheduled=False among them) are not.
func (s *Store) ObservePod(pod *v1.Pod) (k Key, ok bool, wake bool) {
	return s.upsertPod(pod, true)
}

func (s *Store) upsertPod(pod *v1.Pod, observe bool) (k Key, ok bool, wake bool) {
	k, ok = s.membership.KeyOf(pod)
	if !ok {
		return k, false, false
	}
	if pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
		s.DeletePod(pod)
		return k, true, false
	}
	// The device counter reads the scheduler's claim tracker: never under the store's lock.
	devices := s.DevicesOf(pod)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryLocked(k)
	m := e.members[pod.Name]
	if m != nil && m.UID == pod.UID && olderThan(pod.ResourceVersion, m.pod.ResourceVersion) {
		// An older copy (the queue's, after the informer delivered a newer one) must not
		// undo what the newer one said (its gates lifted, its node).
		return k, true, false
	}
	if m != nil && m.UID == pod.UID && len(m.pod.Spec.SchedulingGates) > 0 && len(pod.Spec.SchedulingGates) == 0 {
		m.announced = false // ungated: its siblings are to be woken once more
	}
	if m != nil && m.UID == pod.UID && pod.ResourceVersion != "" && m.pod.ResourceVersion == pod.ResourceVersion {
		if observe && !m.announced && len(pod.Spec.SchedulingGates) == 0 {
			m.announced, wake = true, true
		}
		return k, true, wake
	}
	if b, ok := s.membership.BaseOf(pod); ok && b != k {
		if s.scaled[b] == nil {
			s.scaled[b] = map[Key]bool{}
		}
		s.scaled[b][k] = true
	}
	e.served = true
	if m == nil || m.UID != pod.UID {
		m = &member{}
		e.members[pod.Name] = m
	}
	if observe && !m.announced && len(pod.Spec.SchedulingGates) == 0 {
		m.announced, wake = true, true
	}
	state, node := StateOf(pod), pod.Spec.NodeName
	switch {
	case m.State == Bound && state != Bound:
		// A stale informer event from before the bind: a pod never leaves its node.
		state, node = Bound, m.Node
	case m.State == Assumed && state == Pending:
		state, node = Assumed, m.Node
	}
	m.pod = pod
	req := RequestsOf(pod)
	req.Devices = devices
	m.Member = Member{
		UID:      pod.UID,
		Name:     pod.Name,
		Group:    groupOf(e.spec, pod),
		Index:    MemberIndex(pod),
		Surge:    s.membership.IsSurge(pod),
		State:    state,
		Node:     node,
		Requests: req,
		Running:  podRunning(pod),
		Ready:    podReady(pod),
	}
	e.recount()
	return k, true, wake
}

// DeletePod removes a pod from its gang. A gang with no bound member left is no longer
// established: it is formed again from scratch.
func (s *Store) DeletePod(pod *v1.Pod) { s.removePod(pod, true) }

// MovedPod forgets pod (as it was before an update of its labels) in the gang it belonged to:
// it is now a member of another gang (a coherent slice's pod back in its regular gang).
// Unlike DeletePod nothing is held for a replacement: the pod still runs where it ran.
func (s *Store) MovedPod(pod *v1.Pod) { s.removePod(pod, false) }

func (s *Store) removePod(pod *v1.Pod, left bool) {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return
	}
	if check := s.removePodLocked(k, pod, left); check != nil {
		check(k)
	}
}

// removePodLocked is removePod under the store's lock; it returns the departure check to run
// after it (departedLocked).
func (s *Store) removePodLocked(k Key, pod *v1.Pod, left bool) DepartureCheck {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return nil
	}
	var check DepartureCheck
	if m := e.members[pod.Name]; m != nil && m.UID == pod.UID {
		if left {
			s.recordLeftLocked(e, m)
			e.noteDeparture(m)
		}
		delete(e.members, pod.Name)
		e.recount()
		if _, planned := e.plan[pod.Name]; planned {
			e.plan = nil // the quorum it was made for needs another member now
		}
		if left {
			check = s.departedLocked(k, e, m, pod)
		}
	}
	if !anyPlaced(e) {
		e.establishedAt, e.domain, e.packNote = time.Time{}, "", ""
	}
	s.dropIfEmptyLocked(k, e)
	return check
}

// Assume marks a member as holding a node (Reserve).
func (s *Store) Assume(pod *v1.Pod, node string) {
	s.setState(pod, Assumed, node)
}

// Forget drops the assumed mark of a member (Unreserve).
func (s *Store) Forget(pod *v1.Pod) {
	s.setState(pod, Pending, "")
}

// MarkBound records a successful bind (PostBind). It returns true when this bind made the
// gang established: the quorum bound for the first time.
func (s *Store) MarkBound(pod *v1.Pod, node string) bool {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return false
	}
	if m := e.members[pod.Name]; m != nil {
		m.State, m.Node = Bound, node
		e.recount()
	}
	return s.establishLocked(k, e)
}

// Establish marks the gang established if its quorum is bound and it was not established
// yet; it returns true when it did. MarkBound calls it for the scheduler's own binds; the
// informer path calls it for binds the scheduler learns about otherwise (another instance,
// a restart, or an event that overtook PostBind).
func (s *Store) Establish(k Key) bool {
	// Every bound member's informer event asks; only the one that completes the quorum
	// establishes: the others are answered under the read lock.
	return s.checkThenSet(k, mayEstablish, func(e *entry) bool { return s.establishLocked(k, e) })
}

// ReadBackEstablished reports, once per gang, that it is established by its object's record
// (Scheduled=True) rather than by a quorum this store saw bind: true the first time it is so
// with a member bound. A restarted scheduler that lists the object before the bound pods
// becomes established at the first bound pod it reads, and Establish has nothing to do then
// (the quorum may be short: a member left while no scheduler ran); the members that wait for
// the establishment (surge members, replacements, scaled gangs) are to be woken as
// Establish's are.
func (s *Store) ReadBackEstablished(k Key) bool {
	return s.checkThenSet(k, readBackLocked, func(e *entry) bool {
		e.readBackWoken = true
		return true
	})
}

// readBackLocked: e is established by its object's record alone and was not reported so.
func readBackLocked(e *entry) bool {
	return !e.readBackWoken && e.establishedAt.IsZero() && establishedLocked(e)
}

// checkThenSet is set's answer for k's entry under the write lock when may holds for it, and
// false without taking the write lock when may does not hold under the read lock (the common
// answer of the calls made for every informer event); may is asked again under the write lock.
func (s *Store) checkThenSet(k Key, may func(*entry) bool, set func(*entry) bool) bool {
	s.mu.RLock()
	e := s.gangs[k]
	ok := e != nil && may(e)
	s.mu.RUnlock()
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e = s.gangs[k]
	return e != nil && may(e) && set(e)
}

// mayEstablish: e has an object, is not established and its quorum is bound.
func mayEstablish(e *entry) bool {
	return e.spec != nil && !establishedLocked(e) && quorumLocked(e, false)
}

func (s *Store) establishLocked(k Key, e *entry) bool {
	if !mayEstablish(e) {
		return false
	}
	e.establishedAt = s.now()
	e.preemption, e.preemptHold = nil, nil // a preemption it waited for has done its job
	s.clearVictimsLocked(e)
	e.wait, e.plan = Wait{}, nil
	s.holdForScaledLocked(k)
	return true
}

func (s *Store) setState(pod *v1.Pod, st State, node string) {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return
	}
	if m := e.members[pod.Name]; m != nil && m.State != Bound {
		switch st {
		case Assumed:
			m.withQuorum = !m.Surge && !establishedLocked(e)
		case Pending:
			m.withQuorum = false
		}
		m.State, m.Node = st, node
		e.recount()
	}
}

// WithQuorum reports whether the pod is a member placed with its gang's first quorum: assumed
// (and then bound) while the gang was not established, not a surge member. Members placed
// after (surge members, members above the minimum, replacements) are not.
func (s *Store) WithQuorum(pod *v1.Pod) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, _, m := s.memberLocked(pod)
	return m != nil && m.withQuorum
}

// groupOf finds the podgroup of a pod: the group whose podReferences list it, else the group
// named like its grove.io/podclique label, else the only group. -1 when none applies.
func groupOf(spec *Spec, pod *v1.Pod) int {
	if spec == nil {
		return -1
	}
	for i := range spec.PodGroups {
		for _, name := range spec.PodGroups[i].Pods {
			if name == pod.Name {
				return i
			}
		}
	}
	if clique := pod.Labels["grove.io/podclique"]; clique != "" {
		for i := range spec.PodGroups {
			if spec.PodGroups[i].Name == clique {
				return i
			}
		}
	}
	if len(spec.PodGroups) == 1 {
		return 0
	}
	return -1
}
