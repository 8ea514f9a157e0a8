package gangplugin

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

const rackKey = "example.com/rack"

// node makes an 8-GPU node in rack with used GPUs taken by a filler pod.
func node(name, rack string, used int64) fwk.NodeInfo {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{rackKey: rack}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{gang.ResourceGPU: resource.MustParse("8"), v1.ResourceCPU: resource.MustParse("64"),
			v1.ResourceMemory: resource.MustParse("512Gi"), v1.ResourcePods: resource.MustParse("110")}}}
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	if used > 0 {
		ni.AddPod(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "filler-" + name, UID: types.UID("filler-" + name)},
			Spec: v1.PodSpec{NodeName: name, Containers: []v1.Container{{Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{gang.ResourceGPU: *resource.NewQuantity(used, resource.DecimalSI)}}}}}})
	}
	return ni
}

func member(i int, gpus int64) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("g-%d", i), UID: types.UID(fmt.Sprintf("g-%d", i)),
		Labels: map[string]string{"grove.io/podgang": "g"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{gang.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}}}}}}
}

func adapterWithGang(t *testing.T, members int, gpus int64, pack gang.Pack) (*Adapter, gang.Key) {
	t.Helper()
	store := gang.NewStore(gang.DefaultMembership(), time.Now)
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	store.SetSpec(gang.Spec{Key: k, Pack: pack, PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: int32(members)}}})
	for i := 0; i < members; i++ {
		store.UpsertPod(member(i, gpus))
	}
	return NewAdapter(nil, store, Options{Name: "PodGang", Kind: gang.KindPodGang}), k
}

// The required domain is the one with the least room left after the gang is packed into it
// (best fit); fragmented domains that cannot hold every member are skipped.
func TestChooseDomainBestFit(t *testing.T) {
	a, k := adapterWithGang(t, 2, 8, gang.Pack{Required: rackKey})
	nodes := []fwk.NodeInfo{
		node("a1", "rack-a", 0), node("a2", "rack-a", 0), node("a3", "rack-a", 0), // 24 free: fits, 8 left
		node("b1", "rack-b", 0), node("b2", "rack-b", 0), // 16 free: fits exactly
		node("c1", "rack-c", 4), node("c2", "rack-c", 4), node("c3", "rack-c", 4), node("c4", "rack-c", 4), // 16 free but fragmented
	}
	domain, names, msg := a.chooseDomain(k, rackKey, member(0, 8), nodes)
	if domain != "rack-b" || names.Len() != 2 || !names.Has("b1") {
		t.Fatalf("domain %q nodes %v (%s); want rack-b, the tightest rack that fits", domain, names.UnsortedList(), msg)
	}
	if got := a.store.Domain(k); got != "rack-b" {
		t.Errorf("domain not kept for the gang: %q", got)
	}
}

func TestChooseDomainNoneFits(t *testing.T) {
	a, k := adapterWithGang(t, 2, 8, gang.Pack{Required: rackKey})
	nodes := []fwk.NodeInfo{node("a1", "rack-a", 1), node("a2", "rack-a", 0), node("b1", "rack-b", 0)}
	domain, _, msg := a.chooseDomain(k, rackKey, member(0, 8), nodes)
	if domain != "" || !strings.Contains(msg, "needs 16 nvidia.com/gpu for 2 pods in one "+rackKey) || !strings.Contains(msg, "largest free: rack-a with 15") {
		t.Fatalf("domain %q, message %q", domain, msg)
	}
}

// Score: GPU bin-packing, and the preferred domain where the gang already is.
func TestScore(t *testing.T) {
	a, k := adapterWithGang(t, 2, 4, gang.Pack{Preferred: rackKey})
	a.store.Assume(member(0, 4), "a1")
	nodes := []fwk.NodeInfo{node("a1", "rack-a", 4), node("a2", "rack-a", 0), node("b1", "rack-b", 4)}
	pref := a.preferredDomain(k, rackKey, nodes)
	if pref != "rack-a" {
		t.Fatalf("preferred domain %q, want rack-a where member 0 is", pref)
	}
	state := framework.NewCycleState()
	state.Write(a.stateKey(), &cycleState{gpus: 4, prefs: []prefDomain{{key: rackKey, value: pref}}})
	score := func(n fwk.NodeInfo) int64 {
		s, st := a.Score(nil, state, member(1, 4), n)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		return s
	}
	sa1, sa2, sb1 := score(nodes[0]), score(nodes[1]), score(nodes[2])
	if !(sa1 > sa2 && sa1 > sb1) {
		t.Errorf("scores a1 %d a2 %d b1 %d: the partly used node in the preferred rack must win", sa1, sa2, sb1)
	}
	if sa2 <= sb1 {
		t.Errorf("scores a2 %d b1 %d: an empty node in the preferred rack must beat a fuller node outside it", sa2, sb1)
	}
}
