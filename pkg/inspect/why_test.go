package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// why answers for a preemptor that waits for its victims, a victim pod, and a member of a
// gang preempted whole.
func TestWhyPreemption(t *testing.T) {
	member := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{grovev1.LabelPodGang: "g"}}}
	}
	waiting := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}, Status: schedv1.PodGangStatus{Conditions: []metav1.Condition{{
		Type: schedv1.ConditionUnschedulable, Status: metav1.ConditionTrue, Reason: gang.ReasonWaitingForPreemption,
		Message: "preempting 2 pods of lower priority (PodGang ns/low) to make room; waiting for them to terminate"}}}}
	victimGang := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}, Status: schedv1.PodGangStatus{Conditions: []metav1.Condition{{
		Type: gang.ConditionDisruptionTarget, Status: metav1.ConditionTrue, Reason: gang.ReasonPreempted,
		Message: "preempted whole (2 members) to make room for PodGang ns/high (2 members) of higher priority 1000"}}}}
	victimPod := member("v")
	victimPod.Spec.NodeName = "n1"
	victimPod.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: corev1.PodReasonPreemptionByScheduler, Message: "phalanx-scheduler: preempting to make room for PodGang ns/high (2 members)"}}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		pg   *schedv1.PodGang
		want string
	}{
		{"preemptor", member("p"), waiting, "the gang waits: WaitingForPreemption: preempting 2 pods"},
		{"victim pod", victimPod, victimGang, "the pod was preempted: phalanx-scheduler: preempting to make room for PodGang ns/high"},
		{"member of a victim gang", member("m"), victimGang, "the pod was preempted: its gang was preempted whole (2 members) to make room for PodGang ns/high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := BuildWhy(tc.pod, tc.pg, nil, nil)
			if !strings.HasPrefix(w.Verdict, tc.want) {
				t.Errorf("verdict %q, want it to start with %q", w.Verdict, tc.want)
			}
			var out strings.Builder
			RenderWhy(&out, w, Palette{})
			if tc.name != "preemptor" && !strings.Contains(out.String(), "  preempted ") {
				t.Errorf("rendered without its preempted line:\n%s", out.String())
			}
		})
	}
}

// why for a member of a coherent slice names the slice's gang (not grove.io/podgang's), its
// role, and no base gang: the slice is placed on its own.
func TestWhySliceMember(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pd-0-prefill-0-w-0", Labels: map[string]string{
		grovev1.LabelPodGang: "pd-0", grovev1.LabelBasePodGang: "pd-0", grovev1.LabelCoherentSlice: "pd-0-slice-0"}}}
	slice := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pd-0-slice-0"}}
	w := BuildWhy(pod, slice, []corev1.Pod{*pod}, nil)
	if w.Gang != "pd-0-slice-0" || w.GangRole != "coherent slice" || w.BaseGang != "" {
		t.Errorf("gang %q role %q base %q; want the slice gang, role coherent slice, no base", w.Gang, w.GangRole, w.BaseGang)
	}
	var out strings.Builder
	RenderWhy(&out, w, Palette{})
	if !strings.Contains(out.String(), "pd-0-slice-0") {
		t.Errorf("rendered without the slice gang:\n%s", out.String())
	}
}

// why for a member of a gang that holds capacity for its replacements names the nodes and the
// DRA devices held.
func TestWhyReservationWithDevices(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g-w-0", Labels: map[string]string{grovev1.LabelPodGang: "g"}}}
	raw, err := (&gang.Reservation{Since: metav1.Now().Time, Nodes: map[string]gang.Resources{"n1": {Devices: 8}, "n2": {Devices: 4}}}).Annotation()
	if err != nil {
		t.Fatal(err)
	}
	pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", Annotations: map[string]string{schedv1.AnnotationReservation: raw}}}
	if w := BuildWhy(pod, pg, nil, nil); !strings.HasPrefix(w.Reservation, "capacity (with 12 DRA devices) on n1, n2 held for its replacements") {
		t.Errorf("reservation %q", w.Reservation)
	}
}
