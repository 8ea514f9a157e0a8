package gang

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
)

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

// SetPackNote records which preferred packing levels the gang's placement could not keep ("":
// all kept). It reports whether the note changed.
func (s *Store) SetPackNote(k Key, note string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.gangs[k]
	if e == nil || e.packNote == note {
		return false
	}
	e.packNote = note
	return true
}

// PackMembers is what multi-level packing reads of a gang (ChooseDomains): its placed members
// (assumed or bound, with their nodes) and the pending ones its quorum still needs, pod
// among them when it is pending, each with its podgroup.
func (s *Store) PackMembers(k Key, pod *v1.Pod) []TopoMember {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return nil
	}
	var out []TopoMember
	listed := false
	for _, m := range e.members {
		if (m.State == Bound || m.State == Assumed) && m.Node != "" && m.Group >= 0 {
			out = append(out, TopoMember{Name: m.Name, Group: m.Group, Requests: m.Requests, Node: m.Node})
		}
	}
	for _, m := range deficitLocked(e) {
		out = append(out, TopoMember{Name: m.Name, Group: m.Group, Requests: m.Requests})
		listed = listed || m.Name == pod.Name
	}
	if m := e.members[pod.Name]; m != nil && !listed && m.State == Pending && m.Group >= 0 {
		out = append(out, TopoMember{Name: m.Name, Group: m.Group, Requests: m.Requests})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PlacedSummary names the gang's bound members and their nodes, "a-0 on n1, a-1 on n2", in
// name order, the first limit of them and how many more: the gang's Scheduled event, which
// stands for the members' own (see pkg/scheduler/memberevents).
func (s *Store) PlacedSummary(k Key, limit int) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return ""
	}
	var parts []string
	for _, m := range e.members {
		if m.State == Bound && m.Node != "" {
			parts = append(parts, m.Name+" on "+m.Node)
		}
	}
	sort.Strings(parts)
	if len(parts) > limit {
		return strings.Join(parts[:limit], ", ") + fmt.Sprintf(" and %d more", len(parts)-limit)
	}
	return strings.Join(parts, ", ")
}
