package controller

import (
	"encoding/json"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/update"
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
	ro := &rollout{replaced: map[update.MemberRef]bool{{Kind: update.Pods, Unit: "p-2-worker", Index: 0}: true}}
	res, err := reservations(obs, ro, metav1.Now(), func(*corev1.Pod) (int64, error) { return 0, nil })
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

// Coherent: what a drained slice's pods hold is reserved for the slice gang that makes the
// slice again, not for their regular gangs (base and scaled), whose own replacements will not
// come: the regular gangs would hold those nodes for nobody until the hold expired.
func TestReservationOfDrainedSliceGoesToItsSliceGang(t *testing.T) {
	pod := func(name, gang, group, idx, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{grovev1.LabelPodGang: gang,
			grovev1.LabelPodCliqueScalingGroup: group, grovev1.LabelPodCliqueScalingGroupReplicaIndex: idx}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "w", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}}}}
	}
	obs := &observed{pods: map[string]*corev1.Pod{
		"pd-0-prefill-0-w-0": pod("pd-0-prefill-0-w-0", "pd-0", "pd-0-prefill", "0", "n1"),
		"pd-0-decode-0-w-0":  pod("pd-0-decode-0-w-0", "pd-0", "pd-0-decode", "0", "n2"),
		"pd-0-frontend-0":    pod("pd-0-frontend-0", "pd-0", "", "", "n3"),
		"pd-0-decode-1-w-0":  pod("pd-0-decode-1-w-0", "pd-0-decode-1", "pd-0-decode", "1", "n4"),
	}}
	obs.pods["pd-0-frontend-0"].Labels[grovev1.LabelPodClique] = "pd-0-frontend"
	prefill0 := update.MemberRef{Kind: update.GroupReplicas, Unit: "pd-0-prefill", Index: 0}
	decode0 := update.MemberRef{Kind: update.GroupReplicas, Unit: "pd-0-decode", Index: 0}
	ro := &rollout{
		replaced:       map[update.MemberRef]bool{prefill0: true, decode0: true},
		replacedSlices: map[update.MemberRef]string{prefill0: "pd-0-slice-0", decode0: "pd-0-slice-0"},
	}
	res, err := reservations(obs, ro, metav1.Now(), func(*corev1.Pod) (int64, error) { return 0, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res["pd-0"]; ok || len(res) != 1 {
		t.Fatalf("reservations %v: want only the slice gang's", res)
	}
	var r schedv1.Reservation
	if err := json.Unmarshal([]byte(res["pd-0-slice-0"]), &r); err != nil {
		t.Fatalf("reservation of pd-0-slice-0 %q: %v", res["pd-0-slice-0"], err)
	}
	if len(r.Nodes) != 2 || r.Nodes["n1"] == nil || r.Nodes["n2"] == nil {
		t.Errorf("reserved nodes %v; want n1 and n2 (the drained slice's), not the frontend's n3 nor n4", r.Nodes)
	}
}

// A replaced member's DRA devices are reserved with its GPUs (schedv1.ReservationDevices, per
// node), and the scheduler reads them back as the hold's Devices.
func TestReservationHoldsDevices(t *testing.T) {
	pod := func(name, idx, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{grovev1.LabelPodGang: "p-0",
			grovev1.LabelPodClique: "p-0-worker", grovev1.LabelPodCliquePodIndex: idx}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "w"}}}}
	}
	obs := &observed{pods: map[string]*corev1.Pod{
		"p-0-worker-0": pod("p-0-worker-0", "0", "n1"),
		"p-0-worker-1": pod("p-0-worker-1", "1", "n2"),
	}}
	ro := &rollout{replaced: map[update.MemberRef]bool{{Kind: update.Pods, Unit: "p-0-worker", Index: 0}: true}}
	devices := map[string]int64{"p-0-worker-0": 8, "p-0-worker-1": 4}
	res, err := reservations(obs, ro, metav1.Now(), func(p *corev1.Pod) (int64, error) { return devices[p.Name], nil })
	if err != nil {
		t.Fatal(err)
	}
	r := gang.ReservationFromPodGang(&schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{schedv1.AnnotationReservation: res["p-0"]}}})
	if r == nil {
		t.Fatalf("reservation %q unreadable", res["p-0"])
	}
	if r.Nodes["n1"].Devices != 8 || r.Nodes["n2"].Devices != 4 {
		t.Errorf("reserved devices n1 %d, n2 %d; want 8 and 4 (%s)", r.Nodes["n1"].Devices, r.Nodes["n2"].Devices, res["p-0"])
	}
}

// A replaced member whose claims cannot be read fails the pass (it is retried) rather than
// being deleted with a reservation that holds none of its devices.
func TestReservationUnreadableClaimFailsThePass(t *testing.T) {
	obs := &observed{pods: map[string]*corev1.Pod{"p-0-worker-0": {
		ObjectMeta: metav1.ObjectMeta{Name: "p-0-worker-0", Labels: map[string]string{grovev1.LabelPodGang: "p-0",
			grovev1.LabelPodClique: "p-0-worker", grovev1.LabelPodCliquePodIndex: "0"}},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "w"}}}}}}
	ro := &rollout{replaced: map[update.MemberRef]bool{{Kind: update.Pods, Unit: "p-0-worker", Index: 0}: true}}
	boom := errors.New("the server is currently unable to handle the request")
	res, err := reservations(obs, ro, metav1.Now(), func(*corev1.Pod) (int64, error) { return 0, boom })
	if !errors.Is(err, boom) || res != nil {
		t.Fatalf("reservations = %v, %v; want the read error and no reservation", res, err)
	}
}
