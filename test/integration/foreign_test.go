package integration

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/util/retry"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// docs/architecture.md rule 10: a PodGang whose pods are all for another scheduler is that scheduler's.
// Phalanx writes no status and no event on it, however often it sees the gang change.
func TestForeignPodGangLeftAlone(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("foreign", 2, 8))

	// The other scheduler's gang: created, its pods bound and its status written by "it".
	g := framework.Gang{Namespace: ns, Name: "theirs", Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, p := range g.Pods() {
		p.Spec.SchedulerName = "other-scheduler"
		env.CreatePods(t, p)
		if err := env.Kube.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name},
			Target: corev1.ObjectReference{Kind: "Node", Name: []string{"foreign-0", "foreign-1"}[i]}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("binding %s as the other scheduler: %v", p.Name, err)
		}
	}
	pg, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, g.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Status.Phase = schedv1.PodGangRunning
	meta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: schedv1.ConditionScheduled, Status: metav1.ConditionTrue, Reason: "PlacedByOther", Message: "the other scheduler placed it"})
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).UpdateStatus(ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Changes Phalanx sees: the gang object and its pods.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pg, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, g.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		pg.Labels = map[string]string{"test.phalanx.dev/touched": "yes"}
		_, err = env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Update(ctx, pg, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// A gang of Phalanx's after it: the status writer is one FIFO worker, so once this gang's
	// status is written, every earlier change of the foreign gang has been looked at.
	mine := framework.Gang{Namespace: ns, Name: "mine", Groups: []framework.Group{{Name: "w", Pods: 1, MinReplicas: 1, GPUs: 1}}}
	env.CreateGang(t, mine)
	env.WaitGangCondition(t, ns, mine.Name, schedv1.ConditionScheduled, metav1.ConditionTrue, "", wait)

	got, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, g.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != schedv1.PodGangRunning {
		t.Errorf("foreign PodGang phase = %q, want Running as its scheduler wrote it", got.Status.Phase)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, schedv1.ConditionScheduled); c == nil || c.Status != metav1.ConditionTrue || c.Reason != "PlacedByOther" {
		t.Errorf("foreign PodGang Scheduled condition = %+v, want the other scheduler's", c)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, schedv1.ConditionUnschedulable); c != nil {
		t.Errorf("Phalanx wrote an Unschedulable condition on a foreign PodGang: %+v", c)
	}
	events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{"involvedObject.kind": "PodGang", "involvedObject.name": g.Name}.String()})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		t.Errorf("event on a foreign PodGang: %s %s", e.Reason, e.Message)
	}
}
