package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// A surge member of a gang with packing levels is asked about with the gang's levels, the
// podgroup of each of its pods and the gang's members on nodes (which fix their domains).
func TestSurgeRequestsCarryPackingLevels(t *testing.T) {
	pod := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{grovev1.LabelPodGang: "g"}}, Spec: corev1.PodSpec{NodeName: node}}
	}
	spec := gang.Spec{PodGroups: []gang.PodGroup{{Name: "leader", Pods: []string{"leader-0"}}, {Name: "worker", Pods: []string{"worker-0", "worker-1"}}},
		GroupPacks: []gang.GroupPack{{Name: "replica-0", PodGroups: []int{0, 1}, Pack: gang.Pack{Required: "rack"}}}}
	obs := &observed{pods: map[string]*corev1.Pod{"leader-0": pod("leader-0", "n1"), "worker-0": pod("worker-0", "n2")}}
	reqs := surgeRequests("surge worker[1]", []*corev1.Pod{pod("worker-1", "")}, map[string]gang.Spec{"g": spec}, obs)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if len(r.Levels) != 1 || r.Levels[0].Key != "rack" || r.Groups["worker-1"] != 1 {
		t.Errorf("levels %+v groups %v: want the group's rack level and worker-1 in podgroup 1", r.Levels, r.Groups)
	}
	if len(r.Placed) != 2 || r.Placed[0].Name != "leader-0" || r.Placed[0].Node != "n1" || r.Placed[1].Group != 1 {
		t.Errorf("placed %+v: want leader-0 on n1 and worker-0 in podgroup 1", r.Placed)
	}
}
