package gang

import (
	"time"

	v1 "k8s.io/api/core/v1"
)

// A plan is where one pass of the gang planner put each member the gang needed for its quorum
// (pod name → node), against one snapshot of the cluster. The members' own scheduling cycles
// are narrowed to their planned nodes; the plan is dropped when the gang is released (it
// backs off), when its quorum is placed, or when a planned member leaves. A plan that is
// wrong by the time a member's cycle runs (another pod took the node) fails that member's
// Filter, which releases the gang: Permit is the safety net, the plan only the fast path.
// The gang's own members the plan leaves out (extras above a podgroup's minimum) wait while a
// plan is placed (PlanFor), or they would take the nodes it gave the quorum's members and
// release their own gang, again on every retry (Grove's OD7 on kind: 4 minutes).

// DeficitPods returns the pods that the gang's podgroups still need for their minimum (the
// lowest-index pending non-surge members, podgroup by podgroup): what a plan places.
func (s *Store) DeficitPods(k Key) []*v1.Pod {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return nil
	}
	deficit := deficitLocked(e)
	pods := make([]*v1.Pod, 0, len(deficit))
	for _, m := range deficit {
		pods = append(pods, m.pod)
	}
	return pods
}

// SetPlan records a plan made at now for the gang (nodes by pod name).
func (s *Store) SetPlan(k Key, nodes map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.gangs[k]; e != nil {
		e.plan, e.plannedAt = nodes, s.now()
	}
}

// PlanFor is a member's PreFilter view of gang k's plan, unless the plan is older than maxAge:
// the node the plan gives pod (planned), or, for a member the plan leaves out, whether a plan
// is being placed (active).
func (s *Store) PlanFor(k Key, pod string, maxAge time.Duration) (node string, planned, active bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil || e.plan == nil || (maxAge > 0 && s.now().Sub(e.plannedAt) > maxAge) {
		return "", false, false
	}
	node, planned = e.plan[pod]
	return node, planned, true
}

// PlannedNode returns the node the gang's plan gives the pod, unless the plan is older than
// maxAge (a plan outlives one round of the gang's members, not a change of the cluster's
// shape; 0: no limit).
func (s *Store) PlannedNode(k Key, pod string, maxAge time.Duration) (string, bool) {
	node, planned, _ := s.PlanFor(k, pod, maxAge)
	return node, planned
}

// HasPlan reports whether the gang has a plan (for tests and inspection).
func (s *Store) HasPlan(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && e.plan != nil
}
