package podgang

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned/fake"
	schedlisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// While a quorum's binds are in flight no status is written (it would be out of date within
// the round trips); the bind that completes the quorum has it written once, established.
func TestNoStatusWriteWhileBinding(t *testing.T) {
	ctx := context.Background()
	w, client, _, store := newWriter(t, "g")
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	store.SetSpec(oneGroup("g", 2, time.Now()))
	p0, p1 := member("g", 0), member("g", 1)
	for _, p := range []*v1.Pod{p0, p1} {
		store.UpsertPod(p)
		store.Assume(p, "n1")
	}
	store.MarkBound(p0, "n1")
	writes := func() int {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "update" && a.GetSubresource() == "status" {
				n++
			}
		}
		return n
	}
	if err := w.sync(ctx, k); err != nil {
		t.Fatal(err)
	}
	if n := writes(); n != 0 {
		t.Fatalf("%d status writes while the quorum's binds are in flight, want 0", n)
	}
	if !store.MarkBound(p1, "n1") {
		t.Fatal("the second bind must establish the gang")
	}
	if err := w.sync(ctx, k); err != nil {
		t.Fatal(err)
	}
	if n := writes(); n != 1 {
		t.Fatalf("%d status writes after the quorum bound, want 1", n)
	}
	wantScheduled(t, client, "g")
}

// A change of a condition's message alone (members arriving one by one move the count in
// "waits for members") is written at most once per Settle; a transition (a reason, a status,
// the phase) is written at once.
func TestMessageOnlyChangesSettle(t *testing.T) {
	ctx := context.Background()
	w, client, indexer, store := newWriter(t, "g")
	now := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	w.Settler = gangplugin.NewSettler(func() time.Time { return now })
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	store.SetSpec(oneGroup("g", 3, now))
	writes := 0
	sync := func(step string, want int) {
		t.Helper()
		if err := w.sync(ctx, k); err != nil {
			t.Fatal(err)
		}
		writes = 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "update" && a.GetSubresource() == "status" {
				writes++
			}
		}
		if writes != want {
			t.Fatalf("%s: %d status writes in all, want %d", step, writes, want)
		}
		live, err := client.SchedulerV1alpha1().PodGangs("ns").Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := indexer.Update(live); err != nil { // the informer's copy follows the writes
			t.Fatal(err)
		}
	}
	p := []*v1.Pod{member("g", 0), member("g", 1), member("g", 2)}
	waitFor := func(present int) gang.Wait {
		return gang.Wait{Reason: gang.ReasonWaitingForMembers, Message: fmt.Sprintf("ns/g waits for members to be created or ungated: w has %d of 3", present)}
	}
	store.UpsertPod(p[0])
	store.SetWait(k, waitFor(1))
	sync("the first member", 1)
	store.UpsertPod(p[1])
	store.SetWait(k, waitFor(2))
	sync("the second member, at once", 1)
	now = now.Add(gangplugin.Settle)
	sync("the second member, MessageSettle later", 2)
	store.UpsertPod(p[2])
	store.SetWait(k, gang.Wait{})
	for _, m := range p {
		store.Assume(m, "n1")
	}
	for _, m := range p {
		store.MarkBound(m, "n1")
	}
	sync("the quorum bound, at once", 3)
	wantScheduled(t, client, "g")
}

// A gang's first status while nothing blocks it and nothing is bound waits FirstStatusAfter:
// a gang placed meanwhile is written once, established; one still unplaced then is written
// then.
func TestQuietFirstStatusSettles(t *testing.T) {
	ctx := context.Background()
	w, client, _, store := newWriter(t, "placed", "waiting")
	now := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	w.Settler = gangplugin.NewSettler(func() time.Time { return now })
	writes := func(name string) int {
		n := 0
		for _, a := range client.Actions() {
			if u, ok := a.(k8stesting.UpdateAction); ok && a.GetSubresource() == "status" && u.GetObject().(*schedv1.PodGang).Name == name {
				n++
			}
		}
		return n
	}
	sync := func(name string) {
		t.Helper()
		if err := w.sync(ctx, gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	members := map[string][]*v1.Pod{}
	for _, name := range []string{"placed", "waiting"} {
		store.SetSpec(oneGroup(name, 2, now))
		members[name] = []*v1.Pod{member(name, 0), member(name, 1)}
		for _, p := range members[name] {
			store.UpsertPod(p)
		}
		sync(name)
		if n := writes(name); n != 0 {
			t.Fatalf("%s: %d status writes of a gang nothing blocks and nothing is bound, want 0 before Settle", name, n)
		}
	}
	for _, p := range members["placed"] {
		store.Assume(p, "n1")
		store.MarkBound(p, "n1")
	}
	sync("placed")
	if n := writes("placed"); n != 1 {
		t.Fatalf("placed: %d status writes once established, want 1 at once", n)
	}
	now = now.Add(gangplugin.Settle)
	sync("waiting")
	if n := writes("waiting"); n != 0 {
		t.Fatalf("waiting: %d status writes Settle after it was first held, want 0 before FirstStatusAfter", n)
	}
	now = now.Add(gangplugin.FirstStatusAfter - gangplugin.Settle)
	sync("waiting")
	if n := writes("waiting"); n != 1 {
		t.Fatalf("waiting: %d status writes FirstStatusAfter after it was first held, want 1", n)
	}
}

// newWriter is a PodGang status writer over a fake API holding PodGangs named names (in
// namespace ns, generation 1), with its informer's copies in the returned indexer.
func newWriter(t *testing.T, names ...string) (*statusWriter, *fake.Clientset, cache.Indexer, *gang.Store) {
	t.Helper()
	var objects []runtime.Object
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, name := range names {
		pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: 1}}
		objects = append(objects, pg)
		if err := indexer.Add(pg); err != nil {
			t.Fatal(err)
		}
	}
	client := fake.NewSimpleClientset(objects...)
	store := gang.NewStore(gang.DefaultMembership(), time.Now)
	return newStatusWriter(client, schedlisters.NewPodGangLister(indexer), store, nil), client, indexer, store
}

// wantScheduled fails t unless the PodGang named name has Scheduled=True in the API.
func wantScheduled(t *testing.T, client *fake.Clientset, name string) {
	t.Helper()
	got, err := client.SchedulerV1alpha1().PodGangs("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, schedv1.ConditionScheduled); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("%s: Scheduled condition after the quorum bound: %+v, want True", name, c)
	}
}
