package gang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// addEstablished adds gang g, established, with podgroup w of minimum 1: member 0 bound and
// member 1 pending above the minimum.
func addEstablished(s *Store, g string) {
	sp := spec(g, "w:1")
	sp.Scheduled = true
	s.SetSpec(sp)
	s.UpsertPod(pod(g, "w", 0, bound))
	s.UpsertPod(pod(g, "w", 1))
}

// Minimums first: a gang that failed to place its minimum holds the extras of gangs of equal
// or lower priority, for at most the hold from its first failure, never its own minimum nor
// anybody's minimum, and the hold ends when its minimum is placed.
func TestExtraHold(t *testing.T) {
	s, c := newTestStore()
	s.SetExtraHold(30 * time.Second)
	// "grown": established, w minimum 1 bound, two pending members above it.
	addEstablished(s, "grown")
	s.UpsertPod(pod("grown", "w", 2))
	// "fresh": not placed, minimum 2 of 3.
	s.SetSpec(spec("fresh", "w:2"))
	for i := 0; i < 3; i++ {
		s.UpsertPod(pod("fresh", "w", i))
	}
	heldBy := func(p *v1.Pod) string {
		t.Helper()
		h, until, held := s.HeldExtra(p, nil)
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

// Capacity that arrives after a gang's hold ran out is still offered to its minimum first: an
// extra whose cycle sees more schedulable nodes than the gang's last failure did is held
// (the gang was not tried on them yet), and the gang's next failure on them starts a new
// hold. Without new nodes, the bound stands. (Grove's GS-8: the scaled gangs failed, then the
// test waited longer than the hold before it uncordoned nodes one at a time.)
func TestExtraHoldRenewedByArrivingNodes(t *testing.T) {
	s, c := newTestStore()
	s.SetExtraHold(30 * time.Second)
	addEstablished(s, "grown")
	// fresh is a scaled gang of grown (a workload's next scaling-group replica); lone is a
	// gang of another workload, whose extra only the first hold reaches.
	s.SetSpec(spec("fresh", "w:2"))
	for i := 0; i < 2; i++ {
		s.UpsertPod(pod("fresh", "w", i, base("grown")))
	}
	addEstablished(s, "lone")
	loneExtra := pod("lone", "w", 1)
	extra := pod("grown", "w", 1)
	nodes := 3
	seen := func() int { return nodes }
	failed := Wait{Reason: ReasonInsufficient, Message: "needs 2 nodes, 1 free"}
	s.SetWaitSeen(key("fresh"), failed, 3)
	if h, _, held := s.HeldExtra(extra, seen); !held || h != key("fresh") {
		t.Fatalf("within the hold: held %v by %v, want held by fresh", held, h)
	}
	if h, _, held := s.HeldExtra(loneExtra, seen); !held || h != key("fresh") {
		t.Fatalf("within the hold, another workload's extra: held %v by %v, want held by fresh", held, h)
	}
	c.t = c.t.Add(31 * time.Second)
	if _, _, held := s.HeldExtra(extra, seen); held {
		t.Fatal("past the bound with no node added, the extra is still held")
	}
	nodes = 4 // a node uncordoned: fresh has not been tried on it
	h, until, held := s.HeldExtra(extra, seen)
	if !held || h != key("fresh") {
		t.Fatalf("a node arrived after fresh's last failure: held %v by %v, want held by fresh", held, h)
	}
	if want := c.t.Add(30 * time.Second); !until.Equal(want) {
		t.Errorf("held for an arrived node until %s, want a full hold from now, %s", until, want)
	}
	if _, _, held := s.HeldExtra(extra, nil); held {
		t.Error("with the node count unknown, an extra is held past the bound")
	}
	if _, _, held := s.HeldExtra(loneExtra, seen); held {
		t.Error("past the bound, fresh holds the extra of another workload for a node that arrived")
	}
	// fresh is tried on 4 nodes and fails again: a new hold of 30 s from now.
	s.SetWaitSeen(key("fresh"), failed, 4)
	if end, holding := s.HoldUntil(key("fresh")); !holding || !end.Equal(c.t.Add(30*time.Second)) {
		t.Errorf("after a failure on more nodes: holding %v until %s, want until %s", holding, end, c.t.Add(30*time.Second))
	}
	if _, _, held := s.HeldExtra(extra, seen); !held {
		t.Error("after a failure on more nodes, the renewed hold does not hold its workload's extra")
	}
	if _, _, held := s.HeldExtra(loneExtra, seen); held {
		t.Error("the renewed hold reaches another workload's extra")
	}
	// A failure on as many nodes does not renew it, nor does one that does not count them.
	c.t = c.t.Add(20 * time.Second)
	s.SetWaitSeen(key("fresh"), failed, 4)
	s.SetWait(key("fresh"), failed)
	c.t = c.t.Add(11 * time.Second)
	if _, _, held := s.HeldExtra(extra, seen); held {
		t.Error("31 s after the renewal, with no node added since, the extra is still held")
	}
	// Placed: arriving nodes no longer matter.
	s.Assume(pod("fresh", "w", 0), "n0")
	s.Assume(pod("fresh", "w", 1), "n1")
	nodes = 9
	if _, _, held := s.HeldExtra(extra, seen); held {
		t.Error("fresh's minimum is placed, yet the extra is held")
	}
}

// Establishing a base gang starts the hold of its scaled gangs that lack their minimum, before
// they have failed or even been tried: Grove ungates their pods only once its PodClique status
// counts the base scheduled, and the base's extras must not take what arrives meanwhile. A
// scaled gang placed already, or a gang based on another, holds nothing; nor does any with the
// hold off.
func TestBaseEstablishedHoldsForItsScaledGangs(t *testing.T) {
	s, c := newTestStore()
	s.SetExtraHold(30 * time.Second)
	s.SetSpec(spec("b", "w:1"))
	s.UpsertPod(pod("b", "w", 0))
	extra := pod("b", "w", 1)
	s.UpsertPod(extra)
	s.SetSpec(spec("b-s1", "x:2"))
	for i := 0; i < 2; i++ {
		s.UpsertPod(pod("b-s1", "x", i, base("b"), gated))
	}
	s.SetSpec(spec("other", "x:1"))
	s.UpsertPod(pod("other", "x", 0, base("elsewhere"), gated))
	if _, _, held := s.HeldExtra(extra, nil); held {
		t.Fatal("an extra is held before the base is established")
	}
	s.Assume(pod("b", "w", 0), "n0")
	if !s.MarkBound(pod("b", "w", 0, bound), "n0") {
		t.Fatal("the base was not established by its quorum's bind")
	}
	h, until, held := s.HeldExtra(extra, nil)
	if !held || h != key("b-s1") {
		t.Fatalf("with the base established: held %v by %v, want held by its scaled gang b-s1", held, h)
	}
	if want := c.t.Add(30 * time.Second); !until.Equal(want) {
		t.Errorf("hold ends %s, want 30 s after the base was established, %s", until, want)
	}
	if _, holding := s.HoldUntil(key("other")); holding {
		t.Error("a gang based on another gang holds")
	}
	// The scaled gang is tried on 5 schedulable nodes and fails: its hold keeps its start.
	s.SetWaitSeen(key("b-s1"), Wait{Reason: ReasonInsufficient, Message: "no room"}, 5)
	if _, until2, _ := s.HeldExtra(extra, nil); !until2.Equal(until) {
		t.Errorf("a failure moved the hold's end from %s to %s", until, until2)
	}
	c.t = c.t.Add(31 * time.Second)
	if _, _, held := s.HeldExtra(extra, func() int { return 5 }); held {
		t.Error("held past the bound with no node added")
	}
	if _, _, held := s.HeldExtra(extra, func() int { return 6 }); !held {
		t.Error("a node arrived after the scaled gang's failure, yet the extra is not held")
	}
	s.SetExtraHold(0)
	if _, _, held := s.HeldExtra(extra, func() int { return 6 }); held {
		t.Error("held with the hold off")
	}
}
