package gang

import (
	"fmt"
	"sort"
	"strings"
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
