package update

import (
	"testing"
	"time"
)

// TestExpectationsConfirms: a create present and a delete turning terminating confirm the
// writes; a member gone, another uid, or an unrecorded member do not.
func TestExpectationsConfirms(t *testing.T) {
	var e Expectations
	e.ExpectCreate("a", time.Time{})
	e.ExpectDelete("b", "uid-b", time.Time{})
	cases := []struct {
		key, uid             string
		terminating, present bool
		want                 bool
	}{
		{"a", "x", false, true, true},
		{"a", "", false, false, false},
		{"b", "uid-b", true, true, true},
		{"b", "uid-b", false, true, false},
		{"b", "", false, false, false}, // gone: a new state, not a confirmation
		{"b", "other", true, true, false},
		{"c", "x", false, true, false},
	}
	for _, c := range cases {
		if got := e.Confirms(c.key, c.uid, c.terminating, c.present); got != c.want {
			t.Errorf("Confirms(%q, %q, terminating %v, present %v) = %v, want %v", c.key, c.uid, c.terminating, c.present, got, c.want)
		}
	}
}

// TestExpectationsLower: a write taken back (it failed) is neither awaited nor confirmed.
func TestExpectationsLower(t *testing.T) {
	var e Expectations
	e.ExpectCreate("a", time.Time{})
	e.ExpectDelete("b", "uid-b", time.Time{})
	e.Lower("a")
	e.Lower("b")
	if e.Pending() || e.Confirms("a", "x", false, true) || e.Confirms("b", "uid-b", true, true) {
		t.Error("a lowered write is still recorded")
	}
}

// TestExpectationsSeen: an event that shows a write done drops it, so a member created and
// gone again before any pass looked is not awaited.
func TestExpectationsSeen(t *testing.T) {
	var e Expectations
	e.ExpectCreate("a", time.Time{})
	e.ExpectDelete("b", "uid-b", time.Time{})
	e.Saw("a", "x", false, true) // the create's add event
	e.Saw("b", "uid-b", false, true)
	if awaited, _ := e.Observe(func(string) (string, bool, bool) { return "", false, false }, time.Time{}); len(awaited) != 0 {
		t.Errorf("awaited %v after the create's event, with the pod gone since; want none", awaited)
	}
	if e.Pending() {
		t.Error("the delete of b is still recorded, though the view shows it gone")
	}
	e.ExpectDelete("c", "uid-c", time.Time{})
	e.Saw("c", "uid-c", false, true) // an unrelated update of c: not done
	if !e.Pending() {
		t.Error("the delete of c was dropped by an update that does not show it")
	}
}
