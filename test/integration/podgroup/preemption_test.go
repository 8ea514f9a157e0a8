package podgroup

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/phalanx-sched/phalanx/test/framework"
)

// Gang-aware preemption serves PodGroups as PodGangs: two low-priority groups of 2 fill 4
// nodes, a high-priority group of 2 arrives; one low group is preempted whole (and told so by
// an event), the other keeps both members.
func TestPodGroupPreemptionTakesOneWholeGroup(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.EnsurePriorityClasses(t, map[string]int32{"phalanx-test-low": 100, "phalanx-test-high": 1000})
	env.AddNodes(t, gpuNodes("pg-pre", 4))
	create := func(group, prio string) {
		createPodGroup(t, env, ns, group, 2)
		for i := 0; i < 2; i++ {
			tmpl := podTemplate(group)
			pod := &corev1.Pod{ObjectMeta: tmpl.ObjectMeta, Spec: tmpl.Spec}
			pod.Namespace, pod.Name = ns, fmt.Sprintf("%s-%d", group, i)
			pod.Spec.PriorityClassName = prio
			env.CreatePods(t, pod)
		}
	}
	bound := func(ctx context.Context, group string) (int, int, error) {
		pods, err := groupPods(ctx, env, ns, group)
		return framework.CountBound(pods), len(pods), err
	}
	for _, g := range []string{"low-1", "low-2"} {
		create(g, "phalanx-test-low")
		framework.Eventually(t, wait, g+" bound", func(ctx context.Context) (bool, error) {
			n, _, err := bound(ctx, g)
			return n == 2, err
		})
	}
	create("high", "phalanx-test-high")
	framework.Eventually(t, wait, "high bound", func(ctx context.Context) (bool, error) {
		n, _, err := bound(ctx, "high")
		return n == 2, err
	})
	var victim string
	framework.Eventually(t, wait, "one low group gone whole, the other whole and bound", func(ctx context.Context) (bool, error) {
		n1, all1, err := bound(ctx, "low-1")
		if err != nil {
			return false, err
		}
		n2, all2, err := bound(ctx, "low-2")
		if err != nil {
			return false, err
		}
		switch {
		case all1 == 0 && n2 == 2:
			victim = "low-1"
		case all2 == 0 && n1 == 2:
			victim = "low-2"
		}
		return victim != "", nil
	})
	waitGroupEvent(t, env, ns, victim, "Preempted")
}
