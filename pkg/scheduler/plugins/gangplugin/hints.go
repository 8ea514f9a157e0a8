package gangplugin

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// EventsToRegister: a member rejected by this plugin can only become schedulable when its
// gang (or its base gang) changes, when a pod of its gang comes or loses its gates, or when
// capacity appears (a node is added or grows, a bound pod leaves).
//
// The hints only read. The store is written by the informer handlers alone (feed.go), which
// also wake the pods a change can admit: a new or changed gang object wakes its pending members
// and the gangs based on it, a new or ungated member its siblings. That is why no gang-object
// event is registered: the framework would wait for a dynamic informer of the kind (a second
// copy of every gang object, and a stop when the kind is not served) and would requeue every
// pending member on every status write of its gang, Phalanx's own included. The pod events stay
// as the framework's own path for the same wake-ups; PreEnqueue records the pod it is handed,
// so whichever runs first, the last to run sees both pods.
func (p *Adapter) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.UpdatePodSchedulingGatesEliminated}, QueueingHintFn: p.hintPod},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel}, QueueingHintFn: hintCapacity},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: p.hintPodDeleted},
	}, nil
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
