// Package perf is Phalanx's performance harness, in the spirit of the kube-scheduler's
// scheduler_perf: real kube-apiserver and etcd, nodes created directly as Node objects (no
// kubelet, no KWOK: pods are bound, never run), and the same phalanx-scheduler binary run in
// three configurations, one after another on a fresh control plane each:
//
//	default  the default profile, no gangs (the baseline)
//	phalanx  the phalanx-scheduler profile with PodGang gangs
//	in-tree  the default profile with the GenericWorkload gate: the in-tree GangScheduling
//	         plugin and scheduling.k8s.io PodGroups
//	phalanx-wl  the phalanx-scheduler profile on the same scheduling.k8s.io PodGroups as
//	         in-tree (the WorkloadPodGroup plugin; gang workloads only)
//
// and the cost of updates under each strategy of the seed design. `make perf` runs it and
// writes docs/perf/README.md and the plots; `make test` does not (the tests skip without
// -perf.out).
package perf

import (
	"bufio"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

var (
	outDir = flag.String("perf.out", "", "write the report and plots here; the perf tests run only when set (make perf)")
	quick  = flag.Bool("perf.quick", false, "a tenth of the workload sizes (to try the harness)")
)

const ns = "perf"

// Config is one way of running phalanx-scheduler.
type Config struct {
	Name          string
	SchedulerName string
	// Gangs: "podgang" (PodGangs), "workload" (scheduling.k8s.io PodGroups), or "" (gang
	// members are scheduled as plain pods).
	Gangs        string
	FeatureGates string
	// Phalanx: the phalanx-scheduler profile (else the default profile named SchedulerName).
	Phalanx bool
	// GangsOnly: the configuration runs only workloads with gangs; OneGangOnly only those of
	// one gang.
	GangsOnly, OneGangOnly bool
	// Args are more phalanx-scheduler flags.
	Args []string
	// ClientBinds > 0: no scheduler; once the pods exist, a client of the harness binds them
	// itself (pod k of the workload to node k/8, past the prefilled nodes) from this many
	// goroutines at once. Its rate is the API server's: the bind rate a scheduler that decided
	// every node at once and spent nothing else could reach on this machine.
	ClientBinds int
}

// configs: the default and in-tree configurations run with kube-scheduler's own feature
// defaults (phalanx-scheduler changes NominatedNodeNameForExpectation's, see
// pkg/scheduler/features.go), so that they are upstream as shipped.
var configs = []Config{
	{Name: "default", SchedulerName: "perf-default", FeatureGates: "NominatedNodeNameForExpectation=true"},
	{Name: "phalanx", SchedulerName: scheduler.SchedulerName, Gangs: "podgang", Phalanx: true},
	{Name: "in-tree", SchedulerName: "perf-intree", Gangs: "workload", FeatureGates: "GenericWorkload=true,NominatedNodeNameForExpectation=true"},
	{Name: "phalanx-wl", SchedulerName: scheduler.SchedulerName, Gangs: "workload", Phalanx: true, GangsOnly: true},
	// The API server's bind rate for a gang bound at once, with as many binds in flight as
	// Phalanx's binder (gangcycle.MaxConcurrentBinds): what any scheduler that binds a whole
	// gang from one decision is held to between its first and last bind.
	{Name: "client-binds", SchedulerName: "none", ClientBinds: 128, OneGangOnly: true},
}

// otherConfigs are not in the report: TestPerfOne runs them, to compare one change.
var otherConfigs = []Config{
	// Every gang member in a cycle of its own, as before pkg/scheduler/gangcycle.
	{Name: "phalanx-member-cycles", SchedulerName: scheduler.SchedulerName, Gangs: "podgang", Phalanx: true, Args: []string{"--member-cycles"}},
	// The API server's bind rate with fewer and more binds in flight than client-binds.
	{Name: "client-binds-32", SchedulerName: "none", ClientBinds: 32},
	{Name: "client-binds-512", SchedulerName: "none", ClientBinds: 512},
}

// Workload is what one run schedules.
type Workload struct {
	Name  string
	Nodes int
	// Plain pods (1 GPU each), gangs of GangSize pods (1 GPU each).
	Plain, Gangs, GangSize int
	// Prefill is the fraction of GPU capacity taken by pods bound before the run.
	Prefill float64
	// DRA: every pod takes its GPU from a ResourceClaim of its own (the test driver publishes
	// 8 GPUs per node as a ResourceSlice), not from nvidia.com/gpu.
	DRA bool
	// Arrive: the gangs and pods are created once the scheduler runs (it has bound a probe
	// pod), not before it starts; gang times are from the last member's creation.
	Arrive bool
}

func workloads() []Workload {
	w := []Workload{
		{Name: "plain 5000 pods, 1000 nodes", Nodes: 1000, Plain: 5000},
		{Name: "1000 gangs x 3, 1000 nodes", Nodes: 1000, Gangs: 1000, GangSize: 3},
		{Name: "200 gangs x 16, 1000 nodes", Nodes: 1000, Gangs: 200, GangSize: 16},
		{Name: "mixed: 20% prefilled, 2000 plain + 500 gangs x 3, 1000 nodes", Nodes: 1000, Plain: 2000, Gangs: 500, GangSize: 3, Prefill: 0.2},
		{Name: "plain 5000 pods, 5000 nodes", Nodes: 5000, Plain: 5000},
		{Name: "1000 gangs x 3, 5000 nodes", Nodes: 5000, Gangs: 1000, GangSize: 3},
		{Name: "one gang of 512, 1000 nodes", Nodes: 1000, Gangs: 1, GangSize: 512},
		{Name: "one gang of 512 created while the scheduler runs, 1000 nodes", Nodes: 1000, Gangs: 1, GangSize: 512, Arrive: true},
		{Name: "1250 gangs x 8 (10,000 pods), 5000 nodes", Nodes: 5000, Gangs: 1250, GangSize: 8},
	}
	if *quick {
		for i := range w {
			w[i].Nodes, w[i].Plain = w[i].Nodes/10, w[i].Plain/10
			if w[i].Gangs > 1 {
				w[i].Gangs /= 10
			}
			w[i].Name += " (/10)"
		}
	}
	return w
}

// Result is one (config, workload) run.
type Result struct {
	Config, Workload string
	Pods, Bound      int
	// PodsPerSecond is (bound-1) / (last bind - first bind).
	PodsPerSecond float64
	// GangP50/P90/P99 are the times from the scheduler's start (Workload.Arrive: from the
	// last member's creation) to a gang's last bind.
	GangP50, GangP90, GangP99 time.Duration
	CPUSeconds                float64
	PeakRSSMiB                float64
	// WasteGPUSeconds are GPU-seconds held by bound members of gangs that were not complete
	// at the end; Skew the longest time between a gang's first and last bind.
	WasteGPUSeconds float64
	Skew            time.Duration
	Incomplete      int
	// Writes are the API server's mutating requests while the scheduler ran (it is the only
	// writer then), by resource[/subresource]; WritesPerPod their sum over Bound.
	Writes       map[string]float64
	WritesPerPod float64
	// MinRate and MaxRate are the slowest and fastest of the repeated runs (TestPerf).
	MinRate, MaxRate float64
}

func binDir(root string) string {
	if d := os.Getenv("PHALANX_BIN_DIR"); d != "" {
		return d
	}
	return filepath.Join(root, "bin")
}

// runDir returns a directory for one run's control plane (etcd's data, the logs) and removes
// it when the run returns (the cluster stopped first: defer remove before cluster.Stop).
// `make perf` starts about a hundred control planes, and t.TempDir keeps each until the whole
// test ends: 8.5 GB of etcd data, which filled the disk and stopped etcd late in a run
// (2026-12-07).
func runDir(t *testing.T) (string, func()) {
	t.Helper()
	dir, err := os.MkdirTemp("", "phalanx-perf-")
	if err != nil {
		t.Fatal(err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }
}

// runScheduling starts a fresh control plane, creates the nodes and the pods (and their gang
// objects), then starts the scheduler and records every bind.
func runScheduling(t *testing.T, root string, cfg Config, wl Workload) Result {
	t.Helper()
	ctx := context.Background()
	dir, remove := runDir(t)
	defer remove()
	cluster, kube, client := startCluster(t, root, dir, localcluster.WorkloadAPIArgs...)
	defer cluster.Stop()
	if err := createNodes(ctx, kube, wl.Nodes); err != nil {
		t.Fatal(err)
	}
	if wl.DRA {
		if _, err := kube.ResourceV1().DeviceClasses().Create(ctx, framework.GPUDeviceClass(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := parallel(wl.Nodes, func(i int) error {
			_, err := kube.ResourceV1().ResourceSlices().Create(ctx, framework.GPUSlice(fmt.Sprintf("perf-node-%d", i), 8, "h100"), metav1.CreateOptions{})
			return err
		}); err != nil {
			t.Fatalf("publishing GPUs: %v", err)
		}
	}
	prefilled := int(float64(wl.Nodes) * wl.Prefill)
	parallel(prefilled, func(i int) error {
		p := pod(fmt.Sprintf("prefill-%d", i), "none", 8)
		p.Spec.NodeName = fmt.Sprintf("perf-node-%d", i)
		_, err := kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
	pods := 0
	gangOf := map[string]string{}
	// Gang objects first, then members, then plain pods.
	create := func() {
		if err := parallel(wl.Gangs, func(g int) error {
			name := fmt.Sprintf("gang-%d", g)
			switch cfg.Gangs {
			case "podgang":
				pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
				grp := schedv1.PodGroup{Name: "members", MinReplicas: int32(wl.GangSize)}
				for i := 0; i < wl.GangSize; i++ {
					grp.PodReferences = append(grp.PodReferences, schedv1.NamespacedName{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i)})
				}
				pg.Spec.PodGroups = []schedv1.PodGroup{grp}
				_, err := client.SchedulerV1alpha1().PodGangs(ns).Create(ctx, pg, metav1.CreateOptions{})
				return err
			case "workload":
				pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
					Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
						Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: int32(wl.GangSize)}}}}
				_, err := kube.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{})
				return err
			}
			return nil
		}); err != nil {
			t.Fatalf("creating gangs: %v", err)
		}
		items := workloadPods(wl)
		for _, it := range items {
			if it.gang != "" {
				gangOf[it.name] = it.gang
			}
		}
		pods = len(items)
		if err := parallel(len(items), func(i int) error {
			p := pod(items[i].name, cfg.SchedulerName, 1)
			if wl.DRA {
				claim := framework.GPUClaim(ns, items[i].name+"-gpu", 1, "")
				if _, err := kube.ResourceV1().ResourceClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
					return err
				}
				framework.UseClaim(p, claim.Name)
			}
			if g := items[i].gang; g != "" {
				switch cfg.Gangs {
				case "podgang":
					p.Labels[grovev1.LabelPodGang] = g
				case "workload":
					p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(g)}
				}
			}
			_, err := kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			return err
		}); err != nil {
			t.Fatalf("creating pods: %v", err)
		}
	}
	if !wl.Arrive {
		create()
	}

	// Record binds as the watch delivers them; a watch the API server ends is started again
	// from the last resourceVersion seen.
	list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bound := map[string]time.Time{}
	var mu sync.Mutex
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchPods(wctx, kube, list.ResourceVersion, func(t watch.EventType, p *corev1.Pod) {
			if t == watch.Deleted || t == watch.Bookmark || p.Spec.NodeName == "" || !measured(p.Name) {
				return
			}
			mu.Lock()
			if _, seen := bound[p.Name]; !seen {
				bound[p.Name] = time.Now()
			}
			mu.Unlock()
		})
	}()

	pprofPort := 0
	profile := os.Getenv("PHALANX_PERF_PPROF") // a file: take a CPU profile of the scheduler
	// A directory: dump the scheduler's goroutines every 100 ms while it runs (where binds
	// wait when the rate is low and the CPU idle).
	goroutines := os.Getenv("PHALANX_PERF_GOROUTINES")
	// A directory: keep the scheduler's /metrics as the run ends (scheduling attempts by
	// result, plugin and pass counts: what a slow run did more of).
	metricsDir := os.Getenv("PHALANX_PERF_METRICS")
	if profile != "" || goroutines != "" || metricsDir != "" {
		if pprofPort, err = localcluster.FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	if err := warmGangCaches(ctx, kube, client); err != nil {
		t.Fatal(err)
	}
	writesBefore, err := apiWrites(ctx, kube)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientBinds > 0 {
		if wl.Arrive {
			create()
			countCreations(writesBefore, cfg, wl, pods)
		}
		start := time.Now()
		// A client of its own, not rate-limited (the harness's allows 2,000 requests/s).
		bc := *cluster.Config
		bc.QPS = -1
		if err := bindDirect(ctx, kubernetes.NewForConfigOrDie(&bc), wl, prefilled, cfg.ClientBinds); err != nil {
			t.Fatalf("binding: %v", err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return len(bound) == pods, nil
		}); err != nil {
			t.Fatalf("the watch saw %d of %d binds: %v", len(bound), pods, err)
		}
		writesAfter, err := apiWrites(ctx, kube)
		if err != nil {
			t.Fatal(err)
		}
		stopWatch()
		<-done
		r := summarize(cfg, wl, pods, bound, gangOf, start, 0, 0)
		t.Logf("%s: binds seen by the watch, from the first bind call: %s", cfg.Name, bindTimeline(bound, start))
		r.Writes, r.WritesPerPod = writesSince(writesBefore, writesAfter, r.Bound)
		return r
	}
	sched, start, err := startScheduler(root, dir, cluster.Kubeconfig, cfg, pprofPort)
	if err != nil {
		t.Fatal(err)
	}
	if profile != "" {
		go func() {
			// The window: PHALANX_PERF_PPROF_WINDOW=<delay>,<seconds> (default 1.5s,5: from just
			// after the scheduler serves; a later one leaves its start-up out).
			delay, seconds := 1500*time.Millisecond, 5
			if w := os.Getenv("PHALANX_PERF_PPROF_WINDOW"); w != "" {
				d, n, _ := strings.Cut(w, ",")
				if v, err := time.ParseDuration(d); err == nil {
					delay = v
				}
				if v, err := strconv.Atoi(n); err == nil {
					seconds = v
				}
			}
			time.Sleep(delay)
			raw, err := schedulerGet(pprofPort, fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds), time.Duration(seconds)*time.Second+time.Minute)
			if err != nil {
				t.Logf("profile: %v", err)
				return
			}
			_ = os.WriteFile(profile, raw, 0o644)
		}()
	}
	if goroutines != "" {
		stopDumps := make(chan struct{})
		defer close(stopDumps)
		go dumpGoroutines(t, goroutines, pprofPort, stopDumps)
	}
	if wl.Arrive {
		// The scheduler runs once it has bound a pod; then the workload arrives.
		probe := pod(probePod, cfg.SchedulerName, 1)
		if _, err := kube.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			p, err := kube.CoreV1().Pods(ns).Get(ctx, probePod, metav1.GetOptions{})
			return err == nil && p.Spec.NodeName != "", nil
		}); err != nil {
			t.Fatalf("the scheduler did not bind the probe pod: %v", err)
		}
		// The writes counted are the scheduler's from here, but the workload's own creations.
		if writesBefore, err = apiWrites(ctx, kube); err != nil {
			t.Fatal(err)
		}
		create()
		start = time.Now()
		countCreations(writesBefore, cfg, wl, pods)
	}
	runUntilQuiet(t, sched, filepath.Join(dir, "scheduler-"+cfg.Name+".log"), start, 10*time.Minute, func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		return len(bound), len(bound) == pods
	})
	// The CPU is the placement's; the writes are the placement's too, those still queued when
	// the last pod was bound included (gang statuses are written from a rate-limited queue).
	cpu, rss := usage(sched.Process.Pid)
	writesAfter, err := writesSettled(ctx, kube)
	if metricsDir != "" {
		saveMetrics(t, metricsDir, cfg.Name, pprofPort)
	}
	_, _ = stopScheduler(sched)
	if err != nil {
		t.Fatal(err)
	}
	stopWatch()
	<-done
	// The bind count is checked against the API: a bind the watch missed would count as lost.
	final, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	boundNow := 0
	for _, p := range final.Items {
		if p.Spec.NodeName != "" && measured(p.Name) {
			boundNow++
		}
	}
	if keep := os.Getenv("PHALANX_PERF_KEEP"); keep != "" {
		_ = exec.Command("cp", "-r", dir, keep).Run()
	}
	mu.Lock()
	defer mu.Unlock()
	r := summarize(cfg, wl, pods, bound, gangOf, start, cpu, rss)
	t.Logf("%s: binds seen by the watch, from the scheduler's start: %s", cfg.Name, bindTimeline(bound, start))
	r.Writes, r.WritesPerPod = writesSince(writesBefore, writesAfter, r.Bound)
	if boundNow != len(bound) {
		t.Logf("%s/%s: the watch saw %d binds, the API holds %d", cfg.Name, wl.Name, len(bound), boundNow)
	}
	return r
}

// countCreations adds to writes (the API server's counts before a workload created while the
// scheduler runs) the workload's own creations under cfg, so that they are not counted as the
// scheduler's: its pods, their claims, its gang objects.
func countCreations(writes map[string]float64, cfg Config, wl Workload, pods int) {
	writes["pods"] += float64(pods)
	if wl.DRA {
		writes["resourceclaims"] += float64(pods)
	}
	switch cfg.Gangs {
	case "podgang":
		writes["podgangs"] += float64(wl.Gangs)
	case "workload":
		writes["podgroups"] += float64(wl.Gangs)
	}
}

// writesSince is the API server's writes by resource from before to after (those that grew),
// and their sum per bound pod (0 when none is bound).
func writesSince(before, after map[string]float64, bound int) (map[string]float64, float64) {
	out := map[string]float64{}
	var total float64
	for res, n := range after {
		if d := n - before[res]; d > 0 {
			out[res] = d
			total += d
		}
	}
	if bound == 0 {
		return out, 0
	}
	return out, total / float64(bound)
}

// workloadPod is a pod of a workload: its name, and its gang's ("" for a plain pod).
type workloadPod struct {
	name, gang string
}

// workloadPods are wl's pods in the order they are created: gang g's members gang-g-0.., then
// the plain pods.
func workloadPods(wl Workload) []workloadPod {
	var out []workloadPod
	for g := 0; g < wl.Gangs; g++ {
		for i := 0; i < wl.GangSize; i++ {
			out = append(out, workloadPod{fmt.Sprintf("gang-%d-%d", g, i), fmt.Sprintf("gang-%d", g)})
		}
	}
	for i := 0; i < wl.Plain; i++ {
		out = append(out, workloadPod{name: fmt.Sprintf("plain-%d", i)})
	}
	return out
}

// bindTimeline is when the first bind, each eighth of the binds and the last were seen,
// from start: where a run's rate was lost (a slow start, a slow middle, a tail).
func bindTimeline(bound map[string]time.Time, start time.Time) string {
	var at []time.Duration
	for _, t := range bound {
		at = append(at, t.Sub(start))
	}
	if len(at) == 0 {
		return "none"
	}
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	var parts []string
	for k := 0; k <= 8; k++ {
		i := min(len(at)-1, k*len(at)/8)
		parts = append(parts, fmt.Sprintf("#%d %v", i+1, at[i].Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// bindDirect binds the workload's pods with kube from workers goroutines at once: gang g's member i
// and plain pod j in the order the workload creates them, 8 to a node, from the first node the
// prefill left free.
func bindDirect(ctx context.Context, kube kubernetes.Interface, wl Workload, prefilled, workers int) error {
	items := workloadPods(wl)
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.name
	}
	if len(names) > (wl.Nodes-prefilled)*8 {
		return fmt.Errorf("%d pods do not fit %d free nodes of 8 GPUs", len(names), wl.Nodes-prefilled)
	}
	return parallelN(workers, len(names), func(k int) error {
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names[k]},
			Target: corev1.ObjectReference{Kind: "Node", Name: fmt.Sprintf("perf-node-%d", prefilled+k/8)}}
		if err := kube.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("pod %s: %w", names[k], err)
		}
		return nil
	})
}

// saveMetrics writes the scheduler's /metrics (served on port without credentials) to
// dir/<config>-<time>.txt.
func saveMetrics(t *testing.T, dir, config string, port int) {
	raw, err := schedulerGet(port, "/metrics", time.Minute)
	if err != nil {
		t.Logf("metrics: %v", err)
		return
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.txt", config, time.Now().Format("150405")))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Logf("metrics: %v", err)
		return
	}
	t.Logf("scheduler metrics: %s", path)
}

// runUntilQuiet samples progress (a count of what happened, and whether all of it did) every
// 200 ms until it is done, or 20 s pass without progress once something happened, or limit
// passes from start. Before the first event the scheduler may still be syncing its informers
// or in a long first cycle (the in-tree pod-group cycle on 5,000 nodes took longer than 20 s),
// so only limit applies then.
// A scheduler that exits (a configuration it refuses) fails the run at once, with the end of
// its log (schedLog), rather than after limit.
func runUntilQuiet(t testing.TB, sched *exec.Cmd, schedLog string, start time.Time, limit time.Duration, progress func() (int, bool)) {
	last, lastCount := time.Now(), 0
	for {
		time.Sleep(200 * time.Millisecond) // sampling progress, not waiting for a condition
		if exited(sched.Process.Pid) {
			raw, _ := os.ReadFile(schedLog)
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			t.Fatalf("the scheduler exited during the run; the end of its log:\n%s", strings.Join(lines[max(0, len(lines)-3):], "\n"))
		}
		n, done := progress()
		if n != lastCount {
			last, lastCount = time.Now(), n
		}
		if done || (n > 0 && time.Since(last) > 20*time.Second) || time.Since(start) > limit {
			return
		}
	}
}

// writesSettled returns the API server's write counts once the scheduler's writes (leader
// election's lease renewals aside) have not moved for 3 s, longer than a status change waits
// to settle (gangplugin.Settle), or after 30 s.
func writesSettled(ctx context.Context, kube kubernetes.Interface) (map[string]float64, error) {
	const quiet, limit = 3 * time.Second, 30 * time.Second
	total := func(w map[string]float64) (n float64) {
		for res, v := range w {
			if res != "leases" {
				n += v
			}
		}
		return n
	}
	deadline := time.Now().Add(limit)
	w, err := apiWrites(ctx, kube)
	if err != nil {
		return nil, err
	}
	last, since := total(w), time.Now()
	for time.Since(since) < quiet && time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond) // sampling counters, not waiting for a condition
		if w, err = apiWrites(ctx, kube); err != nil {
			return nil, err
		}
		if n := total(w); n != last {
			last, since = n, time.Now()
		}
	}
	return w, nil
}

// stopScheduler kills the scheduler and returns its CPU seconds and peak RSS (MiB).
func stopScheduler(sched *exec.Cmd) (cpu, rssMiB float64) {
	cpu, rssMiB = usage(sched.Process.Pid)
	_ = sched.Process.Signal(syscall.SIGKILL)
	_, _ = sched.Process.Wait()
	return cpu, rssMiB
}

// startCluster starts a fresh control plane in dir (no KWOK) with the CRDs and the perf
// namespace, and returns it (the caller stops it) with clients that are not rate-limited.
func startCluster(t *testing.T, root, dir string, apiServerArgs ...string) (*localcluster.Cluster, kubernetes.Interface, versioned.Interface) {
	t.Helper()
	ctx := context.Background()
	crds := filepath.Join(root, "manifests", "helm", "phalanx", "files", "crds")
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: dir, BinDir: binDir(root), NoKwok: true, CRDDir: crds, APIServerArgs: apiServerArgs})
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.InstallCRDs(ctx, cluster.Config, crds); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	cc := *cluster.Config
	cc.QPS, cc.Burst = 2000, 4000
	kube := kubernetes.NewForConfigOrDie(&cc)
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	return cluster, kube, versioned.NewForConfigOrDie(&cc)
}

// watchPods calls seen for every pod event in the namespace from resourceVersion rv until
// ctx ends; a watch the API server ends is started again from the last resourceVersion seen.
func watchPods(ctx context.Context, kube kubernetes.Interface, rv string, seen func(watch.EventType, *corev1.Pod)) {
	for ctx.Err() == nil {
		w, err := kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			time.Sleep(100 * time.Millisecond) // retry of a failed watch call, not a wait for a condition
			continue
		}
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			rv = p.ResourceVersion
			seen(ev.Type, p)
		}
	}
}

// apiWrites reads the API server's apiserver_request_total and sums the mutating requests
// (its verb label is the HTTP method: POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION) by
// resource[/subresource].
func apiWrites(ctx context.Context, kube kubernetes.Interface) (map[string]float64, error) {
	raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		labels, value, ok := strings.Cut(strings.TrimPrefix(line, "apiserver_request_total{"), "} ")
		if !ok {
			continue
		}
		l := map[string]string{}
		for _, kv := range strings.Split(labels, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				l[k] = strings.Trim(v, `"`)
			}
		}
		switch l["verb"] {
		case "POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION":
		default:
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		res := l["resource"]
		if l["subresource"] != "" {
			res += "/" + l["subresource"]
		}
		out[res] += n
	}
	return out, nil
}

func summarize(cfg Config, wl Workload, pods int, bound map[string]time.Time, gangOf map[string]string, start time.Time, cpu, rss float64) Result {
	r := Result{Config: cfg.Name, Workload: wl.Name, Pods: pods, Bound: len(bound), CPUSeconds: cpu, PeakRSSMiB: rss}
	var first, last time.Time
	for _, t := range bound {
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	if len(bound) > 1 && last.After(first) {
		r.PodsPerSecond = float64(len(bound)-1) / last.Sub(first).Seconds()
	}
	members := map[string][]string{}
	for p, g := range gangOf {
		members[g] = append(members[g], p)
	}
	end := last
	var placed []time.Duration
	for _, ps := range members {
		var gFirst, gLast time.Time
		n := 0
		for _, p := range ps {
			t, ok := bound[p]
			if !ok {
				continue
			}
			n++
			if gFirst.IsZero() || t.Before(gFirst) {
				gFirst = t
			}
			if t.After(gLast) {
				gLast = t
			}
		}
		switch {
		case n == len(ps):
			placed = append(placed, gLast.Sub(start))
			r.Skew = max(r.Skew, gLast.Sub(gFirst))
		case n > 0:
			r.Incomplete++
			for _, p := range ps {
				if t, ok := bound[p]; ok {
					r.WasteGPUSeconds += end.Sub(t).Seconds() // 1 GPU per member
				}
			}
		}
	}
	r.GangP50, r.GangP90, r.GangP99 = quantile(placed, 0.5), quantile(placed, 0.9), quantile(placed, 0.99)
	return r
}

// probePod is the pod an arriving workload waits for the scheduler to bind first.
const probePod = "probe"

// measured reports whether the bind of the pod named name counts in the run: not a prefilled
// pod, not the probe.
func measured(name string) bool {
	return !strings.HasPrefix(name, "prefill-") && name != probePod
}

// quantile is the q-quantile of ds (the element at rank q*n of the sorted values); 0 when ds is
// empty. ds is not modified.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func pod(name, schedulerName string, gpus int64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"perf": "true"}},
		Spec: corev1.PodSpec{SchedulerName: schedulerName, TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/perf:v1", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi"),
					"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)},
				Limits: corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}}}}},
	}
}

// createNodes makes n Ready 8-GPU nodes as plain Node objects.
func createNodes(ctx context.Context, kube kubernetes.Interface, n int) error {
	return createNodesLabelled(ctx, kube, n, func(i int) map[string]string {
		return map[string]string{"topology.phalanx.dev/rack": fmt.Sprintf("rack-%d", i/4)}
	})
}

// createNodesLabelled makes n Ready 8-GPU nodes as plain Node objects, node i with the
// labels of labels(i) and its hostname.
func createNodesLabelled(ctx context.Context, kube kubernetes.Interface, n int, labels func(i int) map[string]string) error {
	return parallel(n, func(i int) error {
		l := labels(i)
		l["kubernetes.io/hostname"] = fmt.Sprintf("perf-node-%d", i)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("perf-node-%d", i), Labels: l}}
		created, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("512Gi"),
			corev1.ResourcePods: resource.MustParse("110"), "nvidia.com/gpu": resource.MustParse("8")}
		created.Status = corev1.NodeStatus{Capacity: res, Allocatable: res,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}}
		_, err = kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
}

// parallel runs f(0..n-1) on 32 workers and returns the first error.
func parallel(n int, f func(i int) error) error { return parallelN(32, n, f) }

// parallelN runs f(0..n-1) on workers goroutines and returns the first error.
func parallelN(workers, n int, f func(i int) error) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// startScheduler runs bin/phalanx-scheduler with one profile of cfg, as its own process (its
// CPU time and peak memory are read from /proc).
func startScheduler(root, dir, kubeconfig string, cfg Config, pprofPort int) (*exec.Cmd, time.Time, error) {
	raw, err := scheduler.DefaultConfig(scheduler.ConfigOptions{Kubeconfig: kubeconfig})
	if err != nil {
		return nil, time.Time{}, err
	}
	var sc map[string]any
	if err := yaml.Unmarshal(raw, &sc); err != nil {
		return nil, time.Time{}, err
	}
	if !cfg.Phalanx {
		sc["profiles"] = []any{map[string]any{"schedulerName": cfg.SchedulerName}}
	}
	sc["clientConnection"] = map[string]any{"kubeconfig": kubeconfig, "qps": 5000, "burst": 5000}
	out, _ := yaml.Marshal(sc)
	path := filepath.Join(dir, "scheduler-"+cfg.Name+".yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		return nil, time.Time{}, err
	}
	// PHALANX_PERF_V: the scheduler's log verbosity (1 unless set; 2 logs every bind, which
	// costs the measured run some of its rate: for reading a run kept with PHALANX_PERF_KEEP).
	v := "1"
	if lv := os.Getenv("PHALANX_PERF_V"); lv != "" {
		v = lv
	}
	args := []string{"--config=" + path, "--v=" + v, "--webhook-port=0", "--controller-workers=0"}
	if pprofPort > 0 {
		// PHALANX_PERF_PPROF: serve /debug/pprof without credentials for the profile.
		args = append(args, fmt.Sprintf("--secure-port=%d", pprofPort), "--bind-address=127.0.0.1",
			"--authentication-skip-lookup", "--authorization-always-allow-paths=/debug/pprof/*,/healthz,/metrics")
	} else {
		args = append(args, "--secure-port=0")
	}
	if cfg.FeatureGates != "" {
		args = append(args, "--feature-gates="+cfg.FeatureGates)
	}
	args = append(args, cfg.Args...)
	cmd := exec.Command(filepath.Join(binDir(root), "phalanx-scheduler"), args...)
	logf, err := os.Create(filepath.Join(dir, "scheduler-"+cfg.Name+".log"))
	if err != nil {
		return nil, time.Time{}, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, time.Time{}, err
	}
	return cmd, start, nil
}

// warmGangCaches lists every gang kind once from the API server's watch cache, so that each
// kind's cache exists before a scheduler starts. A fresh API server creates a custom
// resource's watch cache at its first request and answers requests until it is ready with 429
// and Retry-After: 1 s; a scheduler whose gang informer made that first request (Phalanx's
// PodGroup informer, on a kind no workload here uses) started 1 s later than one that makes
// none (scheduler logs of the 512-member gang, 2026-12-07: its plugins ready 1.03 s after its
// start, the default profile's set up in 17 ms). A cluster's API server that has run a while
// has its caches; the measurement is of scheduling, not of the API server's first request.
func warmGangCaches(ctx context.Context, kube kubernetes.Interface, client versioned.Interface) error {
	rv0 := metav1.ListOptions{ResourceVersion: "0", Limit: 1}
	if _, err := client.SchedulerV1alpha1().PodGangs(metav1.NamespaceAll).List(ctx, rv0); err != nil {
		return fmt.Errorf("listing PodGangs: %w", err)
	}
	if _, err := client.SchedulingV1alpha1().PodGroups(metav1.NamespaceAll).List(ctx, rv0); err != nil {
		return fmt.Errorf("listing PodGroups (scheduling.x-k8s.io): %w", err)
	}
	if _, err := kube.SchedulingV1beta1().PodGroups(metav1.NamespaceAll).List(ctx, rv0); err != nil {
		return fmt.Errorf("listing PodGroups (scheduling.k8s.io): %w", err)
	}
	return nil
}

// dumpGoroutines writes the scheduler's goroutine stacks (pprof debug=1, aggregated) to
// dir/goroutines-NNN.txt every 100 ms until stop is closed (PHALANX_PERF_GOROUTINES).
func dumpGoroutines(t *testing.T, dir string, port int, stop <-chan struct{}) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		raw, err := schedulerGet(port, "/debug/pprof/goroutine?debug=1", 5*time.Second)
		if err != nil {
			continue // not serving yet
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("goroutines-%03d.txt", i)), raw, 0o644); err != nil {
			t.Logf("goroutine dump: %v", err)
			return
		}
	}
}

// schedulerGet reads path from the scheduler's secure port on this host (its serving
// certificate is self-signed; the perf run allows these paths without credentials).
func schedulerGet(port int, path string, timeout time.Duration) ([]byte, error) {
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // local
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d%s", port, path))
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// usage reads a process's CPU seconds (user + system) and peak resident memory (MiB).
// exited reports whether process pid has ended (a zombie not yet waited for, or gone).
func exited(pid int) bool {
	fields := procStat(pid)
	return len(fields) == 0 || fields[0] == "Z" || fields[0] == "X"
}

// procStat is /proc/PID/stat after the command name: state, ppid, ... (nil when pid is gone).
func procStat(pid int) []string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndex(s, ")")+1:])
}

func usage(pid int) (cpu, rssMiB float64) {
	if fields := procStat(pid); len(fields) > 12 {
		ut, _ := strconv.ParseFloat(fields[11], 64)
		st, _ := strconv.ParseFloat(fields[12], 64)
		cpu = (ut + st) / 100 // USER_HZ
	}
	if f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		defer func() { _ = f.Close() }()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "VmHWM:") {
				kb, _ := strconv.ParseFloat(strings.Fields(sc.Text())[1], 64)
				rssMiB = kb / 1024
			}
		}
	}
	return cpu, rssMiB
}
