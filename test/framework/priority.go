package framework

import (
	"context"
	"testing"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EnsurePriorityClasses creates the PriorityClasses (name: value) that do not exist yet.
// PriorityClasses are cluster-wide: tests of one binary share them, so they are not deleted.
func (e *Env) EnsurePriorityClasses(t testing.TB, classes map[string]int32) {
	t.Helper()
	for name, value := range classes {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := e.Kube.SchedulingV1().PriorityClasses().Create(context.Background(), pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating PriorityClass %s: %v", name, err)
		}
	}
}
