package surgeadmission

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/surge"
)

// A surge pod's claims from ResourceClaimTemplates do not exist before the pod does: they are
// left out of the admission pass (with the containers' references to them), claims by name
// stay, and the caller's pods are not touched.
func TestWithoutTemplateClaims(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		ResourceClaims: []v1.PodResourceClaim{{Name: "own", ResourceClaimTemplateName: ptr.To("gpu")}, {Name: "shared", ResourceClaimName: ptr.To("nvlink")}},
		Containers:     []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: "own"}, {Name: "shared"}}}}},
	}}
	in := surge.AsCreated([]*v1.Pod{pod})
	out, dropped := withoutTemplateClaims(in)
	if dropped != 1 || len(out[0].Spec.ResourceClaims) != 1 || out[0].Spec.ResourceClaims[0].Name != "shared" {
		t.Fatalf("dropped %d, claims left %v; want the template's claim gone and the shared one kept", dropped, out[0].Spec.ResourceClaims)
	}
	if refs := out[0].Spec.Containers[0].Resources.Claims; len(refs) != 1 || refs[0].Name != "shared" {
		t.Errorf("container claim references %v, want only shared", refs)
	}
	if len(pod.Spec.ResourceClaims) != 2 || len(pod.Spec.Containers[0].Resources.Claims) != 2 {
		t.Error("the request's own pod was changed")
	}
}
