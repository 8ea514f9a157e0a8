package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/component-base/metrics/testutil"
	configv1 "k8s.io/kube-scheduler/config/v1"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	phalanxmetrics "github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

func gpuPod(ns, name string, gpus int64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			SchedulerName: scheduler.SchedulerName,
			Containers: []corev1.Container{{
				Name:  "main",
				Image: "registry.example/inference:v1",
				Resources: corev1.ResourceRequirements{
					Limits: corev1.ResourceList{localcluster.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)},
				},
			}},
		},
	}
}

// The loop of the foundation: a pod for phalanx-scheduler is bound to a fake GPU node and KWOK
// runs it; a pod that asks for more GPUs than any node has stays Pending with an event.
func TestSchedulerBindsToFakeGPUNode(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	nodes := env.AddNodes(t, localcluster.NodeShape{Prefix: "basic", Count: 2, GPUs: 8, CPU: "64", Memory: "512Gi"})
	env.StartScheduler(t, nil)

	fits, err := env.Kube.CoreV1().Pods(ns).Create(ctx, gpuPod(ns, "fits", 4), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tooBig, err := env.Kube.CoreV1().Pods(ns).Create(ctx, gpuPod(ns, "too-big", 9), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	framework.Eventually(t, 30*time.Second, "pod fits to be Running on a fake GPU node", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, fits.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning, nil
	})
	p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, fits.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != nodes[0] && p.Spec.NodeName != nodes[1] {
		t.Errorf("pod bound to %q, want one of the test's nodes %v", p.Spec.NodeName, nodes)
	}

	var event *corev1.Event
	framework.Eventually(t, 30*time.Second, "a FailedScheduling event for the 9-GPU pod", func(ctx context.Context) (bool, error) {
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"involvedObject.name": tooBig.Name, "reason": "FailedScheduling"}.String(),
		})
		if err != nil || len(events.Items) == 0 {
			return false, err
		}
		event = &events.Items[0]
		return true, nil
	})
	if event.Source.Component != scheduler.SchedulerName && event.ReportingController != scheduler.SchedulerName {
		t.Errorf("FailedScheduling reported by %q/%q, want %s", event.Source.Component, event.ReportingController, scheduler.SchedulerName)
	}
	if want := "Insufficient nvidia.com/gpu"; !strings.Contains(event.Message, want) {
		t.Errorf("FailedScheduling message %q does not name the missing resource (%q)", event.Message, want)
	}
	p, err = env.Kube.CoreV1().Pods(ns).Get(ctx, tooBig.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
		t.Errorf("9-GPU pod: node %q phase %s, want unbound and Pending", p.Spec.NodeName, p.Status.Phase)
	}
}

// Pods of no gang in phalanx-scheduler's profile are batched as kube-scheduler batches them
// (opportunistic batching, KEP-5598): the framework batches a profile's pods only when each of
// its Filter and Score plugins signs them, and the gang plugins did not, so every pod was
// scheduled from scratch. PodTopologySpread signs no pod while it has default constraints (the
// system's, in the default profile too), so the profile here has none, as a cluster that
// turns default spreading off. Pods alike, queued before the scheduler starts and one per
// node, are popped one after the other: the later ones take the node the batch hints. The
// profile plans such pods by default (TestPlainPodsPlanned), which narrows each cycle to one
// node and leaves the batch nothing to hint; with --plain-pod-plans=false they are batched.
func TestPlainPodsBatched(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	const n = 12
	env.AddNodes(t, localcluster.NodeShape{Prefix: "batch", Count: n, GPUs: 8, CPU: "64", Memory: "512Gi"})
	schedmetrics.Register() // once per process; the scheduler started below registers the same
	hints := schedmetrics.BatchAttemptStats.WithLabelValues(scheduler.SchedulerName, schedmetrics.BatchAttemptHintUsed)
	before, err := testutil.GetCounterMetricValue(hints)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := env.Kube.CoreV1().Pods(ns).Create(ctx, gpuPod(ns, fmt.Sprintf("plain-%d", i), 8), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.StartPhalanx(t, framework.Phalanx{PluginArgs: map[string]string{"PodTopologySpread": `{"defaultingType":"List"}`}, PlainPodSearch: true})
	framework.Eventually(t, 60*time.Second, "every plain pod bound", func(ctx context.Context) (bool, error) {
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				return false, fmt.Errorf("%s not bound", p.Name)
			}
		}
		return len(pods.Items) == n, nil
	})
	after, err := testutil.GetCounterMetricValue(hints)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pods, %.0f placed on the node their batch hinted", n, after-before)

	if after-before < 1 {
		t.Errorf("no pod of %d alike was placed from a batch hint: the profile does not batch pods of no gang", n)
	}
}

// Pods of no gang are placed by the profile's planner (gangplugin.planAlone), which keeps the
// Filter verdicts of pods alike while their nodes do not change, and their cycles check the
// one node it found. The planner scores as the cycle does: pods that prefer two of the nodes
// (node affinity, weight 100) fill those two first. A pod that fits nowhere is searched by
// its own cycle, whose verdicts name what is missing.
func TestPlainPodsPlanned(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	nodes := env.AddNodes(t, localcluster.NodeShape{Prefix: "alone", Count: 6, GPUs: 8, CPU: "64", Memory: "512Gi"})
	preferred := nodes[:2]
	phalanxmetrics.Register()
	placed := phalanxmetrics.PlainPodPlans.WithLabelValues("Placed")
	noPlacement := phalanxmetrics.PlainPodPlans.WithLabelValues("NoPlacement")
	placedBefore, err := testutil.GetCounterMetricValue(placed)
	if err != nil {
		t.Fatal(err)
	}
	noPlacementBefore, err := testutil.GetCounterMetricValue(noPlacement)
	if err != nil {
		t.Fatal(err)
	}
	env.StartPhalanx(t, framework.Phalanx{})

	const n = 8 // 2 GPUs each: exactly the preferred nodes' 16
	for i := 0; i < n; i++ {
		pod := gpuPod(ns, fmt.Sprintf("prefers-%d", i), 2)
		var terms []corev1.PreferredSchedulingTerm
		for _, node := range preferred { // a node field selector names one node
			terms = append(terms, corev1.PreferredSchedulingTerm{Weight: 100, Preference: corev1.NodeSelectorTerm{
				MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
			}})
		}
		pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
		// One at a time: each pod is planned against the nodes as the ones before it left them.
		if _, err := env.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, 30*time.Second, pod.Name+" bound", func(ctx context.Context) (bool, error) {
			p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
			return err == nil && p.Spec.NodeName != "", err
		})
	}
	pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != preferred[0] && p.Spec.NodeName != preferred[1] {
			t.Errorf("%s bound to %s, want one of the preferred nodes %v (they had room for every pod)", p.Name, p.Spec.NodeName, preferred)
		}
	}
	after, err := testutil.GetCounterMetricValue(placed)
	if err != nil {
		t.Fatal(err)
	}
	if after-placedBefore < n {
		t.Errorf("%.0f pods placed by the planner, want %d", after-placedBefore, n)
	}

	tooBig, err := env.Kube.CoreV1().Pods(ns).Create(ctx, gpuPod(ns, "too-big", 9), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, "a FailedScheduling event for the 9-GPU pod naming the missing resource", func(ctx context.Context) (bool, error) {
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"involvedObject.name": tooBig.Name, "reason": "FailedScheduling"}.String(),
		})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if strings.Contains(e.Message, "Insufficient nvidia.com/gpu") {
				return true, nil
			}
		}
		return false, nil
	})
	if got, err := testutil.GetCounterMetricValue(noPlacement); err != nil || got-noPlacementBefore < 1 {
		t.Errorf("the 9-GPU pod's pass: %v NoPlacement outcomes (err %v), want at least 1", got-noPlacementBefore, err)
	}
}

// The planner calls no scheduler extender, so with extenders configured pods of no gang keep
// kube-scheduler's own search, which asks them of every node it finds (the extender here has
// no verbs: it is never called).
func TestPlainPodsNotPlannedWithExtenders(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, localcluster.NodeShape{Prefix: "ext", Count: 2, GPUs: 8, CPU: "64", Memory: "512Gi"})
	phalanxmetrics.Register()
	placed := phalanxmetrics.PlainPodPlans.WithLabelValues("Placed")
	before, err := testutil.GetCounterMetricValue(placed)
	if err != nil {
		t.Fatal(err)
	}
	env.StartPhalanx(t, framework.Phalanx{Extenders: []configv1.Extender{{URLPrefix: "http://127.0.0.1:9/extender"}}})
	pod, err := env.Kube.CoreV1().Pods(ns).Create(ctx, gpuPod(ns, "plain", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, "the plain pod bound", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	if after, err := testutil.GetCounterMetricValue(placed); err != nil || after != before {
		t.Errorf("%.0f pods placed by the planner with an extender configured (err %v), want 0", after-before, err)
	}
}
