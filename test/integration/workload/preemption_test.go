package workload

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/test/framework"
)

const (
	prioLow  = "phalanx-test-low"
	prioHigh = "phalanx-test-high"
)

// preemptionCase fills 4 nodes with one low-priority group of 4 members (8 GPUs each,
// minCount 2) written with disruptionMode mode (nil: unset), then a high-priority pod of no
// gang asks for one node. It returns the low members still bound once the high pod is bound.
func preemptionCase(t *testing.T, prefix string, mode *schedulingv1beta1.DisruptionMode) (*framework.Env, string, []corev1.Pod) {
	t.Helper()
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	env.EnsurePriorityClasses(t, map[string]int32{prioLow: 100, prioHigh: 1000})
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes(prefix, 4))
	createGroup(t, env, ns, "low", 2, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.DisruptionMode = mode })
	for i := 0; i < 4; i++ {
		p := pod(ns, fmt.Sprintf("low-%d", i), "low", 8)
		p.Spec.PriorityClassName = prioLow
		env.CreatePods(t, p)
	}
	waitBound(t, env, ns, "low", 4)
	high := pod(ns, "high", "high", 8)
	high.Spec.SchedulingGroup, high.Spec.PriorityClassName = nil, prioHigh
	env.CreatePods(t, high)
	framework.Eventually(t, wait, "the high-priority pod bound", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "high", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	left, err := members(context.Background(), env, ns, "low")
	if err != nil {
		t.Fatal(err)
	}
	return env, ns, left
}

// disruptionMode unset, which the API server defaults to single: members may go alone, and a
// member above minCount (the group can spare it) goes before one its minimum needs; the group
// keeps the other three.
func TestWorkloadPreemptionSingleSparesMinimumFirst(t *testing.T) {
	_, _, left := preemptionCase(t, "wl-pre-gang", nil)
	if len(left) != 3 || framework.CountBound(left) != 3 {
		t.Errorf("%d low members left (%d bound); want 3: one member above minCount preempted", len(left), framework.CountBound(left))
	}
}

// disruptionMode all: the group goes whole (all four, the two above minCount too), carries
// DisruptionTarget=True reason PreemptionByScheduler naming the preemptor, and gets the
// Preempted event.
func TestWorkloadPreemptionDisruptionModeAll(t *testing.T) {
	env, ns, left := preemptionCase(t, "wl-pre-all", &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}})
	if len(left) != 0 {
		t.Errorf("%d low members left; want 0: disruptionMode all takes the group whole", len(left))
	}
	framework.Eventually(t, wait, "DisruptionTarget on PodGroup low", func(ctx context.Context) (bool, error) {
		pg, err := env.Kube.SchedulingV1beta1().PodGroups(ns).Get(ctx, "low", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.DisruptionTarget)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == schedulingv1beta1.PodGroupReasonPreemptionByScheduler, nil
	})
	waitEvent(t, env, ns, "low", "Preempted")
}

// A group's own priority (PodGroup priorityClassName, resolved by the API server's Priority
// admission into spec.priority) is what preemption compares, not its pods': a group of two
// pods of no priority class, in a PodGroup of the high class, preempts plain pods of the low
// class; the same group with no class on its PodGroup does not.
func TestWorkloadGroupPriorityPreempts(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	env.EnsurePriorityClasses(t, map[string]int32{prioLow: 100, prioHigh: 1000})
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("wl-gprio", 2))
	for i := 0; i < 2; i++ {
		p := pod(ns, fmt.Sprintf("low-%d", i), "low", 8)
		p.Spec.SchedulingGroup, p.Spec.PriorityClassName = nil, prioLow
		env.CreatePods(t, p)
	}
	framework.Eventually(t, wait, "the low pods bound", func(ctx context.Context) (bool, error) {
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labelGroup + "=low"})
		return err == nil && framework.CountBound(pods.Items) == 2, err
	})
	// No class on the group: priority 0 below the pods' 100, nothing is preempted.
	createGroup(t, env, ns, "plain", 2)
	env.CreatePods(t, pod(ns, "plain-0", "plain", 8), pod(ns, "plain-1", "plain", 8))
	waitInitiallyScheduled(t, env, ns, "plain", metav1.ConditionFalse, schedulingv1beta1.PodGroupReasonUnschedulable, "")
	createGroup(t, env, ns, "urgent", 2, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = prioHigh })
	if pg, err := env.Kube.SchedulingV1beta1().PodGroups(ns).Get(context.Background(), "urgent", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if pg.Spec.Priority == nil || *pg.Spec.Priority != 1000 {
		t.Fatalf("the API server resolved the group's priority to %v; want 1000 from %s", pg.Spec.Priority, prioHigh)
	}
	env.CreatePods(t, pod(ns, "urgent-0", "urgent", 8), pod(ns, "urgent-1", "urgent", 8))
	waitBound(t, env, ns, "urgent", 2)
	pods, err := members(context.Background(), env, ns, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if n := framework.CountBound(pods); n != 0 {
		t.Errorf("the group of no priority has %d pods bound; want 0", n)
	}
}
