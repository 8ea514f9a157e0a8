// Package inspect tests kubectl phalanx's answers against a real API server: golden outputs of
// status, why and plan on fixed cluster states, and plan's prediction against the steps the
// real update then takes.
package inspect

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/inspect"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
	"github.com/phalanx-sched/phalanx/test/framework"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files")

func TestMain(m *testing.M) { framework.Main(m) }

// golden compares got (with the namespace replaced by NS) with testdata/name.
func golden(t *testing.T, name, ns, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, ns, "NS")
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fixture writes a fixed state through the API, without scheduler or controller: the
// PodCliqueSet framework.GroupSet(2 group replicas, minAvailable 1) at revision new, mid-update:
// group replica 0 replaced and Ready, replica 1 old, a surge pod of replica 1 waiting.
func fixture(t *testing.T, env *framework.Env, ns string) *grovev1.PodCliqueSet {
	t.Helper()
	ctx := framework.Context(t)
	pcs := framework.GroupSet(ns, "demo", 2, 1, 0, 1)
	pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hashes := workload.TemplateHashes(pcs)
	now := metav1.Now()
	pcs.Status = grovev1.PodCliqueSetStatus{Replicas: 1, AvailableReplicas: 0, UpdatedReplicas: 0, CurrentRevision: "rev2",
		UpdateProgress: &grovev1.PodCliqueSetUpdateProgress{UpdateStartedAt: now, LastProgressAt: &now, UpdatingReplicas: []int32{0}},
		Conditions: []metav1.Condition{
			{Type: grovev1.ConditionAvailable, Status: metav1.ConditionFalse, Reason: "ReplicasUnavailable", Message: "0 of 1 replicas are available", LastTransitionTime: now},
			{Type: grovev1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: "Updating", Message: "updating to revision rev2; waiting: replica 0 demo-0-sg: 1 member(s) not available yet; 1 available, at least 1 must stay available", LastTransitionTime: now},
			{Type: grovev1.ConditionSurgeBlocked, Status: metav1.ConditionFalse, Reason: "NoSurgeWaiting", Message: "no surge member is waiting for capacity", LastTransitionTime: now},
		}}
	if pcs, err = env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).UpdateStatus(ctx, pcs, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := func(gangName string, j int, clique string, i int, hash string) map[string]string {
		return map[string]string{
			grovev1.LabelPodCliqueSet: "demo", workload.LabelManagedBy: workload.ManagedBy, grovev1.LabelPodGang: gangName,
			grovev1.LabelPodCliqueSetReplicaIndex: "0", grovev1.LabelPodCliqueScalingGroup: "demo-0-sg",
			grovev1.LabelPodCliqueScalingGroupReplicaIndex: fmt.Sprint(j), grovev1.LabelPodClique: workload.GroupCliqueName("demo", 0, "sg", j, clique),
			grovev1.LabelPodCliquePodIndex: fmt.Sprint(i), grovev1.LabelPodTemplateHash: hash, workload.LabelCliqueTemplate: clique,
		}
	}
	gangs := map[string][]string{}
	mk := func(gangName string, j int, clique string, i int, node, hash string, ready bool) {
		name := workload.PodName(workload.GroupCliqueName("demo", 0, "sg", j, clique), i)
		gangs[gangName] = append(gangs[gangName], name)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels(gangName, j, clique, i, hash)},
			Spec: corev1.PodSpec{NodeName: node, SchedulerName: "phalanx-scheduler", Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
		if j >= 1 {
			p.Labels[grovev1.LabelBasePodGang] = "demo-0"
		}
		p, err := env.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ready {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		} else {
			p.Status.Phase = corev1.PodPending
		}
		if _, err := env.Kube.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	newLeader, newWorker := hashes["leader"], hashes["worker"]
	mk("demo-0", 0, "leader", 0, "gpu-a", newLeader, true)
	mk("demo-0", 0, "worker", 0, "gpu-b", newWorker, true)
	mk("demo-0", 0, "worker", 1, "gpu-c", newWorker, true)
	mk("demo-0-sg-1", 1, "leader", 0, "gpu-d", "oldhash", true)
	mk("demo-0-sg-1", 1, "worker", 0, "", newWorker, false)
	mk("demo-0-sg-1", 1, "worker", 1, "gpu-f", "oldhash", true)
	for name, pods := range gangs {
		pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			grovev1.LabelPodCliqueSet: "demo", grovev1.LabelPodCliqueSetReplicaIndex: "0"}}}
		byClique := map[string][]schedv1.NamespacedName{}
		for _, p := range pods {
			c := "worker"
			if strings.Contains(p, "leader") {
				c = "leader"
			}
			byClique[c] = append(byClique[c], schedv1.NamespacedName{Namespace: ns, Name: p})
		}
		for _, c := range []string{"leader", "worker"} {
			pg.Spec.PodGroups = append(pg.Spec.PodGroups, schedv1.PodGroup{Name: c, MinReplicas: int32(len(byClique[c])), PodReferences: byClique[c]})
		}
		pg, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, pg, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pg.Status.Phase = schedv1.PodGangRunning
		meta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: schedv1.ConditionScheduled, Status: metav1.ConditionTrue, Reason: "QuorumBound", Message: "quorum bound"})
		if name == "demo-0-sg-1" {
			meta.SetStatusCondition(&pg.Status.Conditions, metav1.Condition{Type: schedv1.ConditionUnschedulable, Status: metav1.ConditionTrue,
				Reason: "InsufficientResources", Message: "PodGang NS/demo-0-sg-1 cannot fit its 1 unplaced members into the cluster: needs 8 nvidia.com/gpu, 0 free"})
		}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).UpdateStatus(ctx, pg, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sched-1"}, Reason: "FailedScheduling", Type: corev1.EventTypeWarning,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "demo-0-sg-1-worker-0"},
		Message:        "0/6 nodes are available: 6 Insufficient nvidia.com/gpu.", LastTimestamp: now}
	if _, err := env.Kube.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return pcs
}

func TestStatusAndWhyGolden(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	fixture(t, env, ns)
	st, err := inspect.Load(ctx, env.Kube, env.Phalanx, ns, "demo")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	inspect.RenderStatus(&out, inspect.BuildStatus(st, time.Now(), 2*time.Minute), inspect.Palette{})
	golden(t, "status.golden", ns, out.String())

	out.Reset()
	inspect.RenderStatus(&out, inspect.BuildStatus(st, time.Now(), 2*time.Minute), inspect.Colors)
	if !strings.Contains(out.String(), "\x1b[31mInsufficientResources: ") || !strings.Contains(out.String(), "\x1b[33moldhash (old)\x1b[0m") {
		t.Errorf("coloured status lacks the colours of a waiting gang and an old pod:\n%q", out.String())
	}

	w, err := inspect.LoadWhy(ctx, env.Kube, env.Phalanx, ns, "demo-0-sg-1-worker-0")
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	inspect.RenderWhy(&out, w, inspect.Palette{})
	golden(t, "why-pending.golden", ns, out.String())

	w, err = inspect.LoadWhy(ctx, env.Kube, env.Phalanx, ns, "demo-0-sg-0-leader-0")
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	inspect.RenderWhy(&out, w, inspect.Palette{})
	golden(t, "why-bound.golden", ns, out.String())
}

// recorder collects the real controller's non-empty plans of one PodCliqueSet once armed.
type recorder struct {
	mu    sync.Mutex
	armed bool
	name  string
	steps []string
}

func (r *recorder) onPlan(pcs *grovev1.PodCliqueSet, p update.Plan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.armed || pcs.Name != r.name || len(p.Actions) == 0 {
		return
	}
	var acts []string
	for _, a := range p.Actions {
		acts = append(acts, a.String())
	}
	step := strings.Join(acts, ", ")
	// A pass on a cache that has not seen the last pass's writes repeats its actions (the
	// writes are idempotent): count a step once. A pass that creates again some of the last
	// pass's creates, and nothing else, makes members that someone else deleted right after
	// they were made: seen once in make test (2026-12-05), the scheduler's bind of two new pods
	// failing with "being deleted" while the controller had deleted only their predecessors
	// (by UID); KWOK finishes a terminating pod by name, without a UID precondition. No plan
	// can predict that, so it is not a step of the update.
	if n := len(r.steps); n == 0 || (r.steps[n-1] != step && !recreates(r.steps[n-1], acts)) {
		r.steps = append(r.steps, step)
	}
}

// recreates reports whether acts are all creates that step (a recorded step) also took.
func recreates(step string, acts []string) bool {
	took := map[string]bool{}
	for _, a := range strings.Split(step, ", ") {
		took[a] = true
	}
	for _, a := range acts {
		if !strings.HasPrefix(a, "create ") || !took[a] {
			return false
		}
	}
	return true
}

// Plan predicts, for each example of the seed design, the steps the real update takes: the
// preview runs on the live state, then the update runs for real with the scheduler and the
// controller, and the steps are compared.
func TestPlanMatchesRealUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pcs    func(ns string) *grovev1.PodCliqueSet
		nodes  int
		pods   int
		golden string
		// cliques are the cliques the update changes (nil: every one).
		cliques []string
	}{
		{"PodClique replicas 3, maxSurge 1, maxUnavailable 0", func(ns string) *grovev1.PodCliqueSet { return framework.Workers(ns, "w", 1, 0, 600) }, 4, 3, "plan-podclique.golden", nil},
		{"scaling group replicas 3, minAvailable 3, maxSurge 1, maxUnavailable 0", func(ns string) *grovev1.PodCliqueSet { return framework.GroupSet(ns, "g", 3, 3, 1, 0) }, 12, 9, "plan-scalinggroup.golden", nil},
		{"ReplicaRecreate replicas 2, maxSurge 1, maxUnavailable 0", func(ns string) *grovev1.PodCliqueSet { return framework.Recreate(ns, "rr", 2, 1, 0) }, 9, 6, "plan-replicarecreate.golden", nil},
		{"replicas 3, rollingUpdate.partition 2", func(ns string) *grovev1.PodCliqueSet {
			p := framework.Workers(ns, "pt", 1, 0, 600)
			p.Spec.Replicas, p.Spec.Template.Cliques[0].Spec.Replicas = 3, 1
			p.Spec.UpdateStrategy.RollingUpdate = &grovev1.RollingUpdateBudget{Partition: ptr.To[int32](2)}
			return p
		}, 4, 3, "plan-partition.golden", nil},
		{"Coherent prefill/decode, maxSurge 1 slice", func(ns string) *grovev1.PodCliqueSet {
			return framework.PrefillDecode(ns, "pd", ptr.To[int32](1), ptr.To[int32](0))
		}, 7, 5, "plan-coherent.golden", []string{"prefill-worker", "decode-worker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := framework.Shared(t)
			ctx := framework.Context(t)
			ns := env.NewNamespace(t)
			env.AddNodes(t, framework.GPUNodes(fmt.Sprintf("plan%d", tc.nodes), tc.nodes))
			pcs := tc.pcs(ns)
			rec := &recorder{name: pcs.Name}
			env.StartPhalanx(t, framework.Phalanx{Controller: true, Configure: func(c *controller.Controller) { c.OnPlan = rec.onPlan }})
			if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			env.WaitAvailable(t, ns, pcs.Name, pcs.Spec.Replicas, tc.pods)
			env.WaitRevisionComplete(t, ns, pcs.Name) // a partition holds replicas at it
			image := "registry.example.com/llm/next:v2"

			world, err := inspect.LoadWorld(ctx, env.Kube, env.Phalanx, ns, pcs.Name)
			if err != nil {
				t.Fatal(err)
			}
			spec := world.PCS.Spec.DeepCopy()
			for i := range spec.Template.Cliques {
				if tc.cliques == nil || slices.Contains(tc.cliques, spec.Template.Cliques[i].Name) {
					spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = image
				}
			}
			profile, err := inspect.Profile()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			pv, err := inspect.PlanUpdate(ctx, env.Kube, profile, world, *spec, 300)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("plan: %d steps in %s", len(pv.Steps), time.Since(start).Round(time.Millisecond))
			var out bytes.Buffer
			inspect.RenderPlan(&out, pv, inspect.Palette{})
			golden(t, tc.golden, ns, out.String())
			png := filepath.Join(t.TempDir(), "capacity.png")
			if err := inspect.PlotCapacity(pv, png); err != nil {
				t.Fatal(err)
			}
			if raw, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(raw, []byte("\x89PNG")) {
				t.Errorf("--png wrote no PNG: %v", err)
			}
			if !pv.Done {
				t.Fatalf("the preview did not complete: %s", pv.Stuck)
			}
			var predicted []string
			for _, s := range pv.Steps {
				predicted = append(predicted, strings.Join(s.Actions, ", "))
			}

			rec.mu.Lock()
			rec.armed = true
			rec.mu.Unlock()
			if tc.cliques == nil {
				env.SetImage(t, ns, pcs.Name, image)
			} else {
				env.SetCliqueImage(t, ns, pcs.Name, image, tc.cliques...)
			}
			switch {
			case tc.cliques != nil:
				framework.Eventually(t, time.Minute, "the real update complete", func(ctx context.Context) (bool, error) {
					p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcs.Name, metav1.GetOptions{})
					if err != nil {
						return false, err
					}
					c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing)
					return c != nil && c.Reason == "UpdateComplete" && c.ObservedGeneration == p.Generation, nil
				})
			case pcs.Spec.UpdateStrategy.RollingUpdate != nil && pcs.Spec.UpdateStrategy.RollingUpdate.Partition != nil:
				if pv.Partitioned == "" {
					t.Error("the preview does not say that the partition holds replicas back")
				}
				framework.Eventually(t, time.Minute, "the real update at its partition", func(ctx context.Context) (bool, error) {
					p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcs.Name, metav1.GetOptions{})
					if err != nil {
						return false, err
					}
					c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing)
					return c != nil && c.Reason == controller.ReasonPartitioned && c.ObservedGeneration == p.Generation, nil
				})
			default:
				env.WaitUpdated(t, ns, pcs.Name, image, tc.pods)
			}
			rec.mu.Lock()
			real := append([]string(nil), rec.steps...)
			rec.mu.Unlock()
			if strings.Join(real, "\n") != strings.Join(predicted, "\n") {
				t.Errorf("the real update took\n  %s\nthe plan predicted\n  %s", strings.Join(real, "\n  "), strings.Join(predicted, "\n  "))
			}
			if pv.MinReadyPods < tc.pods {
				t.Errorf("plan's lowest Ready pods %d, want at least %d (maxUnavailable 0 keeps full capacity)", pv.MinReadyPods, tc.pods)
			}
		})
	}
}

// plan on a cluster without room for a surge says where it stops and why.
func TestPlanStopsWhereSurgeCannotFit(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("planfull", 3))
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	pcs := framework.Workers(ns, "w", 1, 0, 600)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "w", 1, 3)
	world, err := inspect.LoadWorld(ctx, env.Kube, env.Phalanx, ns, "w")
	if err != nil {
		t.Fatal(err)
	}
	spec := world.PCS.Spec.DeepCopy()
	spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "registry.example.com/llm/worker:v2"
	profile, err := inspect.Profile()
	if err != nil {
		t.Fatal(err)
	}
	pv, err := inspect.PlanUpdate(context.Background(), env.Kube, profile, world, *spec, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	inspect.RenderPlan(&out, pv, inspect.Palette{})
	golden(t, "plan-blocked.golden", ns, out.String())
	if pv.Done {
		t.Error("the preview completed although no surge fits and maxUnavailable is 0")
	}
	// Nothing was written to the cluster.
	live, _ := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "w", metav1.GetOptions{})
	if live.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image != "registry.example.com/llm/worker:v1" || ptr.Deref(live.Status.ObservedGeneration, 0) != live.Generation {
		t.Errorf("plan changed the live PodCliqueSet: %+v", live.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0])
	}
}
