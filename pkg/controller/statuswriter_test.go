package controller

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStatusWriterOneAtATimeNewestWins: the writes of one key never overlap, a write submitted
// while one runs waits for it, and of several waiting only the newest runs; other keys are not
// held back.
func TestStatusWriterOneAtATimeNewestWins(t *testing.T) {
	var mu sync.Mutex
	var order []string
	results := map[string]int{}
	w := newStatusWriter(0, func(_ context.Context, key string, _ error) {
		mu.Lock()
		results[key]++
		mu.Unlock()
	})
	ctx := context.Background()
	release := make(chan struct{})
	started := make(chan struct{})
	inFlight := 0
	write := func(name string, block bool) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			inFlight++
			if inFlight > 1 {
				t.Errorf("write %s overlaps another write of the same key", name)
			}
			order = append(order, name)
			mu.Unlock()
			if block {
				close(started)
				<-release
			}
			mu.Lock()
			inFlight--
			mu.Unlock()
			return nil
		}
	}
	w.submit(ctx, "ns/a", write("a1", true), false)
	<-started
	w.submit(ctx, "ns/a", write("a2", false), false)
	w.submit(ctx, "ns/a", write("a3", false), false)
	// Another key runs while ns/a's first write is blocked.
	other := make(chan struct{})
	w.submit(ctx, "ns/b", func(context.Context) error { close(other); return nil }, false)
	select {
	case <-other:
	case <-time.After(10 * time.Second):
		t.Fatal("a write of another key waited for ns/a's")
	}
	close(release)
	w.wait()
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 2 || order[0] != "a1" || order[1] != "a3" {
		t.Errorf("writes of ns/a ran as %v, want [a1 a3] (a2 replaced by the newer a3)", order)
	}
	if results["ns/a"] != 2 || results["ns/b"] != 1 {
		t.Errorf("results reported %v, want ns/a 2 and ns/b 1", results)
	}
}

// TestOwnWritesReadYourWrites: a write is used while the cache shows the version it was written
// over, and dropped once the cache has moved on.
func TestOwnWritesReadYourWrites(t *testing.T) {
	o := newOwnWrites()
	written := &metav1.ObjectMeta{Name: "c", ResourceVersion: "11"}
	o.note("ns/pcs", "PodClique", "c", "10", written)
	if got := o.fresher("ns/pcs", "PodClique", "c", "10"); got != written {
		t.Errorf("cache at the version written over: got %v, want the write", got)
	}
	if got := o.fresher("ns/pcs", "PodClique", "other", "10"); got != nil {
		t.Errorf("another object: got %v, want nil", got)
	}
	if got := o.fresher("ns/pcs", "PodClique", "c", "11"); got != nil {
		t.Errorf("cache moved on: got %v, want nil", got)
	}
	if got := o.fresher("ns/pcs", "PodClique", "c", "10"); got != nil {
		t.Errorf("after the cache moved on the record is dropped: got %v", got)
	}
	o.note("ns/pcs", "PodCliqueSet", "pcs", "3", &metav1.ObjectMeta{Name: "pcs", ResourceVersion: "4"})
	o.forget("ns/pcs")
	if got := o.fresher("ns/pcs", "PodCliqueSet", "pcs", "3"); got != nil {
		t.Errorf("forgotten set: got %v", got)
	}
}

// TestPodStepChange: only what a plan reads brings a pass at once; a bind does not.
func TestPodStepChange(t *testing.T) {
	base := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "1"}},
		Status: corev1.PodStatus{Phase: corev1.PodPending}}
	ready := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	now := metav1.Now()
	tests := []struct {
		name   string
		change func(p *corev1.Pod)
		want   bool
	}{
		{"bound", func(p *corev1.Pod) { p.Spec.NodeName = "n1" }, false},
		{"scheduled condition", func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
		}, false},
		{"ready", ready, true},
		{"deleting", func(p *corev1.Pod) { p.DeletionTimestamp = &now }, true},
		{"running", func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }, false},
		{"failed", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }, true},
		{"label", func(p *corev1.Pod) { p.Labels["a"] = "2" }, true},
	}
	for _, tt := range tests {
		cur := base.DeepCopy()
		tt.change(cur)
		if got := podStepChange(base, cur); got != tt.want {
			t.Errorf("%s: podStepChange %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFreshestChild: a status computed after the pass starts from what this controller last
// wrote while the cache still shows the version it wrote over, else from the cache.
func TestFreshestChild(t *testing.T) {
	own := newOwnWrites()
	cached := &metav1.ObjectMeta{Name: "c", UID: "u", ResourceVersion: "10"}
	get := func(string) (*metav1.ObjectMeta, error) { return cached, nil }
	written := &metav1.ObjectMeta{Name: "c", UID: "u", ResourceVersion: "11"}
	own.note("ns/pcs", "PodClique", "c", "10", written)
	stale := &metav1.ObjectMeta{Name: "c", UID: "u", ResourceVersion: "9"}
	if got := freshest(own, "ns/pcs", "PodClique", stale, get); got != written {
		t.Errorf("cache at the version written over: got rv %s, want the write (11)", got.ResourceVersion)
	}
	cached = &metav1.ObjectMeta{Name: "c", UID: "u", ResourceVersion: "12"}
	if got := freshest(own, "ns/pcs", "PodClique", stale, get); got != cached {
		t.Errorf("cache moved on: got rv %s, want the cache's (12)", got.ResourceVersion)
	}
}

// TestStatusWriterRefusesWritesOnceStopping: a pass that finishes while the controller stops
// submits after wait began; its write is dropped, not started (it used to start, and a write
// started while wait waited panicked: "WaitGroup is reused before previous Wait has
// returned", seen in make perf-updates at shutdown).
func TestStatusWriterRefusesWritesOnceStopping(t *testing.T) {
	w := newStatusWriter(0, func(context.Context, string, error) {})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				w.submit(ctx, "ns/a", func(context.Context) error { return nil }, false)
			}
		}()
	}
	w.wait()
	wg.Wait()
	ran := false
	w.submit(ctx, "ns/a", func(context.Context) error { ran = true; return nil }, false)
	w.wait()
	if ran {
		t.Error("a write submitted after wait ran")
	}
}

// TestStatusWriterSpacesWrites: after a write, the next write of the key waits for the
// interval, and what was submitted meanwhile goes as one write (the newest); an urgent write
// and stopping end the wait.
func TestStatusWriterSpacesWrites(t *testing.T) {
	var mu sync.Mutex
	var order []string
	ran := make(chan string, 8)
	w := newStatusWriter(time.Minute, func(context.Context, string, error) {})
	spacing := make(chan time.Duration, 8)
	release := make(chan time.Time)
	w.after = func(d time.Duration) <-chan time.Time { spacing <- d; return release }
	ctx := context.Background()
	write := func(name string) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			ran <- name
			return nil
		}
	}
	w.submit(ctx, "ns/a", write("w1"), false)
	if got := <-ran; got != "w1" {
		t.Fatalf("first write: got %s, want w1 at once", got)
	}
	if d := <-spacing; d != time.Minute {
		t.Fatalf("spacing after a write: %s, want the interval (1m)", d)
	}
	// The writer now waits for the interval: w2 and w3 wait with it, w3 replacing w2.
	w.submit(ctx, "ns/a", write("w2"), false)
	w.submit(ctx, "ns/a", write("w3"), false)
	mu.Lock()
	if len(order) != 1 {
		t.Errorf("writes before the interval ended: %v, want [w1]", order)
	}
	mu.Unlock()
	release <- time.Now()
	if got := <-ran; got != "w3" {
		t.Fatalf("after the interval: got %s, want w3 (the newest)", got)
	}
	<-spacing
	// An urgent write does not wait for the interval.
	w.submit(ctx, "ns/a", write("w4"), true)
	if got := <-ran; got != "w4" {
		t.Fatalf("urgent write: got %s, want w4 at once", got)
	}
	<-spacing
	// Stopping ends the spacing: a write submitted before wait began is not held for it.
	w.submit(ctx, "ns/a", write("w5"), false)
	w.wait()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"w1", "w3", "w4", "w5"}; !slices.Equal(order, want) {
		t.Errorf("writes ran as %v, want %v", order, want)
	}
}
