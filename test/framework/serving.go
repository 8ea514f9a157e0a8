package framework

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// ServingWatch is an observer for WatchPods on a PrefillDecode PodCliqueSet: at every pod event
// it records whether some revision (image tag) still has a complete serving set, a Ready
// prefill and a Ready decode pod of that revision. It also records the most pods alive at once,
// the frontend pods seen (an unchanged frontend must stay one pod) and whether a pod of a
// coherent slice was seen.
type ServingWatch struct {
	mu           sync.Mutex
	broken       []string
	maxAlive     int
	frontendUIDs map[string]bool
	sawSlice     bool
}

// NewServingWatch returns an empty ServingWatch.
func NewServingWatch() *ServingWatch { return &ServingWatch{frontendUIDs: map[string]bool{}} }

// Observe is the WatchPods callback.
func (w *ServingWatch) Observe(pods map[string]corev1.Pod, changed *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ready := map[string]map[string]int{} // revision -> clique -> ready pods
	alive := 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		alive++
		clique := p.Labels[workload.LabelCliqueTemplate]
		if clique == "frontend" {
			w.frontendUIDs[string(p.UID)] = true
		}
		if p.Labels[grovev1.LabelCoherentSlice] != "" {
			w.sawSlice = true
		}
		if !ReadyPod(p) {
			continue
		}
		image := p.Spec.Containers[0].Image
		rev := image[strings.LastIndex(image, ":")+1:]
		if ready[rev] == nil {
			ready[rev] = map[string]int{}
		}
		ready[rev][clique]++
	}
	w.maxAlive = max(w.maxAlive, alive)
	for _, byClique := range ready {
		if byClique["prefill-worker"] >= 1 && byClique["decode-worker"] >= 1 {
			return
		}
	}
	w.broken = append(w.broken, fmt.Sprintf("after %s: ready by revision %v", changed.Name, ready))
}

// Check fails t when a pod event left no revision with a complete serving set, when more than
// maxAlive pods were alive at once, when the frontend was replaced, or when no pod of a
// coherent slice was seen. It returns the most pods seen alive at once.
func (w *ServingWatch) Check(t testing.TB, maxAlive int) int {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.broken) > 0 {
		t.Errorf("no revision had a complete serving set at %d pod events, first: %s", len(w.broken), w.broken[0])
	}
	if w.maxAlive > maxAlive {
		t.Errorf("%d pods alive at once, want at most %d", w.maxAlive, maxAlive)
	}
	if len(w.frontendUIDs) != 1 {
		t.Errorf("the unchanged frontend was replaced (%d pods seen)", len(w.frontendUIDs))
	}
	if !w.sawSlice {
		t.Error("no pod of a coherent slice was seen")
	}
	return w.maxAlive
}
