package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/test/framework"
)

const wait = 60 * time.Second

func nodes(prefix string, count int, gpus int64) localcluster.NodeShape {
	return localcluster.NodeShape{Prefix: prefix, Count: count, GPUs: gpus, CPU: "64", Memory: "512Gi", NodesPerRack: 4}
}

// leaderWorkers is a gang of 3 podgroups: 1 leader and two groups of 2 workers, 4 GPUs each
// (20 GPUs in all).
func leaderWorkers(ns, name string) framework.Gang {
	return framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{
		{Name: "leader", Pods: 1, MinReplicas: 1, GPUs: 4},
		{Name: "worker-a", Pods: 2, MinReplicas: 2, GPUs: 4},
		{Name: "worker-b", Pods: 2, MinReplicas: 2, GPUs: 4},
	}}
}

// Must show 1: a gang that fits is placed whole; with one GPU less, nothing of it is placed
// and the PodGang says why.
func TestGangPlacedWholeOrNotAtAll(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)

	t.Run("fits", func(t *testing.T) {
		ns := env.NewNamespace(t)
		env.AddNodes(t, nodes("fit-a", 2, 8))
		env.AddNodes(t, nodes("fit-b", 1, 4))
		g := leaderWorkers(ns, "lw")
		env.CreateGang(t, g)
		env.WaitGangBound(t, ns, g.Name, 5, wait)
		pg := env.WaitGangCondition(t, ns, g.Name, schedv1.ConditionScheduled, metav1.ConditionTrue, "QuorumBound", wait)
		framework.Eventually(t, wait, "PodGang phase Running", func(ctx context.Context) (bool, error) {
			got, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, g.Name, metav1.GetOptions{})
			return err == nil && got.Status.Phase == schedv1.PodGangRunning, err
		})
		if c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionScheduled); c.LastTransitionTime.IsZero() {
			t.Errorf("Scheduled condition has no lastTransitionTime (the established mark)")
		}
		waitEvent(t, env, ns, g.Name, "Scheduled")
	})

	t.Run("one GPU short", func(t *testing.T) {
		ns := env.NewNamespace(t)
		env.AddNodes(t, nodes("short-a", 2, 8))
		env.AddNodes(t, nodes("short-b", 1, 3))
		g := leaderWorkers(ns, "lw")
		attempts := framework.ReadGangAttempts(t, gang.KindPodGang.String())
		env.CreateGang(t, g)
		// Any reason: a gang turned away only by Permit must fail the checks below, not time out here.
		env.WaitGangCondition(t, ns, g.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, "", wait)
		framework.ExpectNoNodeHeld(t, gang.KindPodGang.String(), attempts)
		pg := env.WaitGangCondition(t, ns, g.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonInsufficient, wait)
		c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable)
		if !strings.Contains(c.Message, "needs 20 nvidia.com/gpu, 19 free") {
			t.Errorf("Unschedulable message %q does not name the missing GPUs", c.Message)
		}
		pods, err := env.GangPods(context.Background(), ns, g.Name)
		if err != nil {
			t.Fatal(err)
		}
		if n := framework.CountBound(pods); n != 0 {
			t.Errorf("%d pods of an unplaceable gang hold nodes, want 0", n)
		}
		if pg.Status.Phase != schedv1.PodGangPending {
			t.Errorf("phase %q, want Pending", pg.Status.Phase)
		}
		waitEvent(t, env, ns, g.Name, gang.ReasonInsufficient)
		framework.ExpectNoNodeHeld(t, gang.KindPodGang.String(), attempts)
	})
}

// Must show 2: two gangs that each fit alone but not together: one is placed whole and the
// other waits whole, never both half-placed. Twenty times. The cluster has room for one gang
// and three quarters of the other (28 GPUs for two gangs of 16), so "the loser has nothing
// bound" is the gang rule's doing, not the capacity's.
func TestCompetingGangsNoPartialPlacement(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("compete", 2, 8))   // 16 GPUs: one gang of 4 x 4 GPUs
	env.AddNodes(t, nodes("compete-x", 3, 4)) // 12 more: three members of the other gang
	for rep := 0; rep < 20; rep++ {
		a := framework.Gang{Namespace: ns, Name: fmt.Sprintf("a%d", rep), Groups: []framework.Group{{Name: "w", Pods: 4, MinReplicas: 4, GPUs: 4}}}
		b := framework.Gang{Namespace: ns, Name: fmt.Sprintf("b%d", rep), Groups: []framework.Group{{Name: "w", Pods: 4, MinReplicas: 4, GPUs: 4}}}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(context.Background(), a.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(context.Background(), b.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Interleave the members of the two gangs.
		pa, pb := a.Pods(), b.Pods()
		for i := range pa {
			env.CreatePods(t, pa[i], pb[i])
		}
		var winner, loser string
		framework.Eventually(t, wait, fmt.Sprintf("rep %d: one gang fully bound", rep), func(ctx context.Context) (bool, error) {
			for _, pair := range [][2]string{{a.Name, b.Name}, {b.Name, a.Name}} {
				pods, err := env.GangPods(ctx, ns, pair[0])
				if err != nil {
					return false, err
				}
				if framework.CountBound(pods) == 4 {
					winner, loser = pair[0], pair[1]
					return true, nil
				}
			}
			return false, nil
		})
		env.WaitGangCondition(t, ns, loser, schedv1.ConditionUnschedulable, metav1.ConditionTrue, "", wait)
		pods, err := env.GangPods(context.Background(), ns, loser)
		if err != nil {
			t.Fatal(err)
		}
		if n := framework.CountBound(pods); n != 0 {
			t.Fatalf("rep %d: gang %s placed whole and gang %s has %d bound pods; want 0", rep, winner, loser, n)
		}
		env.DeletePodsNow(t, ns, "test.phalanx.dev/gang in ("+a.Name+","+b.Name+")")
	}
}

// Must show 3: a scaled gang created before its base is not attempted until the base is
// established; then it is placed.
func TestScaledGangWaitsForBase(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("scaled", 4, 8))
	base := framework.Gang{Namespace: ns, Name: "pcs-0", Groups: []framework.Group{{Name: "sg-0", Pods: 2, MinReplicas: 2, GPUs: 4}}}
	scaled := framework.Gang{Namespace: ns, Name: "pcs-0-sg-1", Base: base.Name, Groups: []framework.Group{{Name: "sg-1", Pods: 2, MinReplicas: 2, GPUs: 4}}}
	env.CreateGang(t, scaled)
	pg := env.WaitGangCondition(t, ns, scaled.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonWaitingForBase, wait)
	if msg := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable).Message; !strings.Contains(msg, base.Name) {
		t.Errorf("Unschedulable message %q does not name the base gang", msg)
	}
	if pods, _ := env.GangPods(context.Background(), ns, scaled.Name); framework.CountBound(pods) != 0 {
		t.Fatalf("scaled gang placed before its base exists")
	}
	env.CreateGang(t, base)
	env.WaitGangBound(t, ns, base.Name, 2, wait)
	basePG := env.WaitGangCondition(t, ns, base.Name, schedv1.ConditionScheduled, metav1.ConditionTrue, "", wait)
	scaledPods := env.WaitGangBound(t, ns, scaled.Name, 2, wait)
	established := meta.FindStatusCondition(basePG.Status.Conditions, schedv1.ConditionScheduled).LastTransitionTime
	for _, p := range scaledPods {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.LastTransitionTime.Before(&established) {
				t.Errorf("scaled pod %s scheduled at %s, before its base was established at %s", p.Name, c.LastTransitionTime, established)
			}
		}
	}
}

// Must show 4: PCLQ surge. A clique of 3 with one surge pod and room for 3: the three are
// placed and the gang established; the surge pod alone stays Pending.
func TestSurgePodNeverHoldsGangHostage(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("surge", 3, 8))
	g := framework.Gang{Namespace: ns, Name: "frontend", Groups: []framework.Group{{Name: "frontend", Pods: 3, MinReplicas: 3, GPUs: 8}}}
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(context.Background(), g.PodGang(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	surge := g.Pod(g.Groups[0], 3)
	surge.Labels[grovev1.LabelSurge] = "true"
	// The surge pod comes first, as in an update: it must neither block nor be counted.
	env.CreatePods(t, surge)
	env.CreatePods(t, g.Pods()...)
	env.WaitGangCondition(t, ns, g.Name, schedv1.ConditionScheduled, metav1.ConditionTrue, "", wait)
	pods := env.WaitGangBound(t, ns, g.Name, 3, wait)
	for _, p := range pods {
		if p.Name == surge.Name && p.Spec.NodeName != "" {
			t.Fatalf("surge pod bound to %s; there is room for 3 pods only", p.Spec.NodeName)
		}
	}
	waitPodEvent(t, env, ns, surge.Name, "FailedScheduling")
	got, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), surge.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "" {
		t.Fatalf("surge pod bound")
	}
}

// Must show 5: the circular dependency of the design review. A PCSG with replicas=3,
// minAvailable=3 (all three replicas in the base gang), maxSurge=1, maxUnavailable=0. The base
// is established; then one of its replicas is deleted and recreated (its new pods held by a
// scheduling gate, so the base stays below quorum), and the surge replica's scaled gang comes.
// The surge gang must be placed while the base is below quorum: gating on "base currently
// ready" would stall here, because the base only recovers after the surge is available.
// Released, the recreated replica is placed as a sub-gang.
func TestPCSGSurgeWhileBaseBelowQuorum(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("circ", 4, 8)) // 32 GPUs
	base := framework.Gang{Namespace: ns, Name: "pcs-0", Groups: []framework.Group{
		{Name: "sg-0", Pods: 2, MinReplicas: 2, GPUs: 4},
		{Name: "sg-1", Pods: 2, MinReplicas: 2, GPUs: 4},
		{Name: "sg-2", Pods: 2, MinReplicas: 2, GPUs: 4},
	}}
	env.CreateGang(t, base)
	env.WaitGangBound(t, ns, base.Name, 6, wait)
	env.WaitGangCondition(t, ns, base.Name, schedv1.ConditionScheduled, metav1.ConditionTrue, "", wait)

	// The update deletes PCSG replica 0 of the base and recreates it (held for now).
	env.DeletePodsNow(t, ns, grovev1.LabelPodClique+"=sg-0")
	recreated := base
	recreated.Gates = true
	for i := 0; i < 2; i++ {
		env.CreatePods(t, recreated.Pod(base.Groups[0], i))
	}
	// The surge PCSG replica 3 gets its own scaled gang, gated on the base.
	surge := framework.Gang{Namespace: ns, Name: "pcs-0-sg-3", Base: base.Name, Groups: []framework.Group{{Name: "sg-3", Pods: 2, MinReplicas: 2, GPUs: 4}}}
	env.CreateGang(t, surge)
	env.WaitGangBound(t, ns, surge.Name, 2, wait)

	basePods, err := env.GangPods(context.Background(), ns, base.Name)
	if err != nil {
		t.Fatal(err)
	}
	if n := framework.CountBound(basePods); n != 4 {
		t.Fatalf("base has %d bound pods while the surge was placed, want 4 (below its quorum of 6)", n)
	}
	if pg, _ := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(context.Background(), base.Name, metav1.GetOptions{}); !meta.IsStatusConditionTrue(pg.Status.Conditions, schedv1.ConditionScheduled) {
		t.Errorf("base lost its Scheduled condition while members remained bound")
	}

	// Release the recreated replica: it is placed as a sub-gang of the established base.
	for i := 0; i < 2; i++ {
		name := base.PodName("sg-0", i)
		patch := []byte(`{"spec":{"schedulingGates":null}}`)
		if _, err := env.Kube.CoreV1().Pods(ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.WaitGangBound(t, ns, base.Name, 6, wait)
}

// Must show 6: packConstraint.required on the rack label puts every member on one rack; when
// no rack has room the gang waits whole.
func TestRequiredRackPacking(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("rack", 12, 8)) // rack-0, rack-1 and rack-2, 4 nodes of 8 GPUs each
	// A 1-GPU pod on rack-0 leaves rack-1 and rack-2 with room for a whole 4 x 8-GPU gang.
	filler := func(name, node string) {
		f := framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{{Name: "f", Pods: 1, MinReplicas: 1, GPUs: 1}}}
		fp := f.Pod(f.Groups[0], 0)
		delete(fp.Labels, grovev1.LabelPodGang)
		fp.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
		env.CreatePods(t, fp)
		env.WaitGangBound(t, ns, name, 1, wait)
	}
	filler("filler-0", "rack-0000")

	g := framework.Gang{Namespace: ns, Name: "packed", PackRequired: localcluster.LabelRack,
		Groups: []framework.Group{{Name: "w", Pods: 4, MinReplicas: 4, GPUs: 8}}}
	env.CreateGang(t, g)
	pods := env.WaitGangBound(t, ns, g.Name, 4, wait)
	racks := map[string]bool{}
	for _, p := range pods {
		n, err := env.Kube.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		racks[n.Labels[localcluster.LabelRack]] = true
	}
	if len(racks) != 1 || racks["rack-0"] {
		t.Fatalf("members on racks %v, want all on one rack with room (rack-1 or rack-2)", racks)
	}

	// With a 1-GPU pod on the last empty rack, the cluster still has 62 free GPUs but no rack
	// has room for another such gang: it waits whole.
	if racks["rack-1"] {
		filler("filler-2", "rack-0008")
	} else {
		filler("filler-1", "rack-0004")
	}
	g2 := framework.Gang{Namespace: ns, Name: "packed-2", PackRequired: localcluster.LabelRack,
		Groups: []framework.Group{{Name: "w", Pods: 4, MinReplicas: 4, GPUs: 8}}}
	env.CreateGang(t, g2)
	pg := env.WaitGangCondition(t, ns, g2.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonNoTopologyDomain, wait)
	if msg := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable).Message; !strings.Contains(msg, "needs 32 nvidia.com/gpu for 4 pods in one "+localcluster.LabelRack) {
		t.Errorf("message %q does not say what the gang needs", msg)
	}
	if p, _ := env.GangPods(context.Background(), ns, g2.Name); framework.CountBound(p) != 0 {
		t.Fatalf("a gang with no rack that fits has bound pods")
	}
}

func waitEvent(t *testing.T, env *framework.Env, ns, podGang, reason string) {
	t.Helper()
	framework.Eventually(t, wait, "event "+reason+" on PodGang "+podGang, func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.kind": "PodGang", "involvedObject.name": podGang, "reason": reason}.String()})
		return err == nil && len(list.Items) > 0, err
	})
}

func waitPodEvent(t *testing.T, env *framework.Env, ns, pod, reason string) {
	t.Helper()
	framework.Eventually(t, wait, "event "+reason+" on pod "+pod, func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.name": pod, "reason": reason}.String()})
		return err == nil && len(list.Items) > 0, err
	})
}
