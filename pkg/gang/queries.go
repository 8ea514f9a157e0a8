package gang

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

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
		// By index, then name for twins: the order extraLocked ranks them in, so that the queue
		// and the planner agree on which members are the minimum.
		sort.Slice(pending, func(a, b int) bool {
			if pending[a].Index != pending[b].Index {
				return pending[a].Index < pending[b].Index
			}
			return pending[a].pod.Name < pending[b].pod.Name
		})
		out = append(out, pending[:min(lack, len(pending))]...)
	}
	return out
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
	return pendingLocked(e)
}

// pendingLocked is PendingPods of e.
func pendingLocked(e *entry) []*v1.Pod {
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

// QueueKey is the queue position of a gang member within its priority: members a gang needs
// for its minimum before members above any minimum (Extra), then by gang creation time, gang
// name and member index, so that the members of one gang are popped together.
type QueueKey struct {
	// Extra: the member is above its gang's minimum: a surge member, a member of an
	// established gang whose podgroup has its minReplicas placed, or, in a gang not yet
	// established, a member whose index is at or above its podgroup's minReplicas. Extras wait
	// while any gang of the same priority still needs members for its minimum (first placement
	// or an established gang's deficit), so freed capacity completes gangs before it grows them.
	Extra bool
	// Priority is the member's priority for the queue: its gang's (Spec.Priority) when the
	// gang object sets one, else the pod's.
	Priority int32
	Created  time.Time
	Name     string
	Index    int
}

// SortKey is the queue position of a pod's gang; ok is false for pods without a gang. It is
// on the queue's hot path (every heap comparison): a recorded member is read from the store,
// and only an unrecorded pod's labels are parsed.
func (s *Store) SortKey(pod *v1.Pod) (QueueKey, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.sortKeyLocked(pod, nil)
}

// SortKeys is SortKey of each of pods under one read of the store (the queue order checking
// the queued members of a gang that changed); ok[i] is SortKey's ok for pods[i].
func (s *Store) SortKeys(pods []*v1.Pod) (keys []QueueKey, ok []bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys, ok = make([]QueueKey, len(pods)), make([]bool, len(pods))
	ranks := map[groupOfGang]groupRanks{}
	for i, pod := range pods {
		keys[i], ok[i] = s.sortKeyLocked(pod, ranks)
	}
	return keys, ok
}

// groupOfGang is one podgroup of one gang entry.
type groupOfGang struct {
	e     *entry
	group int
}

// groupRanks is what extraLocked derives for a podgroup's members, once for all of them: how
// many members it lacks for its minimum and each pending member's rank (extraLocked's order).
type groupRanks struct {
	lack int
	rank map[*member]int
}

func ranksLocked(e *entry, group int) groupRanks {
	var pending []*member
	for _, o := range e.members {
		if o.Group == group && !o.Surge && o.State == Pending {
			pending = append(pending, o)
		}
	}
	sort.Slice(pending, func(a, b int) bool {
		if pending[a].Index != pending[b].Index {
			return pending[a].Index < pending[b].Index
		}
		return pending[a].pod.Name < pending[b].pod.Name
	})
	r := groupRanks{lack: int(e.spec.PodGroups[group].MinReplicas - count(e, group, true)), rank: make(map[*member]int, len(pending))}
	for i, o := range pending {
		r.rank[o] = i
	}
	return r
}

// sortKeyLocked is SortKey; ranks (nil: none) keeps the podgroups' ranks across the calls
// of one read, for members of one gang checked together (extraLocked alone is linear in the
// gang's members, and a gang's members checked one by one cost the square).
func (s *Store) sortKeyLocked(pod *v1.Pod, ranks map[groupOfGang]groupRanks) (QueueKey, bool) {
	k, e, m := s.memberLocked(pod)
	if k == (Key{}) {
		return QueueKey{}, false
	}
	q := QueueKey{Name: k.Name, Priority: corev1helpers.PodPriority(pod)}
	if e != nil && e.spec != nil {
		q.Created = e.spec.CreatedAt
		if e.spec.Priority != nil {
			q.Priority = *e.spec.Priority
		}
	}
	switch {
	case m != nil && ranks != nil && !m.Surge && m.State == Pending && e.spec != nil && m.Group >= 0 && m.Group < len(e.spec.PodGroups):
		g := groupOfGang{e, m.Group}
		r, found := ranks[g]
		if !found {
			r = ranksLocked(e, m.Group)
			ranks[g] = r
		}
		q.Index, q.Extra = m.Index, r.lack <= 0 || r.rank[m] >= r.lack
	case m != nil:
		q.Index, q.Extra = m.Index, extraLocked(e, m)
	default:
		q.Index, q.Extra = MemberIndex(pod), s.membership.IsSurge(pod)
	}
	return q, true
}

// PriorityOf is the priority the gang rules give pod: its gang's when the gang object sets one
// (an upstream PodGroup's spec.priority), else the pod's own.
func (s *Store) PriorityOf(pod *v1.Pod) int32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.priorityLocked(pod)
}

func (s *Store) priorityLocked(pod *v1.Pod) int32 {
	if k, ok := s.membership.KeyOf(pod); ok {
		if e := s.gangs[k]; e != nil && e.spec != nil && e.spec.Priority != nil {
			return *e.spec.Priority
		}
	}
	return corev1helpers.PodPriority(pod)
}

// PreemptsNever reports whether the gang object forbids its gang to preempt (an upstream
// PodGroup's preemptionPolicy Never).
func (s *Store) PreemptsNever(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && e.spec != nil && e.spec.PreemptNever
}

// extraLocked: member m of e is above its gang's minimum (see QueueKey.Extra). Of a
// podgroup's pending members, only as many as it lacks for minReplicas (bound and assumed
// members count) are needed, the lowest indices first, as DeficitPods picks them; the others
// are extras. Counting every pending member of a podgroup short of its minimum as needed let
// a gang with a deficit of one queue all its pending members ahead of other gangs' minimums:
// the first placed covered the deficit and the rest took the capacity those minimums needed.
func extraLocked(e *entry, m *member) bool {
	if m.Surge {
		return true
	}
	if e.spec == nil || m.Group < 0 || m.Group >= len(e.spec.PodGroups) {
		return false
	}
	if m.State != Pending {
		return false // placed: it counts toward the minimum
	}
	lack := int(e.spec.PodGroups[m.Group].MinReplicas - count(e, m.Group, true))
	if lack <= 0 {
		return true
	}
	// m's rank among the podgroup's pending members, by index (then name, for twins).
	rank := 0
	for _, o := range e.members {
		if o == m || o.Group != m.Group || o.Surge || o.State != Pending {
			continue
		}
		if o.Index < m.Index || (o.Index == m.Index && o.pod.Name < m.pod.Name) {
			rank++
		}
	}
	return rank >= lack
}

// GroupName is the name of the podgroup the member belongs to ("" when none), for messages
// that must stay the same whichever member of the group they are about.
func (s *Store) GroupName(pod *v1.Pod) string {
	k, ok := s.membership.KeyOf(pod)
	if !ok {
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return ""
	}
	if i := groupOf(e.spec, pod); i >= 0 {
		return e.spec.PodGroups[i].Name
	}
	return ""
}
