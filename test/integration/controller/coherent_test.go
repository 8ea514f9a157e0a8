package controller

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Coherent with maxSurge 1 on the design's prefill/decode shape (frontend unchanged): on a
// cluster with room for only one more whole-node pod the surge slice (one prefill and one
// decode replica, one gang) is not created at all and the update waits with SurgeBlocked,
// reporting its slices and the capacity of each changed component per revision; once a node
// is added, each slice is made available before an old one is drained, so that at every pod
// event one revision has a Ready prefill and a Ready decode; the frontend is never touched;
// the slices' pods return to their regular gangs and no slice gang is left. Phalanx restarts
// with the surge slice up and one of its pods evicted meanwhile: the pod is made again into
// its slice and the update completes.
func TestCoherentSurgeBeforeDrain(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := webhookNamespace(t, env)
	env.AddNodes(t, framework.GPUNodes("coh", 6))
	stop := env.StartPhalanx(t, framework.Phalanx{Controller: true, Webhooks: true})
	createPCS(t, env, framework.PrefillDecode(ns, "pd", ptr.To[int32](1), nil))
	env.WaitAvailable(t, ns, "pd", 1, 5)
	env.WaitRevisionComplete(t, ns, "pd")

	w := framework.NewServingWatch()
	stopWatch := env.WatchPods(t, ns, "pd", w.Observe)
	env.SetCliqueImage(t, ns, "pd", "registry.example.com/llm/next:v2", "prefill-worker", "decode-worker")

	// No room for the whole surge slice (2 nodes, 1 free): nothing is created, nothing goes.
	var pcs *grovev1.PodCliqueSet
	framework.Eventually(t, wait, "SurgeBlocked=True and the slices reported", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "pd", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pcs = p
		c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionSurgeBlocked)
		up := p.Status.UpdateProgress
		return c != nil && c.Status == metav1.ConditionTrue && up != nil && len(up.CurrentlyUpdating) == 1 && up.CurrentlyUpdating[0].Slices != nil, nil
	})
	up := pcs.Status.UpdateProgress
	if got := fmt.Sprint(up.UpdatedPodCliqueScalingGroups, up.UpdatedStandalonePodCliques); got != "[prefill decode] []" {
		t.Errorf("the update's scope %s, want the prefill and decode groups only", got)
	}
	cu := up.CurrentlyUpdating[0]
	if s := cu.Slices; s.Desired != 2 || s.Updated != 0 || s.ServingSetsOutdated != 2 || s.ServingSetsUpdated != 0 || s.Surge != 0 {
		t.Errorf("slices %+v: want 2 slices, none updated, 2 outdated serving sets", *s)
	}
	var comps []string
	for _, c := range cu.Components {
		comps = append(comps, fmt.Sprintf("%s min %d: %d updated, %d outdated", c.Name, c.MinAvailable, c.Updated, c.Outdated))
	}
	if got := strings.Join(comps, "; "); got != "pd-0-prefill min 1: 0 updated, 2 outdated; pd-0-decode min 1: 0 updated, 2 outdated" {
		t.Errorf("per-revision capacity: %s", got)
	}
	if c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionSurgeBlocked); !strings.Contains(c.Message, "surge pd-0-slices[pd-0-prefill[2],pd-0-decode[2]] needs 16 nvidia.com/gpu for 2 pod(s)") {
		t.Errorf("SurgeBlocked message %q: want the whole slice checked", c.Message)
	}
	pods, err := env.ListPods(ctx, ns, "pd")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if strings.HasSuffix(p.Spec.Containers[0].Image, ":v2") {
			t.Errorf("pod %s of the new revision created while its slice could not fit whole", p.Name)
		}
	}
	if len(pods) != 5 {
		t.Errorf("%d pods while blocked, want the 5 old ones", len(pods))
	}

	env.AddNodes(t, framework.GPUNodes("coh-more", 1))

	// Around the cluster: with the surge slice up, Phalanx (scheduler and controller) stops, a
	// pod of the surge slice is evicted meanwhile, and Phalanx starts again: the pod is made
	// again into its slice's gang and the update goes on from where it was.
	surgeSlice := workload.SliceGangName("pd", 0, 2)
	framework.Eventually(t, wait, "the surge slice Ready", func(ctx context.Context) (bool, error) {
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelCoherentSlice + "=" + surgeSlice})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range pods.Items {
			if framework.ReadyPod(p) {
				ready++
			}
		}
		if ready != 2 {
			return false, fmt.Errorf("%d of 2 pods of %s Ready", ready, surgeSlice)
		}
		return true, nil
	})
	stop()
	const evicted = "pd-0-decode-2-decode-worker-0"
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, evicted, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.StartPhalanx(t, framework.Phalanx{Controller: true, Webhooks: true})
	framework.Eventually(t, wait, "the evicted pod made again in its slice", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, evicted, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Labels[grovev1.LabelCoherentSlice] != surgeSlice || p.Spec.NodeName == "" {
			return false, fmt.Errorf("pod %s: slice %q, node %q", p.Name, p.Labels[grovev1.LabelCoherentSlice], p.Spec.NodeName)
		}
		return true, nil
	})
	waitProgressing(t, env, ns, "pd", "UpdateComplete", metav1.ConditionTrue)
	stopWatch()
	framework.Eventually(t, wait, "no slice gang and no slice label left", func(ctx context.Context) (bool, error) {
		gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelCoherentSlice})
		if err != nil {
			return false, err
		}
		pods, err := env.ListPods(ctx, ns, "pd")
		if err != nil {
			return false, err
		}
		labelled := 0
		for _, p := range pods {
			if p.Labels[grovev1.LabelCoherentSlice] != "" {
				labelled++
			}
		}
		if len(gangs.Items) > 0 || labelled > 0 {
			return false, fmt.Errorf("%d slice gangs, %d pods with a slice label", len(gangs.Items), labelled)
		}
		return true, nil
	})

	maxAlive := w.Check(t, 7) // 5 + one surge slice of 2
	final, _ := env.ListPods(ctx, ns, "pd")
	var names []string
	for _, p := range final {
		names = append(names, p.Name+"="+p.Spec.Containers[0].Image[strings.LastIndex(p.Spec.Containers[0].Image, ":")+1:])
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "pd-0-decode-0-decode-worker-0=v2 pd-0-decode-1-decode-worker-0=v2 pd-0-frontend-0=v1 pd-0-prefill-0-prefill-worker-0=v2 pd-0-prefill-1-prefill-worker-0=v2" {
		t.Errorf("final pods %s", got)
	}
	t.Logf("coherent update done: at most %d pods alive", maxAlive)
}

// Coherent with maxSurge 0 drains an old slice first (Grove's behaviour) and makes the new one
// as one gang: when the new decode cannot be placed (it asks for 16 GPUs), the new prefill of
// its slice is not placed either (no GPU held by half a slice), and the other old slice keeps
// serving (maxUnavailable 1 of 2 slices). The API server restarted with the slice in flight,
// a scale of the decode group and a second template change during the update: the update
// converges.
func TestCoherentDrainFirstAllOrNothing(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := webhookNamespace(t, env)
	env.AddNodes(t, framework.GPUNodes("cohd", 6))
	env.StartPhalanx(t, framework.Phalanx{Controller: true, Webhooks: true})
	createPCS(t, env, framework.PrefillDecode(ns, "pd", ptr.To[int32](0), ptr.To[int32](1)))
	env.WaitAvailable(t, ns, "pd", 1, 5)
	env.WaitRevisionComplete(t, ns, "pd")

	updateToUnplaceableDecode(t, env, ns, "pd")
	// The new slice's gang cannot be placed: its decode fits nowhere.
	slice := workload.SliceGangName("pd", 0, 0)
	framework.Eventually(t, wait, "the new slice's gang unschedulable", func(ctx context.Context) (bool, error) {
		g, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, slice, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelCoherentSlice + "=" + slice})
		if err != nil {
			return false, err
		}
		unschedulable := 0
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					unschedulable++
				}
			}
		}
		if len(g.Spec.PodGroups) != 2 || len(pods.Items) != 2 || unschedulable != 2 {
			return false, fmt.Errorf("slice gang groups %d, pods %d, unschedulable %d", len(g.Spec.PodGroups), len(pods.Items), unschedulable)
		}
		return true, nil
	})
	pods, err := env.ListPods(ctx, ns, "pd")
	if err != nil {
		t.Fatal(err)
	}
	oldServing := map[string]bool{}
	for _, p := range pods {
		if p.Labels[grovev1.LabelCoherentSlice] != "" && p.Spec.NodeName != "" {
			t.Errorf("pod %s of the new slice bound (to %s) while its slice cannot be placed whole", p.Name, p.Spec.NodeName)
		}
		if strings.HasSuffix(p.Spec.Containers[0].Image, ":v1") && framework.ReadyPod(p) {
			oldServing[p.Labels[workload.LabelCliqueTemplate]] = true
		}
	}
	if !oldServing["prefill-worker"] || !oldServing["decode-worker"] {
		t.Errorf("the other old slice does not serve meanwhile (ready v1: %v)", oldServing)
	}

	// Around the cluster: the API server is killed and restarted with the slice in flight
	// (its gang unschedulable, the drained slice's capacity held for it); the controller and
	// the scheduler reconnect and go on from the objects.
	if err := env.Cluster.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}

	// An HPA-like scale of the decode group and a fix of the template during the update.
	framework.Eventually(t, wait, "decode scaled to 3", func(ctx context.Context) (bool, error) {
		sg, err := env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).Get(ctx, "pd-0-decode", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		sg.Spec.Replicas = 3
		_, err = env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).Update(ctx, sg, metav1.UpdateOptions{})
		return err == nil, err
	})
	env.AddNodes(t, framework.GPUNodes("cohd-more", 1))
	env.UpdatePCS(t, ns, "pd", func(p *grovev1.PodCliqueSet) {
		for i := range p.Spec.Template.Cliques {
			if c := &p.Spec.Template.Cliques[i]; c.Name == "decode-worker" {
				c.Spec.PodSpec.Containers[0].Resources.Limits["nvidia.com/gpu"] = resource.MustParse("8")
			}
		}
	})
	waitProgressing(t, env, ns, "pd", "UpdateComplete", metav1.ConditionTrue)
	framework.Eventually(t, wait, "prefill 2 and decode 3 at v2, frontend untouched", func(ctx context.Context) (bool, error) {
		pods, err := env.ListPods(ctx, ns, "pd")
		if err != nil {
			return false, err
		}
		var got []string
		for _, p := range pods {
			if !framework.ReadyPod(p) || p.Labels[grovev1.LabelCoherentSlice] != "" {
				return false, fmt.Errorf("pod %s not Ready, or still in its slice gang", p.Name)
			}
			got = append(got, p.Name+"="+p.Spec.Containers[0].Image[strings.LastIndex(p.Spec.Containers[0].Image, "/")+1:])
		}
		sort.Strings(got)
		const want = "pd-0-decode-0-decode-worker-0=decode:v2 pd-0-decode-1-decode-worker-0=decode:v2 pd-0-decode-2-decode-worker-0=decode:v2 pd-0-frontend-0=frontend:v1 pd-0-prefill-0-prefill-worker-0=prefill:v2 pd-0-prefill-1-prefill-worker-0=prefill:v2"
		if strings.Join(got, " ") != want {
			return false, fmt.Errorf("pods %v", got)
		}
		return true, nil
	})
}

// Coherent with rollbackOnFailure (maxSurge 0): the new slice cannot be placed (its decode asks
// for 16 GPUs), the progress deadline passes, and the update is rolled back to the complete
// revision in slices: the drained slice is made again at the old revision, every pod ends on
// v1 with no slice gang left, and the frontend is never touched.
func TestCoherentRollback(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("cohr", 5))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.PrefillDecode(ns, "pd", ptr.To[int32](0), ptr.To[int32](1))
	pcs.Spec.UpdateStrategy.RollbackOnFailure = true
	pcs.Spec.UpdateStrategy.ProgressDeadlineSeconds = ptr.To[int32](2)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "pd", 1, 5)
	env.WaitRevisionComplete(t, ns, "pd")
	frontend, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "pd-0-frontend-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	updateToUnplaceableDecode(t, env, ns, "pd")
	waitProgressing(t, env, ns, "pd", grovev1.ReasonRolledBack, metav1.ConditionFalse)
	framework.Eventually(t, wait, "the rollback's update complete, every pod on v1, no slice gang", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "pd", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if u := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionUpdateInProgress); u == nil || u.Status != metav1.ConditionFalse {
			return false, fmt.Errorf("UpdateInProgress %v", u)
		}
		pods, err := env.ListPods(ctx, ns, "pd")
		if err != nil {
			return false, err
		}
		for _, p := range pods {
			if !strings.HasSuffix(p.Spec.Containers[0].Image, ":v1") || !framework.ReadyPod(p) || p.Labels[grovev1.LabelCoherentSlice] != "" {
				return false, fmt.Errorf("pod %s: %s, ready %v, slice %q", p.Name, p.Spec.Containers[0].Image, framework.ReadyPod(p), p.Labels[grovev1.LabelCoherentSlice])
			}
		}
		gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelCoherentSlice})
		if err != nil {
			return false, err
		}
		if len(pods) != 5 || len(gangs.Items) > 0 {
			return false, fmt.Errorf("%d pods, %d slice gangs", len(pods), len(gangs.Items))
		}
		return true, nil
	})
	if got, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "pd-0-frontend-0", metav1.GetOptions{}); err != nil || got.UID != frontend.UID {
		t.Errorf("the frontend was replaced by the update or its rollback (%v)", err)
	}
}

// updateToUnplaceableDecode changes prefill and decode of a PrefillDecode PodCliqueSet to v2,
// the new decode asking for 16 GPUs, more than any node has: the first new slice cannot be
// placed.
func updateToUnplaceableDecode(t *testing.T, env *framework.Env, ns, name string) {
	t.Helper()
	env.UpdatePCS(t, ns, name, func(p *grovev1.PodCliqueSet) {
		for i := range p.Spec.Template.Cliques {
			c := &p.Spec.Template.Cliques[i]
			switch c.Name {
			case "prefill-worker":
				c.Spec.PodSpec.Containers[0].Image = "registry.example.com/llm/prefill:v2"
			case "decode-worker":
				c.Spec.PodSpec.Containers[0].Image = "registry.example.com/llm/decode:v2"
				c.Spec.PodSpec.Containers[0].Resources.Limits["nvidia.com/gpu"] = resource.MustParse("16")
			}
		}
	})
}
