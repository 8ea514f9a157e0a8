package gangplugin

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// EventsToRegister: a member rejected by this plugin can only become schedulable when its
// gang (or its base gang) changes, when a pod of its gang comes or loses its gates, or when
// capacity appears (a node is added, grows, is uncordoned or loses a taint, a bound pod leaves).
//
// The hints only read. The store is written by the informer handlers alone (feed.go), which
// also wake the pods a change can admit: a new or changed gang object wakes its pending members
// and the gangs based on it, a new or ungated member its siblings. That is why no gang-object
// event is registered: the framework would wait for a dynamic informer of the kind (a second
// copy of every gang object, and a stop when the kind is not served) and would requeue every
// pending member on every status write of its gang, Phalanx's own included. The pod events stay
// as the framework's own path for the same wake-ups; PreEnqueue records the pod it is handed,
// so whichever runs first, the last to run sees both pods.
//
// In a profile that runs DRA, devices are capacity too: a gang the pass refused for want of
// devices is rejected by this plugin, not by DynamicResources, so the DynamicResources hints
// never see it; a claim deallocated or deleted with its allocation (its pods are gone), or a
// ResourceSlice added or changed, wakes the members with claims.
func (p *Adapter) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	events := []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.UpdatePodSchedulingGatesEliminated}, QueueingHintFn: p.hintPod},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel}, QueueingHintFn: p.unlessGated(hintCapacity)},
		// Uncordoned, or a taint removed: a gang whose plan found no room (this plugin's
		// rejection, not NodeUnschedulable's) would otherwise wait for the queue's flush.
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.UpdateNodeTaint}, QueueingHintFn: p.unlessGated(hintNodeOpened)},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: p.unlessGated(p.hintPodDeleted)},
	}
	if p.runsDRA() {
		events = append(events,
			fwk.ClusterEventWithHint{Event: fwk.ClusterEvent{Resource: fwk.ResourceClaim, ActionType: fwk.Update | fwk.Delete}, QueueingHintFn: p.unlessGated(hintDevicesFreed)},
			fwk.ClusterEventWithHint{Event: fwk.ClusterEvent{Resource: fwk.ResourceSlice, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: p.unlessGated(hintDevicesAdded)})
	}
	return events, nil
}

// unlessGated skips, for a member its gang holds at PreEnqueue, the hint of an event of
// capacity (nodes, devices, a bound pod gone): admission waits for the gang object and its members, which no
// such event changes. In a profile without GangGate this plugin gates, and the queue re-runs
// the hints of its events for the pods it gates, each Queue a move to the active queue and back
// through PreEnqueue (at start-up every Node added did so for every gated member: 0.3 million
// moves in a 5,000-node run of make perf); with GangGate (gate.go) the queue passes them by. The
// member is woken by the events that admit it (a member added or ungated, the gang object seen:
// hintPod and the gang feed).
func (p *Adapter) unlessGated(hint fwk.QueueingHintFn) fwk.QueueingHintFn {
	return func(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
		if _, ok := p.keyOf(pod); ok {
			if admitted, _ := p.store.Admissible(pod); !admitted {
				return fwk.QueueSkip, nil
			}
		}
		return hint(logger, pod, oldObj, newObj)
	}
}

// hintDevicesFreed wakes a pod with resource claims when a claim gives its devices back: its
// allocation removed, or the claim deleted with one (or in a state the informer lost).
func hintDevicesFreed(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return fwk.QueueSkip, nil
	}
	if _, unknown := oldObj.(cache.DeletedFinalStateUnknown); unknown {
		return fwk.Queue, nil
	}
	before, _ := oldObj.(*resourceapi.ResourceClaim)
	after, _ := newObj.(*resourceapi.ResourceClaim)
	if before != nil && before.Status.Allocation != nil && (after == nil || after.Status.Allocation == nil) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintDevicesAdded wakes a pod with resource claims when a ResourceSlice is added or changed.
func hintDevicesAdded(_ klog.Logger, pod *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

// hintPod wakes the pods whose gang gained or ungated a member, and a pod that lost its own
// last gate (PreEnqueue may have held it on a copy that still had the gate).
func (p *Adapter) hintPod(_ klog.Logger, pod *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	other, _ := newObj.(*v1.Pod)
	if other == nil {
		return fwk.QueueSkip, nil
	}
	if other.UID == pod.UID {
		if len(other.Spec.SchedulingGates) == 0 {
			return fwk.Queue, nil
		}
		return fwk.QueueSkip, nil
	}
	k, ok := p.keyOf(pod)
	ko, okOther := p.keyOf(other)
	if ok && okOther && k == ko {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintPodDeleted: a bound pod that leaves frees capacity, unless the pod's gang waits for the
// victims of its preemption and others are still on their nodes (each retry before the last
// one leaves would fail and lengthen the members' back-off).
func (p *Adapter) hintPodDeleted(_ klog.Logger, pod *v1.Pod, oldObj, _ any) (fwk.QueueingHint, error) {
	k, ok := p.keyOf(pod)
	if !ok {
		return fwk.Queue, nil
	}
	gone := ""
	if d, ok := oldObj.(*v1.Pod); ok {
		gone = d.Namespace + "/" + d.Name
	}
	if p.store.WaitsForVictims(k, gone) {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

func hintCapacity(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) {
	return fwk.Queue, nil
}

// hintNodeOpened wakes a member when a node takes more pods than before: uncordoned, or a
// taint removed. A node cordoned or tainted gives no room.
func hintNodeOpened(_ klog.Logger, _ *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	before, _ := oldObj.(*v1.Node)
	after, _ := newObj.(*v1.Node)
	if before == nil || after == nil {
		return fwk.Queue, nil
	}
	if before.Spec.Unschedulable && !after.Spec.Unschedulable {
		return fwk.Queue, nil
	}
	for _, t := range before.Spec.Taints {
		if !slices.ContainsFunc(after.Spec.Taints, func(a v1.Taint) bool { return a.MatchTaint(&t) }) {
			return fwk.Queue, nil
		}
	}
	return fwk.QueueSkip, nil
}
