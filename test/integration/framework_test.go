package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/phalanx-sched/phalanx/test/framework"
)

// The pod watch that the availability invariants read is continuous: when the API server ends
// the stream (here after 1 s), the watch resumes where it stopped and the observer still sees
// every pod. A watch that ignored the close would see only the first pod.
func TestPodWatchSurvivesServerClose(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	framework.WatchTimeout = time.Second
	t.Cleanup(func() { framework.WatchTimeout = 0 })

	var mu sync.Mutex
	seen := map[string]bool{}
	stop := env.WatchPodsSelected(t, ns, "test.phalanx.dev/watch=yes", func(_ map[string]corev1.Pod, p *corev1.Pod) {
		mu.Lock()
		seen[p.Name] = true
		mu.Unlock()
	})
	defer stop()
	saw := func(name string) func(context.Context) (bool, error) {
		return func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return seen[name], nil
		}
	}
	for i, name := range []string{"first", "second", "third"} {
		resumes := framework.WatchResumes.Load()
		p := gpuPod(ns, name, 0)
		p.Labels = map[string]string{"test.phalanx.dev/watch": "yes"}
		p.Spec.SchedulerName = "no-such-scheduler" // stays Pending: only the watch matters
		env.CreatePods(t, p)
		framework.Eventually(t, wait, "the watch sees pod "+name, saw(name))
		if i < 2 {
			framework.Eventually(t, wait, "the server ends the watch and it resumes", func(context.Context) (bool, error) {
				return framework.WatchResumes.Load() > resumes, nil
			})
		}
	}
}
