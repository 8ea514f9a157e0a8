package podgang

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned/fake"
	schedlisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// While a quorum's binds are in flight no status is written (it would be out of date within
// the round trips); the bind that completes the quorum has it written once, established.
func TestNoStatusWriteWhileBinding(t *testing.T) {
	ctx := context.Background()
	pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", Generation: 1}}
	client := fake.NewSimpleClientset(pg)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(pg); err != nil {
		t.Fatal(err)
	}
	store := gang.NewStore(gang.DefaultMembership(), time.Now)
	w := newStatusWriter(client, schedlisters.NewPodGangLister(indexer), store, nil)
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
	got, err := client.SchedulerV1alpha1().PodGangs("ns").Get(ctx, "g", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, schedv1.ConditionScheduled); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("Scheduled condition after the quorum bound: %+v, want True", c)
	}
}
