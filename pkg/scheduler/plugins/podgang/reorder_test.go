package podgang

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/resort"
)

// SharedDRAManager: the test handle has none (the Runtime's store asks).
func (h *handle) SharedDRAManager() fwk.SharedDRAManager { return nil }

// runtimePlugin is a plugin on a Runtime of its own, its profile's store made by the
// Runtime, for tests on kube-scheduler's queue; ctx ends with the test.
func runtimePlugin(t testing.TB) (context.Context, *Plugin, *handle, *gangplugin.Runtime) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	args, err := decodeArgs(&config.PodGangArgs{GangArgs: config.GangArgs{BackoffSeconds: ptr.To[int64](60)}})
	if err != nil {
		t.Fatal(err)
	}
	h := &handle{activated: map[string]*v1.Pod{}}
	rt := gangplugin.NewRuntime()
	store, err := rt.SharedStore(ctx, h, gang.Membership{SurgeLabel: args.SurgeLabelKey})
	if err != nil {
		t.Fatal(err)
	}
	p := &Plugin{Adapter: gangplugin.NewAdapter(h, store, gangplugin.Options{Runtime: rt, Name: Name, Kind: gang.KindPodGang,
		PermitTimeout: args.PermitWaitingTime(), Backoff: args.Backoff(), GangEvent: Event, ToSpec: toSpec}),
		queued: newQueueKeys(), reorder: newReorder()}
	p.SetStatusSink(newStatusWriter(nil, nil, store, nil))
	schedmetrics.Register() // the queue records its sizes
	return ctx, p, h, rt
}

// newQueuedPlugin is a plugin on a Runtime, registered as its profile's queue order, and a
// scheduling queue (kube-scheduler's own) sorted by the plugin's Less.
func newQueuedPlugin(t testing.TB) (*Plugin, *internalqueue.PriorityQueue, gangplugin.Resorter) {
	t.Helper()
	ctx, p, h, rt := runtimePlugin(t)
	rt.SetQueueOrder(h, p)
	q := internalqueue.NewTestQueue(ctx, p.Less)
	return p, q, resort.NewForQueue(ctx, q, nil)
}

// baseAndYoungQueued is newQueuedPlugin with two gangs: base, established (minimum 2, 2 of
// its 3 members bound: placed), and young, created after it; base-2 (an extra) and young-0 (a
// needed member) are in the queue, young-0 returned.
func baseAndYoungQueued(t *testing.T) (*Plugin, *internalqueue.PriorityQueue, gangplugin.Resorter, *v1.Pod, []*v1.Pod) {
	t.Helper()
	pl, q, resorter := newQueuedPlugin(t)
	t0 := time.Now().Add(-time.Hour)
	pending, placed := establishedGang(pl, "base", 2, t0, 3, 2)
	pl.Store().SetSpec(oneGroup("young", 2, t0.Add(time.Minute)))
	young := member("young", 0)
	young.Spec.Priority = ptr.To[int32](0)
	pending[0].Spec.Priority = ptr.To[int32](0)
	pl.Store().UpsertPod(young)
	q.Add(context.Background(), pending[0])
	q.Add(context.Background(), young)
	return pl, q, resorter, young, placed
}

func popName(t *testing.T, q *internalqueue.PriorityQueue) string {
	t.Helper()
	e, err := q.Pop(klog.Background())
	if err != nil {
		t.Fatal(err)
	}
	pod := podOf(e)
	q.Done(pod.UID)
	return pod.Name
}

// A member already in the active queue whose class changes is popped where its new class puts
// it: base-2, an extra of an established gang when queued, becomes needed for its gang's
// minimum when a bound member of base is deleted, and then goes before young-0, a younger
// gang's needed member that it queued behind. The change reaches the queue through the pod
// informer's handler (the feed), the plugin's worker and kube-scheduler's queue. Without the
// re-sort the heap keeps base-2 behind young-0 (the last case).
func TestQueuedMemberResortedWhenItsClassChanges(t *testing.T) {
	for _, resorted := range []bool{true, false} {
		pl, q, resorter, young, placed := baseAndYoungQueued(t)
		if n := pl.queued.len(); n != 2 {
			t.Fatalf("%d queue keys after both were pushed, want 2", n)
		}
		if moved := pl.reorderChanged(klog.Background(), resorter); moved != 0 {
			t.Fatalf("%d members re-sorted before any change", moved)
		}
		// Nothing of base's class changes with its status: no re-sort.
		pl.PodHandlers().OnUpdate(young, young)
		if moved := pl.reorderChanged(klog.Background(), resorter); moved != 0 {
			t.Fatalf("%d members re-sorted after a change that moves no class", moved)
		}
		pl.PodHandlers().OnDelete(placed[1])
		var moved int
		if resorted {
			moved = pl.reorderChanged(klog.Background(), resorter)
		}
		first, second := popName(t, q), popName(t, q)
		switch {
		case resorted && (moved != 1 || first != "base-2" || second != "young-0"):
			t.Errorf("re-sorted %d, popped %s then %s; want 1 re-sorted and base-2 (now needed, older gang) first", moved, first, second)
		case !resorted && first != "young-0":
			t.Errorf("without the re-sort popped %s first; the heap should keep base-2's old place behind young-0 (the test's premise)", first)
		}
	}
}

// A popped pod's key goes at PreFilter (it left the queue); a pod that was queued again
// meanwhile is not re-sorted under its old key.
func TestResortLeavesPodsThatLeftTheQueue(t *testing.T) {
	pl, q, resorter, young, placed := baseAndYoungQueued(t)
	ctx := context.Background()
	popped := popName(t, q)
	pl.PreFilter(ctx, framework.NewCycleState(), young, nil)
	if popped != "young-0" {
		t.Fatalf("popped %s first, want young-0", popped)
	}
	if n := pl.queued.len(); n != 1 {
		t.Fatalf("%d queue keys after young-0 was popped and PreFiltered, want 1", n)
	}
	// base-2's queue entry is replaced by a new queueing (the queue's timestamp changes):
	// its old key names a queueing no heap holds.
	info, ok := q.GetPod("base-2", "ns", nil)
	if !ok {
		t.Fatal("base-2 not in the queue")
	}
	stale := info.Timestamp.Add(-time.Second)
	if resorter.Resort(info.Pod, stale) {
		t.Error("a pod re-sorted under a queueing that is not the queue's")
	}
	pl.PodHandlers().OnDelete(placed[1])
	if moved := pl.reorderChanged(klog.Background(), resorter); moved != 1 {
		t.Errorf("%d re-sorted, want base-2", moved)
	}
}

// BenchmarkReorderCheck: the worker's check of one changed gang of 512 members, all waiting in
// the queue with a key and none of whose class changed (the gang's worst case: every member
// is read, nothing moves). Reported per member.
func BenchmarkReorderCheck(b *testing.B) {
	pl, _, resorter := newQueuedPlugin(b)
	const n = 512
	pl.Store().SetSpec(oneGroup("big", n, time.Unix(1000, 0)))
	for i := 0; i < n; i++ {
		p := member("big", i)
		pl.Store().UpsertPod(p)
		pl.queueKey(queued(b, p, 0, time.Unix(2000, 0)), p)
	}
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "big"}
	logger := klog.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pl.GangChanged(k)
		if moved := pl.reorderChanged(logger, resorter); moved != 0 {
			b.Fatalf("%d moved", moved)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/member")
}
