package gang

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A preemptor gang: its room is held for it (other pods see the hold, its own members do
// not) until its window closes; a failed attempt does not replace the wait for its victims;
// the record ends when its quorum binds.
func TestPreemptionRecord(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	s.SetSpec(spec("hi", "w:2"))
	s.UpsertPod(pod("hi", "w", 0))
	s.UpsertPod(pod("hi", "w", 1))
	k := key("hi")
	until := clk.t.Add(45 * time.Second)
	s.StartPreemption(k, Preemption{Victims: []string{ns + "/v-0", ns + "/v-1"}, Gangs: []string{"PodGang ns/low"},
		Nodes: map[string]Resources{"node-a": {GPU: 4}, "node-b": {GPU: 4}}, Since: clk.t, Until: until, Priority: 1000})

	if h := s.HoldsOn("node-a", Key{}); len(h) != 1 || h[0].Gang != k || h[0].Reserved.GPU != 4 || !h[0].Until.Equal(until) ||
		!h[0].Preemption || h[0].Priority != 1000 {
		t.Fatalf("holds on node-a = %+v, want 4 GPUs for %s until the preemption's window ends", h, k)
	}
	if h := s.HoldsOn("node-a", k); len(h) != 0 {
		t.Errorf("the preemptor's own members see its hold: %+v", h)
	}
	if pf, ok := s.PreemptionInFlight(k); !ok || len(pf.Victims) != 2 {
		t.Fatalf("preemption in flight = %+v, %v", pf, ok)
	}
	if !s.SetWait(k, Wait{Reason: ReasonWaitingForPreemption, Message: "waiting for 2 victims"}) {
		t.Fatal("the preemption wait was not recorded")
	}
	if s.SetWait(k, Wait{Reason: ReasonInsufficient, Message: "no room"}) || s.Status(k).Wait.Reason != ReasonWaitingForPreemption {
		t.Errorf("a failed attempt replaced the wait for the victims: %+v", s.Status(k).Wait)
	}

	// The victims go: the gang waits for them until the last one, which wakes it.
	if !s.WaitsForVictims(k, ns+"/v-0") {
		t.Error("the deletion of v-0 would wake the gang while v-1 remains")
	}
	if pk, last := s.VictimGone(ns + "/v-0"); pk != k || last {
		t.Errorf("VictimGone(v-0) = %v, %v; want %v, not the last", pk, last, k)
	}
	if s.WaitsForVictims(k, ns+"/v-1") {
		t.Error("the deletion of the last victim would not wake the gang")
	}
	if pk, last := s.VictimGone(ns + "/v-1"); pk != k || !last {
		t.Errorf("VictimGone(v-1) = %v, %v; want %v, the last", pk, last, k)
	}
	if _, last := s.VictimGone(ns + "/v-1"); last {
		t.Error("a victim counted twice")
	}

	// The quorum binds: the preemption has done its job.
	s.UpsertPod(pod("hi", "w", 0, bound))
	s.UpsertPod(pod("hi", "w", 1, bound))
	if !s.Establish(k) {
		t.Fatal("quorum bound but not established")
	}
	if _, ok := s.PreemptionInFlight(k); ok {
		t.Error("preemption still in flight after the quorum bound")
	}
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("hold kept after the preemptor bound: %+v", h)
	}
}

// A preemptor that never binds lets its hold go when the window closes, and may then try
// again (a failed attempt is recorded as usual).
func TestPreemptionWindowCloses(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	s.SetSpec(spec("hi", "w:1"))
	s.UpsertPod(pod("hi", "w", 0))
	k := key("hi")
	s.StartPreemption(k, Preemption{Victims: []string{ns + "/v-0"}, Nodes: map[string]Resources{"node-a": {GPU: 4}}, Since: clk.t, Until: clk.t.Add(time.Minute)})
	s.SetWait(k, Wait{Reason: ReasonWaitingForPreemption, Message: "m"})
	clk.t = clk.t.Add(time.Minute + time.Second)
	if _, ok := s.PreemptionInFlight(k); ok {
		t.Error("in flight after its window")
	}
	if s.HasActiveHolds() || len(s.HoldsOn("node-a", Key{})) != 0 {
		t.Error("hold kept after the preemption's window")
	}
	if !s.SetWait(k, Wait{Reason: ReasonInsufficient, Message: "no room"}) {
		t.Error("a failed attempt after the window was not recorded")
	}
}

// A gang preempted whole carries the DisruptionTarget mark until it is established again;
// the condition Phalanx wrote is then cleared, one of another writer never.
func TestDisruptionTargetLifecycle(t *testing.T) {
	s, clk := newTestStore()
	s.SetSpec(spec("low", "w:2"))
	s.UpsertPod(pod("low", "w", 0, bound))
	s.UpsertPod(pod("low", "w", 1, bound))
	k := key("low")
	s.Establish(k)
	clk.t = clk.t.Add(time.Second)
	if !s.MarkDisrupted(k, "preempted whole for PodGang ns/high") || s.MarkDisrupted(k, "preempted whole for PodGang ns/high") {
		t.Fatal("MarkDisrupted: want true once, then false for the same mark")
	}
	c, ok := DisruptionTargetCondition(s.Status(k), 3)
	if !ok || c.Reason != ReasonPreempted || c.Message != "preempted whole for PodGang ns/high" || c.ObservedGeneration != 3 {
		t.Fatalf("condition = %+v, %v", c, ok)
	}
	// The victims go, the owner recreates them, and the gang is placed again.
	s.DeletePod(pod("low", "w", 0, bound))
	s.DeletePod(pod("low", "w", 1, bound))
	clk.t = clk.t.Add(time.Second)
	s.UpsertPod(pod("low", "w", 0, bound))
	s.UpsertPod(pod("low", "w", 1, bound))
	if !s.Establish(k) {
		t.Fatal("not established again")
	}
	if _, ok := DisruptionTargetCondition(s.Status(k), 3); ok {
		t.Error("mark kept after the gang was placed again")
	}
	live := []metav1.Condition{{Type: ConditionDisruptionTarget, Status: "True", Reason: ReasonPreempted}}
	if c, ok := ClearedDisruptionTarget(live, 3); !ok || c.Status != "False" {
		t.Errorf("Phalanx's condition not cleared: %+v, %v", c, ok)
	}
	operators := []metav1.Condition{{Type: ConditionDisruptionTarget, Status: "True", Reason: "TerminationDelayExceeded"}}
	if _, ok := ClearedDisruptionTarget(operators, 3); ok {
		t.Error("the operator's DisruptionTarget would be overwritten")
	}
}
