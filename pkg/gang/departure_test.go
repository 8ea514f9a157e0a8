package gang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A member replaced in a second step of an update leaves after its gang's first reservation
// was taken back. When its deletion reaches the store before the gang object with the new
// reservation (separate watches), its capacity stays held until that reservation arrives.
// Without the departure check it was free and unheld for that moment: a pending pod could
// take what the replacement needed (TestDRAReplacementHoldsDevices failed so under load).
func TestDepartureBeforeItsReservationIsHeld(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	var checks []Key
	s.SetDepartureCheck(KindPodGang, func(k Key) { checks = append(checks, k) })
	withReservation := func(since time.Time) Spec {
		sp := spec("g", "w:2")
		sp.Reservation = &Reservation{Since: since, Nodes: map[string]Resources{"node-a": {GPU: 4}, "node-b": {GPU: 4}}}
		return sp
	}
	member := func(i int, uid, node string) *v1.Pod {
		p := pod("g", "w", i)
		p.UID = types.UID(uid)
		p.Spec.NodeName = node
		return p
	}
	old0, old1 := member(0, "old-0", "node-a"), member(1, "old-1", "node-b")
	s.UpsertPod(old0)
	s.UpsertPod(old1)
	// Step 1: member 0 is replaced in order (reservation, deletion, replacement bound).
	s.SetSpec(withReservation(clk.t))
	s.DeletePod(old0)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 1 {
		t.Fatalf("step 1: holds on node-a = %+v, want the reservation's", h)
	}
	s.UpsertPod(member(0, "new-0", "node-a"))
	if h := s.HoldsOn("node-b", Key{}); len(h) != 0 || s.ReservationActive(key("g")) {
		t.Fatalf("step 1's reservation still holds after its replacement bound: %+v", h)
	}
	checks = nil

	// Step 2: member 1 is deleted; its deletion arrives first.
	clk.t = clk.t.Add(3 * time.Second)
	s.DeletePod(old1)
	h := s.HoldsOn("node-b", Key{})
	if len(h) != 1 || h[0].Reserved.GPU != 4 {
		t.Fatalf("holds on node-b after the member left unheld = %+v, want its 4 GPUs held", h)
	}
	if !s.ReservationActive(key("g")) || len(checks) != 1 || checks[0] != key("g") {
		t.Fatalf("active %v, checks %v: want the hold active and one check of g", s.ReservationActive(key("g")), checks)
	}
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("node-a, where nobody left, is held: %+v", h)
	}
	// The check read the object before the watch delivered it: a newer reservation is coming.
	if s.ConfirmDeparture(key("g"), clk.t) {
		t.Fatal("the hold ended though the object carries a newer reservation")
	}
	// The watch brings it: it holds from now on.
	s.SetSpec(withReservation(clk.t))
	if h := s.HoldsOn("node-b", Key{}); len(h) != 1 || h[0].Until != clk.t.Add(2*time.Minute) {
		t.Fatalf("holds on node-b with the step's reservation = %+v, want the reservation's own", h)
	}
}

// A member that leaves with no reservation on its way (a scale-in, a deleted workload) is held
// only until the gang object is read, or for UnconfirmedWindow when it cannot be.
func TestDepartureWithoutReservationReleasedOnConfirmation(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	s.SetDepartureCheck(KindPodGang, func(Key) {})
	s.SetSpec(spec("g", "w:1"))
	for i, node := range []string{"node-a", "node-b"} {
		p := pod("g", "w", i)
		p.Spec.NodeName = node
		s.UpsertPod(p)
	}
	gone := pod("g", "w", 0)
	gone.Spec.NodeName = "node-a"
	s.DeletePod(gone)
	if len(s.HoldsOn("node-a", Key{})) != 1 {
		t.Fatal("no hold until the departure is confirmed")
	}
	if !s.ConfirmDeparture(key("g"), time.Time{}) || len(s.HoldsOn("node-a", Key{})) != 0 || s.HasActiveHolds() {
		t.Fatal("the hold outlived the confirmation that no reservation is coming")
	}

	other := pod("g", "w", 1)
	other.Spec.NodeName = "node-b"
	s.DeletePod(other)
	if len(s.HoldsOn("node-b", Key{})) != 1 {
		t.Fatal("no hold for the second departure")
	}
	clk.t = clk.t.Add(UnconfirmedWindow)
	if h := s.HoldsOn("node-b", Key{}); len(h) != 0 || s.ReservationActive(key("g")) {
		t.Errorf("an unconfirmed hold outlived its window: %+v", h)
	}
}

// A member evicted (a preemption's victim, or any pod carrying DisruptionTarget) is not held:
// its room is for the pod it was evicted for.
func TestDepartureOfEvictedMemberNotHeld(t *testing.T) {
	s, _ := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	checks := 0
	s.SetDepartureCheck(KindPodGang, func(Key) { checks++ })
	s.SetSpec(spec("g", "w:1"))
	victim, disrupted := pod("g", "w", 0), pod("g", "w", 1)
	victim.Spec.NodeName, disrupted.Spec.NodeName = "node-a", "node-b"
	s.UpsertPod(victim)
	s.UpsertPod(disrupted)
	s.StartPreemption(key("high"), Preemption{Victims: []string{ns + "/" + victim.Name}, Since: time.Unix(2000, 0), Until: time.Unix(2100, 0)})
	s.DeletePod(victim)
	gone := disrupted.DeepCopy()
	gone.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "TerminationByKubelet"}}
	s.DeletePod(gone)
	for _, node := range []string{"node-a", "node-b"} {
		if h := s.HoldsOn(node, key("high")); len(h) != 0 {
			t.Errorf("holds on %s after an eviction: %+v", node, h)
		}
	}
	if checks != 0 {
		t.Errorf("%d departure checks for evictions", checks)
	}
}
