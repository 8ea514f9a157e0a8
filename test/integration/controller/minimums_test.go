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

// Capacity that arrives a node at a time completes the minimums before it grows gangs (the
// scenario of Grove's GS-7, whole-node pods): with the base gang placed, the scaled gang
// needs two nodes for its minimum. The nodes come one at a time: the first must stay free
// for that minimum rather than go to one of the base gang's extras, or the scaled gang never
// fits and the set ends with 6 pods running where minimums first runs 7. The pods above a
// minimum say what they wait for.
func TestMinimumsBeforeExtrasAsCapacityArrives(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	nodes := env.AddNodes(t, framework.GPUNodes("minfirst", 7))
	cordon := func(names []string, unschedulable bool) { setUnschedulable(t, env, names, unschedulable) }
	cordon(nodes, true)
	// The hold outlasts the test on a loaded machine: what is tested is the order, not the bound.
	env.StartPhalanx(t, framework.Phalanx{ExtraHold: 10 * time.Minute})
	env.StartController(t, nil)

	const name = "minfirst"
	scaled := workload.ScaledPodGangName(name, 0, "sg-x", 0) // sg-x replica 1, the first above minAvailable 1
	var mu sync.Mutex
	var binds []string
	violation := ""
	stop := env.WatchPods(t, ns, name, func(pods map[string]corev1.Pod, changed *corev1.Pod) {
		if changed == nil || changed.Spec.NodeName == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if slices.Contains(binds, changed.Name) {
			return
		}
		binds = append(binds, changed.Name)
		scaledPlaced := 0
		for _, p := range pods {
			if p.Labels[grovev1.LabelPodGang] == scaled && minimumOf(p) && p.Spec.NodeName != "" {
				scaledPlaced++
			}
		}
		if !minimumOf(*changed) && scaledPlaced < 2 && violation == "" {
			violation = fmt.Sprintf("%s, above its gang's minimum, bound to %s while %s had %d of its 2 minimum members placed (binds so far: %v)",
				changed.Name, changed.Spec.NodeName, scaled, scaledPlaced, binds)
		}
	})
	defer stop()
	checkOrder := func() error {
		mu.Lock()
		defer mu.Unlock()
		if violation != "" {
			return framework.Terminal(fmt.Errorf("an extra took capacity a minimum waited for: %s", violation))
		}
		return nil
	}
	bound := func(ctx context.Context) (all []corev1.Pod, placed map[string]bool, err error) {
		all, err = env.ListPods(ctx, ns, name)
		placed = map[string]bool{}
		for _, p := range all {
			if p.Spec.NodeName != "" {
				placed[p.Name] = true
			}
		}
		return all, placed, err
	}
	waitBound := func(what string, want int, ok func([]corev1.Pod, map[string]bool) bool) {
		t.Helper()
		framework.Eventually(t, framework.UpdateTimeout, what, func(ctx context.Context) (bool, error) {
			if err := checkOrder(); err != nil {
				return false, err
			}
			all, placed, err := bound(ctx)
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
	minimumsOf := func(gangs ...string) func([]corev1.Pod, map[string]bool) bool {
		return func(all []corev1.Pod, placed map[string]bool) bool {
			for _, p := range all {
				if minimumOf(p) && slices.Contains(gangs, p.Labels[grovev1.LabelPodGang]) && !placed[p.Name] {
					return false
				}
			}
			return true
		}
	}
	anyBound := func([]corev1.Pod, map[string]bool) bool { return true }

	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, flexibleSet(ns, name), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitBound("10 pods, none bound while every node is cordoned", 0, anyBound)

	// Three nodes: the base gang's minimum.
	cordon(nodes[:3], false)
	waitBound("the base gang's minimum (3 pods) bound on the first 3 nodes", 3, minimumsOf(name+"-0"))

	// A fourth node: the scaled gang's minimum needs two. Nothing binds; the base gang's
	// extras say that they wait for the scaled gang.
	cordon(nodes[3:4], false)
	framework.Eventually(t, framework.UpdateTimeout, "the base gang's extras wait for "+scaled, func(ctx context.Context) (bool, error) {
		if err := checkOrder(); err != nil {
			return false, err
		}
		all, _, err := bound(ctx)
		if err != nil {
			return false, err
		}
		var notHeld []string
		for _, p := range all {
			if p.Labels[grovev1.LabelPodGang] != name+"-0" || minimumOf(p) {
				continue
			}
			msg := ""
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					msg = c.Message
				}
			}
			if !containsAll(msg, scaled, "places its minimum") {
				notHeld = append(notHeld, fmt.Sprintf("%s: %q", p.Name, msg))
			}
		}
		if len(notHeld) > 0 {
			return false, fmt.Errorf("extras not (yet) held: %v", notHeld)
		}
		return true, nil
	})

	// A fifth node: the scaled gang's minimum fits on the fourth and fifth.
	cordon(nodes[4:5], false)
	waitBound(scaled+"'s minimum bound on nodes 4 and 5", 5, minimumsOf(name+"-0", scaled))

	// Two more: extras take them now.
	cordon(nodes[5:], false)
	waitBound("7 pods bound: both minimums and two extras", 7, minimumsOf(name+"-0", scaled))
	if err := checkOrder(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	t.Logf("bind order: %v", binds)
	mu.Unlock()
}
