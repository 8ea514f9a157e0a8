package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// The Workload API is off by default in Kubernetes 1.37 (this binary's API server does not
// serve it). Phalanx starts and schedules without it; when the API server is restarted with
// the API on, the WorkloadPodGroup plugin's discovery check finds it and a PodGroup's members
// are gang-scheduled, without a restart of Phalanx. (The API server keeps the API on for the
// tests that follow; this file's test runs last in the binary.)
func TestWorkloadAPIServedLater(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	if _, err := env.Kube.Discovery().ServerResourcesForGroupVersion(schedulingv1beta1.SchemeGroupVersion.String()); err == nil {
		t.Skip("the API server serves scheduling.k8s.io/v1beta1 already (a control plane shared with PHALANX_LOCAL_DIR)")
	}
	recheck := gangplugin.KindRecheck
	gangplugin.KindRecheck = 500 * time.Millisecond
	t.Cleanup(func() { gangplugin.KindRecheck = recheck })
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("wl-later", 2))
	newPod := func(name, group string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{
			SchedulerName: scheduler.SchedulerName, TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/x:v1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("4")}}}}}}
		if group != "" {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
		}
		return p
	}
	env.CreatePods(t, newPod("plain", ""))
	framework.Eventually(t, wait, "a plain pod bound while the Workload API is off", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "plain", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	if env.Cluster == nil {
		t.Skip("the control plane was not started by this test binary")
	}
	if err := env.Cluster.RestartAPIServerWith(ctx, localcluster.WorkloadAPIArgs...); err != nil {
		t.Skipf("cannot restart the API server here: %v", err)
	}
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g"}, Spec: schedulingv1beta1.PodGroupSpec{
		SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3}}}}
	framework.Eventually(t, wait, "PodGroup created once the API is served", func(ctx context.Context) (bool, error) {
		_, err := env.Kube.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{})
		return err == nil, nil
	})
	env.CreatePods(t, newPod("g-0", "g"), newPod("g-1", "g"), newPod("g-2", "g"))
	framework.Eventually(t, wait, "the group's 3 members bound and PodGroupInitiallyScheduled=True", func(ctx context.Context) (bool, error) {
		bound := 0
		for _, name := range []string{"g-0", "g-1", "g-2"} {
			p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if p.Spec.SchedulingGroup == nil {
				return false, framework.Terminal(fmt.Errorf("pod %s lost spec.schedulingGroup: the API server does not serve the Workload API", name))
			}
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		got, err := env.Kube.SchedulingV1beta1().PodGroups(ns).Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return bound == 3 && meta.IsStatusConditionTrue(got.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled), nil
	})
}
