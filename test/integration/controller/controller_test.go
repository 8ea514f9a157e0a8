// Package controller tests the PodCliqueSet controller and the scheduler together against a
// real control plane (with kube-controller-manager for garbage collection).
package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/workload"
	"github.com/phalanx-sched/phalanx/test/framework"
)

func TestMain(m *testing.M) { framework.MainWithControllers(m) }

const (
	wait    = 90 * time.Second
	pcsName = "multinode-disaggregated-inference"
)

func envOf(p corev1.Pod) map[string]string {
	m := map[string]string{}
	for _, e := range p.Spec.Containers[0].Env {
		m[e.Name] = e.Value
	}
	return m
}

// Must show 1: the design's disaggregated example becomes its PodCliques, scaling groups,
// 2 base + 4 scaled PodGangs and 30 pods (2 x (3 frontend + 2 x 3 prefill + 2 x 3 decode)),
// all Running on fake GPU nodes, with Grove's labels, environment and hostnames.
func TestDisaggregatedExample(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("disagg", 16))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, env.Sample(t, ns, "disaggregated.yaml"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	env.WaitAvailable(t, ns, pcsName, 2, 30)
	t.Logf("available after %s", time.Since(start).Round(time.Millisecond))

	gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]int32{}
	for _, g := range gangs.Items {
		got[g.Name] = map[string]int32{}
		for _, pg := range g.Spec.PodGroups {
			got[g.Name][pg.Name] = pg.MinReplicas
		}
	}
	for r := 0; r < 2; r++ {
		p := fmt.Sprintf("%s-%d", pcsName, r)
		wantBase := map[string]int32{p + "-frontend": 2, // the sample's frontend minAvailable
			p + "-prefill-0-prefill-leader": 1, p + "-prefill-0-prefill-worker": 2,
			p + "-decode-0-decode-leader": 1, p + "-decode-0-decode-worker": 2}
		if fmt.Sprint(got[p]) != fmt.Sprint(wantBase) {
			t.Errorf("base gang %s podgroups = %v, want %v", p, got[p], wantBase)
		}
		for _, sg := range []string{"prefill", "decode"} {
			name := workload.ScaledPodGangName(pcsName, r, sg, 0) // group replica 1, the first above minAvailable 1
			want := map[string]int32{fmt.Sprintf("%s-%s-1-%s-leader", p, sg, sg): 1, fmt.Sprintf("%s-%s-1-%s-worker", p, sg, sg): 2}
			if fmt.Sprint(got[name]) != fmt.Sprint(want) {
				t.Errorf("scaled gang %s podgroups = %v, want %v", name, got[name], want)
			}
		}
	}
	if len(got) != 6 {
		t.Errorf("%d PodGangs, want 2 base + 4 scaled", len(got))
	}
	cliques, err := env.Phalanx.GroveV1alpha1().PodCliques(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cliques.Items) != 18 || len(groups.Items) != 4 {
		t.Errorf("%d PodCliques and %d scaling groups, want 18 and 4", len(cliques.Items), len(groups.Items))
	}
	svcs, err := env.Kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svcs.Items) != 2 || svcs.Items[0].Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("want 2 headless services, got %d", len(svcs.Items))
	}

	pods, err := env.ListPods(ctx, ns, pcsName)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.Spec.Hostname != p.Name || p.Spec.Subdomain != p.Labels[grovev1.LabelPodCliqueSet]+"-"+p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] {
			t.Errorf("pod %s: hostname %q subdomain %q", p.Name, p.Spec.Hostname, p.Spec.Subdomain)
		}
		e := envOf(p)
		if e["GROVE_PCS_NAME"] != pcsName || e["GROVE_PCS_INDEX"] != p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] ||
			e["GROVE_PCLQ_NAME"] != p.Labels[grovev1.LabelPodClique] || e["GROVE_PCLQ_POD_INDEX"] != p.Labels[grovev1.LabelPodCliquePodIndex] ||
			!strings.HasPrefix(e["GROVE_HEADLESS_SERVICE"], p.Spec.Subdomain+"."+ns+".svc") {
			t.Errorf("pod %s: env %v", p.Name, e)
		}
		if p.Labels[grovev1.LabelPodGang] == "" || p.Labels[grovev1.LabelPodTemplateHash] == "" || len(p.OwnerReferences) != 1 || p.OwnerReferences[0].Kind != "PodClique" {
			t.Errorf("pod %s: labels %v owners %v", p.Name, p.Labels, p.OwnerReferences)
		}
		if sg := p.Labels[grovev1.LabelPodCliqueScalingGroup]; sg != "" {
			if e["GROVE_PCSG_NAME"] != sg || e["GROVE_PCSG_INDEX"] != p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] || e["GROVE_PCSG_TEMPLATE_NUM_PODS"] != "3" {
				t.Errorf("pod %s: scaling-group env %v", p.Name, e)
			}
			if idx := p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]; idx == "1" && p.Labels[grovev1.LabelBasePodGang] == "" {
				t.Errorf("pod %s of a scaled gang has no base-podgang label", p.Name)
			}
		}
	}

	// Deleting the PodCliqueSet removes everything (owner references, no finalizers).
	start = time.Now()
	defer func() {
		t.Logf("children gone %s after the PodCliqueSet was deleted", time.Since(start).Round(time.Millisecond))
	}()
	if err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Delete(ctx, pcsName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "every child of the deleted PodCliqueSet gone", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		g, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		c, err := env.Phalanx.GroveV1alpha1().PodCliques(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(p.Items) == 0 && len(g.Items) == 0 && len(c.Items) == 0, nil
	})
}

// Must show 2: scaling a scaling group (its scale subresource) 2 -> 3 -> 2 and the
// PodCliqueSet 2 -> 3 -> 2; indices stay dense.
func TestScaling(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("scale", 24))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, env.Sample(t, ns, "disaggregated.yaml"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, pcsName, 2, 30)

	sg := workload.ScalingGroupName(pcsName, 0, "prefill")
	setScale := func(n int32) {
		t.Helper()
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: sg, Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: n}}
		err := env.Phalanx.GroveV1alpha1().RESTClient().Put().Namespace(ns).Resource("podcliquescalinggroups").Name(sg).SubResource("scale").Body(scale).Do(ctx).Error()
		if err != nil {
			t.Fatalf("scaling %s to %d: %v", sg, n, err)
		}
	}
	setScale(3)
	env.WaitAvailable(t, ns, pcsName, 2, 33)
	pods, _ := env.ListPods(ctx, ns, pcsName)
	if got := framework.IndicesOf(pods, workload.GroupCliqueName(pcsName, 0, "prefill", 2, "prefill-worker")); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("new group replica's worker indices %v", got)
	}
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, workload.ScaledPodGangName(pcsName, 0, "prefill", 1), metav1.GetOptions{}); err != nil {
		t.Errorf("scaled gang of the new group replica: %v", err)
	}
	setScale(2)
	env.WaitAvailable(t, ns, pcsName, 2, 30)

	env.UpdatePCS(t, ns, pcsName, func(pcs *grovev1.PodCliqueSet) { pcs.Spec.Replicas = 3 })
	env.WaitAvailable(t, ns, pcsName, 3, 45)
	env.UpdatePCS(t, ns, pcsName, func(pcs *grovev1.PodCliqueSet) { pcs.Spec.Replicas = 2 })
	env.WaitAvailable(t, ns, pcsName, 2, 30)
	pods, _ = env.ListPods(ctx, ns, pcsName)
	for _, p := range pods {
		if p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == "2" {
			t.Errorf("pod %s of the removed replica 2 remains", p.Name)
		}
	}
	if got := framework.IndicesOf(pods, workload.PodCliqueName(pcsName, 1, "frontend")); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("frontend indices %v, want dense [0 1 2]", got)
	}
}

// Must show 3: the controller stopped after K creates (as a crash would) and started again
// ends in the same state, and no pod was created twice.
func TestRestartMidCreation(t *testing.T) {
	env := framework.Shared(t)
	env.AddNodes(t, framework.GPUNodes("restart", 16))
	env.StartScheduler(t, nil)
	// A PodCliqueSet of the example takes 60 creates: 4 scaling groups, 18 cliques, 2
	// services, 6 gangs, then 30 pods.
	for _, k := range []int64{1, 25, 38, 52} {
		t.Run(fmt.Sprintf("after %d creates", k), func(t *testing.T) {
			ctx := framework.Context(t)
			ns := env.NewNamespace(t)
			var creates atomic.Int64
			crashed := make(chan struct{})
			stop := env.StartController(t, func(c *controller.Controller) {
				c.AfterCreate = func() error {
					if creates.Add(1) == k {
						close(crashed)
					}
					if creates.Load() >= k {
						return errors.New("test: simulated crash")
					}
					return nil
				}
			})
			if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, env.Sample(t, ns, "disaggregated.yaml"), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			<-crashed
			stop()
			before, err := env.ListPods(ctx, ns, pcsName)
			if err != nil {
				t.Fatal(err)
			}
			uids := map[string]types.UID{}
			for _, p := range before {
				uids[p.Name] = p.UID
			}
			env.StartController(t, nil)
			env.WaitAvailable(t, ns, pcsName, 2, 30)
			after, err := env.ListPods(ctx, ns, pcsName)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range after {
				if uid, ok := uids[p.Name]; ok && uid != p.UID {
					t.Errorf("pod %s was created twice (uid %s, then %s)", p.Name, uid, p.UID)
				}
			}
			gangs, _ := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
			cliques, _ := env.Phalanx.GroveV1alpha1().PodCliques(ns).List(ctx, metav1.ListOptions{})
			if len(after) != 30 || len(gangs.Items) != 6 || len(cliques.Items) != 18 {
				t.Errorf("after restart: %d pods, %d gangs, %d cliques; want 30, 6, 18", len(after), len(gangs.Items), len(cliques.Items))
			}
			t.Logf("stopped after %d creates with %d pods; converged to %d pods", k, len(before), len(after))
		})
	}
}

// Must show 4: a PodCliqueSet whose pods name another scheduler gets its pods and gangs, and
// Phalanx leaves them alone.
func TestForeignSchedulerNameLeftAlone(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("foreign", 16))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := env.Sample(t, ns, "disaggregated.yaml")
	for i := range pcs.Spec.Template.Cliques {
		pcs.Spec.Template.Cliques[i].Spec.PodSpec.SchedulerName = "other-scheduler"
	}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "30 pods and 6 gangs created", func(ctx context.Context) (bool, error) {
		pods, err := env.ListPods(ctx, ns, pcsName)
		if err != nil {
			return false, err
		}
		gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods) == 30 && len(gangs.Items) == 6, err
	})
	// A pod of ours in the same cluster is scheduled: the scheduler is working meanwhile.
	probe := framework.Gang{Namespace: ns, Name: "probe", Groups: []framework.Group{{Name: "p", Pods: 1, MinReplicas: 1, GPUs: 1}}}
	env.CreateGang(t, probe)
	env.WaitGangBound(t, ns, "probe", 1, wait)
	pods, err := env.ListPods(ctx, ns, pcsName)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			t.Errorf("pod %s of another scheduler was bound by Phalanx to %s", p.Name, p.Spec.NodeName)
		}
	}
	gangs, _ := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
	for _, g := range gangs.Items {
		if g.Name == probe.Name {
			continue
		}
		if g.Status.Phase != "" || len(g.Status.Conditions) != 0 {
			t.Errorf("PodGang %s of another scheduler got a status from Phalanx: %+v", g.Name, g.Status)
		}
	}
}

// Two pods that claim one index are reported (condition IndexConflict, event), never
// repaired by deleting one of them.
func TestDuplicateIndexReported(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("dup", 16))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, env.Sample(t, ns, "disaggregated.yaml"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, pcsName, 2, 30)
	clique := workload.PodCliqueName(pcsName, 0, "frontend")
	victim := workload.PodName(clique, 1)
	patch := []byte(`{"metadata":{"labels":{"` + grovev1.LabelPodCliquePodIndex + `":"0"}}}`)
	if _, err := env.Kube.CoreV1().Pods(ns).Patch(ctx, victim, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "condition IndexConflict=True naming the clique", func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcsName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range pcs.Status.Conditions {
			if c.Type == "IndexConflict" && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, clique) {
				return true, nil
			}
		}
		return false, nil
	})
	pods, err := env.ListPods(ctx, ns, pcsName)
	if err != nil {
		t.Fatal(err)
	}
	if got := framework.IndicesOf(pods, clique); fmt.Sprint(got) != "[0 0 2]" || len(pods) != 30 {
		t.Errorf("indices %v, %d pods: the conflicting pods must stay as they are", got, len(pods))
	}
}

// A standalone PodClique scaled through its scale subresource (kubectl scale pclq, an HPA)
// keeps its size: 3 -> 4 -> 2 pods with dense indices, not reset to the template's 3; a
// change of the template's replicas wins again.
func TestPodCliqueScale(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("pclqscale", 24))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, env.Sample(t, ns, "disaggregated.yaml"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, pcsName, 2, 30)
	frontend := workload.PodCliqueName(pcsName, 0, "frontend")
	setScale := func(n int32) {
		t.Helper()
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: frontend, Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: n}}
		if err := env.Phalanx.GroveV1alpha1().RESTClient().Put().Namespace(ns).Resource("podcliques").Name(frontend).SubResource("scale").Body(scale).Do(ctx).Error(); err != nil {
			t.Fatalf("scaling %s to %d: %v", frontend, n, err)
		}
	}
	check := func(want string) {
		t.Helper()
		pods, _ := env.ListPods(ctx, ns, pcsName)
		if got := framework.IndicesOf(pods, frontend); fmt.Sprint(got) != want {
			t.Errorf("%s indices %v, want %s", frontend, got, want)
		}
		pclq, err := env.Phalanx.GroveV1alpha1().PodCliques(ns).Get(ctx, frontend, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(want, " ") + 1; int(pclq.Spec.Replicas) != n {
			t.Errorf("%s spec.replicas %d after the controller acted, want %d (the scale was reset)", frontend, pclq.Spec.Replicas, n)
		}
	}
	setScale(4)
	env.WaitAvailable(t, ns, pcsName, 2, 31)
	check("[0 1 2 3]")
	setScale(2)
	env.WaitAvailable(t, ns, pcsName, 2, 29)
	check("[0 1]")
	env.UpdatePCS(t, ns, pcsName, func(pcs *grovev1.PodCliqueSet) {
		for i := range pcs.Spec.Template.Cliques {
			if pcs.Spec.Template.Cliques[i].Name == "frontend" {
				pcs.Spec.Template.Cliques[i].Spec.Replicas = 4
			}
		}
	})
	env.WaitAvailable(t, ns, pcsName, 2, 32)
	check("[0 1 2 3]")
}

// A pass the cluster refuses is reported where users look, not only in Phalanx's log: a
// ResourceQuota of 2 pods refuses the third member, and the PodCliqueSet gets a Warning event
// ReconcileFailed naming the quota, counted in phalanx_controller_reconcile_errors_total
// {reason="Forbidden"}; with the quota raised the controller's retries complete the set.
func TestReconcileFailureReported(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("quota", 3))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "two-pods"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}}}
	if _, err := env.Kube.CoreV1().ResourceQuotas(ns).Create(ctx, quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "the quota's usage computed by kube-controller-manager", func(ctx context.Context) (bool, error) {
		q, err := env.Kube.CoreV1().ResourceQuotas(ns).Get(ctx, "two-pods", metav1.GetOptions{})
		return err == nil && q.Status.Hard.Pods().Value() == 2, err
	})
	forbidden := func() float64 {
		return framework.Metric(t, "phalanx_controller_reconcile_errors_total", map[string]string{"reason": "Forbidden"})
	}
	before := forbidden()
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, framework.Workers(ns, "q", 1, 0, 600), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "a ReconcileFailed event naming the quota", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=q,reason=" + controller.ReasonReconcileFailed})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, "exceeded quota: two-pods") {
				return true, nil
			}
		}
		return false, fmt.Errorf("%d ReconcileFailed events, none naming the quota", len(list.Items))
	})
	if got := forbidden(); got <= before {
		t.Errorf("phalanx_controller_reconcile_errors_total{reason=Forbidden} %v, was %v: the refusal not counted", got, before)
	}
	// status.lastErrors, as Grove's operator writes it: the refusal while it lasts.
	framework.Eventually(t, wait, "status.lastErrors naming the quota", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "q", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if l := p.Status.LastErrors; len(l) == 1 && l[0].Code == "ERR_FORBIDDEN" && strings.Contains(l[0].Description, "exceeded quota: two-pods") && !l[0].ObservedAt.IsZero() {
			return true, nil
		}
		return false, fmt.Errorf("lastErrors %+v", p.Status.LastErrors)
	})
	if _, err := env.Kube.CoreV1().ResourceQuotas(ns).Patch(ctx, "two-pods", types.MergePatchType, []byte(`{"spec":{"hard":{"pods":"3"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "q", 1, 3)
	framework.Eventually(t, wait, "status.lastErrors emptied by a pass that succeeded", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "q", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if len(p.Status.LastErrors) == 0 {
			return true, nil
		}
		return false, fmt.Errorf("lastErrors %+v", p.Status.LastErrors)
	})
}
