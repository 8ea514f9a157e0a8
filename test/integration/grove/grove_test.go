package grove

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/inspect"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// groveGate is the scheduling gate Grove's operator puts on every pod until its PodGang is
// initialized.
const groveGate = "grove.io/podgang-pending-creation"

// groveStatusPatch is the status write of Grove's operator (its PodGang sync flow): a JSON merge
// patch that sets phase Pending and replaces the whole conditions list with [Initialized],
// without a resourceVersion.
func groveStatusPatch(initialized bool) []byte {
	st, reason, msg := metav1.ConditionFalse, "PodGangPodsCreationPending", "Not all constituent pods have been created yet"
	if initialized {
		st, reason, msg = metav1.ConditionTrue, "PodGangPodsCreated", "PodGang is fully initialized"
	}
	raw, _ := json.Marshal(map[string]any{"status": map[string]any{
		"phase": "Pending",
		"conditions": []metav1.Condition{{Type: schedv1.ConditionInitialized, Status: st, Reason: reason, Message: msg,
			LastTransitionTime: metav1.Now()}},
	}})
	return raw
}

// Phalanx shares PodGang status with Grove's operator, which the test plays as the operator
// does it: create the PodGang, write Initialized=False, create the pods with Grove's gate and
// labels, write Initialized=True (before lifting the gates for half of the gangs, after it for
// the other half, so that the write races the scheduler's), lift the gates. For 100 gangs: no
// condition is lost (Initialized is never turned back or dropped by Phalanx once True; every
// gang ends with Initialized=True, Scheduled=True and phase Running) and each gang sees only a
// handful of status writes.
func TestGroveOperatorStatusKept(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("grovestatus", 26))
	env.StartPhalanx(t, framework.Phalanx{})
	const gangs = 100

	// Every status the API server stores, per gang, in order.
	w, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	writes := map[string]int{}
	initTrue := map[string]bool{}
	var lost []string
	go func() {
		for ev := range w.ResultChan() {
			pg, ok := ev.Object.(*schedv1.PodGang)
			if !ok || ev.Type != watch.Modified {
				continue
			}
			init := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionInitialized)
			mu.Lock()
			writes[pg.Name]++
			switch {
			case init != nil && init.Status == metav1.ConditionTrue:
				initTrue[pg.Name] = true
			case initTrue[pg.Name]:
				lost = append(lost, fmt.Sprintf("%s: Initialized %v after it was True (rv %s)", pg.Name, init, pg.ResourceVersion))
			}
			mu.Unlock()
		}
	}()

	var wg sync.WaitGroup
	work := make(chan int)
	for worker := 0; worker < 8; worker++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := playGrove(ctx, env, ns, fmt.Sprintf("g%03d", i), i%2 == 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for i := 0; i < gangs; i++ {
		work <- i
	}
	close(work)
	wg.Wait()

	framework.Eventually(t, 3*time.Minute, "every gang initialized, scheduled and running", func(ctx context.Context) (bool, error) {
		list, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		done := 0
		var notDone []string
		for _, pg := range list.Items {
			if meta.IsStatusConditionTrue(pg.Status.Conditions, schedv1.ConditionInitialized) &&
				meta.IsStatusConditionTrue(pg.Status.Conditions, schedv1.ConditionScheduled) && pg.Status.Phase == schedv1.PodGangRunning {
				done++
			} else if len(notDone) < 5 {
				notDone = append(notDone, fmt.Sprintf("%s phase %s conditions %v", pg.Name, pg.Status.Phase, pg.Status.Conditions))
			}
		}
		if done != gangs {
			return false, fmt.Errorf("%d of %d done; not yet: %v", done, gangs, notDone)
		}
		return true, nil
	})
	mu.Lock()
	defer mu.Unlock()
	if len(lost) > 0 {
		t.Errorf("conditions lost: %v", lost)
	}
	counts := make([]int, 0, len(writes))
	total := 0
	for _, n := range writes {
		counts = append(counts, n)
		total += n
	}
	sort.Ints(counts)
	t.Logf("PodGang status writes per gang (Grove's two included): median %d, max %d, total %d for %d gangs", counts[len(counts)/2], counts[len(counts)-1], total, gangs)
	if max := counts[len(counts)-1]; max > 8 {
		t.Errorf("a gang saw %d status writes; want at most 8 (Grove's 2 and a few of Phalanx's)", max)
	}
}

// playGrove does what Grove's operator does for one PodGang of 2 one-GPU pods.
func playGrove(ctx context.Context, env *framework.Env, ns, name string, initBeforeUngate bool) error {
	g := framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 1}}}
	gangs := env.Phalanx.SchedulerV1alpha1().PodGangs(ns)
	if _, err := gangs.Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGang %s: %w", name, err)
	}
	status := func(initialized bool) error {
		_, err := gangs.Patch(ctx, name, types.MergePatchType, groveStatusPatch(initialized), metav1.PatchOptions{FieldManager: "grove-operator"}, "status")
		if err != nil {
			return fmt.Errorf("Grove's status write on %s: %w", name, err)
		}
		return nil
	}
	if err := status(false); err != nil {
		return err
	}
	pods := g.Pods()
	for _, p := range pods {
		p.Labels["app.kubernetes.io/managed-by"] = "grove-operator"
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: groveGate}}
		if _, err := env.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s: %w", p.Name, err)
		}
	}
	ungate := func() error {
		for _, p := range pods {
			if _, err := env.Kube.CoreV1().Pods(ns).Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(`{"spec":{"schedulingGates":null}}`), metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("lifting the gate of %s: %w", p.Name, err)
			}
		}
		return nil
	}
	if initBeforeUngate {
		if err := status(true); err != nil {
			return err
		}
		return ungate()
	}
	if err := ungate(); err != nil {
		return err
	}
	return status(true)
}

// A gang that per-node filters keep out (the aggregate capacity is there, but the nodes with
// it are cordoned) is released by its planning pass and retried each back-off. The status
// message and the events stay the same, so the gang's status is written once for the cause,
// not once per cycle, and the status writes do not wake the gang again.
func TestBlockedGangStatusIsStable(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	nodes := env.AddNodes(t, framework.GPUNodes("cordoned", 3))
	for _, n := range nodes[1:] {
		if _, err := env.Kube.CoreV1().Nodes().Patch(ctx, n, types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.StartPhalanx(t, framework.Phalanx{})
	w, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	var messages []string
	go func() {
		for ev := range w.ResultChan() {
			if pg, ok := ev.Object.(*schedv1.PodGang); ok && ev.Type == watch.Modified {
				c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable)
				mu.Lock()
				messages = append(messages, fmt.Sprintf("%v", c))
				mu.Unlock()
			}
		}
	}()
	backoffs := func() float64 {
		return framework.Metric(t, "phalanx_gang_backoffs_total", map[string]string{"kind": "PodGang", "reason": gang.ReasonInsufficient})
	}
	env.CreateGang(t, framework.Gang{Namespace: ns, Name: "blocked", Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}})
	// Getting there takes a few writes (members appearing, the failed pass); from then on
	// the cause does not change, and neither may the status.
	var before int
	framework.Eventually(t, wait, "the watch sees the status record the failure", func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for i, m := range messages {
			if strings.Contains(m, "Reason:"+gang.ReasonInsufficient+",") && strings.Contains(m, "has no placement") {
				before = i + 1
				return true, nil
			}
		}
		return false, nil
	})
	mu.Lock()
	first := append([]string(nil), messages[:before]...)
	mu.Unlock()
	cycles := backoffs()
	framework.Eventually(t, time.Minute, "three more back-offs of the blocked gang", func(context.Context) (bool, error) {
		return backoffs()-cycles >= 3, nil
	})
	mu.Lock()
	later := append([]string(nil), messages[before:]...)
	mu.Unlock()
	t.Logf("%d status writes until the cause was recorded, %d over the %.0f back-off cycles after it", before, len(later), backoffs()-cycles)
	if len(later) > 0 {
		t.Errorf("the status was written %d times for an unchanged cause; after:\n%v\nwrites:\n%v", len(later), first, later)
	}
	evs, err := env.Kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=blocked,type=Warning"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) > 1 {
		var reasons []string
		for _, e := range evs.Items {
			reasons = append(reasons, e.Reason+": "+e.Note)
		}
		t.Errorf("%d Warning events on the PodGang; want 1 for the one cause: %v", len(evs.Items), reasons)
	}
}

// Grove's lpx backend stamps every pod with schedulerName lpx-scheduler. Phalanx started with
// --scheduler-names=phalanx-scheduler,lpx-scheduler serves those pods with the same gang rules:
// a gang that fits is placed whole, one that does not waits with nothing bound and says why.
func TestSchedulerNamesServeGroveBackendName(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("lpx", 3))
	config, err := scheduler.DefaultConfig(scheduler.ConfigOptions{Kubeconfig: env.ServiceAccountKubeconfig, SchedulerNames: []string{scheduler.SchedulerName, "lpx-scheduler"}})
	if err != nil {
		t.Fatal(err)
	}
	env.StartPhalanx(t, framework.Phalanx{Config: config})
	create := func(name string) {
		g := framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, p := range g.Pods() {
			p.Spec.SchedulerName = "lpx-scheduler"
			env.CreatePods(t, p)
		}
	}
	create("fits")
	env.WaitGangBound(t, ns, "fits", 2, wait)
	create("waits")
	pg := env.WaitGangCondition(t, ns, "waits", schedv1.ConditionScheduled, metav1.ConditionFalse, gang.ReasonInsufficient, wait)
	if pods, _ := env.GangPods(ctx, ns, "waits"); framework.CountBound(pods) != 0 {
		t.Errorf("the gang that does not fit has bound pods (all-or-nothing broken for lpx-scheduler pods)")
	}
	t.Logf("waiting gang: %s", meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionScheduled).Message)
}

// Grove's epoch scheme (PodGangMap, grove#777/#778): PodGangs named <pcs>-<replica>-<epoch>
// (anchor) and <pcs>-<replica>-<epoch>-<pcsg>-<index> (scale-out), labelled grove.io/epoch and
// grove.io/podgang-role, pods without grove.io/base-podgang; Grove keeps a scale-out gang's
// pods gated until the anchor says Scheduled=True. Phalanx places them as it places the old
// names: the anchor whole, its Scheduled=True lets the test (as Grove) ungate the scale-out
// gang, which is then placed whole.
func TestEpochNamedPodGangs(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("epoch", 4))
	env.StartPhalanx(t, framework.Phalanx{})
	create := func(name, role string, gated bool) framework.Gang {
		g := framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
		pg := g.PodGang()
		pg.Labels = map[string]string{"grove.io/epoch": "1", "grove.io/podgang-role": role, "app.kubernetes.io/managed-by": "grove-operator"}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, p := range g.Pods() {
			if gated {
				p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: groveGate}}
			}
			env.CreatePods(t, p)
		}
		return g
	}
	create("inference-0-1", "Anchor", false)
	scaleOut := create("inference-0-1-decode-1", "ScaleOut", true)
	env.WaitGangCondition(t, ns, "inference-0-1", schedv1.ConditionScheduled, metav1.ConditionTrue, "QuorumBound", wait)
	if pods, _ := env.GangPods(ctx, ns, scaleOut.Name); framework.CountBound(pods) != 0 {
		t.Fatal("a gated scale-out pod was bound")
	}
	for _, p := range scaleOut.Pods() {
		if _, err := env.Kube.CoreV1().Pods(ns).Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(`{"spec":{"schedulingGates":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.WaitGangBound(t, ns, scaleOut.Name, 2, wait)
}

// A Grove cluster has no scheduling.x-k8s.io PodGroup CRD. phalanx-scheduler with its default
// profile (PodGang and PodGroup plugins) starts and schedules there (the tests above), and
// when the CRD is installed later its PodGroup plugin starts its informer and serves PodGroup
// gangs without a restart.
func TestPodGroupCRDInstalledLater(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("latecrd", 2))
	recheck := gangplugin.KindRecheck
	gangplugin.KindRecheck = 500 * time.Millisecond
	t.Cleanup(func() { gangplugin.KindRecheck = recheck })
	env.StartPhalanx(t, framework.Phalanx{})

	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(env.Root, "manifests", "helm", "phalanx", "files", "crds", "scheduling.x-k8s.io_podgroups.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "podgroups.yaml"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// The members come first: they wait for a kind the plugin does not watch yet.
	for i := 0; i < 2; i++ {
		env.CreatePods(t, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("late-%d", i), Labels: map[string]string{schedulingv1.LabelPodGroup: "late"}},
			Spec: corev1.PodSpec{SchedulerName: scheduler.SchedulerName, TerminationGracePeriodSeconds: ptr.To[int64](0),
				Containers: []corev1.Container{{Name: "main", Image: "registry.example.com/train:v1",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}}},
		})
	}
	if err := localcluster.InstallCRDs(ctx, env.Config, dir); err != nil {
		t.Fatal(err)
	}
	pg := &schedulingv1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "late"}, Spec: schedulingv1.PodGroupSpec{MinMember: 2}}
	framework.Eventually(t, wait, "the PodGroup created once its CRD is served", func(ctx context.Context) (bool, error) {
		_, err := env.Phalanx.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{})
		return err == nil, nil
	})
	framework.Eventually(t, wait, "both members of the PodGroup bound", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		bound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		return bound == 2, nil
	})
}

// Another operator replaces a gang as KAI-style operators do: it deletes the old gang's pods
// and object and creates the replacement PodGang with spec.reuseReservationRef naming the
// old one (no Phalanx annotation). A competing pod that waits for a GPU node does not take the
// capacity the old gang freed; the replacement is placed whole on it, and only then is the
// competitor told there is no room.
func TestReuseReservationRefHonoured(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("reuse", 2))
	env.StartPhalanx(t, framework.Phalanx{ReservationHold: 2 * time.Minute})
	gangs := env.Phalanx.SchedulerV1alpha1().PodGangs(ns)
	old := framework.Gang{Namespace: ns, Name: "serve-0", Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
	env.CreateGang(t, old)
	env.WaitGangBound(t, ns, old.Name, 2, wait)

	// The competitor waits (no room) and records every bind it would get.
	competitor := competitorPod(ns)
	env.CreatePods(t, competitor)
	framework.Eventually(t, wait, "the competitor found unschedulable", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, competitor.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
				return true, nil
			}
		}
		return false, nil
	})

	// The operator's replacement: the new gang pointing at the old one, then the old gang's
	// pods and object deleted. The freed nodes wake the competitor before the replacement's
	// pods exist: it is either kept off (the hold) or bound (no hold).
	repl := framework.Gang{Namespace: ns, Name: "serve-0-1", Groups: old.Groups}
	pg := repl.PodGang()
	pg.Spec.ReuseReservationRef = &schedv1.NamespacedName{Namespace: ns, Name: old.Name}
	if _, err := gangs.Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	blocked := func() float64 { return framework.Metric(t, "phalanx_reservation_blocked_pods_total", nil) }
	before := blocked()
	env.DeletePodsNow(t, ns, "grove.io/podgang="+old.Name)
	if err := gangs.Delete(ctx, old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "the competitor tried the freed nodes", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, competitor.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName != "" {
			return false, framework.Terminal(fmt.Errorf("the competitor took %s, freed by the gang the replacement names in reuseReservationRef", p.Spec.NodeName))
		}
		return blocked() > before, nil
	})
	for _, p := range repl.Pods() {
		env.CreatePods(t, p)
	}
	env.WaitGangBound(t, ns, repl.Name, 2, wait)
	p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, competitor.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" {
		t.Fatalf("the competitor took %s, freed by the replaced gang", p.Spec.NodeName)
	}
}

// competitorPod is a plain pod of Phalanx's that wants a whole 8-GPU node: what a hold must
// keep off the capacity it holds.
func competitorPod(ns string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "competitor"},
		Spec: corev1.PodSpec{SchedulerName: scheduler.SchedulerName, TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "main", Image: "registry.example.com/batch:v1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}}},
	}
}

// The footprint a replacement PodGang takes over through spec.reuseReservationRef is recorded
// on it (annotation phalanx.dev/reservation), so that it survives a restart of the scheduler
// between the old gang's deletion and the replacement's placement: the new process, which never
// saw the old gang, still keeps a competitor off the freed nodes, the replacement lands there,
// and `kubectl phalanx why` names the hold.
func TestReuseReservationRefSurvivesRestart(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	nodes := env.AddNodes(t, framework.GPUNodes("reuserestart", 2))
	stop := env.StartPhalanx(t, framework.Phalanx{ReservationHold: 5 * time.Minute})
	gangs := env.Phalanx.SchedulerV1alpha1().PodGangs(ns)
	old := framework.Gang{Namespace: ns, Name: "serve-0", Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
	env.CreateGang(t, old)
	env.WaitGangBound(t, ns, old.Name, 2, wait)

	repl := framework.Gang{Namespace: ns, Name: "serve-0-1", Groups: old.Groups}
	pg := repl.PodGang()
	pg.Spec.ReuseReservationRef = &schedv1.NamespacedName{Namespace: ns, Name: old.Name}
	if _, err := gangs.Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "the taken-over footprint recorded on "+repl.Name, func(ctx context.Context) (bool, error) {
		g, err := gangs.Get(ctx, repl.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		r := gang.ReservationFromPodGang(g)
		if r == nil {
			return false, fmt.Errorf("annotations %v", g.Annotations)
		}
		for _, n := range nodes {
			if r.Nodes[n].GPU != 8 {
				return false, framework.Terminal(fmt.Errorf("recorded footprint %v: want 8 GPUs on each of %v", r.Nodes, nodes))
			}
		}
		return true, nil
	})
	env.DeletePodsNow(t, ns, "grove.io/podgang="+old.Name)
	if err := gangs.Delete(ctx, old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	stop() // the leader goes away; the new one never saw serve-0 or its pods
	env.StartPhalanx(t, framework.Phalanx{ReservationHold: 5 * time.Minute})

	competitor := competitorPod(ns)
	env.CreatePods(t, competitor)
	framework.Eventually(t, wait, "the competitor kept off the held nodes", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, competitor.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName != "" {
			return false, framework.Terminal(fmt.Errorf("after the restart the competitor took %s, held for %s", p.Spec.NodeName, repl.Name))
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
				return true, nil
			}
		}
		return false, nil
	})
	for _, p := range repl.Pods() {
		env.CreatePods(t, p)
	}
	bound := env.WaitGangBound(t, ns, repl.Name, 2, wait)
	if p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, competitor.Name, metav1.GetOptions{}); err != nil || p.Spec.NodeName != "" {
		t.Fatalf("the competitor (err %v) took a node held for the replacement", err)
	}
	why, err := inspect.LoadWhy(ctx, env.Kube, env.Phalanx, ns, bound[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(why.Reservation, "held for its replacements") || !strings.Contains(why.Reservation, nodes[0]) {
		t.Errorf("kubectl phalanx why: reservation %q, want the hold on %v", why.Reservation, nodes)
	}
}
