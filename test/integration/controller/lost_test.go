package controller

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// A member being deleted on a lost node (no kubelet confirms the end of its containers, so
// its object stays Terminating and keeps its name) is released once its deletion deadline has
// passed: its object is removed, the member is recreated at its index on a node that serves,
// with a LostMemberReleased event and phalanx_members_replaced_total{reason=NodeLost}. A member
// being deleted on a node that is still Ready is left to its kubelet.
//
// KWOK plays the kubelet until the test makes it leave the pod and the node
// (phalanx.dev/kwok-no-kubelet); the real-cluster test with a stopped kind node is
// TestKindNodeLostMidUpdate.
func TestLostNodeMemberReleased(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	lost := env.AddNodes(t, framework.GPUNodes("lostnode", 1))[0]
	env.AddNodes(t, framework.GPUNodes("lostserve", 2))
	env.StartPhalanx(t, framework.Phalanx{Controller: true, Configure: func(c *controller.Controller) { c.SetReleaseLostMembersAfter(0) }})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.Workers(ns, "ln", 0, 1, 600), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "ln", 1, 3)
	// Every pod is a whole node: one of the three is on the node to be lost.
	var victim corev1.Pod
	pods, err := env.ListPods(ctx, ns, "ln")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.Spec.NodeName == lost {
			victim = p
		}
	}
	if victim.Name == "" {
		t.Fatalf("no pod on %s", lost)
	}
	// The victim's kubelet no longer confirms deletions (KWOK leaves it: hack/kwok/stages.yaml).
	annotate(t, env, func(ctx context.Context) error {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&p.ObjectMeta, noKubelet, "true")
		_, err = env.Kube.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{})
		return err
	})
	before := framework.Metric(t, "phalanx_members_replaced_total", map[string]string{"reason": "NodeLost"})
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, victim.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](1)}); err != nil {
		t.Fatal(err)
	}
	// A pod past its deletion deadline on a node that is Ready is its kubelet's: left alone.
	framework.Eventually(t, wait, "the deletion deadline of "+victim.Name+" passed", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.DeletionTimestamp != nil && time.Now().After(p.DeletionTimestamp.Add(2*time.Second)), nil
	})
	if p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{}); err != nil || p.UID != victim.UID {
		t.Fatalf("%s on a Ready node was released before its node was lost (err %v)", victim.Name, err)
	}
	// Capacity for the replacement, then the node is lost.
	env.AddNodes(t, framework.GPUNodes("lostspare", 1))
	framework.Eventually(t, wait, "the deletion deadline of "+victim.Name+" passed", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.DeletionTimestamp != nil && time.Now().After(p.DeletionTimestamp.Add(time.Second)), nil
	})
	if p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{}); err != nil || p.UID != victim.UID {
		t.Fatalf("%s on a Ready node was released before its node was lost (err %v)", victim.Name, err)
	}
	loseNode(t, env, lost)

	framework.Eventually(t, framework.UpdateTimeout, victim.Name+" recreated on a node that serves", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.UID == victim.UID || p.Spec.NodeName == "" || p.Spec.NodeName == lost {
			return false, fmt.Errorf("same pod %v, node %q", p.UID == victim.UID, p.Spec.NodeName)
		}
		return true, nil
	})
	env.WaitAvailable(t, ns, "ln", 1, 3)
	framework.Eventually(t, wait, "event LostMemberReleased", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.kind": "PodCliqueSet", "involvedObject.name": "ln", "reason": controller.ReasonLostMemberReleased}.String()})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Type == corev1.EventTypeWarning && containsAll(e.Message, victim.Name, lost, "not Ready") {
				return true, nil
			}
		}
		return false, nil
	})
	if d := framework.Metric(t, "phalanx_members_replaced_total", map[string]string{"reason": "NodeLost"}) - before; d != 1 {
		t.Errorf("phalanx_members_replaced_total{reason=NodeLost} grew by %v, want 1", d)
	}
}

// noKubelet is the annotation that KWOK's stages leave alone (hack/kwok/stages.yaml).
const noKubelet = "phalanx.dev/kwok-no-kubelet"

// annotate runs update with conflict retries and fails the test on any other error.
func annotate(t *testing.T, env *framework.Env, update func(ctx context.Context) error) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error { return update(context.Background()) }); err != nil {
		t.Fatal(err)
	}
}

// loseNode makes KWOK leave the node (its kubelet is gone) and writes what the node lifecycle
// controller writes then: Ready Unknown and the unreachable taints.
func loseNode(t *testing.T, env *framework.Env, name string) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := env.Kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&n.ObjectMeta, noKubelet, "true")
		n.Spec.Taints = append(n.Spec.Taints,
			corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
			corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: ptr.To(metav1.Now())})
		_, err = env.Kube.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("tainting node %s: %v", name, err)
	}
	setNodeReady(t, env, name, corev1.ConditionUnknown)
}

// setNodeReady writes the node's Ready condition, as its kubelet (True) or the node lifecycle
// controller (Unknown) would.
func setNodeReady(t *testing.T, env *framework.Env, name string, status corev1.ConditionStatus) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := env.Kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		cond := corev1.NodeCondition{Type: corev1.NodeReady, Status: status, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}
		if status != corev1.ConditionTrue {
			cond.Reason = "NodeStatusUnknown"
		}
		n.Status.Conditions = append(slices.DeleteFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady }), cond)
		_, err = env.Kube.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("setting node %s Ready=%s: %v", name, status, err)
	}
}
