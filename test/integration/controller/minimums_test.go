package controller

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/workload"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// flexibleSet is Grove's e2e "workload2" (flexible startup) with whole-node pods: a standalone
// clique pc-a of 2 (minAvailable 1) and a scaling group sg-x of 2 replicas (minAvailable 1) of
// pc-b (1, minAvailable 1) and pc-c (3, minAvailable 1). Its base gang needs pc-a-0,
// sg-x-0's pc-b-0 and pc-c-0; the scaled gang of sg-x replica 1 needs its pc-b-0 and pc-c-0;
// the five others are above a minimum.
func flexibleSet(ns, name string) *grovev1.PodCliqueSet {
	clique := func(n string, replicas, minAvailable int32) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: n, Spec: grovev1.PodCliqueSpec{RoleName: n, Replicas: replicas, MinAvailable: ptr.To(minAvailable),
			PodSpec: corev1.PodSpec{
				SchedulerName:                 scheduler.SchedulerName,
				TerminationGracePeriodSeconds: ptr.To[int64](0),
				Containers: []corev1.Container{{Name: n, Image: "registry.example.com/llm/" + n + ":v1",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}},
			}}}
	}
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: grovev1.PodCliqueSetSpec{
			Replicas: 1,
			Template: grovev1.PodCliqueSetTemplateSpec{
				Cliques: []grovev1.PodCliqueTemplateSpec{clique("pc-a", 2, 1), clique("pc-b", 1, 1), clique("pc-c", 3, 1)},
				PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{{
					Name: "sg-x", CliqueNames: []string{"pc-b", "pc-c"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1),
				}},
			},
		},
	}
}

// minimumOf reports whether p is one of the pods its gang needs for its minimum (index 0 of
// its clique, every clique of the flexible set having minAvailable 1).
func minimumOf(p corev1.Pod) bool { return p.Labels[grovev1.LabelPodCliquePodIndex] == "0" }

// minimumsScenario is the flexible set on 7 cordoned whole-GPU nodes, with a watch that fails
// the test as soon as a pod above its gang's minimum binds while the scaled gang of sg-x
// replica 1 lacks its minimum.
type minimumsScenario struct {
	t      *testing.T
	env    *framework.Env
	ns     string
	name   string
	scaled string
	nodes  []string

	mu        sync.Mutex
	binds     []string
	violation string
}

func newMinimumsScenario(t *testing.T, extraHold time.Duration) *minimumsScenario {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	sc := &minimumsScenario{t: t, env: env, ns: env.NewNamespace(t), name: "minfirst"}
	sc.scaled = workload.ScaledPodGangName(sc.name, 0, "sg-x", 0) // sg-x replica 1, the first above minAvailable 1
	sc.nodes = env.AddNodes(t, framework.GPUNodes("minfirst", 7))
	sc.cordon(sc.nodes, true)
	env.StartPhalanx(t, framework.Phalanx{ExtraHold: extraHold})
	env.StartController(t, nil)
	stop := env.WatchPods(t, sc.ns, sc.name, func(pods map[string]corev1.Pod, changed *corev1.Pod) {
		if changed == nil || changed.Spec.NodeName == "" {
			return
		}
		sc.mu.Lock()
		defer sc.mu.Unlock()
		if slices.Contains(sc.binds, changed.Name) {
			return
		}
		sc.binds = append(sc.binds, changed.Name)
		scaledPlaced := 0
		for _, p := range pods {
			if p.Labels[grovev1.LabelPodGang] == sc.scaled && minimumOf(p) && p.Spec.NodeName != "" {
				scaledPlaced++
			}
		}
		if !minimumOf(*changed) && scaledPlaced < 2 && sc.violation == "" {
			sc.violation = fmt.Sprintf("%s, above its gang's minimum, bound to %s while %s had %d of its 2 minimum members placed (binds so far: %v)",
				changed.Name, changed.Spec.NodeName, sc.scaled, scaledPlaced, sc.binds)
		}
	})
	t.Cleanup(stop)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(sc.ns).Create(ctx, flexibleSet(sc.ns, sc.name), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return sc
}

func (sc *minimumsScenario) cordon(names []string, unschedulable bool) {
	setUnschedulable(sc.t, sc.env, names, unschedulable)
}

// checkOrder fails for good once an extra bound before the scaled gang's minimum.
func (sc *minimumsScenario) checkOrder() error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.violation != "" {
		return framework.Terminal(fmt.Errorf("an extra took capacity a minimum waited for: %s", sc.violation))
	}
	return nil
}

func (sc *minimumsScenario) pods(ctx context.Context) (all []corev1.Pod, placed map[string]bool, err error) {
	all, err = sc.env.ListPods(ctx, sc.ns, sc.name)
	placed = map[string]bool{}
	for _, p := range all {
		if p.Spec.NodeName != "" {
			placed[p.Name] = true
		}
	}
	return all, placed, err
}

// waitBound waits until exactly want of the set's 10 pods are bound and ok holds.
func (sc *minimumsScenario) waitBound(what string, want int, ok func([]corev1.Pod, map[string]bool) bool) {
	sc.t.Helper()
	framework.Eventually(sc.t, framework.UpdateTimeout, what, func(ctx context.Context) (bool, error) {
		if err := sc.checkOrder(); err != nil {
			return false, err
		}
		all, placed, err := sc.pods(ctx)
		if err != nil {
			return false, err
		}
		if len(placed) > want {
			return false, framework.Terminal(fmt.Errorf("%d pods bound, want %d: %v", len(placed), want, placed))
		}
		if len(all) != 10 || len(placed) != want || !ok(all, placed) {
			return false, fmt.Errorf("%d pods, %d bound: %v", len(all), len(placed), placed)
		}
		return true, nil
	})
}

// minimumsOf: every pod of the gangs' minimums is bound.
func minimumsOf(gangs ...string) func([]corev1.Pod, map[string]bool) bool {
	return func(all []corev1.Pod, placed map[string]bool) bool {
		for _, p := range all {
			if minimumOf(p) && slices.Contains(gangs, p.Labels[grovev1.LabelPodGang]) && !placed[p.Name] {
				return false
			}
		}
		return true
	}
}

// waitExtras waits until every pending extra of the base gang says, in its PodScheduled
// condition, that it is held for the scaled gang (held) or that it is not (!held).
func (sc *minimumsScenario) waitExtras(what string, held bool) {
	sc.t.Helper()
	framework.Eventually(sc.t, framework.UpdateTimeout, what, func(ctx context.Context) (bool, error) {
		if err := sc.checkOrder(); err != nil {
			return false, err
		}
		all, _, err := sc.pods(ctx)
		if err != nil {
			return false, err
		}
		var wrong []string
		for _, p := range all {
			if p.Labels[grovev1.LabelPodGang] != sc.name+"-0" || minimumOf(p) || p.Spec.NodeName != "" {
				continue
			}
			msg := ""
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					msg = c.Message
				}
			}
			if msg == "" || containsAll(msg, sc.scaled, "places its minimum") != held {
				wrong = append(wrong, fmt.Sprintf("%s: %q", p.Name, msg))
			}
		}
		if len(wrong) > 0 {
			return false, fmt.Errorf("extras not (yet) as wanted (held %v): %v", held, wrong)
		}
		return true, nil
	})
}

func (sc *minimumsScenario) logBinds() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.t.Logf("bind order: %v", sc.binds)
}

func anyBound([]corev1.Pod, map[string]bool) bool { return true }

// Capacity that arrives a node at a time completes the minimums before it grows gangs (the
// scenario of Grove's GS-7, whole-node pods): with the base gang placed, the scaled gang
// needs two nodes for its minimum. The nodes come one at a time: the first must stay free
// for that minimum rather than go to one of the base gang's extras, or the scaled gang never
// fits and the set ends with 6 pods running where minimums first runs 7. The pods above a
// minimum say what they wait for.
func TestMinimumsBeforeExtrasAsCapacityArrives(t *testing.T) {
	// The hold outlasts the test on a loaded machine: what is tested is the order, not the bound.
	sc := newMinimumsScenario(t, 10*time.Minute)
	sc.waitBound("10 pods, none bound while every node is cordoned", 0, anyBound)

	// Three nodes: the base gang's minimum.
	sc.cordon(sc.nodes[:3], false)
	sc.waitBound("the base gang's minimum (3 pods) bound on the first 3 nodes", 3, minimumsOf(sc.name+"-0"))

	// A fourth node: the scaled gang's minimum needs two. Nothing binds; the base gang's
	// extras say that they wait for the scaled gang.
	sc.cordon(sc.nodes[3:4], false)
	sc.waitExtras("the base gang's extras wait for "+sc.scaled, true)

	// A fifth node: the scaled gang's minimum fits on the fourth and fifth.
	sc.cordon(sc.nodes[4:5], false)
	sc.waitBound(sc.scaled+"'s minimum bound on nodes 4 and 5", 5, minimumsOf(sc.name+"-0", sc.scaled))

	// Two more: extras take them now.
	sc.cordon(sc.nodes[5:], false)
	sc.waitBound("7 pods bound: both minimums and two extras", 7, minimumsOf(sc.name+"-0", sc.scaled))
	if err := sc.checkOrder(); err != nil {
		t.Fatal(err)
	}
	sc.logBinds()
}

// The same order when the capacity arrives after the scaled gang's hold ran out (Grove's GS-8
// waits for other pods to become Ready between its steps, longer than the hold): a node that
// arrives later is still offered to the waiting minimum first, which holds the extras again
// for a full hold when it fails on it. Fails if the hold is counted from the first failure
// only: the fourth node goes to an extra.
func TestMinimumsFirstAfterTheHoldRanOut(t *testing.T) {
	// Long enough for the test's steps between the fourth and the fifth node on a loaded
	// machine; the test waits for it to run out once.
	const hold = 20 * time.Second
	sc := newMinimumsScenario(t, hold)
	sc.waitBound("10 pods, none bound while every node is cordoned", 0, anyBound)
	sc.cordon(sc.nodes[:3], false)
	sc.waitBound("the base gang's minimum (3 pods) bound on the first 3 nodes", 3, minimumsOf(sc.name+"-0"))

	// The scaled gang fails (no node left) and holds the extras, until its hold runs out: then
	// they are retried and fail for want of nodes, not for the hold.
	sc.waitExtras("the base gang's extras held for "+sc.scaled, true)
	sc.waitExtras("the scaled gang's hold ran out: the extras no longer wait for it", false)

	// A fourth node, long after the hold: the extras are held again, nothing binds.
	sc.cordon(sc.nodes[3:4], false)
	sc.waitExtras("the base gang's extras held again for "+sc.scaled+" once a node arrived", true)
	sc.cordon(sc.nodes[4:5], false)
	sc.waitBound(sc.scaled+"'s minimum bound on nodes 4 and 5", 5, minimumsOf(sc.name+"-0", sc.scaled))
	sc.cordon(sc.nodes[5:], false)
	sc.waitBound("7 pods bound: both minimums and two extras", 7, minimumsOf(sc.name+"-0", sc.scaled))
	sc.logBinds()
}
