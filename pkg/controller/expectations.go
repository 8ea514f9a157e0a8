package controller

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

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

// created records a pod this controller created for the set.
func (e *expectations) created(key string, uid types.UID, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forSet(key, uid).ExpectCreate(pod, e.now())
}

// deleted records a pod this controller deleted (by its uid) for the set.
func (e *expectations) deleted(key string, uid types.UID, pod *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forSet(key, uid).ExpectDelete(pod.Name, string(pod.UID), e.now())
}

// awaited returns the pods whose create or delete the observed pods do not show yet, and
// those given up after update.ExpectationsTTL.
func (e *expectations) awaited(key string, uid types.UID, pods map[string]*corev1.Pod) (awaited, expired []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.forSet(key, uid)
	if !s.Pending() {
		return nil, nil
	}
	return s.Observe(func(name string) (string, bool, bool) {
		p := pods[name]
		if p == nil {
			return "", false, false
		}
		return string(p.UID), p.DeletionTimestamp != nil, true
	}, e.now())
}

// forget drops what is kept for a set that is gone.
func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.bySet, key)
}
