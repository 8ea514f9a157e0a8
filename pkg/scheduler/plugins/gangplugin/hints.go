package gangplugin

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// EventsToRegister: a member rejected by this plugin can only become schedulable when its
// gang (or its base gang) changes, when a pod of its gang comes, goes or loses its gates, or
// when capacity appears (a node is added or grows, a bound pod leaves).
func (p *Adapter) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	events := []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.Delete | fwk.UpdatePodSchedulingGatesEliminated}, QueueingHintFn: p.hintPod},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel}, QueueingHintFn: hintCapacity},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: hintCapacity},
	}
	// The framework waits for an informer of every resource registered here before it
	// schedules anything: a kind the API server does not serve would stop the scheduler.
	if p.gangEvents.Load() {
		events = append(events, fwk.ClusterEventWithHint{Event: fwk.ClusterEvent{Resource: p.opts.GangEvent, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: p.hintGang})
	}
	return events, nil
}

// hintGang wakes the pods of the changed gang and the pods of gangs based on it. The store is
// updated first, so that PreEnqueue sees the change whatever order informer handlers run in.
func (p *Adapter) hintGang(logger klog.Logger, pod *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	spec, ok := p.opts.ToSpec(newObj)
	if !ok {
		return fwk.QueueSkip, nil
	}
	p.recordSpec(spec)
	if k, ok := p.keyOf(pod); ok && k == spec.Key {
		return fwk.Queue, nil
	}
	if b, ok := p.store.Membership().BaseOf(pod); ok && b == spec.Key {
		logger.V(5).Info("Base gang changed", "pod", klog.KObj(pod), "base", b.Name)
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintPod wakes the pods whose gang gained, lost or ungated a member.
func (p *Adapter) hintPod(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	other, _ := newObj.(*v1.Pod)
	if other == nil {
		if other, _ = oldObj.(*v1.Pod); other == nil {
			return fwk.QueueSkip, nil
		}
		// The scheduler also sends a delete when it forgets an assumed pod (a member
		// rejected in Permit or Unreserve): that pod still exists and stays a member. Only a
		// pod the API server no longer has leaves the store here.
		if !p.podExists(other) {
			p.forgetPod(other)
		}
	} else if p.ours(other) {
		p.recordPod(other)
	}
	if other.UID == pod.UID {
		return fwk.QueueSkip, nil
	}
	k, ok := p.keyOf(pod)
	ko, okOther := p.keyOf(other)
	if ok && okOther && k == ko {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

func hintCapacity(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) {
	return fwk.Queue, nil
}

// podExists reports whether the scheduler's informer still has pod (same UID, not
// terminating).
func (p *Adapter) podExists(pod *v1.Pod) bool {
	if p.handle == nil {
		return false
	}
	live, err := p.handle.SharedInformerFactory().Core().V1().Pods().Lister().Pods(pod.Namespace).Get(pod.Name)
	return err == nil && live.UID == pod.UID && live.DeletionTimestamp == nil
}
