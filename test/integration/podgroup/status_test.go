package podgroup

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// PodGroup status reads as scheduler-plugins writes it, and every count is written, zeros
// included: 2 Running and 1 Succeeded of minMember 3 is Running; when all 3 have succeeded the
// group is Finished with running 0 (a merge patch of the struct used to leave running: 1).
func TestPodGroupStatusCounts(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, gpuNodes("counts", 3))
	createPodGroup(t, env, ns, "svc", 3)
	for i := 0; i < 3; i++ {
		tmpl := podTemplate("svc")
		env.CreatePods(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("svc-%d", i), Labels: tmpl.Labels}, Spec: tmpl.Spec})
	}
	status := func(what string, phase schedulingv1.PodGroupPhase, running, succeeded int32) {
		t.Helper()
		framework.Eventually(t, wait, what, func(ctx context.Context) (bool, error) {
			pg, err := env.Phalanx.SchedulingV1alpha1().PodGroups(ns).Get(ctx, "svc", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			st := pg.Status
			if st.Phase == phase && st.Running == running && st.Succeeded == succeeded && st.Failed == 0 {
				return true, nil
			}
			return false, fmt.Errorf("phase %s running %d succeeded %d failed %d", st.Phase, st.Running, st.Succeeded, st.Failed)
		})
	}
	status("all 3 Running", schedulingv1.PodGroupRunning, 3, 0)
	succeed := func(name string) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Status.Phase = corev1.PodSucceeded
			_, err = env.Kube.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	succeed("svc-0")
	status("2 Running + 1 Succeeded of minMember 3: Running", schedulingv1.PodGroupRunning, 2, 1)
	succeed("svc-1")
	succeed("svc-2")
	status("all succeeded: Finished, running 0", schedulingv1.PodGroupFinished, 0, 3)
}
