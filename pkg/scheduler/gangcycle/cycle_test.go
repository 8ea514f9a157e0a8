package gangcycle_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	schedulerappconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	phalanxfake "github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned/fake"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	phalanxscheduler "github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangcycle"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangplan"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/memberevents"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// cycleHarness is a whole Phalanx scheduler (kube-scheduler with the default Phalanx profile,
// its queue, cache and binding cycles, the gang plugins and the Binder) on an in-memory API
// (fake clientsets: binds land in the fake's object store and come back through the
// informers). It measures what one gang costs the scheduler process, from the moment its
// PodGang exists (its members queued already) to its last bind: no API server or network in
// the figure.
type cycleHarness struct {
	kube  *kubefake.Clientset
	gangs *phalanxfake.Clientset
	sched *scheduler.Scheduler
	store *gang.Store
	binds atomic.Int64
	ns    string
	seq   int
	// gate, when set, holds every bind until it is closed; inFlight counts the binds it holds.
	gate     chan struct{}
	inFlight atomic.Int64
}

// newCycleHarness starts the scheduler on nodes fake GPU nodes (8 GPUs each). memberCycles
// leaves the Binder out (--member-cycles: every member in a cycle of its own).
func newCycleHarness(tb testing.TB, nodes int, memberCycles bool, opts ...gangcycle.Option) *cycleHarness {
	tb.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background().V(1)))
	tb.Cleanup(cancel)
	if err := phalanxscheduler.ApplyFeatureDefaults(); err != nil {
		tb.Fatal(err)
	}
	raw, err := phalanxscheduler.DefaultConfig(phalanxscheduler.ConfigOptions{Kubeconfig: "/nonexistent"})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		tb.Fatal(err)
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}

	h := &cycleHarness{kube: kubefake.NewSimpleClientset(), gangs: phalanxfake.NewSimpleClientset(), ns: "bench"}
	// Discovery serves PodGangs (the PodGroup kinds are not served: their plugins wait).
	h.kube.Resources = []*metav1.APIResourceList{{GroupVersion: schedv1.SchemeGroupVersion.String(),
		APIResources: []metav1.APIResource{{Name: "podgangs", Namespaced: true, Kind: "PodGang"}}}}
	shape := framework.GPUNodes("gpu", nodes)
	for i := 0; i < nodes; i++ {
		n, err := shape.Node(i)
		if err != nil {
			tb.Fatal(err)
		}
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
		if _, err := h.kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	// A bind sets the pod's node in the fake's store, as the API server's binding subresource
	// does; the informer brings the update back to the scheduler's cache.
	pods := v1.SchemeGroupVersion.WithResource("pods")
	h.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, kruntime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := a.(k8stesting.CreateAction).GetObject().(*v1.Binding)
		obj, err := h.kube.Tracker().Get(pods, b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		if err := h.kube.Tracker().Update(pods, pod, b.Namespace); err != nil {
			return true, nil, err
		}
		h.binds.Add(1)
		return true, b, nil
	})

	rt := gangplugin.NewRuntime()
	rt.SetGangClient(h.gangs)
	rt.MarkLeading()
	registry := frameworkruntime.Registry{}
	for _, opt := range phalanxscheduler.RegistryOptions(rt) {
		if err := opt(registry); err != nil {
			tb.Fatal(err)
		}
	}
	adapter := events.NewEventBroadcasterAdapterWithContext(ctx, h.kube)
	broadcaster := &memberevents.Broadcaster{EventBroadcasterAdapter: adapter, StoreOf: rt.StoreForProfile, KAIEvents: rt.KAIEventsForProfile}
	factory := informers.NewSharedInformerFactory(h.kube, 0)
	h.sched, err = scheduler.New(ctx, gatedClient{Clientset: h.kube, h: h}, factory, nil,
		func(name string) events.EventRecorderLogger { return broadcaster.NewRecorder(name) },
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithKubeConfig(&rest.Config{Host: "http://127.0.0.1:1"}),
		scheduler.WithFrameworkOutOfTreeRegistry(registry),
		scheduler.WithPodInitialBackoffSeconds(1), scheduler.WithPodMaxBackoffSeconds(1))
	if err != nil {
		tb.Fatal(err)
	}
	cc := (&schedulerappconfig.Config{ComponentConfig: *cfg, Client: h.kube, InformerFactory: factory, KubeConfig: &rest.Config{Host: "http://127.0.0.1:1"}}).Complete()
	if err := gangplan.Install(ctx, &cc, h.sched, rt); err != nil {
		tb.Fatal(err)
	}
	if !memberCycles {
		if why := gangcycle.Usable(h.sched); why != "" {
			tb.Fatalf("the Binder is not usable: %s", why)
		}
		rt.SetBinder(gangcycle.New(ctx, h.sched, opts...))
	}
	for _, fw := range h.sched.Profiles {
		h.store = rt.StoreOf(fw)
	}
	if h.store == nil {
		tb.Fatal("no gang store for the Phalanx profile")
	}
	broadcaster.StartRecordingToSink(ctx.Done())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	// As Phalanx's server does (pkg/server): the informers' stores are synced, but the
	// scheduler's cache holds only the nodes its handlers have processed, and a gang planned
	// on part of the cluster is told it does not fit.
	if err := h.sched.WaitForHandlersSync(ctx); err != nil {
		tb.Fatal(err)
	}
	go h.sched.Run(ctx)
	return h
}

// gang makes the PodGang of size members (8 GPUs each, all of them the minimum) and its pods,
// creates the pods (they wait in PreEnqueue for their PodGang) and waits until the scheduler
// holds them all; it returns the PodGang, not created yet.
func (h *cycleHarness) gang(tb testing.TB, size int) *schedv1.PodGang {
	tb.Helper()
	h.seq++
	g := framework.Gang{Namespace: h.ns, Name: fmt.Sprintf("g%d", h.seq), Groups: []framework.Group{{Name: "w", Pods: size, MinReplicas: int32(size), GPUs: 8}}}
	ctx := context.Background()
	for _, p := range g.Pods() {
		// No API server gives a UID and a creation time or defaults the requests from the
		// limits here.
		p.UID = types.UID(p.Name)
		p.CreationTimestamp = metav1.Now()
		c := &p.Spec.Containers[0]
		c.Resources.Requests["nvidia.com/gpu"] = c.Resources.Limits["nvidia.com/gpu"]
		if _, err := h.kube.CoreV1().Pods(h.ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	// Queued, and recorded by the gang plugins' informer handlers (they run beside the
	// queue's): what the pods' creation costs stays out of the measured part.
	k := gang.Key{Kind: gang.KindPodGang, Namespace: h.ns, Name: g.Name}
	h.waitFor(tb, "every member queued", func() bool {
		pods, _ := h.sched.SchedulingQueue.PendingPods()
		return len(pods) == size && len(h.store.PendingPods(k)) == size
	})
	pg := g.PodGang()
	pg.UID, pg.CreationTimestamp = types.UID(pg.Name), metav1.Now()
	return pg
}

// place creates pg and waits until its size members are bound and the gang plugins saw the
// binds come back (the gang is established).
func (h *cycleHarness) place(tb testing.TB, pg *schedv1.PodGang, size int) {
	tb.Helper()
	before := h.binds.Load()
	if _, err := h.gangs.SchedulerV1alpha1().PodGangs(h.ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	k := gang.Key{Kind: gang.KindPodGang, Namespace: pg.Namespace, Name: pg.Name}
	h.waitFor(tb, "every member bound and the gang established", func() bool {
		return h.binds.Load()-before >= int64(size) && h.store.Established(k)
	})
}

// clear deletes every pod and PodGang and waits until the scheduler's cache holds no pod.
func (h *cycleHarness) clear(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	list, err := h.kube.CoreV1().Pods(h.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range list.Items {
		if err := h.kube.CoreV1().Pods(h.ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	gangs, err := h.gangs.SchedulerV1alpha1().PodGangs(h.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, g := range gangs.Items {
		if err := h.gangs.SchedulerV1alpha1().PodGangs(h.ns).Delete(ctx, g.Name, metav1.DeleteOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	h.waitFor(tb, "the cache empty", func() bool { n, err := h.sched.Cache.PodCount(); return err == nil && n == 0 })
}

func (h *cycleHarness) waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Microsecond, time.Minute, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		list, _ := h.kube.CoreV1().Pods(h.ns).List(context.Background(), metav1.ListOptions{})
		for _, p := range list.Items {
			tb.Logf("pod %s node %q conditions %+v", p.Name, p.Spec.NodeName, p.Status.Conditions)
		}
		tb.Fatalf("waiting for %s: %v", what, err)
	}
}

// A whole scheduler places a gang of 8 with one cycle: 7 of its members are bound from the
// planning member's cycle (the Binder), none goes through a cycle of its own; with member
// cycles every member does. The harness the benchmark below measures with.
func TestGangCycleHarness(t *testing.T) {
	for _, memberCycles := range []bool{false, true} {
		t.Run(fmt.Sprintf("memberCycles=%v", memberCycles), func(t *testing.T) {
			metrics.Register()
			h := newCycleHarness(t, 16, memberCycles)
			for round := 0; round < 2; round++ {
				pg := h.gang(t, 8)
				boundBefore := boundFromPass(t)
				h.place(t, pg, 8)
				got := boundFromPass(t) - boundBefore
				want := 7
				if memberCycles {
					want = 0
				}
				if got != want {
					t.Errorf("round %d: %d members bound from the pass, want %d", round, got, want)
				}
				// Its status is written established, not before: not from the wait its members
				// had for the PodGang (created after them here), nor as "waiting for its
				// quorum" while it is placed. (The fake API has no optimistic concurrency, so
				// a write from an informer copy older than the last write is not refused as
				// the API server refuses it: the same status may be written again.)
				var writes []string
				h.waitFor(t, "the PodGang's status written established", func() bool {
					writes = statusWrites(h.gangs, pg.Name)
					return len(writes) > 0 && strings.HasPrefix(writes[len(writes)-1], "Scheduled=True")
				})
				if !strings.HasPrefix(writes[0], "Scheduled=True") {
					t.Errorf("round %d: the PodGang's status written before it was established:\n%s", round, strings.Join(writes, "\n"))
				}
				h.clear(t)
			}
		})
	}
}

// statusWrites are the status updates of the PodGang named name, each as its Scheduled
// condition ("Scheduled=True QuorumBound").
func statusWrites(client *phalanxfake.Clientset, name string) []string {
	var out []string
	for _, a := range client.Actions() {
		u, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "status" {
			continue
		}
		if pg := u.GetObject().(*schedv1.PodGang); pg.Name == name {
			c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionScheduled)
			if c == nil {
				out = append(out, "no Scheduled condition")
				continue
			}
			out = append(out, fmt.Sprintf("Scheduled=%s %s: %s", c.Status, c.Reason, c.Message))
		}
	}
	return out
}

// The Binder has at most its limit of members in PreBind and Bind at once: with a limit of 3
// and binds held on the API side, a gang of 8 has 4 binds in flight once all 8 binding
// goroutines run (the Binder's 3 and the planning member's, bound by kube-scheduler's own
// binding cycle), and binds whole once they are let go.
func TestBinderBoundsBindsInFlight(t *testing.T) {
	metrics.Register()
	h := newCycleHarness(t, 16, false, gangcycle.WithMaxConcurrentBinds(3))
	pg := h.gang(t, 8)
	h.gate = make(chan struct{})
	if _, err := h.gangs.SchedulerV1alpha1().PodGangs(h.ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, "a bind in flight", func() bool { return h.inFlight.Load() >= 1 })
	h.waitFor(t, "all 8 binding goroutines started", func() bool { return bindingGoroutines(t) >= 8 })
	// The planning member binds in kube-scheduler's own binding cycle, beside the Binder's 3.
	if n := h.inFlight.Load(); n > 3+1 {
		t.Errorf("%d binds in flight, want at most 4 (the Binder's 3 and the planning member's)", n)
	}
	close(h.gate)
	k := gang.Key{Kind: gang.KindPodGang, Namespace: pg.Namespace, Name: pg.Name}
	h.waitFor(t, "the gang bound", func() bool { return h.binds.Load() == 8 && h.store.Established(k) })
}

// gatedClient is the scheduler's client: its binds wait for the harness's gate, outside the
// fake clientset (whose reactors run under one lock: a bind held there would hold every call).
type gatedClient struct {
	*kubefake.Clientset
	h *cycleHarness
}

func (c gatedClient) CoreV1() corev1client.CoreV1Interface {
	return gatedCore{CoreV1Interface: c.Clientset.CoreV1(), h: c.h}
}

type gatedCore struct {
	corev1client.CoreV1Interface
	h *cycleHarness
}

func (c gatedCore) Pods(ns string) corev1client.PodInterface {
	return gatedPods{PodInterface: c.CoreV1Interface.Pods(ns), h: c.h}
}

type gatedPods struct {
	corev1client.PodInterface
	h *cycleHarness
}

func (p gatedPods) Bind(ctx context.Context, b *v1.Binding, opts metav1.CreateOptions) error {
	if gate := p.h.gate; gate != nil {
		p.h.inFlight.Add(1)
		<-gate
	}
	return p.PodInterface.Bind(ctx, b, opts)
}

// BenchmarkGangCycle is one gang's cycle in a whole scheduler: from its PodGang's creation
// (members queued) to its last member's bind, on 64 nodes, with the Binder (one cycle per
// gang) and with member cycles (before it). Reported per member: time, heap allocations and
// the gang store's read and write locks. Allocations count the whole process (the scheduler's
// goroutines, the fake API's copies and watch deliveries).
//
//	go test ./pkg/scheduler/gangcycle -run '^$' -bench GangCycle -benchtime 50x
func BenchmarkGangCycle(b *testing.B) {
	for _, size := range []int{8, 32} {
		for _, memberCycles := range []bool{false, true} {
			mode := "binder"
			if memberCycles {
				mode = "member-cycles"
			}
			b.Run(fmt.Sprintf("%s/members=%d", mode, size), func(b *testing.B) {
				h := newCycleHarness(b, 64, memberCycles)
				var ms runtime.MemStats
				var allocs, reads, writes uint64
				var elapsed time.Duration
				b.ResetTimer()
				b.StopTimer()
				for i := 0; i < b.N; i++ {
					pg := h.gang(b, size)
					runtime.ReadMemStats(&ms)
					a0 := ms.Mallocs
					r0, w0 := h.store.LockCounts()
					start := time.Now()
					b.StartTimer()
					h.place(b, pg, size)
					b.StopTimer()
					elapsed += time.Since(start)
					r1, w1 := h.store.LockCounts()
					runtime.ReadMemStats(&ms)
					allocs += ms.Mallocs - a0
					reads += r1 - r0
					writes += w1 - w0
					h.clear(b)
				}
				per := float64(b.N * size)
				b.ReportMetric(float64(elapsed.Nanoseconds())/per, "ns/member")
				b.ReportMetric(float64(allocs)/per, "allocs/member")
				b.ReportMetric(float64(reads)/per, "rlocks/member")
				b.ReportMetric(float64(writes)/per, "wlocks/member")
			})
		}
	}
}

// boundFromPass reads phalanx_gang_members_bound_from_pass_total for PodGangs.
func boundFromPass(tb testing.TB) int {
	return int(gathered(tb, "phalanx_gang_members_bound_from_pass_total", "kind", gang.KindPodGang.String()))
}

// bindingGoroutines reads kube-scheduler's scheduler_goroutines{operation="binding"}.
func bindingGoroutines(tb testing.TB) int {
	return int(gathered(tb, "scheduler_goroutines", "operation", "binding"))
}

// gathered is the value of the counter or gauge name whose label has value, from the
// process's metrics registry (0 when absent).
func gathered(tb testing.TB, name, label, value string) float64 {
	tb.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue() + m.GetGauge().GetValue()
				}
			}
		}
	}
	return 0
}
