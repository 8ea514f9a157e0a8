package gang

import (
	"sort"
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
