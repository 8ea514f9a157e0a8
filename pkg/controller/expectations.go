package controller

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/update"
)

// expectations keeps, per PodCliqueSet, the pod creates and deletes of earlier passes that
// the pod cache has not shown yet (update.Expectations): a pass does not plan from a cache
// that lacks its own writes (pkg/update's TestRandomizedLaggedUpdates shows what a lagging
// cache does without them). Safe for concurrent use: the creates and deletes of one pass run
// in parallel.
type expectations struct {
	mu    sync.Mutex
	bySet map[string]*setExpectations
	now   func() time.Time
}

type setExpectations struct {
	uid types.UID // the PodCliqueSet's: a set recreated under its name starts afresh
	update.Expectations
	// waiting: the last pass stopped for writes the cache did not show yet.
	waiting bool
}

func newExpectations() *expectations {
	return &expectations{bySet: map[string]*setExpectations{}, now: time.Now}
}

// forSet returns key's expectations, reset when the PodCliqueSet's uid changed. Call with mu held.
func (e *expectations) forSet(key string, uid types.UID) *setExpectations {
	s := e.bySet[key]
	if s == nil || s.uid != uid {
		s = &setExpectations{uid: uid}
		e.bySet[key] = s
	}
	return s
}

// created records a pod this controller creates for the set. Writes are recorded before they
// are made: the watch event of a write can reach the cache, and the event handlers that ask
// confirms, before the call returns. A failed write is taken back with undo.
func (e *expectations) created(key string, uid types.UID, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	klog.V(5).InfoS("Expecting a pod create", "podCliqueSet", key, "pod", pod)
	e.forSet(key, uid).ExpectCreate(pod, e.now())
}

// deleted records a pod this controller deletes (by its uid) for the set, before the call.
func (e *expectations) deleted(key string, uid types.UID, pod *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	klog.V(5).InfoS("Expecting a pod delete", "podCliqueSet", key, "pod", pod.Name, "uid", pod.UID)
	e.forSet(key, uid).ExpectDelete(pod.Name, string(pod.UID), e.now())
}

// undo takes back what was recorded for pod: its create or delete failed.
func (e *expectations) undo(key string, uid types.UID, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	klog.V(5).InfoS("Taking back a pod expectation", "podCliqueSet", key, "pod", pod)
	e.forSet(key, uid).Lower(pod)
}

// awaited returns the pods whose create or delete the observed pods do not show yet, and
// those given up after update.ExpectationsTTL.
func (e *expectations) awaited(key string, uid types.UID, pods map[string]*corev1.Pod) (awaited, expired []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.forSet(key, uid)
	if !s.Pending() {
		s.waiting = false
		return nil, nil
	}
	awaited, expired = s.Observe(func(name string) (string, bool, bool) {
		p := pods[name]
		if p == nil {
			return "", false, false
		}
		return string(p.UID), p.DeletionTimestamp != nil, true
	}, e.now())
	s.waiting = len(awaited) > 0
	return awaited, expired
}

// seen records what a pod watch event shows (gone: a delete event) and reports whether the
// event is only one of the set's own recorded writes taking effect while no pass waits for it
// (update.Expectations.Confirms): the pass that made the write planned with it already, so
// the event changes no plan, only statuses. What the event shows done is dropped
// (update.Expectations.Saw), whether or not a pass ever sees it.
func (e *expectations) seen(key string, pod *corev1.Pod, gone bool) (confirmed bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.bySet[key]
	if s == nil {
		return false
	}
	name, uid, terminating := pod.Name, string(pod.UID), pod.DeletionTimestamp != nil
	confirmed = !gone && !s.waiting && s.Confirms(name, uid, terminating, true)
	s.Saw(name, uid, terminating, !gone)
	return confirmed
}

// forget drops what is kept for a set that is gone.
func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.bySet, key)
}
