package gang

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Store holds what the scheduler knows about every gang: the spec from the gang object, the
// members from their pods, and what only the scheduler knows (assumed members, when the gang
// was established, back-off, why it waits). It is filled from informers and from the
// scheduler's hooks and is safe for concurrent use.
//
// Everything but the assumed marks, back-off and wait reasons can be rebuilt from the API
// objects, so a restarted scheduler resumes where the last one stopped.
type Store struct {
	membership Membership
	now        func() time.Time

	mu    sync.RWMutex
	gangs map[Key]*entry
	// hold is how long reservations last (0: off).
	hold time.Duration
	// reserving are the gangs whose object carries a reservation: the Filter of every pod on
	// every node asks about holds, and it must not walk every gang to find none.
	reserving map[Key]bool
	// scaled indexes, by base gang, the gangs that have members based on it (the gang
	// established wakes them; it must not walk every gang). Entries of gangs that are gone
	// are skipped when read and dropped when their base gang is deleted.
	scaled map[Key]map[Key]bool
}

type entry struct {
	spec    *Spec
	members map[string]*member // by pod name
	// establishedAt is when this scheduler saw the quorum bind; zero when it did not.
	establishedAt time.Time
	backoffUntil  time.Time
	backoffReason string
	wait          Wait
	// domain is the value of the required pack label chosen for this gang.
	domain string
}

type member struct {
	Member
	pod *v1.Pod
}

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
	ReasonMemberUnschedulable = "MemberUnschedulable"
	ReasonPermitTimeout       = "QuorumTimeout"
	ReasonBackoff             = "BackOff"
)

// NewStore returns an empty store. now is the clock (time.Now in production).
func NewStore(m Membership, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{membership: m, now: now, gangs: map[Key]*entry{}, reserving: map[Key]bool{}, scaled: map[Key]map[Key]bool{}}
}

// Membership returns how the store reads pod labels.
func (s *Store) Membership() Membership { return s.membership }

func (s *Store) entryLocked(k Key) *entry {
	e := s.gangs[k]
	if e == nil {
		e = &entry{members: map[string]*member{}}
		s.gangs[k] = e
	}
	return e
}

// SetSpec records the gang object (add or update) and reassigns members to podgroups.
func (s *Store) SetSpec(spec Spec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryLocked(spec.Key)
	sp := spec
	e.spec = &sp
	if sp.Reservation != nil {
		s.reserving[sp.Key] = true
	} else {
		delete(s.reserving, sp.Key)
	}
	for _, m := range e.members {
		m.Group = groupOf(e.spec, m.pod)
	}
}

// DeleteSpec forgets the gang object. Members that still exist stay, waiting for it.
func (s *Store) DeleteSpec(k Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil {
		return
	}
	e.spec, e.establishedAt, e.domain = nil, time.Time{}, ""
	delete(s.reserving, k)
	if len(e.members) == 0 {
		delete(s.gangs, k)
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

// UpsertPod records a pod (add or update). A terminating pod leaves its gang: it is being
// replaced and must not count toward quorum. The assumed mark of an unbound pod is kept.
// It returns the pod's gang, if it has one.
func (s *Store) UpsertPod(pod *v1.Pod) (Key, bool) {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return k, false
	}
	if pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
		s.DeletePod(pod)
		return k, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryLocked(k)
	if b, ok := s.membership.BaseOf(pod); ok && b != k {
		if s.scaled[b] == nil {
			s.scaled[b] = map[Key]bool{}
		}
		s.scaled[b][k] = true
	}
	m := e.members[pod.Name]
	if m == nil || m.UID != pod.UID {
		m = &member{}
		e.members[pod.Name] = m
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
	m.Member = Member{
		UID:      pod.UID,
		Name:     pod.Name,
		Group:    groupOf(e.spec, pod),
		Index:    MemberIndex(pod),
		Surge:    s.membership.IsSurge(pod),
		State:    state,
		Node:     node,
		Requests: RequestsOf(pod),
		Running:  podRunning(pod),
		Ready:    podReady(pod),
	}
	return k, true
}

// DeletePod removes a pod from its gang. A gang with no bound member left is no longer
// established: it is formed again from scratch.
func (s *Store) DeletePod(pod *v1.Pod) {
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
	if m := e.members[pod.Name]; m != nil && m.UID == pod.UID {
		delete(e.members, pod.Name)
	}
	if !anyPlaced(e) {
		e.establishedAt, e.domain = time.Time{}, ""
	}
	if len(e.members) == 0 && e.spec == nil {
		delete(s.gangs, k)
		delete(s.scaled, k)
	}
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
	}
	return s.establishLocked(e)
}

// Establish marks the gang established if its quorum is bound and it was not established
// yet; it returns true when it did. MarkBound calls it for the scheduler's own binds; the
// informer path calls it for binds the scheduler learns about otherwise (another instance,
// a restart, or an event that overtook PostBind).
func (s *Store) Establish(k Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	return e != nil && s.establishLocked(e)
}

func (s *Store) establishLocked(e *entry) bool {
	if e.spec == nil || establishedLocked(e) || !quorumLocked(e, false) {
		return false
	}
	e.establishedAt = s.now()
	e.wait = Wait{}
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
		m.State, m.Node = st, node
	}
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
	if e.spec == nil || (e.establishedAt.IsZero() && !e.spec.Scheduled) {
		return false
	}
	for _, m := range e.members {
		if m.State == Bound {
			return true
		}
	}
	return false
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

// Admit is the PreEnqueue decision for a pod: may it enter the active queue? The pod itself is
// recorded first, so that the decision never depends on the order of informer handlers.
func (s *Store) Admit(pod *v1.Pod) (bool, Wait) {
	k, ok := s.UpsertPod(pod)
	if !ok {
		return true, Wait{}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
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

// MembersPresent reports whether every podgroup of the gang has minReplicas non-surge
// members present and ungated: the gang can be attempted.
func (s *Store) MembersPresent(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && e.spec != nil && len(missingLocked(e)) == 0
}

// PendingNeed is what the gang still has to place to reach quorum: for each podgroup, the
// requests of as many pending non-surge members as the podgroup lacks (PodGroup minResources
// is the floor). Zero once the quorum is bound or assumed: further members are placed one by
// one. members is how many pods that is.
func (s *Store) PendingNeed(k Key) (need Resources, members int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return Resources{}, 0
	}
	deficit := deficitLocked(e)
	for _, m := range deficit {
		need = need.Add(m.Requests)
	}
	if len(deficit) == 0 {
		return Resources{}, 0
	}
	if floor := e.spec.MinResources; floor != nil {
		need = Resources{MilliCPU: max(need.MilliCPU, floor.MilliCPU), Memory: max(need.Memory, floor.Memory), GPU: max(need.GPU, floor.GPU)}
	}
	return need, len(deficit)
}

// PendingRequests lists the requests of the members that PendingNeed counts, largest GPU
// request first (the order in which they are packed into a topology domain).
func (s *Store) PendingRequests(k Key) []Resources {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return nil
	}
	deficit := deficitLocked(e)
	out := make([]Resources, len(deficit))
	for i, m := range deficit {
		out[i] = m.Requests
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].GPU > out[b].GPU })
	return out
}

// deficitLocked returns, per podgroup, the lowest-index pending non-surge members that the
// podgroup needs to reach minReplicas.
func deficitLocked(e *entry) []*member {
	if e.spec == nil {
		return nil
	}
	var out []*member
	for i, pg := range e.spec.PodGroups {
		lack := int(pg.MinReplicas - count(e, i, true))
		if lack <= 0 {
			continue
		}
		var pending []*member
		for _, m := range e.members {
			if m.Group == i && !m.Surge && m.State == Pending {
				pending = append(pending, m)
			}
		}
		sort.Slice(pending, func(a, b int) bool { return pending[a].Index < pending[b].Index })
		out = append(out, pending[:min(lack, len(pending))]...)
	}
	return out
}

// PlacedNodes lists the nodes of bound and assumed members.
func (s *Store) PlacedNodes(k Key) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return nil
	}
	var nodes []string
	for _, m := range e.members {
		if (m.State == Bound || m.State == Assumed) && m.Node != "" {
			nodes = append(nodes, m.Node)
		}
	}
	sort.Strings(nodes)
	return nodes
}

// Domain returns the topology domain chosen for the gang, if any.
func (s *Store) Domain(k Key) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e := s.gangs[k]; e != nil {
		return e.domain
	}
	return ""
}

// SetDomain records the topology domain chosen for the gang ("" clears it).
func (s *Store) SetDomain(k Key, domain string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.gangs[k]; e != nil {
		e.domain = domain
	}
}

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
	e.backoffUntil, e.backoffReason, e.domain = now.Add(d), reason, ""
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
func (s *Store) SetWait(k Key, w Wait) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil || e.wait == w {
		return false
	}
	e.wait = w
	return true
}

// PendingPods returns the gang's members that wait to be scheduled (for re-activation after
// a back-off).
func (s *Store) PendingPods(k Key) []*v1.Pod {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return nil
	}
	var pods []*v1.Pod
	for _, m := range e.members {
		if m.State == Pending {
			pods = append(pods, m.pod)
		}
	}
	return pods
}

// PendingPodsBasedOn returns the waiting members of the scaled gangs whose base is k (for
// waking them when k becomes established).
func (s *Store) PendingPodsBasedOn(k Key) []*v1.Pod {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var pods []*v1.Pod
	for gk := range s.scaled[k] {
		e := s.gangs[gk]
		if e == nil {
			continue
		}
		for _, m := range e.members {
			if m.State != Pending {
				continue
			}
			if b, ok := s.membership.BaseOf(m.pod); ok && b == k {
				pods = append(pods, m.pod)
			}
		}
	}
	return pods
}

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
}

// Status summarises a gang.
func (s *Store) Status(k Key) Status {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return Status{}
	}
	st := Status{Exists: e.spec != nil, Established: establishedLocked(e), EstablishedAt: e.establishedAt, Wait: e.wait, Members: len(e.members)}
	nodes := map[string]struct{}{}
	for _, m := range e.members {
		if m.State == Bound {
			st.Bound++
			nodes[m.Node] = struct{}{}
		}
	}
	st.Nodes = len(nodes)
	st.Phase = PhasePending
	if st.Established {
		st.Phase = PhaseRunning
		for i, pg := range e.spec.PodGroups {
			var running int32
			for _, m := range e.members {
				if m.Group == i && !m.Surge && m.State == Bound && m.Running {
					running++
				}
			}
			if running < pg.MinReplicas {
				st.Phase = PhaseStarting
				break
			}
		}
	}
	return st
}

// SortKey is the queue position of a pod's gang: creation time and name of the gang, and the
// member index. ok is false for pods without a gang.
func (s *Store) SortKey(pod *v1.Pod) (created time.Time, name string, index int, ok bool) {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return time.Time{}, "", 0, false
	}
	s.mu.RLock()
	e := s.gangs[k]
	if e != nil && e.spec != nil {
		created = e.spec.CreatedAt
	}
	s.mu.RUnlock()
	return created, k.Name, MemberIndex(pod), true
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
