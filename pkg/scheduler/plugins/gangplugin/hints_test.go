package gangplugin

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// A member with claims that the pass refused for want of devices is woken when a claim gives
// its devices back (allocation removed, deleted with one, or lost by the informer) or when a
// ResourceSlice comes or changes; a claim allocated or changed otherwise, and any change for
// a pod without claims, wake nothing.
func TestHintDevices(t *testing.T) {
	withClaims := &v1.Pod{Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("c")}}}}
	plain := &v1.Pod{}
	allocated := &resourceapi.ResourceClaim{Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{}}}
	free := &resourceapi.ResourceClaim{}
	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		old, new any
		want     fwk.QueueingHint
	}{
		{"deallocated", withClaims, allocated, free, fwk.Queue},
		{"deleted with its allocation", withClaims, allocated, nil, fwk.Queue},
		{"deleted, final state unknown", withClaims, cache.DeletedFinalStateUnknown{Obj: allocated}, nil, fwk.Queue},
		{"deleted unallocated", withClaims, free, nil, fwk.QueueSkip},
		{"allocated", withClaims, free, allocated, fwk.QueueSkip},
		{"changed, still allocated", withClaims, allocated, allocated, fwk.QueueSkip},
		{"deallocated, pod without claims", plain, allocated, free, fwk.QueueSkip},
	} {
		if got, err := hintDevicesFreed(klog.Background(), tc.pod, tc.old, tc.new); err != nil || got != tc.want {
			t.Errorf("%s: hintDevicesFreed = %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
	if got, _ := hintDevicesAdded(klog.Background(), withClaims, nil, &resourceapi.ResourceSlice{}); got != fwk.Queue {
		t.Errorf("a slice added does not wake a pod with claims")
	}
	if got, _ := hintDevicesAdded(klog.Background(), plain, nil, &resourceapi.ResourceSlice{}); got != fwk.QueueSkip {
		t.Errorf("a slice added wakes a pod without claims")
	}
}

// A node update wakes a member only when the node takes more pods than before: uncordoned, or
// a taint removed (a gang whose plan found no room was rejected by this plugin, so
// NodeUnschedulable's and TaintToleration's hints never see it).
func TestHintNodeOpened(t *testing.T) {
	taint := v1.Taint{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}
	node := func(cordoned bool, taints ...v1.Taint) *v1.Node {
		return &v1.Node{Spec: v1.NodeSpec{Unschedulable: cordoned, Taints: taints}}
	}
	cases := []struct {
		name          string
		before, after *v1.Node
		want          fwk.QueueingHint
	}{
		{"uncordoned", node(true), node(false), fwk.Queue},
		{"cordoned", node(false), node(true), fwk.QueueSkip},
		{"taint removed", node(false, taint), node(false), fwk.Queue},
		{"taint added", node(false), node(false, taint), fwk.QueueSkip},
		{"taint kept, cordoned still", node(true, taint), node(true, taint), fwk.QueueSkip},
	}
	for _, c := range cases {
		got, err := hintNodeOpened(klog.Background(), &v1.Pod{}, c.before, c.after)
		if err != nil || got != c.want {
			t.Errorf("%s: hint %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// A member its gang holds at PreEnqueue (here: the gang lacks a member) is not requeued by a
// node or device event, which cannot admit it; an admitted member and a pod of no gang are.
func TestCapacityHintsSkipGatedMembers(t *testing.T) {
	store := gang.NewStore(gang.DefaultMembership(), time.Now)
	p := NewAdapter(&wakeups{woken: map[string]time.Time{}}, store, Options{Name: "PodGang", Kind: gang.KindPodGang, PermitTimeout: time.Minute})
	p.SetStatusSink(noStatus{})
	for _, g := range []struct {
		name string
		min  int32
	}{{"short", 2}, {"whole", 1}} {
		store.SetSpec(gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: g.name},
			PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: g.min}}, CreatedAt: time.Now()})
	}
	pod := func(g string) *v1.Pod {
		m := member(0, 8)
		m.Name, m.UID = g+"-0", types.UID(g+"-0")
		m.Labels["grove.io/podgang"] = g
		p.recordPod(m)
		return m
	}
	gated, admitted := pod("short"), pod("whole")
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain"}}
	if ok, _ := store.Admissible(gated); ok {
		t.Fatal("fixture: the member of the short gang is admitted")
	}
	events, err := p.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// expect: the held member skipped, the admitted member and the plain pod queued.
	expect := func(e fwk.ClusterEventWithHint, oldObj, newObj any) {
		t.Helper()
		for _, c := range []struct {
			pod  *v1.Pod
			want fwk.QueueingHint
		}{{gated, fwk.QueueSkip}, {admitted, fwk.Queue}, {plain, fwk.Queue}} {
			if got, err := e.QueueingHintFn(klog.Background(), c.pod, oldObj, newObj); err != nil || got != c.want {
				t.Errorf("%s for %s: %v (%v), want %v", e.Event.Label(), c.pod.Name, got, err, c.want)
			}
		}
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	tainted := node.DeepCopy()
	tainted.Spec.Taints = []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}
	checked := 0
	for _, e := range events {
		if e.Event.Resource != fwk.Node {
			continue
		}
		checked++
		old, cur := any(nil), any(node)
		if e.Event.ActionType&fwk.UpdateNodeTaint != 0 {
			old = tainted // a taint removed: room opened
		}
		expect(e, old, cur)
	}
	if checked != 2 {
		t.Fatalf("%d node events registered, want 2", checked)
	}
	// A bound pod deleted frees capacity, which does not admit a held member either.
	bound := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bound"}, Spec: v1.PodSpec{NodeName: "n"}}
	for _, e := range events {
		if e.Event.Resource != fwk.AssignedPod || e.Event.ActionType&fwk.Delete == 0 {
			continue
		}
		expect(e, bound, nil)
	}
}
