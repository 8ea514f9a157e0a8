package workloadpodgroup

import (
	"context"
	"errors"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
)

// With kube-scheduler's own pod-group cycle on in this process (GenericWorkload), the plugin
// refuses to start, with the reason and the fix, before it touches anything.
func TestRefusesInTreeWorkloadCycle(t *testing.T) {
	gate := string(features.GenericWorkload)
	was := utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload)
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{gate: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{gate: was}) })
	_, err := New(nil)(context.Background(), nil, nil)
	if !errors.Is(err, ErrInTreeWorkload) {
		t.Fatalf("New = %v, want ErrInTreeWorkload", err)
	}
}
