package perf

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// UpdateResult is the cost of one update.
type UpdateResult struct {
	Name          string
	Pods          int
	Duration      time.Duration
	MinReady      int
	MinAvailable  int32
	PeakExtraGPUs int64
	Passes        int
	// StepP50 and StepP99 are the controller's step latency (pkg/controller/steps.go: from
	// the member event that enables a step to the pass's first write), over Steps steps.
	StepP50, StepP99 time.Duration
	Steps            int
	// Fastest and Slowest are the extreme times to complete when the row is a median of runs
	// (make perf-updates); zero otherwise.
	Fastest, Slowest time.Duration
	Timeline         []Sample
	// Waiting is the update's wall clock split by what it was waiting for (see waitBreakdown).
	Waiting Breakdown
	// Writes are the API server's mutating requests during the update, by resource (every
	// writer: controller, scheduler, KWOK, garbage collector).
	Writes map[string]float64
}

// Breakdown splits an update's wall clock by what was pending at each instant, in this
// order of precedence: a member created and not bound (the scheduler), bound and not Ready
// (the kubelet, KWOK here), deleted and not gone (termination, KWOK here); an instant with
// none of these pending is the controller's (its reaction to the last event and its writes
// reaching the API server).
type Breakdown struct {
	Scheduler, Kubelet, Termination, Controller time.Duration
}

// podEvent is one change of a pod seen by the measurement's watch.
type podEvent struct {
	at   time.Duration
	name string
	// state: 0 pending (unbound), 1 bound, 2 Ready, 3 terminating, 4 gone.
	state int
}

func podEventState(p *corev1.Pod, exists bool) int {
	switch {
	case !exists:
		return 4
	case p.DeletionTimestamp != nil:
		return 3
	case framework.ReadyPod(*p):
		return 2
	case p.Spec.NodeName != "":
		return 1
	}
	return 0
}

// eventStates names podEvent.state.
var eventStates = []string{"pending", "bound", "Ready", "terminating", "gone"}

// eventsAround formats the events within n of events[i] ("+12ms pod Ready"), for the log line
// that explains a dip in Ready.
func eventsAround(events []podEvent, i, n int) string {
	var parts []string
	for j := max(0, i-n); j < min(len(events), i+n+1); j++ {
		e := events[j]
		mark := ""
		if j == i {
			mark = "*"
		}
		parts = append(parts, fmt.Sprintf("%s%s %s %s", mark, e.at.Round(time.Millisecond), e.name, eventStates[e.state]))
	}
	return strings.Join(parts, ", ")
}

// waitBreakdown replays events (ordered by time) over [0, end]: pods present before the
// update start Ready.
func waitBreakdown(events []podEvent, end time.Duration) Breakdown {
	state := map[string]int{}
	count := [5]int{}
	var b Breakdown
	last := time.Duration(0)
	charge := func(until time.Duration) {
		d := until - last
		switch {
		case count[0] > 0:
			b.Scheduler += d
		case count[1] > 0:
			b.Kubelet += d
		case count[3] > 0:
			b.Termination += d
		default:
			b.Controller += d
		}
		last = until
	}
	for _, e := range events {
		charge(e.at)
		if was, ok := state[e.name]; ok {
			count[was]--
		}
		if e.state == 4 {
			delete(state, e.name)
			continue
		}
		state[e.name] = e.state
		count[e.state]++
	}
	charge(end)
	return b
}

// Sample is the Ready count at a moment of the update.
type Sample struct {
	At    time.Duration
	Ready int
}

var tracePods = flag.String("perf.trace", "", "TestPerfUpdates: log every event of the pods whose names start with this prefix (e.g. pcsg-5-: one PodCliqueSet replica's steps)")

var onlyUpdate = flag.Int("perf.update", 0, "TestPerfUpdates: only this strategy (1-based); 0: all")

var auditPods = flag.Bool("perf.audit", false, "TestPerfUpdates: record every pod deletion in the API server's audit log and report the deletions of pods that were not the ones their requester saw (a delete by name that removed a newer pod of the same name)")

// podDeleteAuditPolicy records pod deletions with their request (preconditions) and response
// (the pod deleted, with its UID and creation time).
const podDeleteAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  verbs: [delete]
  resources: [{group: "", resources: [pods]}]
- level: None
`

// runUpdates measures the seed design's strategies at 100 PodCliqueSet replicas on 800 nodes.
func runUpdates(t *testing.T, root string) []UpdateResult {
	replicas, nodes := int32(100), 800
	if *quick {
		replicas, nodes = 10, 80
	}
	ctx := context.Background()
	gpus := func(pcs *grovev1.PodCliqueSet, n int64) *grovev1.PodCliqueSet {
		for i := range pcs.Spec.Template.Cliques {
			pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Resources.Limits["nvidia.com/gpu"] = *resource.NewQuantity(n, resource.DecimalSI)
		}
		return pcs
	}
	cases := []struct {
		name string
		pcs  *grovev1.PodCliqueSet
		pods int
	}{
		{"RollingUpdate, PodClique of 3, maxSurge 1 / maxUnavailable 0", framework.Workers(ns, "pclq", 1, 0, 600), 3},
		{"RollingUpdate, scaling group 3 (minAvailable 3) of leader+2 workers, maxSurge 1 / maxUnavailable 0", gpus(framework.GroupSet(ns, "pcsg", 3, 3, 1, 0), 2), 9},
		{"ReplicaRecreate, replicas of 3 pods, maxSurge 1 / maxUnavailable 0", framework.Recreate(ns, "rr", replicas, 1, 0), 3},
	}
	var out []UpdateResult
	for i, c := range cases {
		if *onlyUpdate != 0 && *onlyUpdate != i+1 {
			continue
		}
		c.pcs.Spec.Replicas = replicas
		t.Logf("%s: %d goroutines in the test process before its cluster starts (what earlier cases left running)", c.name, runtime.NumGoroutine())
		env, cluster := startUpdateCluster(t, root, nodes)
		var mu sync.Mutex
		passes, planned, armed := 0, 0, false
		var steps []time.Duration
		stop := env.StartPhalanx(t, framework.Phalanx{Controller: true, Configure: func(ctrl *controller.Controller) {
			ctrl.OnStep = func(_ string, d time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				if armed {
					steps = append(steps, d)
				}
			}
			ctrl.OnPlan = func(_ *grovev1.PodCliqueSet, p update.Plan) {
				mu.Lock()
				defer mu.Unlock()
				if armed {
					planned++
				}
				if armed && len(p.Actions) > 0 {
					passes++
				}
			}
		}})
		if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, c.pcs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		total := int(replicas) * c.pods
		waitLong(t, env, c.pcs.Name, func(pcs *grovev1.PodCliqueSet, ready int) bool {
			return pcs.Status.AvailableReplicas == replicas && ready == total
		})
		res := UpdateResult{Name: c.name, Pods: total, MinReady: total, MinAvailable: replicas}
		// The ledger follows each pod as the watch changes it (ready, GPUs asked), so that
		// measuring costs the machine one pod's worth of work per event, not a pass over all
		// of them (that took a third of a core at 900 pods and slowed what it measured).
		type podState struct {
			ready bool
			gpus  int64
		}
		ledger := map[string]podState{}
		ready, gpus := 0, int64(0)
		pods, err := env.ListPods(ctx, ns, c.pcs.Name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods {
			st := podState{framework.ReadyPod(pods[i]), gang.RequestsOf(&pods[i]).GPU}
			ledger[pods[i].Name] = st
			gpus += st.gpus
			if st.ready {
				ready++
			}
		}
		startGPUs := gpus
		var events []podEvent
		dip := -1
		createdAt, boundAt := map[string]time.Duration{}, map[string]time.Duration{}
		begin := time.Now()
		stopWatch := env.WatchPods(t, ns, c.pcs.Name, func(pods map[string]corev1.Pod, changed *corev1.Pod) {
			var now podState
			p, exists := pods[changed.Name]
			if exists {
				now = podState{framework.ReadyPod(p), gang.RequestsOf(&p).GPU}
			}
			mu.Lock()
			defer mu.Unlock()
			was := ledger[changed.Name]
			if exists {
				ledger[changed.Name] = now
			} else {
				delete(ledger, changed.Name)
			}
			gpus += now.gpus - was.gpus
			if was.ready != now.ready {
				if now.ready {
					ready++
				} else {
					ready--
				}
			}
			res.MinReady = min(res.MinReady, ready)
			res.PeakExtraGPUs = max(res.PeakExtraGPUs, gpus-startGPUs)
			at := time.Since(begin)
			events = append(events, podEvent{at: at, name: changed.Name, state: podEventState(&p, exists)})
			if ready < total && dip < 0 {
				dip = len(events) - 1 // the first time Ready went below the start: logged after the run
			}
			if exists && p.Spec.NodeName == "" {
				if _, seen := createdAt[changed.Name]; !seen || boundAt[changed.Name] != 0 {
					createdAt[changed.Name], boundAt[changed.Name] = at, 0
				}
			} else if exists && boundAt[changed.Name] == 0 {
				if _, seen := createdAt[changed.Name]; seen {
					boundAt[changed.Name] = at
				}
			}
			if n := len(res.Timeline); n == 0 || at-res.Timeline[n-1].At > 100*time.Millisecond || res.Timeline[n-1].Ready != ready {
				res.Timeline = append(res.Timeline, Sample{At: at, Ready: ready})
			}
		})
		writesBefore, err := apiWrites(ctx, env.Kube)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		armed = true
		mu.Unlock()
		env.SetImage(t, ns, c.pcs.Name, "registry.example.com/llm/next:v2")
		framework.Eventually(t, 20*time.Minute, "PodCliqueSet "+c.pcs.Name+" updated", func(ctx context.Context) (bool, error) {
			pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, c.pcs.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			mu.Lock()
			defer mu.Unlock()
			res.MinAvailable = min(res.MinAvailable, pcs.Status.AvailableReplicas)
			p := pcs.Status.UpdateProgress
			return pcs.Status.ObservedGeneration != nil && *pcs.Status.ObservedGeneration == pcs.Generation && p != nil && p.UpdateEndedAt != nil && ready == total, nil
		})
		res.Duration = time.Since(begin)
		writesAfter, err := apiWrites(ctx, env.Kube)
		if err != nil {
			t.Fatal(err)
		}
		res.Writes = map[string]float64{}
		for r, n := range writesAfter {
			if d := n - writesBefore[r]; d > 0 {
				res.Writes[r] = d
			}
		}
		stopWatch()
		stop()
		cluster.Stop()
		mu.Lock()
		res.Passes = passes
		res.Steps = len(steps)
		res.StepP50, res.StepP99 = quantile(steps, 0.5), quantile(steps, 0.99)
		res.Waiting = waitBreakdown(events, res.Duration)
		allPlanned := planned
		mu.Unlock()
		t.Logf("%s: %d pods, %s, min Ready %d, min available %d, peak extra GPUs %d, %d passes with actions of %d that planned, step latency p50 %s p99 %s over %d steps", c.name, total, res.Duration.Round(100*time.Millisecond),
			res.MinReady, res.MinAvailable, res.PeakExtraGPUs, res.Passes, allPlanned, res.StepP50.Round(time.Millisecond), res.StepP99.Round(time.Millisecond), res.Steps)
		w := res.Waiting
		t.Logf("%s: waiting on the scheduler %s, the kubelet %s, termination %s, the controller %s", c.name,
			w.Scheduler.Round(100*time.Millisecond), w.Kubelet.Round(100*time.Millisecond), w.Termination.Round(100*time.Millisecond), w.Controller.Round(100*time.Millisecond))
		t.Logf("%s: API writes %s", c.name, formatWrites(res.Writes))
		t.Logf("%s: longest waits from create to bind: %s", c.name, slowestBinds(createdAt, boundAt, 5))
		if *tracePods != "" {
			var tr []string
			for _, e := range events {
				if strings.HasPrefix(e.name, *tracePods) {
					tr = append(tr, fmt.Sprintf("%s %s %s", e.at.Round(time.Millisecond), e.name, eventStates[e.state]))
				}
			}
			t.Logf("%s: events of pods %s*: %s", c.name, *tracePods, strings.Join(tr, ", "))
		}
		if dip >= 0 {
			t.Logf("%s: Ready went below %d at %s with %s; the events around it: %s", c.name, total, events[dip].at.Round(time.Millisecond), events[dip].name, eventsAround(events, dip, 12))
		}
		out = append(out, res)
	}
	return out
}

// waitLong polls the PodCliqueSet and its Ready pods every 250 ms until done says so (20 min at most).
// startUpdateCluster starts a local control plane with the CRDs, namespace ns and nodes
// fake GPU nodes, and an admin Env on it with a client fast enough not to slow the
// measurement. The caller stops the cluster.
func startUpdateCluster(t *testing.T, root string, nodes int) (*framework.Env, *localcluster.Cluster) {
	t.Helper()
	ctx := context.Background()
	crds := filepath.Join(root, "manifests", "helm", "phalanx", "files", "crds")
	dir := t.TempDir()
	var apiArgs []string
	if *auditPods {
		policy := filepath.Join(dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(podDeleteAuditPolicy), 0o644); err != nil {
			t.Fatal(err)
		}
		apiArgs = []string{"--audit-policy-file=" + policy, "--audit-log-path=" + filepath.Join(dir, "audit.log"), "--audit-log-format=json"}
		t.Cleanup(func() { reportPodDeletes(t, filepath.Join(dir, "audit.log")) })
	}
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: dir, BinDir: binDir(root), KwokStages: filepath.Join(root, "hack", "kwok", "stages.yaml"), CRDDir: crds, APIServerArgs: apiArgs})
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.InstallCRDs(ctx, cluster.Config, crds); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	cfg := *cluster.Config
	cfg.QPS, cfg.Burst = 2000, 4000
	env := &framework.Env{Root: root, Cluster: cluster, Config: &cfg, Kube: kubernetes.NewForConfigOrDie(&cfg), Phalanx: versioned.NewForConfigOrDie(&cfg), Kubeconfig: cluster.Kubeconfig}
	if _, err := env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	if err := localcluster.CreateNodes(ctx, env.Kube, localcluster.DefaultNodeShape(nodes)); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	return env, cluster
}

func waitLong(t *testing.T, env *framework.Env, name string, done func(*grovev1.PodCliqueSet, int) bool) {
	t.Helper()
	framework.Eventually(t, 20*time.Minute, fmt.Sprintf("PodCliqueSet %s", name), func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pods, err := env.ListPods(ctx, ns, name)
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range pods {
			if framework.ReadyPod(p) {
				ready++
			}
		}
		return done(pcs, ready), nil
	})
}

// TestPerfUpdates runs only the update costs of make perf's report and logs them, to look into
// a figure: go test -mod=vendor -run TestPerfUpdates -v ./test/perf/ (-perf.quick: 10
// replicas on 80 nodes; -perf.update=N: only the Nth strategy, from 1).
//
// With -perf.out (make perf-updates) it runs every strategy -perf.repeat times and rewrites
// only the update section of the report there, with the median of the runs.
func TestPerfUpdates(t *testing.T) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if *outDir == "" {
		runUpdates(t, root)
		return
	}
	if *onlyUpdate != 0 || *quick {
		t.Fatal("-perf.out rewrites the report's update section: it needs every strategy at full size (no -perf.update, no -perf.quick)")
	}
	n := max(*repeat, 1)
	var runs [][]UpdateResult
	var bringUps []BringUpResult
	for i := 0; i < n; i++ {
		runs = append(runs, runUpdates(t, root))
		bringUps = append(bringUps, measureBringUp(t, root))
	}
	note := fmt.Sprintf("This section was measured on %s by `make perf-updates` (%d CPUs), apart from the sections above.", time.Now().UTC().Format("2006-01-02"), runtime.NumCPU())
	if err := replaceUpdateSection(*outDir, medianUpdates(runs), bringUps, note, n); err != nil {
		t.Fatal(err)
	}
}

// formatWrites lists writes by resource, most first, with their total.
func formatWrites(w map[string]float64) string {
	type kv struct {
		r string
		n float64
	}
	var all []kv
	total := 0.0
	for r, n := range w {
		all = append(all, kv{r, n})
		total += n
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].r < all[j].r })
	out := fmt.Sprintf("%.0f:", total)
	for _, e := range all {
		out += fmt.Sprintf(" %s %.0f", e.r, e.n)
	}
	return out
}

// slowestBinds lists the n pods that waited longest from their create (as the watch saw it)
// to their bind.
func slowestBinds(created, bound map[string]time.Duration, n int) string {
	type wait struct {
		pod string
		d   time.Duration
	}
	var all []wait
	for pod, c := range created {
		if b := bound[pod]; b > 0 {
			all = append(all, wait{pod, b - c})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d > all[j].d })
	out := ""
	for i := 0; i < min(n, len(all)); i++ {
		out += fmt.Sprintf(" %s %s", all[i].pod, all[i].d.Round(time.Millisecond))
	}
	return out
}

// reportPodDeletes reads the audit log of -perf.audit and logs, by user agent, how many pod
// deletions there were, how many had a UID precondition, and every deletion that removed a pod
// created after an earlier deletion of the same name (a delete by name that took a replacement).
func reportPodDeletes(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Logf("audit: %v", err)
		return
	}
	type event struct {
		Stage     string `json:"stage"`
		UserAgent string `json:"userAgent"`
		ObjectRef struct {
			Name string `json:"name"`
		} `json:"objectRef"`
		ResponseStatus struct {
			Code int `json:"code"`
		} `json:"responseStatus"`
		RequestObject struct {
			Preconditions *struct {
				UID string `json:"uid"`
			} `json:"preconditions"`
			GracePeriodSeconds *int64 `json:"gracePeriodSeconds"`
		} `json:"requestObject"`
		ResponseObject struct {
			Metadata struct {
				UID               string `json:"uid"`
				DeletionTimestamp string `json:"deletionTimestamp"`
			} `json:"metadata"`
		} `json:"responseObject"`
		Received string `json:"requestReceivedTimestamp"`
	}
	total, withUID := map[string]int{}, map[string]int{}
	firstUID := map[string]string{} // pod name -> UID the first deletion by the controller took
	var wrong []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" {
			continue
		}
		var e event
		if json.Unmarshal([]byte(line), &e) != nil || e.Stage != "ResponseComplete" {
			continue
		}
		agent := e.UserAgent
		if i := strings.Index(agent, " "); i > 0 {
			agent = agent[:i]
		}
		total[agent]++
		if e.RequestObject.Preconditions != nil && e.RequestObject.Preconditions.UID != "" {
			withUID[agent]++
			if _, ok := firstUID[e.ObjectRef.Name]; !ok {
				firstUID[e.ObjectRef.Name] = e.RequestObject.Preconditions.UID
			}
			continue
		}
		// A deletion without a precondition that hit a live pod (no deletion timestamp before
		// this request) of a UID other than the one the controller deleted by that name.
		if e.ResponseStatus.Code < 300 && e.ResponseObject.Metadata.UID != "" && firstUID[e.ObjectRef.Name] != "" && e.ResponseObject.Metadata.UID != firstUID[e.ObjectRef.Name] {
			wrong = append(wrong, fmt.Sprintf("%s by %s at %s (grace %v)", e.ObjectRef.Name, agent, e.Received, e.RequestObject.GracePeriodSeconds))
		}
	}
	t.Logf("audit: pod deletions by user agent %v, with a UID precondition %v", total, withUID)
	if len(wrong) > 0 {
		t.Logf("audit: %d deletions without a precondition took a newer pod of the name: %s", len(wrong), strings.Join(wrong[:min(len(wrong), 20)], "; "))
	}
}
