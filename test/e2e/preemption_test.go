package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Gang-aware preemption as deployed (manifests/, its ServiceAccount and RBAC, two replicas):
// two low-priority gangs of 2 fill 4 nodes, a high-priority gang of 2 arrives; one low gang
// is evicted whole (its pods marked and deleted with the scheduler's own permissions), the
// other keeps both members, and the victim's PodGang says who preempted it.
func TestGangPreemption(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.EnsurePriorityClasses(t, map[string]int32{"phalanx-e2e-low": 100, "phalanx-e2e-high": 1000})
	env.AddNodes(t, framework.GPUNodes("preempt", 4))
	gangOf := func(name, prio string) framework.Gang {
		return framework.Gang{Namespace: ns, Name: name, PriorityClassName: prio, Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
	}
	lows := []framework.Gang{gangOf("low-1", "phalanx-e2e-low"), gangOf("low-2", "phalanx-e2e-low")}
	for _, g := range lows {
		env.CreateGang(t, g)
		env.WaitGangBound(t, ns, g.Name, 2, 2*time.Minute)
	}
	env.CreateGang(t, gangOf("high", "phalanx-e2e-high"))
	env.WaitGangBound(t, ns, "high", 2, 2*time.Minute)
	var victim, kept string
	framework.Eventually(t, 2*time.Minute, "one low gang gone whole, the other bound whole", func(ctx context.Context) (bool, error) {
		counts := map[string][2]int{} // pods, bound
		for _, g := range lows {
			pods, err := env.GangPods(ctx, ns, g.Name)
			if err != nil {
				return false, err
			}
			counts[g.Name] = [2]int{len(pods), framework.CountBound(pods)}
		}
		switch {
		case counts["low-1"][0] == 0 && counts["low-2"][1] == 2:
			victim, kept = "low-1", "low-2"
		case counts["low-2"][0] == 0 && counts["low-1"][1] == 2:
			victim, kept = "low-2", "low-1"
		}
		return victim != "", nil
	})
	env.WaitGangCondition(t, ns, victim, gang.ConditionDisruptionTarget, metav1.ConditionTrue, gang.ReasonPreempted, 2*time.Minute)
	pods, err := env.GangPods(ctx, ns, kept)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.DisruptionTarget {
				t.Errorf("%s of the gang left alone carries %s", p.Name, c.Type)
			}
		}
	}
}
