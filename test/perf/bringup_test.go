package perf

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/server"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// BringUpResult is a bring-up by the controller against the same gangs and pods created by a
// client (the bind rate the controller is held against).
type BringUpResult struct {
	Pods, Nodes int
	// Controller and Client are pods per second from the first create (the PodCliqueSet's, or
	// the client's first) to the last bind.
	Controller, Client float64
	// Backlog is the largest number of pods the controller had created that waited for a bind.
	Backlog int
}

// Ratio is the controller's rate over the client's.
func (r BringUpResult) Ratio() float64 { return r.Controller / r.Client }

// TestPerfBringUp measures a bring-up of 1,000 pods (125 PodCliqueSet replicas of a clique of
// 8 whole-node pods, gangs of 8, on 1,000 fake nodes) by the controller's own client at the
// binary's defaults (server.DefaultControllerOptions) against the binds of the scheduler in
// the same process, and against the same gangs and pods created by a client. make perf and
// make perf-updates put it in the report's update section; alone:
// go test -mod=vendor -run TestPerfBringUp -v ./test/perf/ (-perf.quick: 100 pods).
func TestPerfBringUp(t *testing.T) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	r := measureBringUp(t, root)
	t.Logf("bring-up rate from the first create to the last bind: controller %.0f pods/s, a client creating the same gangs and pods %.0f pods/s: %.2fx (target >= 0.9x)",
		r.Controller, r.Client, r.Ratio())
}

// measureBringUp runs the bring-up (TestPerfBringUp) once.
func measureBringUp(t *testing.T, root string) BringUpResult {
	t.Helper()
	replicas, nodes := int32(125), 1000
	if *quick {
		replicas, nodes = 13, 104
	}
	ctx := context.Background()
	env, cluster := startUpdateCluster(t, root, nodes)
	defer cluster.Stop()
	defaults := server.DefaultControllerOptions()
	stop := env.StartPhalanx(t, framework.Phalanx{Controller: true, ControllerOptions: &defaults})
	defer stop()

	var mu sync.Mutex
	created, bound := map[string]time.Duration{}, map[string]time.Duration{}
	begin := time.Now()
	stopWatch := env.WatchPods(t, ns, "b", func(pods map[string]corev1.Pod, changed *corev1.Pod) {
		mu.Lock()
		defer mu.Unlock()
		at := time.Since(begin)
		if _, ok := created[changed.Name]; !ok {
			created[changed.Name] = at
		}
		if _, ok := bound[changed.Name]; !ok && changed.Spec.NodeName != "" {
			bound[changed.Name] = at
		}
	})
	defer stopWatch()
	pcs := framework.Workers(ns, "b", 1, 0, 600)
	pcs.Spec.Replicas = replicas
	pcs.Spec.Template.Cliques[0].Spec.Replicas = 8
	mu.Lock()
	begin = time.Now()
	mu.Unlock()
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	total := int(replicas) * 8
	waitLong(t, env, "b", func(p *grovev1.PodCliqueSet, ready int) bool { return ready == total })
	mu.Lock()
	c, b := sortedDurations(created), sortedDurations(bound)
	mu.Unlock()
	backlog := 0
	for i, j := 0, 0; i < len(c); i++ { // created pods not yet bound, at each create
		for j < len(b) && b[j] <= c[i] {
			j++
		}
		backlog = max(backlog, i+1-j)
	}
	t.Logf("bring-up of %d pods (%d gangs of 8) on %d nodes, controller QPS %.0f burst %d: created %s..%s (%.0f pods/s), bound %s..%s (%.0f pods/s); the last bind %s after the last create; at most %d created pods waiting for a bind",
		total, replicas, nodes, defaults.QPS, defaults.Burst, c[0].Round(time.Millisecond), c[len(c)-1].Round(time.Millisecond), float64(len(c))/(c[len(c)-1]-c[0]).Seconds(),
		b[0].Round(time.Millisecond), b[len(b)-1].Round(time.Millisecond), float64(len(b))/(b[len(b)-1]-b[0]).Seconds(),
		(b[len(b)-1] - c[len(c)-1]).Round(time.Millisecond), backlog)

	// The same gangs and pods created by a client, with the scheduler alone, on a control
	// plane of its own: the bind rate the controller's bring-up is held against.
	gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := env.ListPods(ctx, ns, "b")
	if err != nil {
		t.Fatal(err)
	}
	stopWatch()
	stop()
	cluster.Stop()
	return BringUpResult{Pods: total, Nodes: nodes, Backlog: backlog,
		Controller: float64(total) / b[len(b)-1].Seconds(), // from the PodCliqueSet's create
		Client:     clientBringUp(t, root, nodes, gangs.Items, pods)}
}

// medianBringUp is the run with the median ratio, and the lowest and highest ratios.
func medianBringUp(runs []BringUpResult) (median BringUpResult, lo, hi float64) {
	sort.Slice(runs, func(i, j int) bool { return runs[i].Ratio() < runs[j].Ratio() })
	return runs[len(runs)/2], runs[0].Ratio(), runs[len(runs)-1].Ratio()
}

// clientBringUp creates gangs, then pods (server fields cleared, unbound), with a fast client on
// a new control plane where the Phalanx scheduler runs alone, and returns the bind rate from the
// first create to the last bind.
func clientBringUp(t *testing.T, root string, nodes int, gangs []schedv1.PodGang, pods []corev1.Pod) float64 {
	t.Helper()
	ctx := context.Background()
	env, cluster := startUpdateCluster(t, root, nodes)
	defer cluster.Stop()
	stop := env.StartPhalanx(t, framework.Phalanx{})
	defer stop()
	var mu sync.Mutex
	var last time.Duration
	bound := map[string]bool{}
	begin := time.Now()
	stopWatch := env.WatchPods(t, ns, "b", func(_ map[string]corev1.Pod, changed *corev1.Pod) {
		mu.Lock()
		defer mu.Unlock()
		if changed.Spec.NodeName != "" && !bound[changed.Name] {
			bound[changed.Name] = true
			last = time.Since(begin)
		}
	})
	defer stopWatch()
	clean := func(m *metav1.ObjectMeta) {
		*m = metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name, Labels: m.Labels, Annotations: m.Annotations}
	}
	mu.Lock()
	begin = time.Now()
	mu.Unlock()
	for i := range gangs {
		g := gangs[i].DeepCopy()
		clean(&g.ObjectMeta)
		g.Status = schedv1.PodGangStatus{}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := parallel(len(pods), func(i int) error {
		p := pods[i].DeepCopy()
		clean(&p.ObjectMeta)
		p.Spec.NodeName, p.Status = "", corev1.PodStatus{}
		_, err := env.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 10*time.Minute, "every pod bound", func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(bound) >= len(pods), nil
	})
	mu.Lock()
	defer mu.Unlock()
	return float64(len(pods)) / last.Seconds()
}

func sortedDurations(m map[string]time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
