package integration

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/phalanx-sched/phalanx/test/framework"
)

// A profile listed in the PodGang plugin's kaiEventProfiles tells a pod it cannot place as KAI's
// scheduler does (a core/v1 Warning Unschedulable from the component named as the profile:
// what Grove's e2e suite waits for); another profile of the same scheduler keeps
// kube-scheduler's FailedScheduling.
func TestKAIEventProfiles(t *testing.T) {
	env := framework.Shared(t)
	env.StartPhalanx(t, framework.Phalanx{SchedulerNames: []string{"phalanx-scheduler", "kai-scheduler"}, KAIEventProfiles: []string{"kai-scheduler"}})
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("kai", 2, 8))

	// Each gang wants 16 GPUs per member: nothing fits.
	var kaiPod, plainPod string
	for _, c := range []struct {
		gang, schedulerName string
		name                *string
	}{{"kai", "kai-scheduler", &kaiPod}, {"plain", "phalanx-scheduler", &plainPod}} {
		g := framework.Gang{Namespace: ns, Name: c.gang, Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 16}}}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(framework.Context(t), g.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, p := range g.Pods() {
			p.Spec.SchedulerName = c.schedulerName
			env.CreatePods(t, p)
			*c.name = p.Name
		}
	}

	coreEvents := func(ctx context.Context, pod string) ([]corev1.Event, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", pod).String()})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
	framework.Eventually(t, time.Minute, "a KAI Unschedulable event on "+kaiPod, func(ctx context.Context) (bool, error) {
		events, err := coreEvents(ctx, kaiPod)
		for _, e := range events {
			if e.Reason == "FailedScheduling" {
				t.Fatalf("kai-scheduler's pod got kube-scheduler's FailedScheduling: %+v", e)
			}
			if e.Type == corev1.EventTypeWarning && e.Reason == "Unschedulable" && e.Source.Component == "kai-scheduler" && !e.LastTimestamp.IsZero() {
				return true, nil
			}
		}
		return false, err
	})
	framework.Eventually(t, time.Minute, "kube-scheduler's FailedScheduling on "+plainPod, func(ctx context.Context) (bool, error) {
		events, err := coreEvents(ctx, plainPod)
		for _, e := range events {
			if e.Reason == "Unschedulable" {
				t.Fatalf("phalanx-scheduler's pod got KAI's event: %+v", e)
			}
			if e.Type == corev1.EventTypeWarning && e.Reason == "FailedScheduling" && e.ReportingController == "phalanx-scheduler" {
				return true, nil
			}
		}
		return false, err
	})
}
