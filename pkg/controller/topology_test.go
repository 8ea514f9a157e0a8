package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// A check that runs on every pass records its Warning once per change, not once per pass.
func TestWarnOnlyWhenItChanges(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	c := &Controller{recorder: rec}
	pcs := &grovev1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	c.warn(pcs, ReasonTopologyNotFound, "one")
	c.warn(pcs, ReasonTopologyNotFound, "one")
	c.warn(pcs, ReasonTopologyDomainUnknown, "one") // another reason
	c.warn(pcs, ReasonTopologyNotFound, "two")
	c.clearWarning(pcs, ReasonTopologyNotFound)
	c.warn(pcs, ReasonTopologyNotFound, "two") // news again once cleared
	c.forgetWarnings("ns/a")
	c.warn(pcs, ReasonTopologyDomainUnknown, "one")
	if n := len(rec.Events); n != 5 {
		t.Fatalf("%d events, want 5", n)
	}
}
