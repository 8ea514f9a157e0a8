package workloadpodgroup

import (
	"strings"
	"testing"
	"time"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// PodGroupInitiallyScheduled: False/Unschedulable with Phalanx's reason while the first
// placement waits, nothing while members are still coming and nothing waits, True/Scheduled
// once established, and never False again after True (upstream's terminal contract).
func TestInitiallyScheduled(t *testing.T) {
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	waiting := gang.Status{Served: true, Wait: gang.Wait{Reason: gang.ReasonInsufficient, Message: "needs 64 nvidia.com/gpu, 56 free"}}
	got := desiredStatus(&schedulingv1beta1.PodGroupStatus{}, waiting, 3)
	c := meta.FindStatusCondition(got.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != schedulingv1beta1.PodGroupReasonUnschedulable ||
		c.Message != "InsufficientResources: needs 64 nvidia.com/gpu, 56 free" || c.ObservedGeneration != 3 {
		t.Fatalf("waiting: %+v", c)
	}
	for _, w := range []gang.Wait{{}, {Reason: gang.ReasonWaitingForMembers, Message: "2 of 4 members placed, waiting for the rest of the quorum"}} {
		if got := desiredStatus(&schedulingv1beta1.PodGroupStatus{}, gang.Status{Served: true, Wait: w}, 1); len(got.Conditions) != 0 {
			t.Errorf("wait %q: nothing to say yet (normal progress), but wrote %+v", w.Reason, got.Conditions)
		}
	}
	established := gang.Status{Served: true, Established: true, EstablishedAt: at, Bound: 8, Nodes: 8}
	got = desiredStatus(got, established, 3)
	c = meta.FindStatusCondition(got.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != ReasonScheduled || !c.LastTransitionTime.Time.Equal(at) || !strings.HasPrefix(c.Message, "minCount reached: 8 pods") {
		t.Fatalf("established: %+v", c)
	}
	live := got.DeepCopy()
	after := desiredStatus(live, waiting, 4)
	if c := meta.FindStatusCondition(after.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 3 {
		t.Errorf("True was changed: %+v", c)
	}
}

// DisruptionTarget: True with upstream's reason PreemptionByScheduler while Phalanx's mark is
// on; set to False once the group is placed again; another writer's DisruptionTarget (another
// reason) is never touched; other conditions are kept.
func TestDisruptionTarget(t *testing.T) {
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	live := &schedulingv1beta1.PodGroupStatus{Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Operator"}}}
	preempted := gang.Status{Served: true, Disruption: &gang.Disruption{Message: "preempted whole (4 members) for pod ns/high", At: at}}
	got := desiredStatus(live, preempted, 1)
	c := meta.FindStatusCondition(got.Conditions, schedulingv1beta1.DisruptionTarget)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != schedulingv1beta1.PodGroupReasonPreemptionByScheduler || c.Message != preempted.Disruption.Message {
		t.Fatalf("preempted: %+v", c)
	}
	if meta.FindStatusCondition(got.Conditions, "Ready") == nil {
		t.Error("another writer's condition was dropped")
	}
	placed := desiredStatus(got, gang.Status{Served: true, Established: true, Bound: 4, Nodes: 4}, 1)
	if c := meta.FindStatusCondition(placed.Conditions, schedulingv1beta1.DisruptionTarget); c.Status != metav1.ConditionFalse || c.Reason != ReasonRescheduled {
		t.Errorf("placed again: %+v", c)
	}
	theirs := &schedulingv1beta1.PodGroupStatus{Conditions: []metav1.Condition{{Type: schedulingv1beta1.DisruptionTarget, Status: metav1.ConditionTrue, Reason: "Maintenance"}}}
	if c := meta.FindStatusCondition(desiredStatus(theirs, gang.Status{Served: true, Established: true}, 1).Conditions, schedulingv1beta1.DisruptionTarget); c.Status != metav1.ConditionTrue || c.Reason != "Maintenance" {
		t.Errorf("another writer's DisruptionTarget was changed: %+v", c)
	}
	if live.Conditions[0].Type != "Ready" || len(live.Conditions) != 1 {
		t.Error("desiredStatus changed the live status it was given")
	}
}
