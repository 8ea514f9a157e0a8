package controller

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// The reservation of a gang whose member is replaced holds what its bound members hold, not
// what its surge member holds: the surge goes when the update completes, and its node would
// stay held for nobody until the hold expired.
func TestReservationLeavesSurgeOut(t *testing.T) {
	pod := func(name, idx, node string, surge bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{grovev1.LabelPodGang: "p-2",
			grovev1.LabelPodClique: "p-2-worker", grovev1.LabelPodCliquePodIndex: idx}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "w", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}}}}
		if surge {
			p.Labels[grovev1.LabelSurge] = "true"
		}
		return p
	}
	obs := &observed{pods: map[string]*corev1.Pod{
		"p-2-worker-0": pod("p-2-worker-0", "0", "n3", false),
		"p-2-worker-1": pod("p-2-worker-1", "1", "n4", true),
	}}
	ro := &rollout{replaced: map[string]bool{"p-2-worker/0": true}}
	res, err := reservations(obs, ro, metav1.Now())
	if err != nil {
		t.Fatal(err)
	}
	var r schedv1.Reservation
	if err := json.Unmarshal([]byte(res["p-2"]), &r); err != nil {
		t.Fatalf("reservation of p-2 %q: %v", res["p-2"], err)
	}
	if len(r.Nodes) != 1 || r.Nodes["n3"] == nil {
		t.Errorf("reserved nodes %v; want only n3 (the surge member's n4 is not held)", r.Nodes)
	}
}
