package controller

import (
	"context"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// stepClock measures the controller's step latency: the time from the event that let a
// PodCliqueSet's update take its next step (a member created, bound, Ready or gone; a new
// spec) to the first write of the pass that takes it. An update is a chain of such steps, so
// this latency, times the steps, is what the controller adds to an update beyond scheduling
// and the pods' own start-up.
//
// Per set it keeps the newest such event not yet seen by a pass: the newest, because a pass
// acts on the last thing it waited for (a replacement waits for all of a gang's members to be
// Ready; the last one is the step).
type stepClock struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func newStepClock() *stepClock { return &stepClock{last: map[string]time.Time{}} }

// note records that an event of key's set reached the controller at t.
func (s *stepClock) note(key string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.After(s.last[key]) {
		s.last[key] = t
	}
}

// take returns, and forgets, the newest event of key's set since the last take; ok is false
// when none came (a pass of a periodic re-check or a retry: not a step).
func (s *stepClock) take(key string) (at time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok = s.last[key]
	delete(s.last, key)
	return at, ok
}

// forget drops what is kept for a set that is gone.
func (s *stepClock) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.last, key)
}

// observeStep reports one step: the metric, the OnStep hook of previews and tests, and at
// verbosity 4 its parts (waiting in the queue, the pass up to its first write).
func (c *Controller) observeStep(ctx context.Context, key string, event, passStart, firstWrite time.Time) {
	d := firstWrite.Sub(event)
	if d < 0 {
		d = 0
	}
	klog.FromContext(ctx).V(4).Info("Update step", "podCliqueSet", key, "latency", d, "queued", passStart.Sub(event), "pass", firstWrite.Sub(passStart))
	metrics.ControllerStepLatency.Observe(d.Seconds())
	if c.OnStep != nil {
		c.OnStep(key, d)
	}
}
