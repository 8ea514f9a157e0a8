package controller

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
	"k8s.io/client-go/util/retry"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// setUnschedulable cordons (true) or uncordons the named nodes.
func setUnschedulable(t *testing.T, env *framework.Env, names []string, unschedulable bool) {
	t.Helper()
	for _, n := range names {
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			node, err := env.Kube.CoreV1().Nodes().Get(context.Background(), n, metav1.GetOptions{})
			if err != nil {
				return err
			}
			node.Spec.Unschedulable = unschedulable
			_, err = env.Kube.CoreV1().Nodes().Update(context.Background(), node, metav1.UpdateOptions{})
			return err
		}); err != nil {
			t.Fatalf("cordon %s = %v: %v", n, unschedulable, err)
		}
	}
}

// uidsOf returns the UIDs of the live pods of set, by name.
func uidsOf(t *testing.T, env *framework.Env, ns, set string) map[string]types.UID {
	t.Helper()
	pods, err := env.ListPods(context.Background(), ns, set)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]types.UID{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p.UID
		}
	}
	return out
}

// gangTerminationCase runs Grove's gang termination scenario (its e2e GT tests) on a real API
// server: every pod of pcs a whole node on exactly as many nodes, all Ready; the node of pod
// victim is cordoned and victim deleted, so that its replacement cannot be placed and its
// gang stays below its minimum. Past terminationDelay the pods of the unit that selects
// recycled (and only those) are deleted and recreated; the recreated gang is not placed in
// part while a node it needs stays cordoned (no GPUs held by a gang that cannot run); once the
// node is uncordoned every pod is Ready again. It returns the GangTerminated event's message.
func gangTerminationCase(t *testing.T, pcs *grovev1.PodCliqueSet, pods int, victim string, recycled func(pod string) bool, scope string) string {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	pcs.Namespace = ns
	env.AddNodes(t, framework.GPUNodes("gt"+strings.ToLower(scope[:1]), pods))
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, pcs.Name, 1, pods)
	// A breach counts only for a clique the controller has seen available (NotYetAvailable
	// before): the set counts as available earlier (a scaling group needs only minAvailable
	// replicas), and a pod lost before a pass saw its clique Ready left nothing to terminate
	// (make test under load: no termination in 90 s). The creation's end is the pass that saw
	// every pod Ready.
	framework.Eventually(t, framework.UpdateTimeout, "the creation recorded as ended", func(ctx context.Context) (bool, error) {
		got, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcs.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p := got.Status.UpdateProgress; p == nil || p.UpdateEndedAt == nil {
			return false, fmt.Errorf("status.updateProgress %+v", p)
		}
		return true, nil
	})
	before := uidsOf(t, env, ns, pcs.Name)
	terminations := framework.Metric(t, "phalanx_gang_terminations_total", map[string]string{"scope": scope})
	p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setUnschedulable(t, env, []string{p.Spec.NodeName}, true)
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, victim, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	framework.Eventually(t, framework.UpdateTimeout, "the recycled unit's pods recreated, the others kept", func(ctx context.Context) (bool, error) {
		now := uidsOf(t, env, ns, pcs.Name)
		for name, uid := range before {
			switch {
			case !recycled(name) && now[name] != uid:
				return false, framework.Terminal(fmt.Errorf("%s is outside the recycled unit but was recreated", name))
			case recycled(name) && (now[name] == "" || now[name] == uid):
				return false, fmt.Errorf("%s not recreated yet", name)
			}
		}
		return true, nil
	})
	// The recreated gang needs the cordoned node: it is tried and none of it binds.
	framework.Eventually(t, framework.UpdateTimeout, "the recreated gang tried and left whole in the queue", func(ctx context.Context) (bool, error) {
		list, err := env.ListPods(ctx, ns, pcs.Name)
		if err != nil {
			return false, err
		}
		for _, p := range list {
			if !recycled(p.Name) {
				continue
			}
			if p.Spec.NodeName != "" {
				return false, framework.Terminal(fmt.Errorf("%s was bound to %s while its gang cannot be placed whole", p.Name, p.Spec.NodeName))
			}
			if !unschedulable(p) {
				return false, fmt.Errorf("%s not tried yet", p.Name)
			}
		}
		return true, nil
	})
	setUnschedulable(t, env, []string{p.Spec.NodeName}, false)
	env.WaitAvailable(t, ns, pcs.Name, 1, pods)

	if d := framework.Metric(t, "phalanx_gang_terminations_total", map[string]string{"scope": scope}) - terminations; d != 1 {
		t.Errorf("phalanx_gang_terminations_total{scope=%s} grew by %v, want 1", scope, d)
	}
	var msg string
	framework.Eventually(t, wait, "event GangTerminated on the PodCliqueSet", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.kind": "PodCliqueSet", "involvedObject.name": pcs.Name, "reason": controller.ReasonGangTerminated}.String()})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		if len(list.Items) != 1 || list.Items[0].Count > 1 {
			return false, framework.Terminal(fmt.Errorf("%d GangTerminated events, want exactly one: %v", len(list.Items), list.Items))
		}
		msg = list.Items[0].Message
		return true, nil
	})
	return msg
}

func unschedulable(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// Gang termination of a whole replica (Grove's GT1): a standalone clique whose minAvailable is
// all its pods loses one that cannot come back; past terminationDelay every pod of the replica
// is recreated.
func TestGangTerminationReplica(t *testing.T) {
	pcs := framework.Workers("", "gtr", 0, 1, 600)
	pcs.Spec.Template.TerminationDelay = &metav1.Duration{Duration: 2 * time.Second}
	msg := gangTerminationCase(t, pcs, 3, "gtr-0-worker-1", func(string) bool { return true }, "Replica")
	if !containsAll(msg, "replica 0 recreated", "PodClique gtr-0-worker", "terminationDelay 2s", "3 pods deleted") {
		t.Errorf("event message %q does not say what was recycled and why", msg)
	}
}

// Gang termination of one scaling-group replica (Grove's GT5): the group keeps its
// minAvailable without the breached replica, so only that replica is recreated; the other
// group replica keeps its pods.
func TestGangTerminationScalingGroupReplica(t *testing.T) {
	pcs := framework.GroupSet("", "gts", 2, 1, 0, 1)
	pcs.Spec.Template.TerminationDelay = &metav1.Duration{Duration: 2 * time.Second}
	msg := gangTerminationCase(t, pcs, 6, "gts-0-sg-1-worker-0", func(pod string) bool { return strings.HasPrefix(pod, "gts-0-sg-1-") }, "ScalingGroupReplica")
	if !containsAll(msg, "replica 1 of scaling group sg in replica 0 recreated", "PodClique gts-0-sg-1-worker", "3 pods deleted") {
		t.Errorf("event message %q does not say what was recycled and why", msg)
	}
}

// Gang termination during the creation: the scaling group's second replica cannot be placed
// (3 nodes, 6 whole-node pods), so the creation never ends, while the first replica is up and
// keeps the set available (minAvailable 1). A pod of that replica is then lost for good; past
// terminationDelay the PodCliqueSet replica is recreated, as Grove's operator recreates it.
// Before, gang termination waited for the creation to end, and a pod lost before then kept
// it off for good.
func TestGangTerminationDuringCreation(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	pcs := framework.GroupSet(ns, "gtc", 2, 1, 0, 1)
	pcs.Spec.Template.TerminationDelay = &metav1.Duration{Duration: 2 * time.Second}
	env.AddNodes(t, framework.GPUNodes("gtc", 3))
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := []string{"gtc-0-sg-0-leader-0", "gtc-0-sg-0-worker-0", "gtc-0-sg-0-worker-1"}
	framework.Eventually(t, framework.UpdateTimeout, "the first group replica Running and seen available by the controller, the creation open", func(ctx context.Context) (bool, error) {
		got, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "gtc", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p := got.Status.UpdateProgress; p != nil && p.UpdateEndedAt != nil {
			return false, framework.Terminal(fmt.Errorf("the creation ended with a group replica unplaced: %+v", p))
		}
		sg, err := env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).Get(ctx, "gtc-0-sg", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if c := meta.FindStatusCondition(sg.Status.Conditions, "MinAvailableBreached"); c == nil || c.Status != metav1.ConditionFalse {
			return false, fmt.Errorf("scaling group MinAvailableBreached %+v", c)
		}
		for _, name := range first {
			p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if p.Status.Phase != corev1.PodRunning {
				return false, fmt.Errorf("%s %s", name, p.Status.Phase)
			}
		}
		return true, nil
	})
	before := uidsOf(t, env, ns, "gtc")
	victim, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "gtc-0-sg-0-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setUnschedulable(t, env, []string{victim.Spec.NodeName}, true)
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, victim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.UpdateTimeout, "the replica's pods recreated", func(ctx context.Context) (bool, error) {
		now := uidsOf(t, env, ns, "gtc")
		for _, name := range []string{"gtc-0-sg-0-leader-0", "gtc-0-sg-0-worker-1"} {
			if now[name] == "" || now[name] == before[name] {
				return false, fmt.Errorf("%s not recreated yet", name)
			}
		}
		return true, nil
	})
	framework.Eventually(t, wait, "event GangTerminated on the PodCliqueSet", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.kind": "PodCliqueSet", "involvedObject.name": "gtc", "reason": controller.ReasonGangTerminated}.String()})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		if !containsAll(list.Items[0].Message, "replica 0 recreated") {
			return false, framework.Terminal(fmt.Errorf("event %q does not name the replica", list.Items[0].Message))
		}
		return true, nil
	})
}
