package gangplugin

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// storeWithGangs is a store of n gangs of 3 members; gang 0 reserved 8 GPUs on node r0.
func storeWithGangs(n int, reserve bool) *gang.Store {
	s := gang.NewStore(gang.DefaultMembership(), time.Now)
	s.SetReservationHold(time.Minute)
	for g := 0; g < n; g++ {
		sp := gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: fmt.Sprintf("gang-%d", g)},
			PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 3}}, CreatedAt: time.Now()}
		if g == 0 && reserve {
			sp.Reservation = &gang.Reservation{Since: time.Now(), Nodes: map[string]gang.Resources{"r0": {GPU: 8}}}
		}
		s.SetSpec(sp)
	}
	return s
}

func plainPod(gpus int64) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: types.UID("p")},
		Spec: v1.PodSpec{Containers: []v1.Container{{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{gang.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}}}}}}
}

// Held capacity is kept from other pods, given back as the holder's pods return, and the
// holder itself is never kept off it.
func TestFilterHolds(t *testing.T) {
	p := NewAdapter(nil, storeWithGangs(3, true), Options{Name: "PodGang", Kind: gang.KindPodGang})
	free := node("r0", "a", 0) // 8 GPUs free, 8 held for gang-0
	if st := p.FilterHolds(plainPod(1), free); st.IsSuccess() || st.Code() != fwk.Unschedulable {
		t.Fatalf("a plain pod passed held capacity: %v", st)
	}
	if st := p.FilterHolds(plainPod(1), node("r1", "a", 0)); !st.IsSuccess() {
		t.Errorf("a node without holds refused: %v", st)
	}
	own := member(0, 4)
	own.Labels["grove.io/podgang"] = "gang-0"
	if st := p.FilterHolds(own, free); !st.IsSuccess() {
		t.Errorf("the holder's own member refused: %v", st)
	}
	// 4 of the 8 GPUs are back with a member of gang-0 on the node: 4 free, none held.
	back := node("r0", "a", 0)
	m := member(1, 4)
	m.Labels["grove.io/podgang"] = "gang-0"
	m.Spec.NodeName = "r0"
	back.(*framework.NodeInfo).AddPod(m)
	if st := p.FilterHolds(plainPod(4), back); st.IsSuccess() {
		t.Errorf("4 GPUs still held, yet a 4-GPU pod passed")
	}
	m2 := member(2, 4)
	m2.Labels["grove.io/podgang"] = "gang-0"
	m2.Spec.NodeName = "r0"
	back.(*framework.NodeInfo).AddPod(m2)
	if st := p.FilterHolds(plainPod(0), back); !st.IsSuccess() {
		t.Errorf("nothing held any more, yet refused: %v", st)
	}
}

// A preemptor's hold keeps out pods of its own priority or lower, not a pod of higher
// priority (which could preempt the preemptor anyway).
func TestFilterPreemptionHoldByPriority(t *testing.T) {
	s := storeWithGangs(1, false)
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "gang-0"}
	s.StartPreemption(k, gang.Preemption{Victims: []string{"ns/v"}, Nodes: map[string]gang.Resources{"r0": {GPU: 8}},
		Since: time.Now(), Until: time.Now().Add(time.Minute), Priority: 1000})
	p := NewAdapter(nil, s, Options{Name: "PodGang", Kind: gang.KindPodGang})
	free := node("r0", "a", 0) // 8 GPUs free, all held for the preemptor
	for _, tc := range []struct {
		prio int32
		pass bool
	}{{100, false}, {1000, false}, {2000, true}} {
		pod := plainPod(8)
		pod.Spec.Priority = &tc.prio
		if st := p.FilterHolds(pod, free); st.IsSuccess() != tc.pass {
			t.Errorf("priority %d: FilterHolds = %v, want pass %v", tc.prio, st, tc.pass)
		}
	}
}

// The Filter runs for every pod on every node: with no hold anywhere it must cost nothing,
// however many gangs there are (it once walked every gang: half the scheduler's CPU).
func BenchmarkFilterHoldsNone1000Gangs(b *testing.B) {
	p := NewAdapter(nil, storeWithGangs(1000, false), Options{Name: "PodGang", Kind: gang.KindPodGang})
	n, pod := node("r0", "a", 0), plainPod(1)
	b.ReportAllocs()
	for b.Loop() {
		if st := p.FilterHolds(pod, n); !st.IsSuccess() {
			b.Fatal(st)
		}
	}
}

func BenchmarkFilterHoldsOne1000Gangs(b *testing.B) {
	p := NewAdapter(nil, storeWithGangs(1000, true), Options{Name: "PodGang", Kind: gang.KindPodGang})
	n, pod := node("r0", "a", 0), plainPod(1)
	b.ReportAllocs()
	for b.Loop() {
		_ = p.FilterHolds(pod, n)
	}
}

// activations records what the adapter moves back to the active queue.
type activations struct {
	fwk.Handle
	pods map[string]*v1.Pod
}

func (a *activations) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	for k, p := range pods {
		a.pods[k] = p
	}
}

type noStatus struct{}

func (noStatus) Enqueue(gang.Key)           {}
func (noStatus) Established(gang.Key)       {}
func (noStatus) Preempted(gang.Key, string) {}

// heldGang is an adapter on a store whose gang-0 (k) reserved 8 GPUs on node r0 for a minute,
// recording what it wakes in h.
func heldGang() (*Adapter, *gang.Store, *activations, gang.Key) {
	store := storeWithGangs(1, true)
	h := &activations{pods: map[string]*v1.Pod{}}
	p := NewAdapter(h, store, Options{Name: "PodGang", Kind: gang.KindPodGang})
	p.SetStatusSink(noStatus{})
	return p, store, h, gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "gang-0"}
}

// A hold ends the moment the replacement binds (here on another node than the capacity it
// held), and the pods it kept off are woken then, not when its window closes a minute later.
func TestHoldEndsWhenReplacementBinds(t *testing.T) {
	p, store, h, k := heldGang()
	blocked := plainPod(8)
	if st := p.FilterHolds(blocked, node("r0", "a", 0)); st.IsSuccess() {
		t.Fatal("the held capacity was not held")
	}
	for i := 0; i < 2; i++ { // two 4-GPU replacements take back the 8 GPUs
		m := member(i, 4)
		m.Labels["grove.io/podgang"] = "gang-0"
		p.recordPod(m)
		if !store.ReservationActive(k) {
			t.Fatalf("the hold ended with %d of 2 replacements bound", i)
		}
		bound := m.DeepCopy()
		bound.Spec.NodeName = fmt.Sprintf("r%d", i+1) // the replacements land elsewhere
		p.PostBind(context.Background(), nil, bound, bound.Spec.NodeName)
	}
	if store.ReservationActive(k) {
		t.Fatal("the replacements are bound and the hold is still active")
	}
	if _, ok := h.pods["ns/p"]; !ok {
		t.Fatalf("the pod the hold kept off was not woken when the hold ended (woken: %v)", h.pods)
	}
}

// A hold released between the moment a pod read it and the moment the pod was noted as
// blocked (the release found nobody to wake) wakes the pod at once, not when the window closes
// (a Coherent update waited the whole 2 minutes for it: TestCoherentDrainFirstAllOrNothing).
func TestHoldReleasedBeforeBlockedPodNoted(t *testing.T) {
	p, store, h, k := heldGang()
	blocked := plainPod(8)
	st, holds := p.checkHolds(blocked, node("r0", "a", 0))
	if st.IsSuccess() || len(holds) != 1 {
		t.Fatalf("the held capacity was not held: %v %v", st, holds)
	}
	// The controller releases the hold: the new spec reaches the store, and nobody is noted yet.
	store.SetSpec(gang.Spec{Key: k, PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 3}}, CreatedAt: time.Now()})
	p.holdReleased(k)
	p.noteHoldBlocked(blocked, holds)
	if _, ok := h.pods["ns/p"]; !ok {
		t.Fatal("the pod kept off by a hold released meanwhile was not woken")
	}
	if p.holdTimers[k] != nil || len(p.holdBlocked[k]) != 0 {
		t.Errorf("a timer or blocked pod left behind for the released hold: %v %v", p.holdTimers[k], p.holdBlocked[k])
	}
}
