package podgang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// reservingGang is PodGang name holding 8 GPUs on node r0 for its replacements since now.
func reservingGang(t *testing.T, name string) *schedv1.PodGang {
	t.Helper()
	raw, err := (&gang.Reservation{Since: time.Now(), Nodes: map[string]gang.Resources{"r0": {GPU: 8}}}).Annotation()
	if err != nil {
		t.Fatal(err)
	}
	return &schedv1.PodGang{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.Now(),
			Annotations: map[string]string{schedv1.AnnotationReservation: raw}},
		Spec: schedv1.PodGangSpec{PodGroups: []schedv1.PodGroup{{Name: "w", MinReplicas: 1}}},
	}
}

// freeGPUNode is node name with 8 GPUs allocatable and nothing on it.
func freeGPUNode(name string) fwk.NodeInfo {
	n := framework.NewNodeInfo()
	n.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		gang.ResourceGPU: resource.MustParse("8"), v1.ResourceCPU: resource.MustParse("64"), v1.ResourceMemory: resource.MustParse("512Gi")}}})
	return n
}

// A gang object deleted with an active reservation keeps its hold when the deletion carries
// its last state (it is made again), and ends it when the deletion is a relist's tombstone:
// the reservation may have been released before the deletion, unseen while the watch was
// broken, and the hold kept every other gang off the capacity for the rest of its window (a
// Coherent update after an API server restart: the next slice waited two minutes for a slice
// gang that was given up). The pod the hold kept off is tried again at once.
func TestHoldOfGangDeletedUnseenEnds(t *testing.T) {
	other := member("next-slice", 0)
	other.Spec.Containers[0].Resources.Requests[gang.ResourceGPU] = resource.MustParse("8")

	t.Run("deletion with its last state", func(t *testing.T) {
		p, _ := newTestPlugin(t)
		p.Store().SetReservationHold(2 * time.Minute)
		pg := reservingGang(t, "slice-0")
		p.GangHandlers().OnAdd(pg, false)
		p.GangHandlers().OnDelete(pg)
		if st := p.FilterHolds(other, freeGPUNode("r0")); st.IsSuccess() {
			t.Error("the hold of a gang deleted to be made again ended with its object")
		}
	})
	t.Run("deletion learned from a relist", func(t *testing.T) {
		p, h := newTestPlugin(t)
		p.Store().SetReservationHold(2 * time.Minute)
		pg := reservingGang(t, "slice-0")
		p.GangHandlers().OnAdd(pg, false)
		if st := p.FilterHolds(other, freeGPUNode("r0")); st.IsSuccess() {
			t.Fatal("the reservation holds nothing before the deletion")
		}
		p.GangHandlers().OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/slice-0", Obj: pg})
		if st := p.FilterHolds(other, freeGPUNode("r0")); !st.IsSuccess() {
			t.Errorf("the stale reservation of a gang whose deletion came from a relist still holds: %v", st)
		}
		if p.Store().HasActiveHolds() {
			t.Error("the store still reports an active hold")
		}
		if _, ok := h.activated["ns/next-slice-0"]; !ok {
			t.Errorf("the pod the hold kept off was not tried again; activated %v", h.activated)
		}
	})
}
