package gang

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
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
		sort.Slice(pending, func(a, b int) bool { return pending[a].Index < pending[b].Index })
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
