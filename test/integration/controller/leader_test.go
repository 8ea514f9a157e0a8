package controller

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// One lease elects one leader for scheduling and reconciling: while A leads, B creates
// nothing; when A stops, B takes over both roles and a new PodCliqueSet becomes available.
func TestOneLeaseForSchedulerAndController(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("leader", 24))
	config, err := scheduler.DefaultConfig(scheduler.ConfigOptions{Kubeconfig: env.ServiceAccountKubeconfig, LeaderElect: true,
		LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	counter := func(n *atomic.Int64) func(*controller.Controller) {
		return func(c *controller.Controller) { c.AfterCreate = func() error { n.Add(1); return nil } }
	}
	var byA, byB atomic.Int64
	stopA := env.StartPhalanx(t, framework.Phalanx{Config: config, Controller: true, Configure: counter(&byA)})
	first := env.Sample(t, ns, "disaggregated.yaml")
	first.Name = "first"
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, first, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "first", 2, 30)

	env.StartPhalanx(t, framework.Phalanx{Config: config, Controller: true, Configure: counter(&byB)})
	second := env.Sample(t, ns, "disaggregated.yaml")
	second.Name, second.Spec.Replicas = "second", 1
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, second, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "second", 1, 15)
	if n := byB.Load(); n != 0 {
		t.Fatalf("the follower created %d objects while the leader was alive", n)
	}
	if byA.Load() != 60+30 {
		t.Errorf("the leader created %d objects, want 90", byA.Load())
	}

	stopA()
	third := env.Sample(t, ns, "disaggregated.yaml")
	third.Name, third.Spec.Replicas = "third", 1
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, third, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "third", 1, 15)
	if byB.Load() != 30 {
		t.Errorf("the new leader created %d objects, want the 30 of the third PodCliqueSet", byB.Load())
	}
	framework.Eventually(t, wait, "lease held by the second instance", func(ctx context.Context) (bool, error) {
		l, err := env.Kube.CoordinationV1().Leases("kube-system").Get(ctx, scheduler.SchedulerName, metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", err
	})
}
