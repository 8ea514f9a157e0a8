package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// finish gives a running pod the status the kubelet writes when it evicts it or the pod exits:
// the object stays, with a terminal phase.
func finish(t *testing.T, env *framework.Env, ns, name string, phase corev1.PodPhase, reason, message string) types.UID {
	t.Helper()
	var uid types.UID
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		uid = p.UID
		p.Status.Phase, p.Status.Reason, p.Status.Message = phase, reason, message
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodReady || p.Status.Conditions[i].Type == corev1.ContainersReady {
				p.Status.Conditions[i].Status = corev1.ConditionFalse
			}
		}
		_, err = env.Kube.CoreV1().Pods(ns).UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("marking %s %s: %v", name, phase, err)
	}
	return uid
}

// Self-healing (docs/architecture.md), outside any update: an evicted member (phase Failed, reason Evicted,
// the object left in place) and a member that exited (Succeeded) are holes. Each is deleted
// and recreated at its index, with an event on the PodCliqueSet and a count in
// phalanx_members_replaced_total, and the PodCliqueSet is available again.
func TestFinishedMembersReplaced(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("heal", 3))
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.Workers(ns, "hl", 0, 1, 600), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "hl", 1, 3)
	evictedBefore := framework.Metric(t, "phalanx_members_replaced_total", map[string]string{"reason": "Evicted"})
	succeededBefore := framework.Metric(t, "phalanx_members_replaced_total", map[string]string{"reason": "Succeeded"})

	old := map[string]types.UID{
		"hl-0-worker-1": finish(t, env, ns, "hl-0-worker-1", corev1.PodFailed, "Evicted", "The node was low on resource: memory."),
		"hl-0-worker-2": finish(t, env, ns, "hl-0-worker-2", corev1.PodSucceeded, "", ""),
	}
	framework.Eventually(t, framework.UpdateTimeout, "both members recreated at their index and Running", func(ctx context.Context) (bool, error) {
		for name, uid := range old {
			p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if p.UID == uid || !framework.ReadyPod(*p) {
				return false, fmt.Errorf("%s: same pod %v, Ready %v", name, p.UID == uid, framework.ReadyPod(*p))
			}
		}
		return true, nil
	})
	env.WaitAvailable(t, ns, "hl", 1, 3)
	for name, reason := range map[string]string{"hl-0-worker-1": "Evicted: The node was low on resource: memory.", "hl-0-worker-2": "no reason given"} {
		framework.Eventually(t, wait, "event MemberReplaced for "+name, func(ctx context.Context) (bool, error) {
			list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
				"involvedObject.kind": "PodCliqueSet", "involvedObject.name": "hl", "reason": controller.ReasonMemberReplaced}.String()})
			if err != nil {
				return false, err
			}
			for _, e := range list.Items {
				if e.Type == corev1.EventTypeWarning && containsAll(e.Message, name, reason) {
					return true, nil
				}
			}
			return false, nil
		})
	}
	if d := framework.Metric(t, "phalanx_members_replaced_total", map[string]string{"reason": "Evicted"}) - evictedBefore; d != 1 {
		t.Errorf("phalanx_members_replaced_total{reason=Evicted} grew by %v, want 1", d)
	}
	if d := framework.Metric(t, "phalanx_members_replaced_total", map[string]string{"reason": "Succeeded"}) - succeededBefore; d != 1 {
		t.Errorf("phalanx_members_replaced_total{reason=Succeeded} grew by %v, want 1", d)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
