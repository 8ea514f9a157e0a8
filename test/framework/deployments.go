package framework

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WaitRolledOut waits until the Deployment's generation is observed and rolled out: every one
// of its replicas updated and available, none unavailable, no surge pod left.
func (e *Env) WaitRolledOut(t testing.TB, ns, name string, generation int64, replicas int32) {
	t.Helper()
	Eventually(t, UpdateTimeout, fmt.Sprintf("deployment %s generation %d rolled out", name, generation), func(ctx context.Context) (bool, error) {
		d, err := e.Kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := d.Status
		return d.Generation == generation && s.ObservedGeneration == generation && s.UpdatedReplicas == replicas &&
			s.AvailableReplicas == replicas && s.Replicas == replicas && s.UnavailableReplicas == 0, nil
	})
}
