package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// The design's PodClique example end to end: replicas=3, maxSurge=1, maxUnavailable=0 on
// room for exactly 4 pods. The surge pod (index 3) joins the established gang, the old pods
// are replaced one by one, the surge pod goes last; never more than 4 pods, never fewer than
// 3 Ready; the final indices are 0, 1, 2 on the new image.
func TestRollingUpdatePodCliqueSurge(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("roll", 4))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.Workers(ns, "w", 1, 0, 600), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "w", 1, 3)

	// Watch the update from the side, every pod event: the most pods alive and the fewest Ready.
	var mu sync.Mutex
	maxAlive, minReady, sawSurge := 0, 3, false
	stopWatch := env.WatchPods(t, ns, "w", func(pods map[string]corev1.Pod, p *corev1.Pod) {
		ready := 0
		for _, q := range pods {
			if framework.ReadyPod(q) {
				ready++
			}
		}
		mu.Lock()
		maxAlive = max(maxAlive, len(pods))
		minReady = min(minReady, ready)
		sawSurge = sawSurge || p.Labels[grovev1.LabelSurge] == "true"
		mu.Unlock()
	})
	env.SetImage(t, ns, "w", "registry.example.com/llm/worker:v2")
	framework.Eventually(t, wait, "update complete", func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "w", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionProgressing)
		pods, err := env.ListPods(ctx, ns, "w")
		if err != nil {
			return false, err
		}
		images := []string{}
		for _, p := range pods {
			images = append(images, p.Name+"="+p.Spec.Containers[0].Image)
		}
		ok := framework.UpdateComplete(pcs) && pcs.Status.UpdatedReplicas == 1 && pcs.Status.AvailableReplicas == 1 &&
			len(pods) == 3 && strings.Count(strings.Join(images, " "), ":v2") == 3
		if !ok {
			return false, fmt.Errorf("progressing %v, updated %d, pods %v", c, pcs.Status.UpdatedReplicas, images)
		}
		return true, nil
	})
	stopWatch()
	mu.Lock()
	defer mu.Unlock()
	if maxAlive > 4 {
		t.Errorf("%d pods existed at once; replicas 3 + maxSurge 1 allows 4", maxAlive)
	}
	if minReady < 3 {
		t.Errorf("only %d pods Ready at one point; maxUnavailable 0 keeps 3", minReady)
	}
	if !sawSurge {
		t.Errorf("no surge pod seen: the update did not create before deleting")
	}
	final, _ := env.ListPods(ctx, ns, "w")
	if got := framework.IndicesOf(final, "w-0-worker"); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("final indices %v, want [0 1 2]", got)
	}
	pcs, _ := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "w", metav1.GetOptions{})
	if pcs.Status.UpdateProgress == nil || pcs.Status.UpdateProgress.UpdateEndedAt == nil {
		t.Errorf("updateProgress %+v: want an end time", pcs.Status.UpdateProgress)
	}
	t.Logf("update done: at most %d pods alive, at least %d Ready", maxAlive, minReady)
}

// A surge that cannot be scheduled (no room for a fourth pod, maxUnavailable 0) is not a
// silent hang: Progressing turns False with ProgressDeadlineExceeded, and the old pods stay.
func TestStalledUpdateReportsDeadline(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("stall", 3))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.Workers(ns, "s", 1, 0, 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "s", 1, 3)
	env.SetImage(t, ns, "s", "registry.example.com/llm/worker:v2")
	framework.Eventually(t, wait, "Progressing=False ProgressDeadlineExceeded", func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "s", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionProgressing)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == grovev1.ReasonProgressDeadlineExceeded && strings.Contains(c.Message, "not available"), nil
	})
	pods, err := env.ListPods(ctx, ns, "s")
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, p := range pods {
		if framework.ReadyPod(p) && p.Spec.Containers[0].Image == "registry.example.com/llm/worker:v1" {
			ready++
		}
	}
	if ready != 3 {
		t.Errorf("%d old pods Ready, want all 3 kept while the surge cannot be placed", ready)
	}
	// Grove's field for the replica under update, with when its update started.
	pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "s", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	up := pcs.Status.UpdateProgress
	if up == nil || len(up.CurrentlyUpdating) != 1 || up.CurrentlyUpdating[0].ReplicaIndex != 0 || up.CurrentlyUpdating[0].UpdateStartedAt == nil ||
		up.CurrentlyUpdating[0].UpdateStartedAt.Before(&up.UpdateStartedAt) || fmt.Sprint(up.UpdatingReplicas) != "[0]" {
		t.Errorf("updateProgress %+v: want currentlyUpdating [replica 0 with its start] and updatingReplicas [0]", up)
	}
}

// Grove's per-component rollingUpdate.progressDeadline bounds the PodCliqueSet's own deadline
// (600 s here): the stalled surge of TestStalledUpdateReportsDeadline is reported after the
// clique's 3 s; Grove's UpdateInProgress stays True while the update is stalled.
func TestComponentProgressDeadline(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("cstall", 3))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.Workers(ns, "cs", 1, 0, 600)
	pcs.Spec.Template.Cliques[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{ProgressDeadline: &metav1.Duration{Duration: 3 * time.Second}}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "cs", 1, 3)
	env.SetImage(t, ns, "cs", "registry.example.com/llm/worker:v2")
	framework.Eventually(t, wait, "Progressing=False ProgressDeadlineExceeded after the clique's deadline", func(ctx context.Context) (bool, error) {
		cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "cs", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(cur.Status.Conditions, grovev1.ConditionProgressing)
		u := meta.FindStatusCondition(cur.Status.Conditions, grovev1.ConditionUpdateInProgress)
		return c != nil && c.Reason == grovev1.ReasonProgressDeadlineExceeded && u != nil && u.Status == metav1.ConditionTrue, nil
	})
}

// availableGroupReplicas counts the group replicas whose leader and both workers are Ready.
func availableGroupReplicas(pods map[string]corev1.Pod) (available, alive int) {
	ready := map[string]int{}
	exists := map[string]bool{}
	for _, p := range pods {
		j := p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]
		exists[j] = true
		if framework.ReadyPod(p) {
			ready[j]++
		}
	}
	for j := range exists {
		if ready[j] == 3 {
			available++
		}
	}
	return available, len(exists)
}

// The design's scaling-group example, the circular dependency of the review: replicas=3,
// minAvailable=3 (all in the base gang), maxSurge=1, maxUnavailable=0. The surge replica 3 is a
// scaled gang gated on the base, which is being updated; Phalanx places it because the base
// stays established. Full capacity (3 available group replicas) for the whole update, never
// more than 4, and it completes with replicas 0..2 on the new image.
// The same with minAvailable=2: replica 2 is a scaled gang of its own.
func TestRollingUpdateScalingGroupSurge(t *testing.T) {
	for _, minAvailable := range []int32{3, 2} {
		t.Run(fmt.Sprintf("minAvailable %d", minAvailable), func(t *testing.T) { scalingGroupSurge(t, minAvailable) })
	}
}

func scalingGroupSurge(t *testing.T, minAvailable int32) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes(fmt.Sprintf("pcsg%d", minAvailable), 12))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.GroupSet(ns, "g", 3, minAvailable, 1, 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "g", 1, 9)

	var mu sync.Mutex
	lowest, maxAlive, sawSurge := 3, 0, false
	var timeline []string
	stopWatch := env.WatchPods(t, ns, "g", func(pods map[string]corev1.Pod, p *corev1.Pod) {
		avail, alive := availableGroupReplicas(pods)
		mu.Lock()
		lowest, maxAlive = min(lowest, avail), max(maxAlive, alive)
		sawSurge = sawSurge || p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == "3"
		if n := len(timeline); n == 0 || timeline[n-1] != fmt.Sprintf("%d/%d", avail, alive) {
			timeline = append(timeline, fmt.Sprintf("%d/%d", avail, alive))
		}
		mu.Unlock()
	})
	env.SetImage(t, ns, "g", "registry.example.com/llm/prefill:v2")
	framework.Eventually(t, wait, "scaling-group update complete", func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionProgressing)
		live, err := env.ListPods(ctx, ns, "g")
		if err != nil {
			return false, err
		}
		v2 := 0
		for _, p := range live {
			if p.Spec.Containers[0].Image == "registry.example.com/llm/prefill:v2" && framework.ReadyPod(p) {
				v2++
			}
		}
		if !framework.UpdateComplete(pcs) || len(live) != 9 || v2 != 9 {
			return false, fmt.Errorf("progressing %v; %d pods, %d Ready on v2", c, len(live), v2)
		}
		return true, nil
	})
	stopWatch()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("available/alive group replicas over the update: %v", timeline)
	if lowest < 3 {
		t.Errorf("available group replicas fell to %d; maxUnavailable 0 keeps 3", lowest)
	}
	if maxAlive > 4 {
		t.Errorf("%d group replicas existed at once; 3 + maxSurge 1 allows 4", maxAlive)
	}
	if !sawSurge {
		t.Errorf("no surge group replica (index 3) was created")
	}
}

// availableReplicas counts the PodCliqueSet replicas whose 3 worker pods are all Ready.
func availableReplicas(pods map[string]corev1.Pod) (available, alive int) {
	ready, exists := map[string]int{}, map[string]bool{}
	for _, p := range pods {
		r := p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]
		exists[r] = true
		if framework.ReadyPod(p) {
			ready[r]++
		}
	}
	for r := range exists {
		if ready[r] == 3 {
			available++
		}
	}
	return available, len(exists)
}

// The design's ReplicaRecreate examples with replicas=2: maxSurge=1 (a whole surge replica,
// index 2 with new gangs, first; replicas 0 and 1 recreated one at a time; the surge replica
// removed last; 2 available throughout), maxUnavailable=2 (both at once) and maxUnavailable=1
// (one at a time, never fewer than 1 available).
func TestReplicaRecreate(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		surge, unavailable        int32
		wantMinAvail, wantMaxLive int
	}{
		{"maxSurge 1", 1, 0, 2, 3},
		{"maxUnavailable 2", 0, 2, 0, 2},
		{"maxUnavailable 1", 0, 1, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replicaRecreate(t, tc.surge, tc.unavailable, tc.wantMinAvail, tc.wantMaxLive)
		})
	}
}

func replicaRecreate(t *testing.T, surge, unavailable int32, wantMinAvail, wantMaxLive int) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes(fmt.Sprintf("rr%d%d", surge, unavailable), 9))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.Workers(ns, "rr", 0, 0, 600)
	pcs.Spec.Replicas = 2
	pcs.Spec.Template.Cliques[0].UpdateStrategy = nil
	pcs.Spec.UpdateStrategy.Type = grovev1.ReplicaRecreateStrategyType
	pcs.Spec.UpdateStrategy.RollingUpdate = &grovev1.RollingUpdateBudget{MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "rr", 2, 6)
	var mu sync.Mutex
	minAvailable, maxAlive, sawSurge := 2, 0, false
	var timeline []string
	stopWatch := env.WatchPods(t, ns, "rr", func(pods map[string]corev1.Pod, p *corev1.Pod) {
		avail, alive := availableReplicas(pods)
		mu.Lock()
		minAvailable, maxAlive = min(minAvailable, avail), max(maxAlive, alive)
		sawSurge = sawSurge || p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == "2"
		if n := len(timeline); n == 0 || timeline[n-1] != fmt.Sprintf("%d/%d", avail, alive) {
			timeline = append(timeline, fmt.Sprintf("%d/%d", avail, alive))
		}
		mu.Unlock()
	})
	env.SetImage(t, ns, "rr", "registry.example.com/llm/worker:v2")
	framework.Eventually(t, wait, "ReplicaRecreate update complete", func(ctx context.Context) (bool, error) {
		cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "rr", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(cur.Status.Conditions, grovev1.ConditionProgressing)
		live, err := env.ListPods(ctx, ns, "rr")
		if err != nil {
			return false, err
		}
		v2 := 0
		for _, p := range live {
			if p.Spec.Containers[0].Image == "registry.example.com/llm/worker:v2" && framework.ReadyPod(p) {
				v2++
			}
		}
		if !framework.UpdateComplete(cur) || len(live) != 6 || v2 != 6 || cur.Status.AvailableReplicas != 2 {
			return false, fmt.Errorf("progressing %v; %d pods, %d Ready on v2, available %d", c, len(live), v2, cur.Status.AvailableReplicas)
		}
		return true, nil
	})
	stopWatch()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("available/alive replicas over the update: %v", timeline)
	if minAvailable != wantMinAvail {
		t.Errorf("available replicas went down to %d, want %d (2 - maxUnavailable %d)", minAvailable, wantMinAvail, unavailable)
	}
	if maxAlive > wantMaxLive {
		t.Errorf("%d replicas existed at once; 2 + maxSurge %d allows %d", maxAlive, surge, wantMaxLive)
	}
	if sawSurge != (surge > 0) {
		t.Errorf("surge replica (index 2) seen: %v, with maxSurge %d", sawSurge, surge)
	}
	// The surge replica's gang goes in the pass after its pods are gone, which may come after
	// the status that reports the update complete.
	framework.Eventually(t, wait, "only the PodGangs of replicas 0 and 1", func(ctx context.Context) (bool, error) {
		gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		if len(gangs.Items) != 2 {
			return false, fmt.Errorf("%d PodGangs, want the 2 of replicas 0 and 1", len(gangs.Items))
		}
		return true, nil
	})
}

// updateStrategy OnDelete (Grove's): a template change deletes nothing (the pods keep their
// UIDs while the controller reconciles the change, and Progressing says how many wait for a
// deletion); a pod that is deleted comes back at its index from the new template; switching to
// RollingUpdate mid-way updates the rest.
func TestOnDelete(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("ondel", 3))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.Workers(ns, "w", 0, 1, 600)
	pcs.Spec.UpdateStrategy.Type = grovev1.OnDeleteStrategyType
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "w", 1, 3)
	uids := func() map[string]string { return podIdentities(t, env, ns, "w") }
	before := uids()
	env.SetImage(t, ns, "w", "registry.example.com/llm/worker:v2")
	progressing := func(reason string) *grovev1.PodCliqueSet { return waitProgressing(t, env, ns, "w", reason, "") }
	p := progressing("WaitingForDeletion")
	c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing)
	if !strings.Contains(c.Message, "3 pods run an older revision") {
		t.Errorf("Progressing message %q does not count the 3 old pods", c.Message)
	}
	if p.Status.UpdatedReplicas != 0 || p.Status.UpdateProgress == nil || p.Status.UpdateProgress.UpdateEndedAt == nil {
		t.Errorf("updatedReplicas %d, updateProgress %+v: want 0 and an ended update", p.Status.UpdatedReplicas, p.Status.UpdateProgress)
	}
	if u := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionUpdateInProgress); u == nil || u.Status != metav1.ConditionFalse {
		t.Errorf("UpdateInProgress %v: the controller has no step to take", u)
	}
	if after := uids(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("OnDelete replaced pods on a template change:\nbefore %v\nafter  %v", before, after)
	}

	// A deleted pod comes back from the new template, at its index.
	// (By name: the replacement has the same labels, so waiting for the selector to match
	// nothing would race with it.)
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, "w-0-worker-1", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "w-0-worker-1 recreated on v2", func(ctx context.Context) (bool, error) {
		got := uids()
		return strings.HasSuffix(got["w-0-worker-1"], ":v2") && got["w-0-worker-0"] == before["w-0-worker-0"] && got["w-0-worker-2"] == before["w-0-worker-2"], nil
	})
	// The status follows the pods (written after the pass that saw them): wait for the count.
	framework.Eventually(t, wait, "Progressing counts 2 old pods", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "w", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing)
		if c == nil || c.Reason != "WaitingForDeletion" {
			return false, nil
		}
		return strings.Contains(c.Message, "2 pods run an older revision"), nil
	})

	// Switched to RollingUpdate, the update finishes the rest.
	env.UpdatePCS(t, ns, "w", func(p *grovev1.PodCliqueSet) { p.Spec.UpdateStrategy.Type = grovev1.RollingUpdateStrategyType })
	env.WaitUpdated(t, ns, "w", "registry.example.com/llm/worker:v2", 3)
	progressing("UpdateComplete")
}

// updateStrategy.paused (#19): a template change while paused replaces nothing and says
// Progressing=Unknown/Paused with no deadline running; a deleted pod still comes back (from
// the newest template, at its index); resumed, the update completes.
func TestPausedUpdate(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("paused", 4))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.Workers(ns, "w", 1, 0, 1) // progressDeadlineSeconds 1: a running deadline would show at once
	pcs.Spec.UpdateStrategy.Paused = true
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "w", 1, 3)
	images := func() map[string]string { return podIdentities(t, env, ns, "w") }
	before := images()
	env.SetImage(t, ns, "w", "registry.example.com/llm/worker:v2")
	paused := func() *grovev1.PodCliqueSet {
		return waitProgressing(t, env, ns, "w", grovev1.ReasonPaused, metav1.ConditionUnknown)
	}
	p := paused()
	if c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing); !strings.Contains(c.Message, "3 members run an older revision") {
		t.Errorf("Progressing message %q does not count the 3 old pods", c.Message)
	}
	if u := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionUpdateInProgress); u == nil || u.Status != metav1.ConditionTrue {
		t.Errorf("UpdateInProgress %v: a paused update is still in progress", u)
	}
	if after := images(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a paused update replaced pods:\nbefore %v\nafter  %v", before, after)
	}

	// Self-healing goes on: a deleted pod comes back at its index.
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, "w-0-worker-1", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "w-0-worker-1 recreated", func(ctx context.Context) (bool, error) {
		got := images()
		return got["w-0-worker-1"] != "" && got["w-0-worker-1"] != before["w-0-worker-1"] &&
			got["w-0-worker-0"] == before["w-0-worker-0"] && got["w-0-worker-2"] == before["w-0-worker-2"] && len(got) == 3, nil
	})
	// Still paused, not ProgressDeadlineExceeded, long after the 1 s deadline.
	paused()

	// Resumed, the update finishes.
	env.UpdatePCS(t, ns, "w", func(p *grovev1.PodCliqueSet) { p.Spec.UpdateStrategy.Paused = false })
	env.WaitUpdated(t, ns, "w", "registry.example.com/llm/worker:v2", 3)
}

// podIdentities is, by pod name, the UID and image of the PodCliqueSet's pods: a pod replaced
// or updated shows as a changed value.
func podIdentities(t *testing.T, env *framework.Env, ns, pcs string) map[string]string {
	t.Helper()
	pods, err := env.ListPods(context.Background(), ns, pcs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pods {
		out[p.Name] = string(p.UID) + " " + p.Spec.Containers[0].Image
	}
	return out
}

// waitProgressing waits until the PodCliqueSet's Progressing condition, for its current
// generation, has reason (and status, when not empty), and returns the object.
func waitProgressing(t *testing.T, env *framework.Env, ns, name, reason string, status metav1.ConditionStatus) *grovev1.PodCliqueSet {
	t.Helper()
	var got *grovev1.PodCliqueSet
	framework.Eventually(t, wait, "Progressing "+reason+" for the new generation", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing)
		got = p
		return c != nil && c.ObservedGeneration == p.Generation && c.Reason == reason && (status == "" || c.Status == status), nil
	})
	return got
}
