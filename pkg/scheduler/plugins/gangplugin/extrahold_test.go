package gangplugin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// wakeups records, with their time, the pods the adapter moves back to the active queue (from
// its timers' goroutines too).
type wakeups struct {
	fwk.Handle
	mu    sync.Mutex
	woken map[string]time.Time
}

func (w *wakeups) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range pods {
		w.woken[k] = time.Now()
	}
}

func (w *wakeups) IterateOverWaitingPods(func(fwk.WaitingPod)) {}

func (w *wakeups) at(key string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.woken[key]
	return t, ok
}

// holdFixture: gang "grown" (established, minimum 1 bound) with a pending extra, and gang
// "fresh" whose minimum of 2 has failed to fit, holding extras for hold.
func holdFixture(t *testing.T, hold time.Duration, now func() time.Time) (*Adapter, *wakeups, *v1.Pod, [2]*v1.Pod) {
	t.Helper()
	store := gang.NewStore(gang.DefaultMembership(), now)
	store.SetExtraHold(hold)
	h := &wakeups{woken: map[string]time.Time{}}
	p := NewAdapter(h, store, Options{Name: "PodGang", Kind: gang.KindPodGang, PermitTimeout: time.Minute})
	p.SetStatusSink(noStatus{})
	grown := gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "grown"}, Scheduled: true,
		PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 1}}, CreatedAt: time.Now()}
	store.SetSpec(grown)
	fresh := gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "fresh"},
		PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 2}}, CreatedAt: time.Now()}
	store.SetSpec(fresh)
	pod := func(g string, i int, node string) *v1.Pod {
		m := member(i, 8)
		m.Name = fmt.Sprintf("%s-%d", g, i)
		m.UID = types.UID(m.Name)
		m.Labels["grove.io/podgang"] = g
		m.Spec.NodeName = node
		p.recordPod(m)
		return m
	}
	pod("grown", 0, "n0")
	extra := pod("grown", 1, "")
	minimum := [2]*v1.Pod{pod("fresh", 0, ""), pod("fresh", 1, "")}
	p.setWait(fresh.Key, gang.Wait{Reason: gang.ReasonInsufficient, Message: "needs 16 GPUs, 8 free"})
	return p, h, extra, minimum
}

// A held extra is turned away naming the gang it waits for, and woken the moment that gang's
// quorum is met (Permit), not when the hold runs out.
func TestExtraHeldUntilTheMinimumIsPlaced(t *testing.T) {
	p, h, extra, minimum := holdFixture(t, time.Hour, time.Now)
	k, _ := p.keyOf(extra)
	st := p.holdExtra(framework.NewCycleState(), k, extra, nil)
	if st.IsSuccess() || st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "ns/fresh") {
		t.Fatalf("the extra's status = %v, want UnschedulableAndUnresolvable naming PodGang ns/fresh", st)
	}
	ctx := context.Background()
	for _, m := range minimum {
		p.Reserve(ctx, nil, m, "n1")
		p.Permit(ctx, framework.NewCycleState(), m, "n1")
	}
	if _, ok := h.at("ns/" + extra.Name); !ok {
		t.Fatal("the held extra was not woken when fresh's quorum was met")
	}
	if st := p.holdExtra(framework.NewCycleState(), k, extra, nil); st != nil {
		t.Errorf("the extra is still held with fresh's minimum placed: %v", st.Message())
	}
}

// The hold's timer wakes the extras when the hold runs out; when the holder was placed and
// fell short again meanwhile (a new hold, a later end), it waits for that end instead.
func TestExtraHoldTimerFollowsANewHold(t *testing.T) {
	// The store's clock jumps 300 ms ahead for the failure that starts the second hold, so that
	// the second hold ends 300 ms after the first and the first hold's timer fires inside it.
	var mu sync.Mutex
	var skew time.Duration
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(skew) }
	p, h, extra, minimum := holdFixture(t, 400*time.Millisecond, now)
	k, _ := p.keyOf(extra)
	fresh, _ := p.keyOf(minimum[0])
	if st := p.holdExtra(framework.NewCycleState(), k, extra, nil); st == nil {
		t.Fatal("the extra was not held")
	}
	first, _ := p.store.HoldUntil(fresh)
	// fresh is placed (the timer keeps running), then loses a member and fails again.
	for _, m := range minimum {
		p.assumed(m, "n1")
	}
	p.unassumed(minimum[1])
	mu.Lock()
	skew = 300 * time.Millisecond
	mu.Unlock()
	p.setWait(fresh, gang.Wait{Reason: gang.ReasonPermitTimeout, Message: "lost one"})
	mu.Lock()
	skew = 0
	mu.Unlock()
	second, holding := p.store.HoldUntil(fresh)
	if !holding || !second.After(first) {
		t.Fatalf("fresh short again: holding %v until %s; want a new hold ending after the first (%s)", holding, second, first)
	}
	p.noteHeld(fresh, k) // what holdExtra records when the extra is turned away again
	if err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, ok := h.at("ns/" + extra.Name)
		return ok, nil
	}); err != nil {
		t.Fatal("the held extra was never woken after the second hold ran out")
	}
	if woken, _ := h.at("ns/" + extra.Name); woken.Before(second) {
		t.Errorf("the extra was woken at %s, before the second hold ended at %s (the first hold's timer woke it)", woken.Format(time.StampMilli), second.Format(time.StampMilli))
	}
}

// A gang's own member that its plan leaves out (above the podgroup's minimum) waits while the
// plan is placed, instead of taking a node the plan gave a member of the quorum (on Grove's
// OD7, an extra pc-a pod did so and released its own gang every 5 s); the quorum's Permit
// wakes it, and with no plan it is not held.
func TestExtraWaitsWhileItsGangsPlanIsPlaced(t *testing.T) {
	store := gang.NewStore(gang.DefaultMembership(), time.Now)
	h := &wakeups{woken: map[string]time.Time{}}
	p := NewAdapter(h, store, Options{Name: "PodGang", Kind: gang.KindPodGang, PermitTimeout: time.Minute})
	p.SetStatusSink(noStatus{})
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	store.SetSpec(gang.Spec{Key: k, PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 2}}, CreatedAt: time.Now()})
	var pods []*v1.Pod
	for i := 0; i < 3; i++ {
		m := member(i, 8)
		p.recordPod(m)
		pods = append(pods, m)
	}
	minimum, extra := pods[:2], pods[2]
	ctx := context.Background()
	if got := podNames(store.DeficitPods(k)); got != "g-0,g-1" {
		t.Fatalf("deficit = %s, want g-0,g-1", got)
	}
	store.SetPlan(k, map[string]string{"g-0": "n1", "g-1": "n2"})

	state := framework.NewCycleState()
	res, st := p.PreFilter(ctx, state, extra, nil)
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "waits while the gang's planned quorum is placed") || res != nil {
		t.Fatalf("the extra's PreFilter while the plan is placed = %v, %v; want UnschedulableAndUnresolvable, waiting for the planned quorum", res, st)
	}
	if _, post := p.PostFilter(ctx, state, extra, nil); post.Code() != fwk.Unschedulable {
		t.Errorf("PostFilter of the held extra = %v, want Unschedulable", post)
	}
	if left, _ := store.Backoff(k); left > 0 {
		t.Fatalf("the held extra's PostFilter released its own gang (back-off %s)", left)
	}
	for i, m := range minimum {
		res, st := p.PreFilter(ctx, framework.NewCycleState(), m, nil)
		if !st.IsSuccess() || res == nil || !res.NodeNames.Has(fmt.Sprintf("n%d", i+1)) {
			t.Fatalf("planned member %s: PreFilter = %v, %v; want its planned node n%d", m.Name, res, st, i+1)
		}
	}
	if _, ok := h.at("ns/g-2"); ok {
		t.Fatal("the extra was woken before its gang's quorum was placed")
	}
	for i, m := range minimum {
		node := fmt.Sprintf("n%d", i+1)
		p.Reserve(ctx, nil, m, node)
		p.Permit(ctx, framework.NewCycleState(), m, node)
	}
	if _, ok := h.at("ns/g-2"); !ok {
		t.Fatal("the extra was not woken when its gang's quorum was placed")
	}
	if _, st := p.PreFilter(ctx, framework.NewCycleState(), extra, nil); st.Code() == fwk.UnschedulableAndUnresolvable && strings.Contains(st.Message(), "planned quorum") {
		t.Errorf("the extra is still held with its gang's quorum placed: %v", st.Message())
	}
}

func podNames(pods []*v1.Pod) string {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	return strings.Join(names, ",")
}

// ownExtraFixture: gang g of podgroups b and c (minimum 1 each), its members b-0, c-0 and
// c-2 pending, the c pods from one controller unless unlike; c-2 is above the minimum.
func ownExtraFixture(t *testing.T, unlike bool) (p *Adapter, h *wakeups, b0, c0, c2 *v1.Pod) {
	t.Helper()
	store := gang.NewStore(gang.DefaultMembership(), time.Now)
	h = &wakeups{woken: map[string]time.Time{}}
	p = NewAdapter(h, store, Options{Name: "PodGang", Kind: gang.KindPodGang, PermitTimeout: time.Minute})
	p.SetStatusSink(noStatus{})
	store.SetSpec(gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"},
		PodGroups: []gang.PodGroup{{Name: "b", MinReplicas: 1}, {Name: "c", MinReplicas: 1}}, CreatedAt: time.Now()})
	pod := func(group string, i int, owner types.UID) *v1.Pod {
		m := member(i, 8)
		m.Name = fmt.Sprintf("%s-%d", group, i)
		m.UID = types.UID(m.Name)
		m.Labels["grove.io/podclique"] = group
		m.Labels["grove.io/podclique-pod-index"] = fmt.Sprint(i)
		m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "grove.io/v1alpha1", Kind: "PodClique", Name: group, UID: owner, Controller: ptr.To(true)}}
		p.recordPod(m)
		return m
	}
	other := types.UID("c")
	if unlike {
		other = "c-other"
	}
	return p, h, pod("b", 0, "b"), pod("c", 0, "c"), pod("c", 2, other)
}

// An extra of a gang short of its minimum, popped while the members that minimum needs are
// away from the active queue, waits for them and wakes them (the race of
// TestMinimumsBeforeExtrasAsCapacityArrives: c-2 placed alone took the node c-0 needed and
// counted for it at Permit); the quorum's Permit wakes it.
func TestOwnExtraWaitsForItsGangsMinimum(t *testing.T) {
	p, h, b0, c0, c2 := ownExtraFixture(t, false)
	ctx := context.Background()
	state := framework.NewCycleState()
	_, st := p.PreFilter(ctx, state, c2, nil)
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "first places the members its minimum needs (2 pending)") {
		t.Fatalf("c-2's PreFilter = %v, want UnschedulableAndUnresolvable waiting for the 2 members of the minimum", st)
	}
	for _, m := range []*v1.Pod{b0, c0} {
		if _, ok := h.at("ns/" + m.Name); !ok {
			t.Errorf("%s, which the minimum needs, was not woken", m.Name)
		}
	}
	if _, ok := h.at("ns/c-2"); ok {
		t.Error("the extra woke itself")
	}
	if _, st := p.PostFilter(ctx, state, c2, nil); st.Message() != "held while a gang's minimum is placed" {
		t.Errorf("the held extra's PostFilter = %v: it must not release its gang or preempt", st)
	}
	for _, m := range []*v1.Pod{b0, c0} {
		p.Reserve(ctx, nil, m, "n-"+m.Name)
		p.Permit(ctx, framework.NewCycleState(), m, "n-"+m.Name)
	}
	if _, ok := h.at("ns/c-2"); !ok {
		t.Fatal("the extra was not woken when its gang's quorum was met")
	}
	if _, st := p.PreFilter(ctx, framework.NewCycleState(), c2, nil); !st.IsSuccess() {
		t.Errorf("with the minimum placed, c-2's PreFilter = %v, want success", st)
	}
}

// A podgroup of unlike pods (two controllers) may need exactly the extra: it waits only for
// the other podgroups' minimums.
func TestOwnExtraOfUnlikePodsWaitsForOtherPodgroupsOnly(t *testing.T) {
	p, h, b0, c0, c2 := ownExtraFixture(t, true)
	ctx := context.Background()
	_, st := p.PreFilter(ctx, framework.NewCycleState(), c2, nil)
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "its minimum needs (1 pending)") {
		t.Fatalf("c-2's PreFilter = %v, want it waiting for b-0 alone", st)
	}
	if _, ok := h.at("ns/" + c0.Name); ok {
		t.Error("c-0, of another controller than c-2, was woken as if c-2 had to wait for it")
	}
	p.Reserve(ctx, nil, b0, "n1")
	p.Permit(ctx, framework.NewCycleState(), b0, "n1")
	// No node is given: what PreFilter says is the gang's capacity check, not a hold.
	if _, st := p.PreFilter(ctx, framework.NewCycleState(), c2, nil); strings.Contains(st.Message(), "above the minimum") {
		t.Errorf("with b's minimum placed, c-2 (unlike c-0) must be free to count for c: PreFilter = %v", st)
	}
}

// A member the extra waited for, deleted while pending (its controller scaled it away): the
// extra is tried again (nothing else would wake it: no QueueingHint sees the deletion of an
// unassigned pod), and now stands in the minimum in its place.
func TestOwnExtraWokenWhenAMemberItWaitedForIsDeleted(t *testing.T) {
	p, h, b0, c0, c2 := ownExtraFixture(t, false)
	ctx := context.Background()
	if _, st := p.PreFilter(ctx, framework.NewCycleState(), c2, nil); !strings.Contains(st.Message(), "above the minimum") {
		t.Fatalf("c-2's PreFilter = %v, want it held for b-0 and c-0", st)
	}
	h.mu.Lock()
	delete(h.woken, "ns/c-2")
	h.mu.Unlock()
	p.PodHandlers().OnDelete(c0)
	if _, ok := h.at("ns/c-2"); !ok {
		t.Fatal("the extra was not woken when c-0, which it waited for, was deleted")
	}
	p.Reserve(ctx, nil, b0, "n1")
	if _, st := p.PreFilter(ctx, framework.NewCycleState(), c2, nil); strings.Contains(st.Message(), "above the minimum") {
		t.Errorf("with c-0 gone, c-2 is in the minimum: PreFilter = %v", st)
	}
}
