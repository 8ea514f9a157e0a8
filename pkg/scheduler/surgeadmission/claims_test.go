package surgeadmission

import (
	"context"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/surge"
)

// A surge pod's claims from ResourceClaimTemplates do not exist before the pod does: admission
// makes them as kube-controller-manager will (the template's spec, the pod as controlling
// owner, the name in the pod's status), so that the DRA plugin finds each pod's own claim;
// claims by name are left as they are, the caller's pods are not touched, and a template that
// does not exist is an error that names it.
func TestWithTemplateClaims(t *testing.T) {
	spec := resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "gpu",
		Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 8}}}}}
	templates := func(_ context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
		if ns == "ns" && name == "gpu8" {
			return &resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}}, nil
		}
		return nil, fmt.Errorf("resourceclaimtemplates %q not found", name)
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-3"}, Spec: v1.PodSpec{
		ResourceClaims: []v1.PodResourceClaim{{Name: "own", ResourceClaimTemplateName: ptr.To("gpu8")}, {Name: "shared", ResourceClaimName: ptr.To("nvlink")}},
		Containers:     []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: "own"}, {Name: "shared"}}}}},
	}}
	in := surge.AsCreated([]*v1.Pod{pod})
	claims, err := withTemplateClaims(context.Background(), in, templates)
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != 1 || claims[0].Spec.Devices.Requests[0].Exactly.Count != 8 {
		t.Fatalf("claims %+v; want one, the template's", claims)
	}
	name, mustCheckOwner, err := resourceclaim.Name(in[0], &in[0].Spec.ResourceClaims[0])
	if err != nil || name == nil || *name != claims[0].Name {
		t.Fatalf("the pod's claim %v resolves to %v (%v); want %s", in[0].Spec.ResourceClaims[0], name, err, claims[0].Name)
	}
	if !mustCheckOwner || resourceclaim.IsForPod(in[0], claims[0], false) != nil {
		t.Errorf("the made claim is not the pod's own: owner %v, pod UID %q", claims[0].OwnerReferences, in[0].UID)
	}
	if shared, _, _ := resourceclaim.Name(in[0], &in[0].Spec.ResourceClaims[1]); shared == nil || *shared != "nvlink" {
		t.Errorf("the claim by name resolves to %v", shared)
	}
	if pod.UID != "" || len(pod.Status.ResourceClaimStatuses) != 0 {
		t.Error("the request's own pod was changed")
	}
	missing := surge.AsCreated([]*v1.Pod{pod})
	missing[0].Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To("gone")
	if _, err := withTemplateClaims(context.Background(), missing, templates); err == nil || !strings.Contains(err.Error(), "ResourceClaimTemplate ns/gone") {
		t.Errorf("a missing template: %v; want an error naming it", err)
	}
}
