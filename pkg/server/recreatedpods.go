package server

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// splitRecreatedPods wraps the scheduler's informer factory so that every handler on the pod
// informer sees a pod deleted and made again under the same name as what it is, a delete and
// an add, and never as one update from the old pod to the new one.
//
// Why: an informer keys objects by namespace/name. When its watch is cut (an API server
// restart, a network blip, a refused watch) and a pod is deleted and recreated meanwhile, the
// relist delivers OnUpdate(old, new) with two UIDs. kube-scheduler's cache keys pods by UID and
// treats an assigned pod "updated" onto another node as a corrupted cache and exits the process
// (pkg/scheduler/backend/cache.UpdatePod; kubernetes/kubernetes#141255, open). PodCliqueSet
// members keep their names across recreation (index-stable), and an update or a self-healing
// pass recreates them on other nodes all the time, so a watch gap during an update would
// otherwise stop Phalanx, the standby taking over with the same exposure.
func splitRecreatedPods(f informers.SharedInformerFactory) informers.SharedInformerFactory {
	return recreatedPodsFactory{f}
}

type recreatedPodsFactory struct {
	informers.SharedInformerFactory
}

func (f recreatedPodsFactory) Core() coreinformers.Interface {
	return recreatedPodsCore{f.SharedInformerFactory.Core()}
}

type recreatedPodsCore struct{ coreinformers.Interface }

func (c recreatedPodsCore) V1() corev1informers.Interface {
	return recreatedPodsV1{c.Interface.V1()}
}

type recreatedPodsV1 struct{ corev1informers.Interface }

func (v recreatedPodsV1) Pods() corev1informers.TypedPodInformer {
	return recreatedPodsInformer{v.Interface.Pods()}
}

type recreatedPodsInformer struct {
	corev1informers.TypedPodInformer
}

func (p recreatedPodsInformer) Informer() cache.SharedIndexInformer {
	return recreatedPodsSharedInformer{p.TypedPodInformer.Informer()}
}

func (p recreatedPodsInformer) TypedInformer() corev1informers.PodIndexInformer {
	return cache.NewTypedSharedIndexInformer[*corev1.Pod](p.Informer())
}

// recreatedPodsSharedInformer is the pod informer itself (one per factory; the wrapper holds
// no state) with its handlers wrapped by splitRecreated.
type recreatedPodsSharedInformer struct{ cache.SharedIndexInformer }

func (i recreatedPodsSharedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandler(splitRecreated{h})
}

func (i recreatedPodsSharedInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resync time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(splitRecreated{h}, resync)
}

func (i recreatedPodsSharedInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithOptions(splitRecreated{h}, o)
}

// splitRecreated passes events through, except an update between two pods with different
// UIDs, which it delivers as the delete of the old pod and the add of the new one.
type splitRecreated struct{ cache.ResourceEventHandler }

func (s splitRecreated) OnUpdate(oldObj, newObj any) {
	oldPod, okOld := oldObj.(*corev1.Pod)
	newPod, okNew := newObj.(*corev1.Pod)
	if okOld && okNew && oldPod.UID != newPod.UID {
		s.ResourceEventHandler.OnDelete(oldPod)
		s.ResourceEventHandler.OnAdd(newPod, false)
		return
	}
	s.ResourceEventHandler.OnUpdate(oldObj, newObj)
}
