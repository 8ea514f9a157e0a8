package podgang

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// handle is the part of the framework handle that the hooks under test use.
type handle struct {
	fwk.Handle
	waiting   []fwk.WaitingPod
	activated map[string]*v1.Pod
}

func (h *handle) IterateOverWaitingPods(cb func(fwk.WaitingPod)) {
	for _, w := range h.waiting {
		cb(w)
	}
}

// ProfileName is the profile of the test pods (they name no scheduler).
func (h *handle) ProfileName() string { return "" }

func (h *handle) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	for k, p := range pods {
		h.activated[k] = p
	}
}

type waitingPod struct {
	pod      *v1.Pod
	allowed  bool
	rejected string
}

func (w *waitingPod) GetPod() *v1.Pod             { return w.pod }
func (w *waitingPod) GetPendingPlugins() []string { return []string{Name} }
func (w *waitingPod) Allow(string)                { w.allowed = true }
func (w *waitingPod) Reject(_, msg string) bool   { w.rejected = msg; return true }
func (w *waitingPod) Preempt(_, msg string) bool  { w.rejected = msg; return true }

func newTestPlugin(t testing.TB) (*Plugin, *handle) {
	t.Helper()
	args, err := decodeArgs(&config.PodGangArgs{GangArgs: config.GangArgs{BackoffSeconds: ptr.To[int64](60)}})
	if err != nil {
		t.Fatal(err)
	}
	h := &handle{activated: map[string]*v1.Pod{}}
	store := gang.NewStore(gang.Membership{SurgeLabel: args.SurgeLabelKey}, time.Now)
	p := &Plugin{Adapter: gangplugin.NewAdapter(h, store, gangplugin.Options{Name: Name, Kind: gang.KindPodGang,
		PermitTimeout: args.PermitWaitingTime(), Backoff: args.Backoff(), GangEvent: Event, ToSpec: toSpec}), queued: newQueueKeys()}
	p.SetStatusSink(newStatusWriter(nil, nil, store, nil))
	return p, h
}

func member(g string, i int, labels ...string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", g, i), UID: types.UID(fmt.Sprintf("%s-%d", g, i)),
			Labels: map[string]string{"grove.io/podgang": g, "grove.io/podclique-pod-index": strconv.Itoa(i)}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{gang.ResourceGPU: resource.MustParse("1")}}}}},
	}
	for i := 0; i+1 < len(labels); i += 2 {
		p.Labels[labels[i]] = labels[i+1]
	}
	return p
}

func oneGroup(g string, min int32, created time.Time) gang.Spec {
	return gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: g}, CreatedAt: created,
		PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: min}}}
}

func queued(t testing.TB, p *v1.Pod, prio int32, ts time.Time) fwk.QueuedEntityInfo {
	t.Helper()
	p.Spec.Priority = ptr.To(prio)
	pi, err := framework.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: ts}}
}

func TestLess(t *testing.T) {
	pl, _ := newTestPlugin(t)
	t0 := time.Unix(1000, 0)
	pl.Store().SetSpec(oneGroup("old", 2, t0))
	pl.Store().SetSpec(oneGroup("new", 2, t0.Add(time.Minute)))
	pl.Store().SetSpec(oneGroup("twin", 2, t0.Add(time.Minute)))
	urgent := oneGroup("urgent", 2, t0.Add(time.Hour))
	urgent.Priority = ptr.To[int32](100) // a gang object's own priority (upstream PodGroup spec.priority)
	pl.Store().SetSpec(urgent)
	cases := []struct {
		name string
		a, b fwk.QueuedEntityInfo
		want bool
	}{
		{"higher priority first", queued(t, member("new", 0), 10, t0), queued(t, member("old", 0), 0, t0), true},
		{"older gang first", queued(t, member("old", 1), 0, t0.Add(time.Hour)), queued(t, member("new", 0), 0, t0), true},
		{"gang name breaks a tie", queued(t, member("new", 1), 0, t0), queued(t, member("twin", 0), 0, t0), true},
		{"member index within a gang", queued(t, member("old", 0), 0, t0.Add(time.Hour)), queued(t, member("old", 1), 0, t0), true},
		{"member index, reversed", queued(t, member("old", 1), 0, t0), queued(t, member("old", 0), 0, t0), false},
		{"a gang's own priority over its pods'", queued(t, member("urgent", 0), 0, t0.Add(time.Hour)), queued(t, member("old", 0), 50, t0), true},
		{"a gang's own priority against a plain pod's", queued(t, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, 50, t0), queued(t, member("urgent", 1), 0, t0), false},
		{"plain pods by queue time", queued(t, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, 0, t0), queued(t, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, 0, t0.Add(time.Second)), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The cases queue the same pods (same UID, resourceVersion and timestamp) with
			// other priorities: as different queueings they need keys of their own.
			pl.queued = newQueueKeys()
			if got := pl.Less(tc.a, tc.b); got != tc.want {
				t.Errorf("Less = %v, want %v", got, tc.want)
			}
		})
	}
}

// Two pods of no gang are ordered as their queue keys would order them (priority, queue
// time, namespace, name), and without a key kept for either: plain pods cost the queue no
// store read and no lock of the queue keys.
func TestLessPlainPodsKeepNoKeys(t *testing.T) {
	pl, _ := newTestPlugin(t)
	t0 := time.Unix(1000, 0)
	plain := func(ns, name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name)}}
	}
	cases := []struct {
		name string
		a, b fwk.QueuedEntityInfo
		want bool
	}{
		{"higher priority first", queued(t, plain("ns", "b"), 10, t0.Add(time.Hour)), queued(t, plain("ns", "a"), 0, t0), true},
		{"lower priority after", queued(t, plain("ns", "a"), 0, t0), queued(t, plain("ns", "b"), 10, t0.Add(time.Hour)), false},
		{"earlier queue time first", queued(t, plain("ns", "b"), 0, t0), queued(t, plain("ns", "a"), 0, t0.Add(time.Second)), true},
		{"namespace breaks a tie", queued(t, plain("a", "z"), 0, t0), queued(t, plain("b", "a"), 0, t0), true},
		{"name breaks a tie", queued(t, plain("ns", "b"), 0, t0), queued(t, plain("ns", "a"), 0, t0), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := pl.Less(tc.a, tc.b); got != tc.want {
				t.Errorf("Less = %v, want %v", got, tc.want)
			}
			if got := pl.Less(tc.b, tc.a); got == tc.want {
				t.Errorf("Less reversed = %v, want %v", got, !tc.want)
			}
		})
	}
	if n := pl.queued.len(); n != 0 {
		t.Errorf("%d queue keys kept for pods of no gang, want 0", n)
	}
}

// Minimums before extras (Grove's e2e expectation): an established base gang with 3 members
// above its minimum pending and two younger scaled gangs (minimum 2 each) pending. Sorted by
// Less, the scaled gangs' members come first, whatever the gang ages; ordered by age alone the
// base gang's extras came first and took the room both scaled gangs needed.
func TestLessMinimumsBeforeExtras(t *testing.T) {
	pl, _ := newTestPlugin(t)
	s := pl.Store()
	t0 := time.Unix(1000, 0)
	pending, _ := establishedGang(pl, "base", 2, t0, 5, 2)
	var entries []fwk.QueuedEntityInfo
	for _, p := range pending {
		entries = append(entries, queued(t, p, 0, t0))
	}
	for g, name := range []string{"scaled-0", "scaled-1"} {
		s.SetSpec(oneGroup(name, 2, t0.Add(time.Duration(g+1)*time.Minute)))
		for i := 0; i < 2; i++ {
			p := member(name, i, "grove.io/base-podgang", "base")
			s.UpsertPod(p)
			entries = append(entries, queued(t, p, 0, t0))
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return pl.Less(entries[i], entries[j]) })
	var order []string
	for _, e := range entries {
		order = append(order, podOf(e).Name)
	}
	want := "[scaled-0-0 scaled-0-1 scaled-1-0 scaled-1-1 base-2 base-3 base-4]"
	if got := fmt.Sprint(order); got != want {
		t.Errorf("queue order %s, want %s", got, want)
	}
	// A higher priority still comes first, extra or not.
	hi := member("base", 5)
	s.UpsertPod(hi)
	if !pl.Less(queued(t, hi, 10, t0), entries[0]) {
		t.Error("an extra of a higher priority is not ahead of a lower priority's minimum")
	}
}

// Permit holds members until the quorum, then lets all of them go; surge members never wait.
func TestPermitQuorumAndSurge(t *testing.T) {
	pl, h := newTestPlugin(t)
	ctx := context.Background()
	pl.Store().SetSpec(oneGroup("g", 2, time.Now()))
	p0, p1, s := member("g", 0), member("g", 1), member("g", 2, "phalanx.dev/surge", "true")
	for _, p := range []*v1.Pod{p0, p1, s} {
		pl.Store().UpsertPod(p)
	}
	if st := pl.PreEnqueue(ctx, s); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Fatalf("surge member admitted before the gang is established: %v", st)
	}
	pl.Reserve(ctx, nil, p0, "n1")
	st, timeout := pl.Permit(ctx, framework.NewCycleState(), p0, "n1")
	if !st.IsWait() || timeout != 30*time.Second {
		t.Fatalf("first member: %v %s, want Wait 30s", st, timeout)
	}
	w0 := &waitingPod{pod: p0}
	h.waiting = []fwk.WaitingPod{w0}
	pl.Reserve(ctx, nil, p1, "n1")
	if st, _ := pl.Permit(ctx, framework.NewCycleState(), p1, "n1"); !st.IsSuccess() {
		t.Fatalf("quorum member: %v, want Success", st)
	}
	if !w0.allowed {
		t.Fatal("waiting sibling not allowed once the quorum is reached")
	}
	pl.PostBind(ctx, nil, p0, "n1")
	pl.PostBind(ctx, nil, p1, "n1")
	if st := pl.PreEnqueue(ctx, s); !st.IsSuccess() {
		t.Fatalf("surge member of an established gang refused: %v", st)
	}
	pl.Reserve(ctx, nil, s, "n2")
	if st, _ := pl.Permit(ctx, framework.NewCycleState(), s, "n2"); !st.IsSuccess() {
		t.Fatalf("surge member must not wait: %v", st)
	}
}

// A failed member releases its gang's waiting members and backs the gang off; a surge
// member's failure touches nobody.
func TestFailureReleasesGang(t *testing.T) {
	pl, h := newTestPlugin(t)
	ctx := context.Background()
	pl.Store().SetSpec(oneGroup("g", 3, time.Now()))
	p0, p1, p2 := member("g", 0), member("g", 1), member("g", 2)
	for _, p := range []*v1.Pod{p0, p1, p2} {
		pl.Store().UpsertPod(p)
	}
	pl.Reserve(ctx, nil, p0, "n1")
	w0 := &waitingPod{pod: p0}
	h.waiting = []fwk.WaitingPod{w0}
	state := framework.NewCycleState()
	if _, st := pl.PostFilter(ctx, state, p1, nil); st.Code() != fwk.Unschedulable {
		t.Fatalf("PostFilter = %v", st)
	}
	if w0.rejected == "" {
		t.Fatal("waiting sibling not rejected")
	}
	if left, _ := pl.Store().Backoff(gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}); left <= 0 {
		t.Fatal("gang not backing off")
	}
	if _, st := pl.PreFilter(ctx, state, p2, nil); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Fatalf("member of a gang in back-off passed PreFilter: %v", st)
	}
	if !pl.BackoffScheduled(gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}) {
		t.Fatal("no wake-up scheduled for the end of the back-off")
	}
}

// establishedGang records in pl's store an established one-podgroup gang of members pods
// (minimum min, created at created), the first placed of them bound, and returns its pending
// and bound members.
func establishedGang(pl *Plugin, name string, min int32, created time.Time, members, placed int) (pending, bound []*v1.Pod) {
	spec := oneGroup(name, min, created)
	spec.Scheduled = true
	pl.Store().SetSpec(spec)
	for i := 0; i < members; i++ {
		p := member(name, i)
		if i < placed {
			p.Spec.NodeName = fmt.Sprintf("node-%d", i)
			bound = append(bound, p)
		} else {
			pending = append(pending, p)
		}
		pl.Store().UpsertPod(p)
	}
	return pending, bound
}

// A queued pod keeps the key it had when the queue first compared it until it is queued
// again: a heap is ordered only while its keys hold still. Here an established gang's pending
// member is an extra when queued; a placed member of its gang is then deleted, which makes it
// needed: the entry already queued still compares as an extra (it would have moved under the
// heap), and the same pod queued again (a new timestamp) compares as needed. Bound or deleted,
// its key is dropped.
func TestQueueKeyFixedWhileQueued(t *testing.T) {
	pl, _ := newTestPlugin(t)
	s := pl.Store()
	t0 := time.Unix(1000, 0)
	_, placed := establishedGang(pl, "base", 2, t0, 3, 2)
	s.SetSpec(oneGroup("young", 2, t0.Add(time.Minute)))
	young := member("young", 0)
	s.UpsertPod(young)
	extra := queued(t, member("base", 2), 0, t0)
	other := queued(t, young, 0, t0)
	if pl.Less(extra, other) {
		t.Fatal("base-2, above the minimum of an established gang, sorts before a younger gang's needed member")
	}
	s.DeletePod(placed[1])
	if pl.Less(extra, other) {
		t.Error("base-2's key changed while it stayed queued (its gang lost a placed member)")
	}
	requeued := queued(t, member("base", 2), 0, t0.Add(time.Second))
	if !pl.Less(requeued, other) {
		t.Error("base-2 queued again, now needed for its gang's minimum, does not sort before a younger gang's member")
	}
	if n := pl.queued.len(); n != 2 {
		t.Errorf("%d queue keys, want 2 (base-2 and young-0)", n)
	}
	pl.queued.forget(young.UID)
	if n := pl.queued.len(); n != 1 {
		t.Errorf("%d queue keys after young-0 left the queue, want 1", n)
	}
}

// gangOfTwo is a plugin whose store has gang g (k) of one podgroup of 2, members p0 and p1
// recorded and pending.
func gangOfTwo(t *testing.T) (*Plugin, gang.Key, *v1.Pod, *v1.Pod) {
	t.Helper()
	pl, _ := newTestPlugin(t)
	pl.Store().SetSpec(oneGroup("g", 2, time.Now()))
	p0, p1 := member("g", 0), member("g", 1)
	for _, p := range []*v1.Pod{p0, p1} {
		pl.Store().UpsertPod(p)
	}
	return pl, gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}, p0, p1
}

// A member deleted while it was placed (here: reserved, then its deletion seen, then
// Unreserve) does not send its gang into back-off: the gang did not fail to fit, and its
// replacement is made at once (a rolling update's replacement waited the whole back-off).
// A member released while it still exists does.
func TestUnreserveOfADeletedMemberNoBackoff(t *testing.T) {
	pl, k, p0, p1 := gangOfTwo(t)
	ctx := context.Background()
	pl.Reserve(ctx, nil, p0, "n1")
	pl.Store().DeletePod(p0)
	pl.Unreserve(ctx, nil, p0, "n1")
	if left, _ := pl.Store().Backoff(k); left > 0 {
		t.Fatalf("gang backs off for %s after a member deleted under its cycle", left)
	}
	// A sibling deleted under the cycle (a rolling update replaces a group replica: the queue
	// may admit the new member before the pod handler has seen its old siblings go): the
	// gang waits for the replacements, not for a back-off.
	pl.Store().UpsertPod(p0)
	pl.Reserve(ctx, nil, p1, "n1")
	pl.Store().DeletePod(p0)
	if st, _ := pl.Permit(ctx, framework.NewCycleState(), p1, "n1"); st.IsSuccess() || st.IsWait() {
		t.Fatalf("Permit of a member whose sibling is gone: %v, want a rejection", st)
	}
	pl.Unreserve(ctx, nil, p1, "n1")
	if left, _ := pl.Store().Backoff(k); left > 0 {
		t.Fatalf("gang backs off for %s after a sibling was deleted under its cycle", left)
	}
	pl.Store().UpsertPod(p0)
	pl.Reserve(ctx, nil, p1, "n1")
	pl.Unreserve(ctx, nil, p1, "n1")
	if left, _ := pl.Store().Backoff(k); left <= 0 {
		t.Fatal("gang not backing off after a present member was released short of its quorum")
	}
}

// A member whose bind fails after Permit let its whole quorum go (PreBind or Bind: its node
// went, a device claim changed under it) is tried again alone: its siblings are bound or
// binding, and a back-off of the gang would only delay the last member.
func TestFailedBindAfterQuorumNoBackoff(t *testing.T) {
	pl, k, p0, p1 := gangOfTwo(t)
	ctx := context.Background()
	pl.Reserve(ctx, nil, p0, "n1")
	pl.Reserve(ctx, nil, p1, "n1")
	if st, _ := pl.Permit(ctx, framework.NewCycleState(), p1, "n1"); !st.IsSuccess() {
		t.Fatalf("Permit with the quorum assumed: %v", st)
	}
	bound := p0.DeepCopy()
	bound.Spec.NodeName = "n1"
	pl.PostBind(ctx, nil, bound, "n1")
	pl.Unreserve(ctx, nil, p1, "n1") // p1's PreBind failed
	if left, why := pl.Store().Backoff(k); left > 0 {
		t.Fatalf("gang backs off for %s after a failed bind of a placed quorum: %s", left, why)
	}
}

func TestDecodeArgs(t *testing.T) {
	if _, err := decodeArgs(&config.PodGangArgs{GangArgs: config.GangArgs{PermitWaitingTimeSeconds: ptr.To[int64](0)}}); err == nil || !strings.Contains(err.Error(), "permitWaitingTimeSeconds") {
		t.Errorf("zero permit timeout: err = %v, want it to name permitWaitingTimeSeconds", err)
	}
	if _, err := decodeArgs(&config.PodGangArgs{GangArgs: config.GangArgs{SurgeLabelKey: "not a label!"}}); err == nil || !strings.Contains(err.Error(), "surgeLabelKey") {
		t.Errorf("bad label: err = %v", err)
	}
	if _, err := decodeArgs(&config.PodGangArgs{KAIEventProfiles: []string{"kai-scheduler", ""}}); err == nil || !strings.Contains(err.Error(), "kaiEventProfiles[1]") {
		t.Errorf("empty profile name: err = %v, want it to name kaiEventProfiles[1]", err)
	}
	if _, err := decodeArgs(&config.PodGangArgs{KAIEventProfiles: []string{"kai-scheduler", "kai-scheduler"}}); err == nil || !strings.Contains(err.Error(), "kaiEventProfiles[1]") {
		t.Errorf("repeated profile name: err = %v, want it to name kaiEventProfiles[1]", err)
	}
	a, err := decodeArgs(nil)
	if err != nil || a.PermitWaitingTime() != 30*time.Second || a.Backoff() != 5*time.Second || a.SurgeLabelKey != "phalanx.dev/surge" || len(a.KAIEventProfiles) != 0 {
		t.Errorf("defaults: %+v %v", a, err)
	}
}

// benchQueue fills a store with 1,000 gangs of 5 (5,000 pods) and returns the queue entries.
func benchQueue(b *testing.B) (*Plugin, []fwk.QueuedEntityInfo, []*v1.Pod) {
	pl, _ := newTestPlugin(b)
	t0 := time.Unix(1000, 0)
	var entries []fwk.QueuedEntityInfo
	var pods []*v1.Pod
	for g := 0; g < 1000; g++ {
		name := fmt.Sprintf("gang-%04d", g)
		pl.Store().SetSpec(oneGroup(name, 5, t0.Add(time.Duration(g)*time.Second)))
		for i := 0; i < 5; i++ {
			p := member(name, i)
			pl.Store().UpsertPod(p)
			pods = append(pods, p)
			entries = append(entries, queued(b, p, int32(g%3), t0))
		}
	}
	return pl, entries, pods
}

func BenchmarkLess(b *testing.B) {
	pl, entries, _ := benchQueue(b)
	n := len(entries)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pl.Less(entries[i%n], entries[(i*7919+13)%n])
	}
}

func BenchmarkPreEnqueue(b *testing.B) {
	pl, _, pods := benchQueue(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pl.PreEnqueue(ctx, pods[i%len(pods)])
	}
}

// BenchmarkPermit: each iteration reserves and permits the 5 members of one gang (4 waits and
// the quorum), then forgets them.
func BenchmarkPermit(b *testing.B) {
	pl, _, pods := benchQueue(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g := (i % 1000) * 5
		for j := 0; j < 5; j++ {
			pl.Reserve(ctx, nil, pods[g+j], "n1")
			pl.Permit(ctx, framework.NewCycleState(), pods[g+j], "n1")
		}
		for j := 0; j < 5; j++ {
			pl.Store().Forget(pods[g+j])
		}
	}
}

// Phalanx's part of a PodGang status is the phase, Scheduled and phalanx.dev/Unschedulable;
// Grove's conditions pass through untouched and the type older versions wrote is removed.
func TestDesiredStatusKeepsOperatorConditions(t *testing.T) {
	initialized := metav1.Condition{Type: schedv1.ConditionInitialized, Status: metav1.ConditionTrue, Reason: "PodGangPodsCreated", Message: "PodGang is fully initialized"}
	unhealthy := metav1.Condition{Type: "Unhealthy", Status: metav1.ConditionFalse, Reason: "Healthy"}
	live := &schedv1.PodGangStatus{Phase: schedv1.PodGangPending, Conditions: []metav1.Condition{
		initialized, unhealthy, {Type: schedv1.LegacyConditionUnschedulable, Status: metav1.ConditionTrue, Reason: "Old"},
	}}
	st := gang.Status{Established: true, Phase: gang.PhaseRunning}
	got := desiredStatus(live, st, 3)
	if got.Phase != schedv1.PodGangRunning {
		t.Errorf("phase %s, want Running", got.Phase)
	}
	for _, want := range []metav1.Condition{initialized, unhealthy} {
		if c := meta.FindStatusCondition(got.Conditions, want.Type); c == nil || c.Status != want.Status || c.Reason != want.Reason || c.Message != want.Message {
			t.Errorf("operator condition %s changed: %+v", want.Type, c)
		}
	}
	if meta.FindStatusCondition(got.Conditions, schedv1.LegacyConditionUnschedulable) != nil {
		t.Error("the legacy Unschedulable condition was kept")
	}
	if !meta.IsStatusConditionTrue(got.Conditions, schedv1.ConditionScheduled) || meta.IsStatusConditionTrue(got.Conditions, schedv1.ConditionUnschedulable) {
		t.Errorf("Phalanx's conditions %+v: want Scheduled=True, phalanx.dev/Unschedulable=False", got.Conditions)
	}
	if live.Phase != schedv1.PodGangPending || len(live.Conditions) != 3 {
		t.Error("desiredStatus changed the live status it was given")
	}
}

// PreEnqueue runs under the queue's lock and only reads the gang store: a member the queue
// holds before the pod informer's handler recorded it is turned away as missing, without being
// recorded and without the gang's wait being written; the handler then records it, records the
// wait, and wakes the gang with the member itself (it was turned away before it was recorded).
func TestPreEnqueueWritesNothing(t *testing.T) {
	pl, h := newTestPlugin(t)
	ctx := context.Background()
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	pl.Store().SetSpec(oneGroup("g", 2, time.Now()))
	p0, p1 := member("g", 0), member("g", 1)
	if st := pl.PreEnqueue(ctx, p0); st.IsSuccess() {
		t.Fatal("a member of a gang with no member recorded was admitted")
	}
	if pl.Store().IsMember(p0) {
		t.Error("PreEnqueue recorded the member")
	}
	if w := pl.Store().Status(k).Wait; w != (gang.Wait{}) {
		t.Errorf("PreEnqueue wrote the gang's wait %+v", w)
	}
	handlers := pl.PodHandlers()
	handlers.OnAdd(p0, false)
	if w := pl.Store().Status(k).Wait; w.Reason != gang.ReasonWaitingForMembers {
		t.Errorf("after the informer delivered g-0 the gang waits for %q, want %s", w.Reason, gang.ReasonWaitingForMembers)
	}
	if len(h.activated) != 0 {
		t.Errorf("activated %v before the gang had its members", h.activated)
	}
	if st := pl.PreEnqueue(ctx, p1); st.IsSuccess() {
		t.Fatal("g-1 admitted before the informer delivered it: the gang lacks it in the store")
	}
	handlers.OnAdd(p1, false)
	for _, p := range []*v1.Pod{p0, p1} {
		if h.activated["ns/"+p.Name] == nil {
			t.Errorf("%s not woken when the gang's last member was recorded (activated: %v)", p.Name, h.activated)
		}
		if st := pl.PreEnqueue(ctx, p); !st.IsSuccess() {
			t.Errorf("%s turned away with every member recorded: %v", p.Name, st.Message())
		}
	}
}

// A gang object that arrives after its quorum bound, or whose minimum is lowered to what is
// bound, establishes the gang: no bind event follows to do it, and until it is established
// its status is not written (gang.Store.Binding).
func TestGangObjectEstablishesBoundQuorum(t *testing.T) {
	pl, _ := newTestPlugin(t)
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	for i := 0; i < 3; i++ {
		p := member("g", i)
		if i < 2 {
			p.Spec.NodeName = fmt.Sprintf("n%d", i)
		}
		pl.PodHandlers().OnAdd(p, false)
	}
	pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", CreationTimestamp: metav1.Now(), Generation: 1},
		Spec: schedv1.PodGangSpec{PodGroups: []schedv1.PodGroup{{Name: "w", MinReplicas: 3}}}}
	pl.GangHandlers().OnAdd(pg, false)
	if pl.Store().Established(k) {
		t.Fatal("established with 2 of its minimum of 3 bound")
	}
	if st := pl.Store().Status(k); st.Binding {
		t.Fatalf("binding with a member of its quorum pending: %+v", st)
	}
	lowered := pg.DeepCopy()
	lowered.Generation, lowered.Spec.PodGroups[0].MinReplicas = 2, 2
	pl.GangHandlers().OnUpdate(pg, lowered)
	if !pl.Store().Established(k) {
		t.Error("not established once its minimum was lowered to the 2 members bound")
	}

	for i := 0; i < 2; i++ {
		p := member("late", i)
		p.Spec.NodeName = fmt.Sprintf("n%d", i)
		pl.PodHandlers().OnAdd(p, false)
	}
	late := pg.DeepCopy()
	late.Name, late.Spec.PodGroups[0].MinReplicas = "late", 2
	pl.GangHandlers().OnAdd(late, false)
	if kl := (gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "late"}); !pl.Store().Established(kl) || pl.Store().Status(kl).Binding {
		t.Error("a gang object that arrived after its quorum bound is not established")
	}
}
