package gangplugin

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// Pods of no gang are signed for kube-scheduler's batching, with their priority (a hold's
// Filter reads it); gang members of every kind are not (their gang's pass places them).
func TestSignPod(t *testing.T) {
	p := NewAdapter(nil, gang.NewStore(gang.Membership{}, nil), Options{Kind: gang.KindPodGang})
	plain := func(prio int32) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: v1.PodSpec{Priority: ptr.To(prio)}}
	}
	a, st := p.SignPod(context.Background(), plain(5))
	if !st.IsSuccess() || len(a) != 1 || a[0].Key != PrioritySignerName || a[0].Value != int32(5) {
		t.Fatalf("a plain pod: %v %v, want its priority signed", a, st)
	}
	if b, _ := p.SignPod(context.Background(), plain(7)); b[0].Value == a[0].Value {
		t.Error("pods of different priorities signed alike: a hold keeps out one and not the other")
	}
	members := map[string]*v1.Pod{
		"PodGang":  {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{grovev1.LabelPodGang: "g"}}},
		"slice":    {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{grovev1.LabelCoherentSlice: "s"}}},
		"PodGroup": {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{schedulingv1.LabelPodGroup: "g"}}},
		"Workload": {Spec: v1.PodSpec{SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: ptr.To("g")}}},
	}
	for kind, pod := range members {
		if f, st := p.SignPod(context.Background(), pod); st.Code() != fwk.Unschedulable || f != nil {
			t.Errorf("a %s member: %v %v, want it left unsigned", kind, f, st)
		}
	}
}
