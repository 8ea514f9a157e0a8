package gang

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// MemberPlan is a member's PreFilter view of its gang's placement (Store.PlanFor).
type MemberPlan struct {
	// Node is the node the gang's plan gives the member, when Planned.
	Node    string
	Planned bool
	// Active: a plan is being placed and leaves the member out (an extra of that plan).
	Active bool
	// Ahead, with no plan active, are the pending members the gang still needs for its
	// minimum, when the member is above that minimum: they are placed first (in one pass),
	// or the member could take a node they need and count for them at Permit in their place.
	// Members of the member's own podgroup are in Ahead only when they come from the same
	// controller (one template): a podgroup of unlike pods may need exactly the extra.
	Ahead []*v1.Pod
}

// PlanFor is a member's PreFilter view of gang k's placement, under one lock: the node the
// gang's plan gives pod (unless the plan is older than maxAge), whether a plan that leaves pod
// out is being placed, or else the members the gang needs for its minimum ahead of pod.
func (s *Store) PlanFor(k Key, pod *v1.Pod, maxAge time.Duration) MemberPlan {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil {
		return MemberPlan{}
	}
	if s.planCurrentLocked(e, maxAge) {
		node, planned := e.plan[pod.Name]
		return MemberPlan{Node: node, Planned: planned, Active: !planned}
	}
	m := e.members[pod.Name]
	if m == nil || m.UID != pod.UID || m.Surge || !extraLocked(e, m) {
		return MemberPlan{}
	}
	var ahead []*v1.Pod
	for _, d := range deficitLocked(e) {
		if d.Group != m.Group || sameController(d.pod, pod) {
			ahead = append(ahead, d.pod)
		}
	}
	return MemberPlan{Ahead: ahead}
}

// sameController reports whether a and b are owned by the same controller, or both by none.
func sameController(a, b *v1.Pod) bool {
	ca, cb := metav1.GetControllerOfNoCopy(a), metav1.GetControllerOfNoCopy(b)
	if ca == nil || cb == nil {
		return ca == nil && cb == nil
	}
	return ca.UID == cb.UID
}

// PlannedNode returns the node the gang's plan gives the pod, unless the plan is older than
// maxAge (a plan outlives one round of the gang's members, not a change of the cluster's
// shape; 0: no limit).
func (s *Store) PlannedNode(k Key, pod string, maxAge time.Duration) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil || !s.planCurrentLocked(e, maxAge) {
		return "", false
	}
	node, planned := e.plan[pod]
	return node, planned
}

// planCurrentLocked reports whether e has a plan no older than maxAge (0: no limit).
func (s *Store) planCurrentLocked(e *entry, maxAge time.Duration) bool {
	return e.plan != nil && (maxAge <= 0 || s.now().Sub(e.plannedAt) <= maxAge)
}

// HasPlan reports whether the gang has a plan (for tests and inspection).
func (s *Store) HasPlan(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	return e != nil && e.plan != nil
}
