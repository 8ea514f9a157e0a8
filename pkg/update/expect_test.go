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
