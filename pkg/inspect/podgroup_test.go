package inspect

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// status podgroup/NAME and why pod/NAME for an upstream PodGroup that waits for room, and for
// one established with a member replaced.
func TestPodGroupStatusAndWhy(t *testing.T) {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "serve"}, Spec: schedulingv1beta1.PodGroupSpec{
		SchedulingPolicy:      schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3}},
		SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "topology.phalanx.dev/rack"}}},
		DisruptionMode:        &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}, Priority: ptr.To[int32](0)},
		Status: schedulingv1beta1.PodGroupStatus{Conditions: []metav1.Condition{{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse,
			Reason: "Unschedulable", Message: "InsufficientResources: needs 24 nvidia.com/gpu, 16 free"}}}}
	var pods []corev1.Pod
	for i := 0; i < 3; i++ {
		pods = append(pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("serve-%d", i)},
			Spec:   corev1.PodSpec{SchedulerName: "phalanx-scheduler", SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: ptr.To("serve")}},
			Status: corev1.PodStatus{Phase: corev1.PodPending}})
	}
	var out strings.Builder
	RenderPodGroupStatus(&out, BuildPodGroupStatus(pg, pods), Palette{})
	want := `PodGroup.scheduling.k8s.io ns/serve  not established  minCount 3  disruptionMode Single  required topology topology.phalanx.dev/rack  priority 0
  quorum  0 bound, 3 present, minCount 3
  waiting InsufficientResources: needs 24 nvidia.com/gpu, 16 free
  pod serve-0  Pending  not ready  node -
  pod serve-1  Pending  not ready  node -
  pod serve-2  Pending  not ready  node -
`
	if out.String() != want {
		t.Errorf("status:\n%s\nwant:\n%s", out.String(), want)
	}
	w := buildWhy(&pods[0], workloadGroupFacts("serve", pg, pods), nil)
	out.Reset()
	RenderWhy(&out, w, Palette{})
	wantWhy := `pod ns/serve-0  Pending  node -  scheduler phalanx-scheduler
gang PodGroup.scheduling.k8s.io serve  not established
  quorum  0 bound, 3 present, minCount 3
  waiting InsufficientResources: needs 24 nvidia.com/gpu, 16 free
=> the gang waits: InsufficientResources: needs 24 nvidia.com/gpu, 16 free
`
	if out.String() != wantWhy {
		t.Errorf("why:\n%s\nwant:\n%s", out.String(), wantWhy)
	}
	if w := buildWhy(&pods[0], workloadGroupFacts("serve", nil, pods), nil); !strings.HasPrefix(w.Verdict, "its PodGroup.scheduling.k8s.io serve does not exist") {
		t.Errorf("missing group: %q", w.Verdict)
	}
	// Established: the condition is True and a member is bound; a member replaced waits alone.
	pg.Status.Conditions = []metav1.Condition{{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled"}}
	pods[0].Spec.NodeName, pods[1].Spec.NodeName = "n1", "n2"
	st := BuildPodGroupStatus(pg, pods)
	if !st.Established || st.Quorum != "2 bound, 3 present, minCount 3" || st.Waiting != "" {
		t.Errorf("established: %+v", st)
	}
}
