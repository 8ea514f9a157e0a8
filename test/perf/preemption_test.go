package perf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// PreemptionWorkload fills every node with low-priority gangs (bound before the scheduler
// starts) and then asks for high-priority gangs that fit only by preemption. Every pod takes
// a whole 8-GPU node; each gang needs all its members.
type PreemptionWorkload struct {
	Name                       string
	Nodes, LowGangs, HighGangs int
	GangSize                   int
}

func preemptionWorkload() PreemptionWorkload {
	w := PreemptionWorkload{Name: "preemption: 100 low gangs x 2 fill 200 nodes, 25 high gangs x 2 arrive", Nodes: 200, LowGangs: 100, HighGangs: 25, GangSize: 2}
	if *quick {
		w = PreemptionWorkload{Name: "preemption: 10 low gangs x 2 fill 20 nodes, 3 high gangs x 2 arrive (/10)", Nodes: 20, LowGangs: 10, HighGangs: 3, GangSize: 2}
	}
	return w
}

// preemptionConfigs: the default profile's DefaultPreemption on the same pods (gang labels
// mean nothing to it) against Phalanx's gang-aware preemption.
func preemptionConfigs() []Config { return configs[:2] }

// PreemptionResult is one run of the preemption workload.
type PreemptionResult struct {
	Config, Workload string
	// HighBound of HighPods; HighComplete gangs with every member bound.
	HighBound, HighPods, HighComplete int
	// Placed is from the scheduler's start to the last bind of a high-priority pod.
	Placed time.Duration
	// Evicted low pods; LowWhole low gangs with no member left; LowBroken low gangs left
	// with some but fewer than all members (below their minimum).
	Evicted, LowWhole, LowBroken int
	// WasteGPUSeconds: GPU-seconds held by members of broken low gangs from the moment their
	// gang broke, and by bound members of incomplete high gangs, until the end of the run.
	WasteGPUSeconds float64
	CPUSeconds      float64
}

// runPreemption runs the preemption workload under cfg on a fresh control plane.
func runPreemption(t *testing.T, root string, cfg Config, wl PreemptionWorkload) PreemptionResult {
	t.Helper()
	ctx := context.Background()
	dir, remove := runDir(t)
	defer remove()
	cluster, kube, client := startCluster(t, root, dir)
	defer cluster.Stop()
	for name, v := range map[string]int32{"perf-low": 100, "perf-high": 1000} {
		if _, err := kube.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := createNodes(ctx, kube, wl.Nodes); err != nil {
		t.Fatal(err)
	}
	// Gang objects (for Phalanx), then the low members bound to their nodes, then the high
	// members pending.
	mkGang := func(name string) error {
		if cfg.Gangs != "podgang" {
			return nil
		}
		grp := schedv1.PodGroup{Name: "members", MinReplicas: int32(wl.GangSize)}
		for i := 0; i < wl.GangSize; i++ {
			grp.PodReferences = append(grp.PodReferences, schedv1.NamespacedName{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i)})
		}
		_, err := client.SchedulerV1alpha1().PodGangs(ns).Create(ctx, &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: schedv1.PodGangSpec{PodGroups: []schedv1.PodGroup{grp}}}, metav1.CreateOptions{})
		return err
	}
	member := func(gangName string, i int, prio string) *corev1.Pod {
		p := pod(fmt.Sprintf("%s-%d", gangName, i), cfg.SchedulerName, 8)
		p.Labels[grovev1.LabelPodGang] = gangName
		p.Spec.PriorityClassName = prio
		return p
	}
	if err := parallel(wl.LowGangs+wl.HighGangs, func(g int) error {
		if g < wl.LowGangs {
			return mkGang(fmt.Sprintf("low-%d", g))
		}
		return mkGang(fmt.Sprintf("high-%d", g-wl.LowGangs))
	}); err != nil {
		t.Fatalf("creating gangs: %v", err)
	}
	if err := parallel(wl.LowGangs*wl.GangSize, func(i int) error {
		p := member(fmt.Sprintf("low-%d", i/wl.GangSize), i%wl.GangSize, "perf-low")
		p.Spec.NodeName = fmt.Sprintf("perf-node-%d", i)
		_, err := kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatalf("creating low pods: %v", err)
	}
	if err := parallel(wl.HighGangs*wl.GangSize, func(i int) error {
		_, err := kube.CoreV1().Pods(ns).Create(ctx, member(fmt.Sprintf("high-%d", i/wl.GangSize), i%wl.GangSize, "perf-high"), metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatalf("creating high pods: %v", err)
	}

	list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	highBound := map[string]time.Time{}
	lowGone := map[string]time.Time{} // low pod -> deletion seen
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchPods(wctx, kube, list.ResourceVersion, func(t watch.EventType, p *corev1.Pod) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case strings.HasPrefix(p.Name, "low-") && (t == watch.Deleted || p.DeletionTimestamp != nil):
				if _, seen := lowGone[p.Name]; !seen {
					lowGone[p.Name] = time.Now()
				}
			case strings.HasPrefix(p.Name, "high-") && t != watch.Deleted && p.Spec.NodeName != "":
				if _, seen := highBound[p.Name]; !seen {
					highBound[p.Name] = time.Now()
				}
			}
		})
	}()

	sched, start, err := startScheduler(root, dir, cluster.Kubeconfig, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	highPods := wl.HighGangs * wl.GangSize
	runUntilQuiet(t, sched, filepath.Join(dir, "scheduler-"+cfg.Name+".log"), start, 5*time.Minute, func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		return len(highBound) + len(lowGone), len(highBound) == highPods
	})
	cpu, _ := stopScheduler(sched)
	end := time.Now()
	if keep := os.Getenv("PHALANX_PERF_KEEP"); keep != "" {
		_ = exec.Command("cp", "-r", dir, keep).Run()
	}
	stopWatch()
	<-done

	r := PreemptionResult{Config: cfg.Name, Workload: wl.Name, HighPods: highPods, CPUSeconds: cpu}
	mu.Lock()
	defer mu.Unlock()
	r.HighBound, r.Evicted = len(highBound), len(lowGone)
	for _, at := range highBound {
		if d := at.Sub(start); d > r.Placed {
			r.Placed = d
		}
	}
	for g := 0; g < wl.HighGangs; g++ {
		n := 0
		for i := 0; i < wl.GangSize; i++ {
			if _, ok := highBound[fmt.Sprintf("high-%d-%d", g, i)]; ok {
				n++
			}
		}
		switch {
		case n == wl.GangSize:
			r.HighComplete++
		case n > 0:
			for i := 0; i < wl.GangSize; i++ {
				if at, ok := highBound[fmt.Sprintf("high-%d-%d", g, i)]; ok {
					r.WasteGPUSeconds += 8 * end.Sub(at).Seconds()
				}
			}
		}
	}
	for g := 0; g < wl.LowGangs; g++ {
		var gone []time.Time
		for i := 0; i < wl.GangSize; i++ {
			if at, ok := lowGone[fmt.Sprintf("low-%d-%d", g, i)]; ok {
				gone = append(gone, at)
			}
		}
		switch {
		case len(gone) == wl.GangSize:
			r.LowWhole++
		case len(gone) > 0:
			r.LowBroken++
			broke := gone[0]
			for _, at := range gone {
				if at.Before(broke) {
					broke = at
				}
			}
			r.WasteGPUSeconds += float64(8*(wl.GangSize-len(gone))) * end.Sub(broke).Seconds()
		}
	}
	return r
}

// runPreemptions runs the preemption workload once under each of its configurations.
func runPreemptions(t *testing.T, root string) []PreemptionResult {
	var out []PreemptionResult
	wl := preemptionWorkload()
	for _, cfg := range preemptionConfigs() {
		r := runPreemption(t, root, cfg, wl)
		t.Logf("%-8s %s: high %d/%d bound (%d gangs complete) in %v, evicted %d, low gangs whole %d broken %d, waste %.1f GPU-s, cpu %.1fs",
			r.Config, r.Workload, r.HighBound, r.HighPods, r.HighComplete, r.Placed.Round(10*time.Millisecond), r.Evicted, r.LowWhole, r.LowBroken, r.WasteGPUSeconds, r.CPUSeconds)
		out = append(out, r)
	}
	return out
}

// TestPerfPreemption runs only the preemption workload (with -perf.out, as make perf).
func TestPerfPreemption(t *testing.T) {
	if *outDir == "" {
		t.Skip("set -perf.out")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	runPreemptions(t, root)
}
