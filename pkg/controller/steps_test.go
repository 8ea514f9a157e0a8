package controller

import (
	"testing"
	"time"
)

// A step is timed from the newest member event a pass had not seen: the one the pass acts on.
// A pass that finds none (a periodic re-check, a retry) takes no step.
func TestStepClock(t *testing.T) {
	s := newStepClock()
	t0 := time.Unix(1000, 0)
	if _, ok := s.take("ns/a"); ok {
		t.Fatalf("a step with no event")
	}
	s.note("ns/a", t0)
	s.note("ns/a", t0.Add(300*time.Millisecond))
	s.note("ns/a", t0.Add(100*time.Millisecond)) // delivered late: not the newest
	s.note("ns/b", t0)
	at, ok := s.take("ns/a")
	if !ok || !at.Equal(t0.Add(300*time.Millisecond)) {
		t.Errorf("take = %v, %v; want the newest event, %v", at, ok, t0.Add(300*time.Millisecond))
	}
	if _, ok := s.take("ns/a"); ok {
		t.Errorf("an event taken twice")
	}
	s.forget("ns/b")
	if _, ok := s.take("ns/b"); ok {
		t.Errorf("an event of a forgotten set")
	}
}
