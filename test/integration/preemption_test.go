package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Priority classes of the preemption tests.
const (
	prioLow  = "phalanx-test-low"
	prioHigh = "phalanx-test-high"
)

// preemptionSetup starts the scheduler in a new namespace with n 8-GPU nodes (names from
// prefix) and the priority classes of the preemption tests.
func preemptionSetup(t *testing.T, prefix string, n int) (*framework.Env, string) {
	t.Helper()
	env := framework.Shared(t)
	ensurePriorityClasses(t, env)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes(prefix, n, 8))
	return env, ns
}

// plainPod is a pod of no gang that takes a whole 8-GPU node (test label gang=name).
func plainPod(ns, name, prio string) *corev1.Pod {
	p := wholeNodeGang(ns, name, 1, prio).Pod(framework.Group{Name: "w", Pods: 1, MinReplicas: 1, GPUs: 8}, 0)
	delete(p.Labels, grovev1.LabelPodGang)
	return p
}

// expectNoneBound fails when a pod of the test gang name is bound.
func expectNoneBound(t *testing.T, env *framework.Env, ns, name, what string) {
	t.Helper()
	pods, err := env.GangPods(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	if n := framework.CountBound(pods); n != 0 {
		t.Errorf("%d %s", n, what)
	}
}

// heldFinalizer keeps a deleted pod on its node (terminating) until the test releases it.
const heldFinalizer = "test.phalanx.dev/hold"

// createHeld creates the gang (its PodGang, unless pods are given: then those pods alone) with
// heldFinalizer on every pod, waits until they are bound, and returns the release that removes
// the finalizers (also run at the end of the test).
func createHeld(t *testing.T, env *framework.Env, g framework.Gang, pods ...*corev1.Pod) (release func()) {
	t.Helper()
	if len(pods) == 0 {
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(g.Namespace).Create(context.Background(), g.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pods = g.Pods()
	}
	for _, p := range pods {
		p.Finalizers = []string{heldFinalizer}
		env.CreatePods(t, p)
	}
	env.WaitGangBound(t, g.Namespace, g.Name, len(pods), wait)
	release = func() {
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		for _, p := range pods {
			if _, err := env.Kube.CoreV1().Pods(g.Namespace).Patch(context.Background(), p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("removing the finalizer of %s: %v", p.Name, err)
			}
		}
	}
	t.Cleanup(release)
	return release
}

func ensurePriorityClasses(t *testing.T, env *framework.Env) {
	t.Helper()
	env.EnsurePriorityClasses(t, map[string]int32{prioLow: 100, prioHigh: 1000})
}

// wholeNodeGang is a gang of n pods of 8 GPUs (one per 8-GPU node), all needed.
func wholeNodeGang(ns, name string, n int, prio string) framework.Gang {
	return framework.Gang{Namespace: ns, Name: name, PriorityClassName: prio,
		Groups: []framework.Group{{Name: "w", Pods: n, MinReplicas: int32(n), GPUs: 8}}}
}

// podUIDs returns the UIDs of the gang's bound pods, by name.
func podUIDs(t *testing.T, env *framework.Env, ns, name string) map[string]types.UID {
	t.Helper()
	pods, err := env.GangPods(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]types.UID{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			out[p.Name] = p.UID
		}
	}
	return out
}

// expectUntouched fails unless the gang still has exactly the bound pods of before.
func expectUntouched(t *testing.T, env *framework.Env, ns, name string, before map[string]types.UID) {
	t.Helper()
	after := podUIDs(t, env, ns, name)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("gang %s was touched by preemption: bound pods %v, before %v", name, after, before)
	}
}

// waitGangGone waits until no pod of the gang is left (preempted whole).
func waitGangGone(t *testing.T, env *framework.Env, ns, name string) {
	t.Helper()
	framework.Eventually(t, wait, "every pod of gang "+name+" gone", func(ctx context.Context) (bool, error) {
		pods, err := env.GangPods(ctx, ns, name)
		return err == nil && len(pods) == 0, err
	})
}

// waitPreemptions waits until phalanx_preemptions_total{outcome} passed before.
func waitPreemptions(t *testing.T, outcome string, before float64) {
	t.Helper()
	framework.Eventually(t, wait, "a preemption attempt with outcome "+outcome, func(context.Context) (bool, error) {
		return framework.Metric(t, "phalanx_preemptions_total", map[string]string{"outcome": outcome}) > before, nil
	})
}

func preemptions(t *testing.T, outcome string) float64 {
	return framework.Metric(t, "phalanx_preemptions_total", map[string]string{"outcome": outcome})
}

// The case: two low-priority gangs of 2 fill 4 nodes; a high-priority gang of 2
// arrives. One low gang is preempted whole, the other untouched: never one member of each.
func TestPreemptionTakesOneWholeGang(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-a", 4)
	lows := []framework.Gang{wholeNodeGang(ns, "low-1", 2, prioLow), wholeNodeGang(ns, "low-2", 2, prioLow)}
	before := map[string]map[string]types.UID{}
	for _, g := range lows {
		env.CreateGang(t, g)
		env.WaitGangBound(t, ns, g.Name, 2, wait)
	}
	for _, g := range lows {
		before[g.Name] = podUIDs(t, env, ns, g.Name)
	}

	high := wholeNodeGang(ns, "high", 2, prioHigh)
	env.CreateGang(t, high)
	env.WaitGangBound(t, ns, high.Name, 2, wait)
	var victim, kept string
	framework.Eventually(t, wait, "one low gang gone whole", func(ctx context.Context) (bool, error) {
		for i, g := range lows {
			pods, err := env.GangPods(ctx, ns, g.Name)
			if err != nil || len(pods) > 0 {
				continue
			}
			victim, kept = g.Name, lows[1-i].Name
			return true, nil
		}
		return false, nil
	})
	expectUntouched(t, env, ns, kept, before[kept])

	pg := env.WaitGangCondition(t, ns, victim, gang.ConditionDisruptionTarget, metav1.ConditionTrue, gang.ReasonPreempted, wait)
	if c := meta.FindStatusCondition(pg.Status.Conditions, gang.ConditionDisruptionTarget); !strings.Contains(c.Message, ns+"/high") {
		t.Errorf("DisruptionTarget message %q does not name the preemptor gang", c.Message)
	}
	waitEvent(t, env, ns, victim, "Preempted")
	if got, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(context.Background(), kept, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if c := meta.FindStatusCondition(got.Status.Conditions, gang.ConditionDisruptionTarget); c != nil {
		t.Errorf("the untouched gang carries %s=%s", c.Type, c.Status)
	}
}

// Three low gangs on 4 nodes: A (2 pods), B and C (1 pod each). A gang of 2 high pods can
// be made room for by A alone or by B and C together: the fewest gangs rule takes A, although
// B and C are the smaller and the younger units.
func TestPreemptionFewestGangs(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-f", 4)
	a := wholeNodeGang(ns, "a", 2, prioLow)
	env.CreateGang(t, a)
	env.WaitGangBound(t, ns, a.Name, 2, wait)
	b, c := wholeNodeGang(ns, "b", 1, prioLow), wholeNodeGang(ns, "c", 1, prioLow)
	env.CreateGang(t, b)
	env.CreateGang(t, c)
	env.WaitGangBound(t, ns, b.Name, 1, wait)
	env.WaitGangBound(t, ns, c.Name, 1, wait)
	keptB, keptC := podUIDs(t, env, ns, b.Name), podUIDs(t, env, ns, c.Name)

	high := wholeNodeGang(ns, "high", 2, prioHigh)
	env.CreateGang(t, high)
	env.WaitGangBound(t, ns, high.Name, 2, wait)
	waitGangGone(t, env, ns, a.Name)
	expectUntouched(t, env, ns, b.Name, keptB)
	expectUntouched(t, env, ns, c.Name, keptC)
}

// A preemptor gang that does not fit even with every lower-priority pod gone preempts nothing.
func TestPreemptionNothingWhenNoRoom(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-n", 2)
	low := wholeNodeGang(ns, "low", 2, prioLow)
	env.CreateGang(t, low)
	env.WaitGangBound(t, ns, low.Name, 2, wait)
	kept := podUIDs(t, env, ns, low.Name)

	before := preemptions(t, gangplugin.PreemptNoRoom)
	high := wholeNodeGang(ns, "high", 3, prioHigh) // 24 GPUs on a 16-GPU cluster
	env.CreateGang(t, high)
	waitPreemptions(t, gangplugin.PreemptNoRoom, before)
	env.WaitGangCondition(t, ns, high.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonInsufficient, wait)
	expectUntouched(t, env, ns, low.Name, kept)
	expectNoneBound(t, env, ns, high.Name, "members of the unplaceable preemptor bound")
}

// A member above its gang's minimum goes before a whole gang: X (3 pods, minimum 2) and Y
// (1 pod) fill 4 nodes; a high gang of one pod takes X's extra member, X stays established
// with 2, Y is untouched, and X carries no DisruptionTarget (it is not going away).
func TestPreemptionMembersAboveMinimumFirst(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-m", 4)
	x := framework.Gang{Namespace: ns, Name: "x", PriorityClassName: prioLow,
		Groups: []framework.Group{{Name: "w", Pods: 3, MinReplicas: 2, GPUs: 8}}}
	env.CreateGang(t, x)
	env.WaitGangBound(t, ns, x.Name, 3, wait)
	y := wholeNodeGang(ns, "y", 1, prioLow)
	env.CreateGang(t, y)
	env.WaitGangBound(t, ns, y.Name, 1, wait)
	keptY := podUIDs(t, env, ns, y.Name)

	high := wholeNodeGang(ns, "high", 1, prioHigh)
	env.CreateGang(t, high)
	env.WaitGangBound(t, ns, high.Name, 1, wait)
	expectUntouched(t, env, ns, y.Name, keptY)
	framework.Eventually(t, wait, "x keeps exactly its 2 lowest members", func(ctx context.Context) (bool, error) {
		left := podUIDs(t, env, ns, x.Name)
		names := make([]string, 0, len(left))
		for n := range left {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Sprint(names) == fmt.Sprint([]string{x.PodName("w", 0), x.PodName("w", 1)}), nil
	})
	waitEvent(t, env, ns, x.Name, "Preempted")
	pg, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(context.Background(), x.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(pg.Status.Conditions, gang.ConditionDisruptionTarget); c != nil {
		t.Errorf("a gang that lost only a member above its minimum carries %s=%s", c.Type, c.Status)
	}
	if c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionScheduled); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("x is no longer established after losing a member above its minimum: %+v", c)
	}
}

// A PodDisruptionBudget that allows no disruption protects its gang: of two equal gangs the
// protected one is the younger and, should both have started in the same second, the first
// by name: the one chosen without the budget. With it, the other goes.
func TestPreemptionHonoursPDB(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-p", 4)
	older, protected := wholeNodeGang(ns, "b-older", 2, prioLow), wholeNodeGang(ns, "a-protected", 2, prioLow)
	env.CreateGang(t, older)
	env.WaitGangBound(t, ns, older.Name, 2, wait)
	env.CreateGang(t, protected)
	env.WaitGangBound(t, ns, protected.Name, 2, wait)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "protect"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"test.phalanx.dev/gang": protected.Name}}},
	}
	created, err := env.Kube.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), pdb, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// No disruption controller runs here: write the status it would (2 healthy, 2 desired).
	created.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: created.Generation, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2, DisruptionsAllowed: 0}
	if _, err := env.Kube.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(context.Background(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kept := podUIDs(t, env, ns, protected.Name)
	// The scheduler's PDB informer must have seen the budget before the preemptor arrives.
	framework.Eventually(t, wait, "the PDB status written", func(ctx context.Context) (bool, error) {
		got, err := env.Kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "protect", metav1.GetOptions{})
		return err == nil && got.Status.DesiredHealthy == 2, err
	})

	high := wholeNodeGang(ns, "high", 2, prioHigh)
	env.CreateGang(t, high)
	env.WaitGangBound(t, ns, high.Name, 2, wait)
	waitGangGone(t, env, ns, older.Name)
	expectUntouched(t, env, ns, protected.Name, kept)
}

// Equal priority never preempts: a gang of the same priority as the gangs that fill the
// cluster waits and evicts nothing.
func TestPreemptionNeverAtEqualPriority(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-e", 2)
	low := wholeNodeGang(ns, "low", 2, prioLow)
	env.CreateGang(t, low)
	env.WaitGangBound(t, ns, low.Name, 2, wait)
	kept := podUIDs(t, env, ns, low.Name)

	before := preemptions(t, gangplugin.PreemptNoCandidates)
	same := wholeNodeGang(ns, "same", 2, prioLow)
	env.CreateGang(t, same)
	waitPreemptions(t, gangplugin.PreemptNoCandidates, before)
	expectUntouched(t, env, ns, low.Name, kept)
	expectNoneBound(t, env, ns, same.Name, "members of the equal-priority gang bound")
}

// A pod of no gang preempts by the same rule: on 2 nodes filled by one gang of 2, a
// high-priority pod of one node takes the gang whole (both members), never one member that
// would leave the gang below its minimum.
func TestPreemptionPlainPodTakesWholeGang(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-s", 2)
	low := wholeNodeGang(ns, "low", 2, prioLow)
	env.CreateGang(t, low)
	env.WaitGangBound(t, ns, low.Name, 2, wait)

	plain := plainPod(ns, "plain", prioHigh)
	env.CreatePods(t, plain)
	env.WaitGangBound(t, ns, "plain", 1, wait)
	waitGangGone(t, env, ns, low.Name)
	env.WaitGangCondition(t, ns, low.Name, gang.ConditionDisruptionTarget, metav1.ConditionTrue, gang.ReasonPreempted, wait)
}

// The room freed for a preemptor gang is held for it: a pod of the same priority that arrives
// while the victims terminate (a finalizer keeps them on their nodes here) does not take it
// when they go, and the gang is placed whole.
func TestPreemptionRoomHeldForPreemptor(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-h", 2)
	low := wholeNodeGang(ns, "low", 2, prioLow)
	release := createHeld(t, env, low)

	high := wholeNodeGang(ns, "high", 2, prioHigh)
	env.CreateGang(t, high)
	framework.Eventually(t, wait, "both victims terminating", func(ctx context.Context) (bool, error) {
		pods, err := env.GangPods(ctx, ns, low.Name)
		if err != nil {
			return false, err
		}
		n := 0
		for _, p := range pods {
			if p.DeletionTimestamp != nil {
				n++
			}
		}
		return n == 2, nil
	})
	env.WaitGangCondition(t, ns, high.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonWaitingForPreemption, wait)

	third := plainPod(ns, "third", prioHigh)
	env.CreatePods(t, third)
	release()
	env.WaitGangBound(t, ns, high.Name, 2, wait)
	expectNoneBound(t, env, ns, "third", "third pod took room held for the preemptor gang")
}

// A scheduler that restarts while the victims of its preemption terminate does not preempt
// again: the new one finds the preemptor fits once the terminating lower-priority pods are
// gone, waits for them, and the second low gang is never touched.
func TestPreemptionAfterRestartWaitsForTerminatingVictims(t *testing.T) {
	env := framework.Shared(t)
	ensurePriorityClasses(t, env)
	stop := env.StartPhalanx(t, framework.Phalanx{})
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("pre-r", 4, 8))
	var lows []framework.Gang
	var releases []func()
	for _, name := range []string{"low-1", "low-2"} {
		g := wholeNodeGang(ns, name, 2, prioLow)
		releases = append(releases, createHeld(t, env, g))
		lows = append(lows, g)
	}
	release := func() {
		for _, r := range releases {
			r()
		}
	}

	high := wholeNodeGang(ns, "high", 2, prioHigh)
	env.CreateGang(t, high)
	var victim, kept string
	framework.Eventually(t, wait, "one low gang terminating", func(ctx context.Context) (bool, error) {
		for i, g := range lows {
			pods, err := env.GangPods(ctx, ns, g.Name)
			if err != nil {
				return false, err
			}
			n := 0
			for _, p := range pods {
				if p.DeletionTimestamp != nil {
					n++
				}
			}
			if n == 2 {
				victim, kept = g.Name, lows[1-i].Name
				return true, nil
			}
		}
		return false, nil
	})
	before := podUIDs(t, env, ns, kept)
	stop()

	waiting := preemptions(t, gangplugin.PreemptWaiting)
	env.StartPhalanx(t, framework.Phalanx{})
	waitPreemptions(t, gangplugin.PreemptWaiting, waiting)
	for _, p := range mustGangPods(t, env, ns, kept) {
		if p.DeletionTimestamp != nil {
			t.Fatalf("the restarted scheduler preempted %s as well", p.Name)
		}
	}
	release()
	env.WaitGangBound(t, ns, high.Name, 2, wait)
	waitGangGone(t, env, ns, victim)
	expectUntouched(t, env, ns, kept, before)
}

func mustGangPods(t *testing.T, env *framework.Env, ns, name string) []corev1.Pod {
	t.Helper()
	pods, err := env.GangPods(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

// The room is held for an established gang's member too: X (minimum 2, 3 members, high
// priority) has 2 bound on 2 of 3 nodes and a low pod fills the third; X's third member
// preempts it, and a pod of X's priority arriving while the victim terminates does not take
// the node (the hold counts X's bound members, or they would end it at once).
func TestPreemptionRoomHeldForEstablishedGang(t *testing.T) {
	env, ns := preemptionSetup(t, "pre-x", 3)
	low := plainPod(ns, "low", prioLow)
	release := createHeld(t, env, framework.Gang{Namespace: ns, Name: "low"}, low)
	x := framework.Gang{Namespace: ns, Name: "x", PriorityClassName: prioHigh,
		Groups: []framework.Group{{Name: "w", Pods: 3, MinReplicas: 2, GPUs: 8}}}
	env.CreateGang(t, x)
	env.WaitGangBound(t, ns, x.Name, 2, wait)
	framework.Eventually(t, wait, "the low pod terminating", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, low.Name, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil, err
	})
	third := plainPod(ns, "third", prioHigh)
	env.CreatePods(t, third)
	release()
	env.WaitGangBound(t, ns, x.Name, 3, wait)
	expectNoneBound(t, env, ns, "third", "third pod took room held for the established gang's member")
}

// A preemptor gang whose podgroup must be in one rack (a podgroup-level required packing, a
// level inside the gang): 2 racks of 2 nodes, one low pod in each rack, so each rack has one
// free node. Without the level the pass finds room for both members at once (one node in each
// rack) and preempts nothing, while the gang's own placement refuses that split: the gang
// waited for ever. With the level, preemption frees one rack whole: one low pod goes, the other
// stays, and the gang binds in that rack.
func TestPreemptionKeepsPackingLevels(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	ensurePriorityClasses(t, env)
	env.AddNodes(t, localcluster.NodeShape{Prefix: "prelvl", Count: 4, GPUs: 8, CPU: "64", Memory: "512Gi", NodesPerRack: 2, RacksPerBlock: 2, BlocksPerZone: 1})
	var lows []framework.Gang
	for i, node := range []int{0, 2} {
		g := wholeNodeGang(ns, fmt.Sprintf("low-%d", i), 1, prioLow)
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(context.Background(), g.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := g.Pod(g.Groups[0], 0)
		pod.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": fmt.Sprintf("prelvl-%04d", node)}
		env.CreatePods(t, pod)
		env.WaitGangBound(t, ns, g.Name, 1, wait)
		lows = append(lows, g)
	}
	high := wholeNodeGang(ns, "high", 2, prioHigh)
	high.Customize = func(s *schedv1.PodGangSpec) { s.PodGroups[0].TopologyConstraint = pack(localcluster.LabelRack, "") }
	env.CreateGang(t, high)
	pods := env.WaitGangBound(t, ns, high.Name, 2, wait)
	racks := map[string]bool{}
	for _, p := range nodeLabels(t, env, pods) {
		racks[p[localcluster.LabelRack]] = true
	}
	if len(racks) != 1 {
		t.Errorf("the preemptor's podgroup is on racks %v, want one", racks)
	}
	left := 0
	for _, g := range lows {
		if p, _ := env.GangPods(context.Background(), ns, g.Name); len(p) > 0 {
			left++
		}
	}
	if left != 1 {
		t.Errorf("%d of the 2 low gangs left, want 1 (one rack freed, the other untouched)", left)
	}
}
