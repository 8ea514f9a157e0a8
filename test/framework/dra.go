package framework

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// DRA test driver: the GPUs of fake nodes published as ResourceSlices, as a DRA driver's
// kubelet plugin would publish them. No kubelet is needed to schedule with them: the
// scheduler allocates the devices and writes the claims' allocation.
const (
	// GPUDriver is the test driver's name; its DeviceClass has the same name.
	GPUDriver = "gpu.test.phalanx.dev"
	// GPUModelAttribute is each device's model (a string attribute CEL selectors can read).
	GPUModelAttribute = "model"
)

// GPUDeviceClass is the DeviceClass of the test driver's GPUs (every device of the driver).
func GPUDeviceClass() *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: GPUDriver},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: fmt.Sprintf("device.driver == %q", GPUDriver)}}}}}
}

// CreateGPUDeviceClass creates GPUDeviceClass, once per cluster.
func (e *Env) CreateGPUDeviceClass(t testing.TB) {
	t.Helper()
	dc := GPUDeviceClass()
	if _, err := e.Kube.ResourceV1().DeviceClasses().Create(context.Background(), dc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating DeviceClass %s: %v", GPUDriver, err)
	}
}

// GPUSlice is the ResourceSlice of n GPUs of model on node: a pool named after the node.
func GPUSlice(node string, n int, model string) *resourcev1.ResourceSlice {
	devices := make([]resourcev1.Device, n)
	for i := range devices {
		devices[i] = resourcev1.Device{Name: fmt.Sprintf("gpu-%d", i), Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			GPUModelAttribute: {StringValue: ptr.To(model)},
			"index":           {IntValue: ptr.To(int64(i))},
		}}
	}
	return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourcev1.ResourceSliceSpec{Driver: GPUDriver, NodeName: ptr.To(node),
			Pool:    resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
			Devices: devices}}
}

// PublishGPUs publishes n GPUs of model on node (GPUSlice). Removed with the test.
func (e *Env) PublishGPUs(t testing.TB, node string, n int, model string) {
	t.Helper()
	rs := GPUSlice(node, n, model)
	ctx := context.Background()
	if _, err := e.Kube.ResourceV1().ResourceSlices().Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ResourceSlice %s: %v", rs.Name, err)
	}
	t.Cleanup(func() {
		_ = e.Kube.ResourceV1().ResourceSlices().Delete(context.Background(), rs.Name, metav1.DeleteOptions{})
	})
}

// GPUClaim is a ResourceClaim for count GPUs of the test driver (of model, when not empty:
// a CEL selector on the device attribute).
func GPUClaim(ns, name string, count int64, model string) *resourcev1.ResourceClaim {
	req := &resourcev1.ExactDeviceRequest{DeviceClassName: GPUDriver, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}
	if model != "" {
		req.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: fmt.Sprintf("device.attributes[%q].%s == %q", GPUDriver, GPUModelAttribute, model)}}}
	}
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: req}}}}}
}

// CreateClaims creates ResourceClaims.
func (e *Env) CreateClaims(t testing.TB, claims ...*resourcev1.ResourceClaim) {
	t.Helper()
	for _, c := range claims {
		if _, err := e.Kube.ResourceV1().ResourceClaims(c.Namespace).Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating ResourceClaim %s: %v", c.Name, err)
		}
	}
}

// UseClaim makes pod use the ResourceClaim named claim, and ask for no nvidia.com/gpu: its
// GPUs come from the claim.
func UseClaim(pod *corev1.Pod, claim string) {
	useGPUClaim(pod, corev1.PodResourceClaim{Name: "gpu", ResourceClaimName: ptr.To(claim)})
}

// UseClaimTemplate makes pod take its GPUs from a claim of its own, made from the
// ResourceClaimTemplate named template (kube-controller-manager's resourceclaim controller
// makes it, and deletes it with the pod), and ask for no nvidia.com/gpu.
func UseClaimTemplate(pod *corev1.Pod, template string) {
	useGPUClaim(pod, corev1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: ptr.To(template)})
}

func useGPUClaim(pod *corev1.Pod, rc corev1.PodResourceClaim) {
	pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, rc)
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		delete(c.Resources.Limits, "nvidia.com/gpu")
		delete(c.Resources.Requests, "nvidia.com/gpu")
		c.Resources.Claims = append(c.Resources.Claims, corev1.ResourceClaim{Name: "gpu"})
	}
}

// ReleaseClaims deallocates the claims of namespace ns whose names start with prefix, as
// kube-controller-manager's resourceclaim controller does once their pods are gone (a
// package whose control plane runs no controller manager does it in the test).
func (e *Env) ReleaseClaims(t testing.TB, ns, prefix string) {
	t.Helper()
	ctx := context.Background()
	list, err := e.Kube.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		c := &list.Items[i]
		if !strings.HasPrefix(c.Name, prefix) || c.Status.Allocation == nil {
			continue
		}
		c.Status.Allocation, c.Status.ReservedFor = nil, nil
		if _, err := e.Kube.ResourceV1().ResourceClaims(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("deallocating ResourceClaim %s: %v", c.Name, err)
		}
	}
}
