package framework

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EnsurePriorityClasses creates the PriorityClasses (name: value) that do not exist yet.
// PriorityClasses are cluster-wide: tests of one binary share them, so they are not deleted.
func (e *Env) EnsurePriorityClasses(t testing.TB, classes map[string]int32) {
	t.Helper()
	e.ensurePriorityClasses(t, classes, nil)
}

// EnsureNonPreemptingPriorityClasses is EnsurePriorityClasses for classes whose pods never
// preempt (preemptionPolicy Never).
func (e *Env) EnsureNonPreemptingPriorityClasses(t testing.TB, classes map[string]int32) {
	t.Helper()
	never := corev1.PreemptNever
	e.ensurePriorityClasses(t, classes, &never)
}

func (e *Env) ensurePriorityClasses(t testing.TB, classes map[string]int32, policy *corev1.PreemptionPolicy) {
	t.Helper()
	for name, value := range classes {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, PreemptionPolicy: policy}
		if _, err := e.Kube.SchedulingV1().PriorityClasses().Create(context.Background(), pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating PriorityClass %s: %v", name, err)
		}
	}
}
