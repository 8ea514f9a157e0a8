package controller

import (
	"context"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Availability as Grove counts it (#15 item 4): a scaling group of 2 replicas, minAvailable
// 1, rolled with maxSurge 1 / maxUnavailable 0 on room for 3 group replicas. Group replica 0
// is in the base gang; while it is replaced, replica 1 and the surge replica serve, so the
// PodCliqueSet stays available: every status write of the update says availableReplicas 1
// and Available=True.
func TestAvailabilityThroughSurgeUpdate(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("avail", 9))
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.GroupSet(ns, "av", 2, 1, 1, 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "av", 1, 6)
	cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "av", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "av").String(), ResourceVersion: cur.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var drops []string
	writes := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*grovev1.PodCliqueSet)
			if !ok || ev.Type != watch.Modified {
				continue
			}
			mu.Lock()
			writes++
			if p.Status.AvailableReplicas < 1 {
				drops = append(drops, p.ResourceVersion)
			}
			mu.Unlock()
		}
	}()
	env.SetImage(t, ns, "av", "registry.example.com/llm/prefill:v2")
	env.WaitUpdated(t, ns, "av", "registry.example.com/llm/prefill:v2", 6)
	w.Stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	// Status writes are spaced (pkg/controller/statuswriter.go): a short update may come
	// out as one write; none means the watch missed it.
	if writes < 1 {
		t.Fatalf("saw %d status writes during the update: the watch missed it", writes)
	}
	if len(drops) > 0 {
		t.Errorf("availableReplicas dropped below 1 in %d of %d writes during a maxUnavailable-0 update (resourceVersions %v)", len(drops), writes, drops)
	}
	final, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(context.Background(), "av", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if final.Status.AvailableReplicas != 1 {
		t.Errorf("after the update availableReplicas = %d, want 1", final.Status.AvailableReplicas)
	}
}
