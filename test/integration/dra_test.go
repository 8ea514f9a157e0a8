package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// draGang creates a PodGang of n members, each with its own ResourceClaim for one GPU of the
// test driver (model, when not empty, by a CEL selector), or all sharing the claim shared.
func draGang(t *testing.T, env *framework.Env, ns, name string, n int, model, shared string) framework.Gang {
	t.Helper()
	g := framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{{Name: "w", Pods: n, MinReplicas: int32(n)}}}
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(context.Background(), g.PodGang(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if shared != "" {
		env.CreateClaims(t, framework.GPUClaim(ns, shared, 1, model))
	}
	var pods []*corev1.Pod
	for i, p := range g.Pods() {
		claim := shared
		if claim == "" {
			claim = fmt.Sprintf("%s-%d", name, i)
			env.CreateClaims(t, framework.GPUClaim(ns, claim, 1, model))
		}
		framework.UseClaim(p, claim)
		pods = append(pods, p)
	}
	env.CreatePods(t, pods...)
	return g
}

// allocated counts the gang's claims that carry an allocation, and how many pods they are
// reserved for.
func allocated(t *testing.T, env *framework.Env, ns, prefix string) (claims, reservedFor int) {
	t.Helper()
	list, err := env.Kube.ResourceV1().ResourceClaims(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list.Items {
		if len(c.Name) < len(prefix) || c.Name[:len(prefix)] != prefix || c.Status.Allocation == nil {
			continue
		}
		claims++
		reservedFor += len(c.Status.ReservedFor)
	}
	return claims, reservedFor
}

// Gang members with DRA claims are planned with their gang (no member-by-member placement):
// the devices come from ResourceSlices (8 GPUs of model h100 on one node, 4 on another, 4 of
// model a100 on a third, chosen by a CEL selector on the model), allocated in the gang's own
// pass, and a gang is placed whole with its devices or not at all; a claim shared by the
// members of a gang reaches every member (docs/architecture.md, "DRA devices").
func TestDRAGangs(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	// The devices go back when the test ends: without kube-controller-manager nobody
	// deallocates the claims of a deleted namespace, and a rerun on the same nodes and pools
	// (go test -count) would find them taken.
	t.Cleanup(func() {
		env.DeletePodsNow(t, ns, "")
		env.ReleaseClaims(t, ns, "")
	})
	env.AddNodes(t, nodes("dra", 3, 8))
	env.CreateGPUDeviceClass(t)
	env.PublishGPUs(t, "dra-0000", 8, "h100")
	env.PublishGPUs(t, "dra-0001", 4, "h100")
	env.PublishGPUs(t, "dra-0002", 4, "a100")

	// 8 members asking for an h100 each: 12 h100s in all, the gang binds whole, 8 claims
	// allocated, none on the a100 node.
	whole := draGang(t, env, ns, "whole", 8, "h100", "")
	pods := env.WaitGangBound(t, ns, whole.Name, 8, wait)
	for _, p := range pods {
		if p.Spec.NodeName == "dra-0002" {
			t.Errorf("member %s on the a100 node: the claim's CEL selector asks for an h100", p.Name)
		}
	}
	if n, _ := allocated(t, env, ns, "whole-"); n != 8 {
		t.Errorf("%d claims of the bound gang allocated, want 8", n)
	}

	// A second such gang: 4 h100s are left. It binds nothing and holds no device; its
	// PodGang says so before any member is placed.
	short := draGang(t, env, ns, "short", 8, "h100", "")
	pg := env.WaitGangCondition(t, ns, short.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonInsufficient, wait)
	if p, _ := env.GangPods(context.Background(), ns, short.Name); framework.CountBound(p) != 0 {
		t.Errorf("a gang short of devices has bound members (condition %+v)", pg.Status.Conditions)
	}
	if n, _ := allocated(t, env, ns, "short-"); n != 0 {
		t.Errorf("%d claims of the gang that does not fit are allocated: devices stranded", n)
	}

	// Freed devices: the whole gang goes, the short one binds whole.
	env.DeletePodsNow(t, ns, "test.phalanx.dev/gang="+whole.Name)
	env.ReleaseClaims(t, ns, "whole-")
	env.WaitGangBound(t, ns, short.Name, 8, wait)

	// Two gangs of 4 race for the 4 h100s left: one binds whole, the other binds nothing
	// and holds no device.
	a := draGang(t, env, ns, "race-a", 4, "h100", "")
	b := draGang(t, env, ns, "race-b", 4, "h100", "")
	var won, lost framework.Gang
	framework.Eventually(t, wait, "one racing gang bound whole, the other unschedulable", func(ctx context.Context) (bool, error) {
		for _, pair := range [][2]framework.Gang{{a, b}, {b, a}} {
			pods, err := env.GangPods(ctx, ns, pair[0].Name)
			if err != nil || framework.CountBound(pods) != 4 {
				continue
			}
			pg, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, pair[1].Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable); c != nil && c.Status == metav1.ConditionTrue {
				won, lost = pair[0], pair[1]
				return true, nil
			}
		}
		return false, nil
	})
	if p, _ := env.GangPods(context.Background(), ns, lost.Name); framework.CountBound(p) != 0 {
		t.Errorf("%s lost the race to %s but has bound members: a split gang", lost.Name, won.Name)
	}
	if n, _ := allocated(t, env, ns, lost.Name+"-"); n != 0 {
		t.Errorf("%d claims of %s, which lost the race, are allocated: devices stranded", n, lost.Name)
	}

	// Members sharing one claim that is not allocated yet (Grove's resourceSharing: one claim
	// for a podgroup or a scaling-group replica): the gang binds whole, every member on the
	// node of the claim's device, the claim allocated once and reserved for both. The second
	// member takes the allocation the first one's Reserve made (GangDynamicResources), not a
	// refusal while it is in flight.
	shared := draGang(t, env, ns, "shared", 2, "a100", "shared-gpu")
	pods = env.WaitGangBound(t, ns, shared.Name, 2, wait)
	for _, p := range pods {
		if p.Spec.NodeName != "dra-0002" {
			t.Errorf("member %s on %s: the shared claim's a100 is on dra-0002", p.Name, p.Spec.NodeName)
		}
	}
	framework.Eventually(t, wait, "the shared claim allocated once and reserved for both members", func(context.Context) (bool, error) {
		if n, users := allocated(t, env, ns, "shared-gpu"); n != 1 || users != 2 {
			return false, fmt.Errorf("%d allocated, reserved for %d pods", n, users)
		}
		return true, nil
	})
}

// A preemptor counts on the devices of pods already gone, as it counts on terminating pods: a
// claim still allocated and reserved for a pod that no longer exists (its victim was deleted
// and kube-controller-manager has not deallocated the claim yet; the scheduler that preempted
// may have lost its leadership meanwhile) holds all 8 devices of one node, a low-priority gang
// holds the other node's 8. A high-priority gang of one member that needs 8 devices waits for
// the claim rather than preempting the low gang, says so, and binds once the claim is
// deallocated (this package has no kube-controller-manager: the test deallocates it).
func TestDRAPreemptionWaitsForClaimsOfDeletedPods(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ctx := context.Background()
	ns := env.NewNamespace(t)
	env.EnsurePriorityClasses(t, map[string]int32{"phalanx-it-low": 100, "phalanx-it-high": 1000})
	env.AddNodes(t, nodes("orph", 2, 8))
	env.CreateGPUDeviceClass(t)
	for i := 0; i < 2; i++ {
		env.PublishGPUs(t, fmt.Sprintf("orph-%04d", i), 8, "h100")
	}
	ghost := framework.GPUClaim(ns, "ghost", 8, "h100")
	env.CreateClaims(t, ghost)
	ghost, err := env.Kube.ResourceV1().ResourceClaims(ns).Get(ctx, "ghost", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ghost.Status.Allocation = &resourcev1.AllocationResult{NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"orph-0000"}}}}}}}
	for i := 0; i < 8; i++ {
		ghost.Status.Allocation.Devices.Results = append(ghost.Status.Allocation.Devices.Results, resourcev1.DeviceRequestAllocationResult{
			Request: "gpu", Driver: framework.GPUDriver, Pool: "orph-0000", Device: fmt.Sprintf("gpu-%d", i)})
	}
	ghost.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "deleted-victim", UID: "0f0e0d0c-0000-4000-8000-000000000001"}}
	if _, err := env.Kube.ResourceV1().ResourceClaims(ns).UpdateStatus(ctx, ghost, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("allocating the claim of a deleted pod: %v", err)
	}

	gangWithClaim := func(name, prio string) {
		g := framework.Gang{Namespace: ns, Name: name, PriorityClassName: prio, Groups: []framework.Group{{Name: "w", Pods: 1, MinReplicas: 1}}}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.CreateClaims(t, framework.GPUClaim(ns, name+"-gpu", 8, "h100"))
		pod := g.Pods()[0]
		framework.UseClaim(pod, name+"-gpu")
		env.CreatePods(t, pod)
	}
	gangWithClaim("low", "phalanx-it-low")
	low := env.WaitGangBound(t, ns, "low", 1, wait)
	gangWithClaim("high", "phalanx-it-high")
	pg := env.WaitGangCondition(t, ns, "high", schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonWaitingForPreemption, wait)
	if c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable); !strings.Contains(c.Message, "1 ResourceClaims of deleted pods are deallocated") {
		t.Errorf("the wait says %q; want it to name the claim of the deleted pod", c.Message)
	}
	env.ReleaseClaims(t, ns, "ghost")
	high := env.WaitGangBound(t, ns, "high", 1, wait)
	if high[0].Spec.NodeName != "orph-0000" {
		t.Errorf("the high gang is on %s; the devices freed are orph-0000's", high[0].Spec.NodeName)
	}
	pods, err := env.GangPods(ctx, ns, "low")
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 1 || pods[0].UID != low[0].UID || pods[0].DeletionTimestamp != nil {
		t.Errorf("the low gang was preempted: %d pods, deleting %v", len(pods), len(pods) == 1 && pods[0].DeletionTimestamp != nil)
	}
}
