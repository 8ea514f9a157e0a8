package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// A RollingUpdate with maxSurge 1 / maxUnavailable 0 of a clique whose pods take their GPU from
// a ResourceClaimTemplate (as Grove's resourceClaimTemplates make them), as deployed: the surge
// pod's claim does not exist before the pod does (kube-controller-manager makes it from the
// template), yet surge admission must answer for it, and the update completes with every pod
// on the new template and a claim allocated for each.
func TestDRATemplateSurgeUpdate(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	draCluster(t, env, ns, "drasurge", 2, "gpu", 1)
	templateWorkers(t, env, ns, "dra", 3, 1, 0, "gpu")
	updateToV2(t, env, ns, "dra")
	framework.Eventually(t, framework.UpdateTimeout, "every pod on v2, Running, with an allocated claim", func(ctx context.Context) (bool, error) {
		pods, done, err := onV2(ctx, env, ns, "dra")
		if err != nil {
			return false, err
		}
		for _, p := range done {
			if len(p.Status.ResourceClaimStatuses) != 1 || p.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
				return false, fmt.Errorf("pod %s has no claim of its own", p.Name)
			}
			claim, err := env.Kube.ResourceV1().ResourceClaims(ns).Get(ctx, *p.Status.ResourceClaimStatuses[0].ResourceClaimName, metav1.GetOptions{})
			if err != nil || claim.Status.Allocation == nil {
				return false, fmt.Errorf("pod %s: claim not allocated (%v)", p.Name, err)
			}
		}
		if len(done) != 3 || len(pods) != 3 {
			p, _ := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "dra", metav1.GetOptions{})
			return false, fmt.Errorf("%d of %d pods on v2 with their claim; conditions %v", len(done), len(pods), p.Status.Conditions)
		}
		return true, nil
	})
}

// Gang-aware preemption of DRA gangs as deployed (kube-controller-manager deletes a pod's
// claims from templates with the pod): a low-priority gang of 2 holds every device of 2 nodes
// (8 GPUs each, one claim of 8 per member), a high-priority gang of 2 of the same shape
// arrives. The preemption counts the devices the victims' claims would free (before, a gang
// with claims did not preempt), evicts the low gang whole, waits for its claims to be gone,
// and the high gang binds whole with a claim of 8 allocated for each member.
func TestDRAGangPreemption(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.EnsurePriorityClasses(t, map[string]int32{"phalanx-e2e-low": 100, "phalanx-e2e-high": 1000})
	draCluster(t, env, ns, "drapreempt", 2, "gpu8", 8)
	create := func(name, prio string) {
		g := framework.Gang{Namespace: ns, Name: name, PriorityClassName: prio, Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2}}}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pods := g.Pods()
		for _, p := range pods {
			framework.UseClaimTemplate(p, "gpu8")
		}
		env.CreatePods(t, pods...)
	}
	create("low", "phalanx-e2e-low")
	env.WaitGangBound(t, ns, "low", 2, 2*time.Minute)
	create("high", "phalanx-e2e-high")
	high := env.WaitGangBound(t, ns, "high", 2, 2*time.Minute)
	nodes := map[string]bool{}
	for _, p := range high {
		nodes[p.Spec.NodeName] = true
		if len(p.Status.ResourceClaimStatuses) != 1 || p.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
			t.Fatalf("pod %s has no claim of its own: %+v", p.Name, p.Status.ResourceClaimStatuses)
		}
		claim, err := env.Kube.ResourceV1().ResourceClaims(ns).Get(ctx, *p.Status.ResourceClaimStatuses[0].ResourceClaimName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 8 {
			t.Errorf("pod %s: claim %s not allocated 8 devices: %+v", p.Name, claim.Name, claim.Status.Allocation)
		}
	}
	if len(nodes) != 2 {
		t.Errorf("the high gang's members are on %v; want one on each node (8 devices each)", nodes)
	}
	framework.Eventually(t, 2*time.Minute, "the low gang evicted whole", func(ctx context.Context) (bool, error) {
		pods, err := env.GangPods(ctx, ns, "low")
		return err == nil && len(pods) == 0, err
	})
	env.WaitGangCondition(t, ns, "low", gang.ConditionDisruptionTarget, metav1.ConditionTrue, gang.ReasonPreempted, 2*time.Minute)
}

// A replacement hold keeps DRA devices as it keeps GPUs: a RollingUpdate (maxSurge 0,
// maxUnavailable 1) of a clique of 3 pods, each with a claim of all 8 devices of a node, while a
// pod of higher priority that never preempts waits for 8 devices of its own. Each replaced
// pod's devices are held for its replacement until it binds: the waiting pod, tried first by
// the queue, is kept off them and the update completes with every pod on the new template.
// Before, the hold counted nvidia.com/gpu only, the waiting pod took the freed devices and the
// replacement waited for ever.
func TestDRAReplacementHoldsDevices(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	env.EnsureNonPreemptingPriorityClasses(t, map[string]int32{"phalanx-e2e-high-never": 1000})
	draCluster(t, env, ns, "drahold", 3, "gpu8", 8)
	templateWorkers(t, env, ns, "held", 3, 0, 1, "gpu8")

	waiting := framework.Gang{Namespace: ns, Name: "other"}.Pod(framework.Group{Name: "w"}, 0)
	waiting.Labels = map[string]string{"app": "other"}
	waiting.Spec.PriorityClassName = "phalanx-e2e-high-never"
	framework.UseClaimTemplate(waiting, "gpu8")
	env.CreatePods(t, waiting)
	framework.Eventually(t, time.Minute, "the high-priority pod tried and unschedulable", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, waiting.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return true, nil
			}
		}
		return false, nil
	})

	updateToV2(t, env, ns, "held")
	framework.Eventually(t, framework.UpdateTimeout, "every pod on v2 and Running, the high-priority pod still unbound", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, waiting.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName != "" {
			return false, fmt.Errorf("the high-priority pod took the devices held for a replacement: bound to %s", p.Spec.NodeName)
		}
		pods, done, err := onV2(ctx, env, ns, "held")
		return len(done) == 3 && len(pods) == 3, err
	})
}

// Surge admission answers for members whose devices come from ResourceClaimTemplates: a
// RollingUpdate with maxSurge 1 / maxUnavailable 0 of a clique of 2 pods, each with a claim of
// all 8 devices of a node, on 2 nodes. The surge pod's claim does not exist before the pod, so
// admission makes it from the template: no surge pod is created, the PodCliqueSet says
// SurgeBlocked, and once a third node publishes its devices the surge is admitted and the
// update completes. Before, the surge pod was admitted without its devices and waited, unbound.
func TestDRATemplateSurgeBlocked(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	draCluster(t, env, ns, "drablock", 2, "gpu8", 8)
	templateWorkers(t, env, ns, "blocked", 2, 1, 0, "gpu8")
	updateToV2(t, env, ns, "blocked")
	framework.Eventually(t, 2*time.Minute, "SurgeBlocked=True and no surge pod", func(ctx context.Context) (bool, error) {
		pods, err := env.ListPods(ctx, ns, "blocked")
		if err != nil {
			return false, err
		}
		if len(pods) != 2 {
			return false, fmt.Errorf("%d pods: a surge pod was created without devices for it", len(pods))
		}
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "blocked", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionSurgeBlocked)
		return cond != nil && cond.Status == metav1.ConditionTrue, nil
	})
	env.AddNodes(t, framework.GPUNodes("drablock-more", 1))
	env.PublishGPUs(t, "drablock-more-0000", 8, "h100")
	framework.Eventually(t, framework.UpdateTimeout, "both pods on v2 and Running", func(ctx context.Context) (bool, error) {
		pods, done, err := onV2(ctx, env, ns, "blocked")
		return len(done) == 2 && len(pods) == 2, err
	})
}

// draCluster adds nodes fake nodes named prefix-NNNN, each publishing 8 GPUs (model h100) of
// the test driver, and the ResourceClaimTemplate template in ns for count of them.
func draCluster(t *testing.T, env *framework.Env, ns, prefix string, nodes int, template string, count int64) {
	t.Helper()
	env.AddNodes(t, framework.GPUNodes(prefix, nodes))
	env.CreateGPUDeviceClass(t)
	for i := 0; i < nodes; i++ {
		env.PublishGPUs(t, fmt.Sprintf("%s-%04d", prefix, i), 8, "h100")
	}
	tmpl := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: template},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: framework.GPUClaim(ns, template, count, "h100").Spec}}
	if _, err := env.Kube.ResourceV1().ResourceClaimTemplates(ns).Create(context.Background(), tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// templateWorkers creates framework.Workers (RollingUpdate with surge and unavailable) with
// replicas pods, each taking its GPUs from a claim of its own made from template, and waits
// until they run.
func templateWorkers(t *testing.T, env *framework.Env, ns, name string, replicas, surge, unavailable int32, template string) {
	t.Helper()
	pcs := framework.Workers(ns, name, surge, unavailable, 600)
	pcs.Spec.Template.Cliques[0].Spec.Replicas = replicas
	spec := &pcs.Spec.Template.Cliques[0].Spec.PodSpec
	spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To(template)}}
	c := &spec.Containers[0]
	c.Resources.Limits = nil
	c.Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(context.Background(), pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, name, 1, int(replicas))
	env.WaitRevisionComplete(t, ns, name)
}

const workerV2 = "registry.example.com/llm/worker:v2"

// updateToV2 updates the workers of set name to the v2 image.
func updateToV2(t *testing.T, env *framework.Env, ns, name string) {
	t.Helper()
	env.UpdatePCS(t, ns, name, func(p *grovev1.PodCliqueSet) {
		p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = workerV2
	})
}

// onV2 returns the set's live pods and those of them Ready on the v2 image.
func onV2(ctx context.Context, env *framework.Env, ns, name string) (pods, done []corev1.Pod, err error) {
	pods, err = env.ListPods(ctx, ns, name)
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Spec.Containers[0].Image == workerV2 && framework.ReadyPod(p) {
			done = append(done, p)
		}
	}
	return pods, done, err
}
