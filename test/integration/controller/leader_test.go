package controller

import (
	"context"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// One lease elects one leader for scheduling and reconciling: while A leads, B creates
// nothing; when A stops, B takes over both roles and a new PodCliqueSet becomes available.
//
// The lease has kube-scheduler's timings (15 s, renewed within 10 s every 2 s), as the
// binary runs: a leader on a loaded machine does not lose it between two renewals. The
// hand-over does not wait for the lease to expire: a stopped leader releases it
// (ReleaseOnCancel), and the test waits for B to hold it before it asks B for anything.
func TestOneLeaseForSchedulerAndController(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("leader", 24))
	config, err := scheduler.DefaultConfig(scheduler.ConfigOptions{Kubeconfig: env.ServiceAccountKubeconfig, LeaderElect: true})
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
	holderA := leaseHolder(t, env)
	if holderA == "" {
		t.Fatalf("A made a PodCliqueSet available without holding the lease")
	}

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

	if h := leaseHolder(t, env); h != holderA {
		t.Fatalf("the lease moved from A (%s) to %q while A ran", holderA, h)
	}
	stopA()
	framework.Eventually(t, wait, "the lease taken over by B", func(ctx context.Context) (bool, error) {
		h := leaseHolder(t, env)
		return h != "" && h != holderA, nil
	})
	third := env.Sample(t, ns, "disaggregated.yaml")
	third.Name, third.Spec.Replicas = "third", 1
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, third, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "third", 1, 15)
	if byB.Load() != 30 {
		t.Errorf("the new leader created %d objects, want the 30 of the third PodCliqueSet", byB.Load())
	}
}

// leaseHolder is the holder of phalanx-scheduler's lease ("" when none or released).
func leaseHolder(t *testing.T, env *framework.Env) string {
	t.Helper()
	l, err := env.Kube.CoordinationV1().Leases("kube-system").Get(framework.Context(t), scheduler.SchedulerName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the lease: %v", err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
