package gang

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// A pod's devices are its claims' allocations: a claim shared by several pods counts once, on
// the first pod it is reserved for; one allocated in flight (not reserved yet) counts for the
// pod; an unallocated or unreadable claim, a template's claim not made yet, count nothing.
func TestDevicesAllocated(t *testing.T) {
	claim := func(name string, devices int, reservedFor ...types.UID) *resourceapi.ResourceClaim {
		c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if devices > 0 {
			c.Status.Allocation = &resourceapi.AllocationResult{}
			for i := 0; i < devices; i++ {
				c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results, resourceapi.DeviceRequestAllocationResult{Device: fmt.Sprint(i)})
			}
		}
		for _, u := range reservedFor {
			c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", UID: u})
		}
		return c
	}
	claims := map[string]*resourceapi.ResourceClaim{
		"own":       claim("own", 4, "a"),
		"shared":    claim("shared", 8, "b", "a"),
		"in-flight": claim("in-flight", 2),
		"none":      claim("none", 0),
		"tmpl-a":    claim("tmpl-a", 1, "a"),
	}
	get := func(ns, name string) (*resourceapi.ResourceClaim, error) {
		if c, ok := claims[name]; ok {
			return c, nil
		}
		return nil, fmt.Errorf("not found")
	}
	byName := func(n string) v1.PodResourceClaim { return v1.PodResourceClaim{Name: n, ResourceClaimName: ptr.To(n)} }
	a := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "a"}, Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{
		byName("own"), byName("shared"), byName("in-flight"), byName("none"), byName("missing"),
		{Name: "t", ResourceClaimTemplateName: ptr.To("tmpl")}, {Name: "later", ResourceClaimTemplateName: ptr.To("tmpl")}}}}
	a.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "t", ResourceClaimName: ptr.To("tmpl-a")}}
	if got := DevicesAllocated(get, a); got != 4+2+1 {
		t.Errorf("DevicesAllocated(a) = %d, want 7 (own 4, in flight 2, its template's 1; the shared claim is b's)", got)
	}
	b := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", UID: "b"}, Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{byName("shared")}}}
	if got := DevicesAllocated(get, b); got != 8 {
		t.Errorf("DevicesAllocated(b) = %d, want 8 (the shared claim, reserved for b first)", got)
	}
}

// A reservation of DRA devices (members that ask for no cpu, memory or GPU of their own) is
// taken back only when the bound members have the devices again; the devices go into the
// annotation and come back from it.
func TestReservationOfDevicesTakenBack(t *testing.T) {
	r := &Reservation{Since: time.Now(), Nodes: map[string]Resources{"n1": {Devices: 8}, "n2": {Devices: 8}}}
	if r.TakenBack(Resources{Devices: 8}) {
		t.Error("8 of 16 devices bound, yet taken back")
	}
	if !r.TakenBack(Resources{Devices: 16}) {
		t.Error("16 of 16 devices bound, yet not taken back")
	}
	raw, err := r.Annotation()
	if err != nil {
		t.Fatal(err)
	}
	back := ReservationFromPodGang(&schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{schedv1.AnnotationReservation: raw}}})
	if back == nil || back.Nodes["n1"].Devices != 8 || back.Nodes["n2"].Devices != 8 {
		t.Errorf("devices lost in the annotation %s: %+v", raw, back)
	}
}

// Two reservations written within one second are told apart: Since goes into the annotation to
// the microsecond (a reservation whose Since equals the last one taken back counts as done, so
// the second step of a fast update held nothing). An annotation of whole seconds (an older
// controller) still reads.
func TestReservationSinceKeepsMicroseconds(t *testing.T) {
	since := time.Date(2026, 12, 5, 12, 6, 28, 531_000_000, time.UTC)
	raw, err := (&Reservation{Since: since, Nodes: map[string]Resources{"n1": {GPU: 8}}}).Annotation()
	if err != nil {
		t.Fatal(err)
	}
	read := func(raw string) *Reservation {
		return ReservationFromPodGang(&schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{schedv1.AnnotationReservation: raw}}})
	}
	if back := read(raw); back == nil || !back.Since.Equal(since) {
		t.Errorf("Since %v written as %s, read back as %+v", since, raw, back)
	}
	if back := read(`{"since":"2026-12-05T12:06:28Z","nodes":{"n1":{"nvidia.com/gpu":"8"}}}`); back == nil || !back.Since.Equal(since.Truncate(time.Second)) || back.Nodes["n1"].GPU != 8 {
		t.Errorf("an annotation of whole seconds read as %+v", back)
	}
}
