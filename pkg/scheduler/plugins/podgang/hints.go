package podgang

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// PodGangEvent is the framework's name for PodGang events (served by its dynamic informer).
const PodGangEvent fwk.EventResource = "podgangs.v1alpha1.scheduler.grove.io"

// EventsToRegister: a member rejected by this plugin can only become schedulable when its
// gang (or its base gang) changes, when a pod of its gang comes, goes or loses its gates, or
// when capacity appears (a node is added or grows, a bound pod leaves).
func (p *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: PodGangEvent, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: p.hintPodGang},
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.Delete | fwk.UpdatePodSchedulingGatesEliminated}, QueueingHintFn: p.hintPod},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel}, QueueingHintFn: hintCapacity},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: hintCapacity},
	}, nil
}

// hintPodGang wakes the pods of the changed gang and the pods of gangs based on it. The store
// is updated first, so that PreEnqueue sees the change whatever order informer handlers run in.
func (p *Plugin) hintPodGang(logger klog.Logger, pod *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	pg := toPodGang(newObj)
	if pg == nil {
		return fwk.QueueSkip, nil
	}
	p.store.SetSpec(gang.SpecFromPodGang(pg))
	m := p.store.Membership()
	if k, ok := m.KeyOf(pod); ok && k.Kind == gang.KindPodGang && k.Namespace == pg.Namespace && k.Name == pg.Name {
		return fwk.Queue, nil
	}
	if b, ok := m.BaseOf(pod); ok && b.Namespace == pg.Namespace && b.Name == pg.Name {
		logger.V(5).Info("Base gang changed", "pod", klog.KObj(pod), "base", b.Name)
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// hintPod wakes the pods whose gang gained, lost or ungated a member.
func (p *Plugin) hintPod(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	other, _ := newObj.(*v1.Pod)
	if other == nil {
		other, _ = oldObj.(*v1.Pod)
		if other == nil {
			return fwk.QueueSkip, nil
		}
		p.store.DeletePod(other)
	} else {
		p.store.UpsertPod(other)
	}
	if other.UID == pod.UID {
		return fwk.QueueSkip, nil
	}
	m := p.store.Membership()
	k, ok := m.KeyOf(pod)
	ko, okOther := m.KeyOf(other)
	if ok && okOther && k == ko {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

func hintCapacity(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) {
	return fwk.Queue, nil
}

// toPodGang accepts the typed object of the plugin's informer and the unstructured object of
// the framework's dynamic informer.
func toPodGang(obj any) *schedv1.PodGang {
	switch o := obj.(type) {
	case *schedv1.PodGang:
		return o
	case *unstructured.Unstructured:
		pg := &schedv1.PodGang{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, pg); err != nil {
			return nil
		}
		return pg
	}
	return nil
}
