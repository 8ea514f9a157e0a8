package gang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Minimums first: a gang that failed to place its minimum holds the extras of gangs of equal
// or lower priority, for at most the hold from its first failure, never its own minimum nor
// anybody's minimum, and the hold ends when its minimum is placed.
func TestExtraHold(t *testing.T) {
	s, c := newTestStore()
	s.SetExtraHold(30 * time.Second)
	// "grown": established, w minimum 1 bound, two pending members above it.
	grown := spec("grown", "w:1")
	grown.Scheduled = true
	s.SetSpec(grown)
	s.UpsertPod(pod("grown", "w", 0, bound))
	s.UpsertPod(pod("grown", "w", 1))
	s.UpsertPod(pod("grown", "w", 2))
	// "fresh": not placed, minimum 2 of 3.
	s.SetSpec(spec("fresh", "w:2"))
	for i := 0; i < 3; i++ {
		s.UpsertPod(pod("fresh", "w", i))
	}
	heldBy := func(p *v1.Pod) string {
		t.Helper()
		h, until, held := s.HeldExtra(p)
		if !held {
			return ""
		}
		if want := s.gangs[h].shortSince.Add(30 * time.Second); !until.Equal(want) {
			t.Errorf("hold of %s ends %s, want 30 s after its first failure, %s", h, until, want)
		}
		return h.Name
	}
	if got := heldBy(pod("grown", "w", 1)); got != "" {
		t.Fatalf("an extra is held by %q before any gang failed to place its minimum", got)
	}
	failed := Wait{Reason: ReasonInsufficient, Message: "needs 8 nvidia.com/gpu, 4 free"}
	s.SetWait(key("fresh"), failed)
	if got := heldBy(pod("grown", "w", 1)); got != "fresh" {
		t.Fatalf("the extra of grown is held by %q, want fresh (its minimum failed to fit)", got)
	}
	for i := 0; i < 2; i++ {
		if got := heldBy(pod("fresh", "w", i)); got != "" {
			t.Errorf("fresh-w-%d, part of fresh's minimum, is held by %q", i, got)
		}
	}
	if got := heldBy(pod("fresh", "w", 2)); got != "" {
		t.Errorf("fresh's own extra is held by %q: a gang does not hold its own members", got)
	}
	// An extra of higher priority is not held.
	high := pod("grown", "w", 1)
	high.Spec.Priority = ptr.To[int32](100)
	if got := heldBy(high); got != "" {
		t.Errorf("an extra of priority 100 is held by %q (priority 0)", got)
	}
	// Failing again does not restart the hold: it ends 30 s after the first failure.
	c.t = c.t.Add(20 * time.Second)
	s.SetWait(key("fresh"), Wait{Reason: ReasonMemberUnschedulable, Message: "again"})
	c.t = c.t.Add(11 * time.Second)
	if got := heldBy(pod("grown", "w", 1)); got != "" {
		t.Errorf("31 s after fresh first failed, the extra is still held by %q", got)
	}
	// Placed, then short again (a member lost): a new hold starts with the next failure.
	s.Assume(pod("fresh", "w", 0), "n0")
	s.Assume(pod("fresh", "w", 1), "n1")
	if _, holding := s.HoldUntil(key("fresh")); holding {
		t.Error("fresh holds with its minimum placed")
	}
	s.SetWait(key("fresh"), failed)
	if _, holding := s.HoldUntil(key("fresh")); holding {
		t.Error("a failure of fresh with its minimum placed (an extra's) starts a hold")
	}
	lost := pod("fresh", "w", 1)
	lost.Spec.NodeName = "n1"
	s.DeletePod(lost)
	s.SetWait(key("fresh"), Wait{Reason: ReasonPermitTimeout, Message: "lost one"})
	if got := heldBy(pod("grown", "w", 1)); got != "fresh" {
		t.Errorf("fresh short again after its minimum was placed: the extra is held by %q, want fresh", got)
	}
	// The gangs whose extras were turned away are handed back once, when the holder is done.
	s.NoteHeld(key("fresh"), key("grown"))
	if got := s.TakeHeld(key("fresh")); got != nil {
		t.Errorf("TakeHeld while fresh still holds = %v, want nothing", got)
	}
	s.Assume(pod("fresh", "w", 2), "n2")
	if got := s.TakeHeld(key("fresh")); len(got) != 1 || got[0] != key("grown") {
		t.Errorf("TakeHeld once fresh's minimum is placed = %v, want [grown]", got)
	}
	if got := s.TakeHeld(key("fresh")); got != nil {
		t.Errorf("TakeHeld a second time = %v, want nothing", got)
	}
	// Off: nothing is held.
	s.Forget(pod("fresh", "w", 2))
	s.SetWait(key("fresh"), Wait{Reason: ReasonInsufficient, Message: "off"})
	s.SetExtraHold(0)
	if got := heldBy(pod("grown", "w", 1)); got != "" {
		t.Errorf("with the hold off, the extra is held by %q", got)
	}
}
