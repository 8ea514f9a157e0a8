package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// webhookNamespace is a test namespace that the test webhooks serve.
func webhookNamespace(t *testing.T, env *framework.Env) string {
	t.Helper()
	ns := env.NewNamespace(t)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, framework.WebhookNamespaceLabel)
	if _, err := env.Kube.CoreV1().Namespaces().Patch(context.Background(), ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// createPCS creates pcs, retrying while the API server has not yet picked up the webhook
// configuration that was just registered (it refuses with a webhook-call error until then).
func createPCS(t *testing.T, env *framework.Env, pcs *grovev1.PodCliqueSet) *grovev1.PodCliqueSet {
	t.Helper()
	var got *grovev1.PodCliqueSet
	framework.Eventually(t, 30*time.Second, "PodCliqueSet "+pcs.Name+" created through the webhooks", func(ctx context.Context) (bool, error) {
		var err error
		got, err = env.Phalanx.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Create(ctx, pcs, metav1.CreateOptions{})
		return err == nil, err
	})
	return got
}

// The webhooks refuse an invalid PodCliqueSet with the field path and the reason, by the
// typed client, by server-side apply and by kubectl apply; they default what is unset; they
// keep the gang-defining fields immutable.
func TestWebhooksRefuseAndDefault(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := webhookNamespace(t, env)
	env.StartPhalanx(t, framework.Phalanx{Webhooks: true})

	// Defaulting: a PCS without strategy gets RollingUpdate, 600 s, component budgets 1/0.
	valid := framework.Workers(ns, "w", 1, 0, 600)
	valid.Spec.UpdateStrategy = nil
	valid.Spec.Template.Cliques[0].UpdateStrategy = nil
	got := createPCS(t, env, valid)
	us := got.Spec.UpdateStrategy
	if us == nil || us.Type != grovev1.RollingUpdateStrategyType || ptr.Deref(us.ProgressDeadlineSeconds, 0) != 600 {
		t.Errorf("stored updateStrategy %+v, want RollingUpdate with progressDeadlineSeconds 600", us)
	}
	if s := got.Spec.Template.Cliques[0].UpdateStrategy; s == nil || s.MaxUnavailable.String() != "1" || s.MaxSurge.String() != "0" {
		t.Errorf("stored clique updateStrategy %+v, want maxUnavailable 1, maxSurge 0", s)
	}
	if m := got.Spec.Template.Cliques[0].Spec.MinAvailable; m == nil || *m != 3 {
		t.Errorf("stored minAvailable %v, want 3 (= replicas)", m)
	}

	const bothZero = `spec.template.cliques[0].updateStrategy: Invalid value: "maxSurge=0, maxUnavailable=0": maxSurge and maxUnavailable must not both be 0`
	invalid := framework.Workers(ns, "bad", 0, 0, 600)
	_, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, invalid, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), bothZero) {
		t.Errorf("create of an invalid PodCliqueSet: %v\nwant the message %q", err, bothZero)
	}
	// Server-side apply (kubectl apply --server-side) goes through the same webhooks.
	raw, _ := json.Marshal(map[string]any{"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": map[string]any{"name": "bad", "namespace": ns}, "spec": invalid.Spec})
	_, err = env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Patch(ctx, "bad", types.ApplyPatchType, raw, metav1.PatchOptions{FieldManager: "test", Force: ptr.To(true)})
	if err == nil || !strings.Contains(err.Error(), bothZero) {
		t.Errorf("server-side apply of an invalid PodCliqueSet: %v", err)
	}
	// kubectl apply, when kubectl is installed (the message is what a user sees).
	if kubectl, lookErr := exec.LookPath("kubectl"); lookErr == nil {
		invalid.APIVersion, invalid.Kind = "grove.io/v1alpha1", "PodCliqueSet"
		manifest, _ := yaml.Marshal(invalid)
		cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", env.Cluster.Kubeconfig, "apply", "-f", "-")
		cmd.Stdin = bytes.NewReader(manifest)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), bothZero) {
			t.Errorf("kubectl apply of an invalid PodCliqueSet: err %v, output:\n%s", err, out)
		}
		t.Logf("kubectl apply says: %s", strings.TrimSpace(string(out)))
	} else {
		t.Log("kubectl not installed: the kubectl apply check is left out")
	}

	// Immutable: roleName of a clique.
	err = updatePCSErr(ctx, env, ns, "w", func(p *grovev1.PodCliqueSet) { p.Spec.Template.Cliques[0].Spec.RoleName = "router" })
	if want := `spec.template.cliques[0].spec.roleName: Invalid value: "router": was "worker"; roleName is immutable`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("roleName change: %v", err)
	}
	// A PCS-level budget under RollingUpdate: the CRD's own CEL rule refuses it before the
	// validating webhook is called (it also protects clusters without the webhooks).
	err = updatePCSErr(ctx, env, ns, "w", func(p *grovev1.PodCliqueSet) {
		p.Spec.UpdateStrategy.RollingUpdate = &grovev1.RollingUpdateBudget{MaxSurge: ptr.To(intstr.FromInt32(1))}
	})
	// (API servers before 1.35 print the rule's value as "object" between the two parts.)
	field, rule := `spec.updateStrategy.rollingUpdate: Invalid value: `, `rollingUpdate budgets at the PodCliqueSet level are only allowed with type ReplicaRecreate`
	if err == nil || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), rule) {
		t.Errorf("PCS-level maxSurge under RollingUpdate: %v\nwant %q ... %q", err, field, rule)
	}
}

func updatePCSErr(ctx context.Context, env *framework.Env, ns, name string, change func(*grovev1.PodCliqueSet)) error {
	cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	change(cur)
	_, err = env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

func surgeBlocked(ctx context.Context, env *framework.Env, ns, name string) (*metav1.Condition, error) {
	pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionSurgeBlocked)
	if c == nil {
		return nil, fmt.Errorf("no SurgeBlocked condition yet")
	}
	return c, nil
}

// Surge admission on a full cluster (2 group replicas of 3 whole-node pods on 6 nodes, no
// room for a surge group replica): with maxUnavailable 1 the update completes without ever
// creating a surge pod; with maxUnavailable 0 it reports SurgeBlocked with the missing GPUs
// and completes by itself once nodes are added, the scheduler having been restarted (webhooks
// and surge admission with it) in the middle.
func TestSurgeAdmission(t *testing.T) {
	t.Run("maxUnavailable 1 falls back, no surge pod", func(t *testing.T) {
		env := framework.Shared(t)
		ns := webhookNamespace(t, env)
		env.AddNodes(t, framework.GPUNodes("sa1", 6))
		env.StartPhalanx(t, framework.Phalanx{Controller: true, Webhooks: true})
		createPCS(t, env, framework.GroupSet(ns, "g", 2, 1, 1, 1))
		env.WaitAvailable(t, ns, "g", 1, 6)
		var mu sync.Mutex
		sawSurge, blocked := false, ""
		stopWatch := env.WatchPods(t, ns, "g", func(_ map[string]corev1.Pod, p *corev1.Pod) {
			mu.Lock()
			sawSurge = sawSurge || p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == "2"
			mu.Unlock()
		})
		env.SetImage(t, ns, "g", "registry.example.com/llm/prefill:v2")
		framework.Eventually(t, wait, "SurgeBlocked=True", func(ctx context.Context) (bool, error) {
			c, err := surgeBlocked(ctx, env, ns, "g")
			if err != nil {
				return false, err
			}
			blocked = c.Message
			return c.Status == metav1.ConditionTrue, nil
		})
		env.WaitUpdated(t, ns, "g", "registry.example.com/llm/prefill:v2", 6)
		stopWatch()
		mu.Lock()
		defer mu.Unlock()
		if sawSurge {
			t.Error("a surge pod (group replica 2) was created although it could not fit")
		}
		// The free count is of the pass that wrote the status the poll saw: 0 before the first
		// old member went, 8 or 16 while the update goes on without surge.
		if want := regexp.MustCompile(`^surge g-0-sg\[2\] needs 24 nvidia\.com/gpu for 3 pod\(s\); (0|8|16) free on schedulable nodes; the update goes on within maxUnavailable 1 instead$`); !want.MatchString(blocked) {
			t.Errorf("SurgeBlocked message %q\nwant %q", blocked, want)
		}
		c, err := surgeBlocked(framework.Context(t), env, ns, "g")
		if err != nil || c.Status != metav1.ConditionFalse {
			t.Errorf("SurgeBlocked after the update: %+v, %v", c, err)
		}
	})

	t.Run("maxUnavailable 0 waits, survives a restart, completes when nodes are added", func(t *testing.T) {
		env := framework.Shared(t)
		ctx := framework.Context(t)
		ns := webhookNamespace(t, env)
		env.AddNodes(t, framework.GPUNodes("sa0", 6))
		stop := env.StartPhalanx(t, framework.Phalanx{Controller: true, Webhooks: true})
		createPCS(t, env, framework.GroupSet(ns, "g", 2, 1, 1, 0))
		env.WaitAvailable(t, ns, "g", 1, 6)
		env.SetImage(t, ns, "g", "registry.example.com/llm/prefill:v2")
		const want = "surge g-0-sg[2] needs 24 nvidia.com/gpu for 3 pod(s); 0 free on schedulable nodes; maxUnavailable is 0, so the update waits and resumes by itself when capacity appears (or allow maxUnavailable >= 1 to update without surge)"
		framework.Eventually(t, wait, "SurgeBlocked=True naming the missing GPUs", func(ctx context.Context) (bool, error) {
			c, err := surgeBlocked(ctx, env, ns, "g")
			if err != nil {
				return false, err
			}
			if c.Status != metav1.ConditionTrue || c.Message != want {
				return false, fmt.Errorf("SurgeBlocked %s %q", c.Status, c.Message)
			}
			return true, nil
		})
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=SurgeBlocked"})
		if err != nil || len(events.Items) == 0 || !strings.Contains(events.Items[0].Message, "needs 24 nvidia.com/gpu") {
			t.Errorf("no SurgeBlocked event with the missing capacity: %v %v", events, err)
		}
		pods, _ := env.ListPods(ctx, ns, "g")
		if len(pods) != 6 {
			t.Errorf("%d pods while the surge is blocked, want the 6 old ones", len(pods))
		}

		// Restart mid-update: the new process serves the webhooks again (same certificate
		// from the Secret, re-registered on its new port) and decides surge admission again.
		stop()
		env.StartPhalanx(t, framework.Phalanx{Controller: true, Webhooks: true})
		framework.Eventually(t, 30*time.Second, "the restarted webhooks refuse an invalid change", func(ctx context.Context) (bool, error) {
			err := updatePCSErr(ctx, env, ns, "g", func(p *grovev1.PodCliqueSet) {
				p.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy.MaxSurge = ptr.To(intstr.FromString("150%"))
			})
			if err != nil && strings.Contains(err.Error(), `podCliqueScalingGroups[0].updateStrategy.maxSurge: Invalid value: "150%": a percentage must be between 0% and 100%`) {
				return true, nil
			}
			return false, fmt.Errorf("update answered: %v", err)
		})
		framework.Eventually(t, wait, "SurgeBlocked still True after the restart", func(ctx context.Context) (bool, error) {
			c, err := surgeBlocked(ctx, env, ns, "g")
			return err == nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration > 0, err
		})

		var mu sync.Mutex
		sawSurge := false
		stopWatch := env.WatchPods(t, ns, "g", func(_ map[string]corev1.Pod, p *corev1.Pod) {
			mu.Lock()
			sawSurge = sawSurge || p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == "2"
			mu.Unlock()
		})
		env.AddNodes(t, framework.GPUNodes("sa0more", 3))
		env.WaitUpdated(t, ns, "g", "registry.example.com/llm/prefill:v2", 6)
		stopWatch()
		mu.Lock()
		defer mu.Unlock()
		if !sawSurge {
			t.Error("no surge pod seen once the nodes were added: the update should have surged")
		}
		c, err := surgeBlocked(ctx, env, ns, "g")
		if err != nil || c.Status != metav1.ConditionFalse {
			t.Errorf("SurgeBlocked after the update: %+v, %v", c, err)
		}
	})
}

// recreateSet is a ReplicaRecreate PodCliqueSet of one replica: 2 whole-node pods, recreated
// one replica at a time without surge.
func recreateSet(ns string) *grovev1.PodCliqueSet {
	pcs := framework.Workers(ns, "rr", 0, 0, 600)
	pcs.Spec.Template.Cliques[0].Spec.Replicas = 2
	pcs.Spec.Template.Cliques[0].UpdateStrategy = nil
	pcs.Spec.UpdateStrategy.Type = grovev1.ReplicaRecreateStrategyType
	pcs.Spec.UpdateStrategy.RollingUpdate = &grovev1.RollingUpdateBudget{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}
	return pcs
}

// competitor is a pending gang of 2 whole-node pods that would fit the GPUs a recreated
// replica frees.
func competitor(ns string) framework.Gang {
	return framework.Gang{Namespace: ns, Name: "other", Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
}

// waitRecreated waits until both pods of recreateSet's replica run the v2 image on a node.
func waitRecreated(t *testing.T, env *framework.Env, ns string) {
	t.Helper()
	framework.Eventually(t, wait, "the recreated replica bound", func(ctx context.Context) (bool, error) {
		live, err := env.ListPods(ctx, ns, "rr")
		if err != nil {
			return false, err
		}
		n := 0
		for _, p := range live {
			if p.Spec.Containers[0].Image == "registry.example.com/llm/worker:v2" && p.Spec.NodeName != "" {
				n++
			}
		}
		return n == 2, nil
	})
}

func boundPods(ctx context.Context, env *framework.Env, ns, gangName string) int {
	pods, err := env.GangPods(ctx, ns, gangName)
	if err != nil {
		return -1
	}
	return framework.CountBound(pods)
}

// Replacement reservation: while a replica is recreated (ReplicaRecreate, no surge) on a full
// cluster, a competing gang that is already waiting and would fit the freed GPUs does not take
// them: the replacement lands there. When the replacement cannot be placed at all (its new
// template selects no node), the competitor gets the GPUs once the hold expires, not before.
func TestReplacementReservation(t *testing.T) {
	t.Run("the replacement gets the freed capacity", func(t *testing.T) {
		env := framework.Shared(t)
		ctx := framework.Context(t)
		ns := env.NewNamespace(t)
		env.AddNodes(t, framework.GPUNodes("hold", 2))
		env.StartPhalanx(t, framework.Phalanx{Controller: true})
		if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, recreateSet(ns), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.WaitAvailable(t, ns, "rr", 1, 2)
		env.CreateGang(t, competitor(ns))
		framework.Eventually(t, wait, "the competitor waits for capacity", func(ctx context.Context) (bool, error) {
			g, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, "other", metav1.GetOptions{})
			return err == nil && meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionUnschedulable), err
		})
		// Every event of the competitor's pods is seen, so a bind that is undone before a poll
		// would look still counts.
		var mu sync.Mutex
		var competitorBound []string
		stopWatch := env.WatchPodsSelected(t, ns, "test.phalanx.dev/gang=other", func(_ map[string]corev1.Pod, p *corev1.Pod) {
			if p.Spec.NodeName != "" {
				mu.Lock()
				competitorBound = append(competitorBound, p.Name+" on "+p.Spec.NodeName)
				mu.Unlock()
			}
		})
		defer stopWatch()
		env.SetImage(t, ns, "rr", "registry.example.com/llm/worker:v2")
		waitRecreated(t, env, ns)
		stopWatch()
		mu.Lock()
		defer mu.Unlock()
		if len(competitorBound) > 0 || boundPods(ctx, env, ns, "other") != 0 {
			t.Errorf("the competing gang took GPUs freed for the recreated replica: %v", competitorBound)
		}
		g, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, "rr-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Annotations[schedv1.AnnotationReservation] == "" || g.Spec.ReuseReservationRef == nil || g.Spec.ReuseReservationRef.Name != "rr-0" {
			t.Errorf("recreated gang without its reservation: annotations %v, reuseReservationRef %v", g.Annotations, g.Spec.ReuseReservationRef)
		}
	})

	t.Run("the competitor may take it after the hold expires", func(t *testing.T) {
		env := framework.Shared(t)
		ctx := framework.Context(t)
		ns := env.NewNamespace(t)
		env.AddNodes(t, framework.GPUNodes("expire", 2))
		const hold = 4 * time.Second
		env.StartPhalanx(t, framework.Phalanx{Controller: true, ReservationHold: hold})
		if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, recreateSet(ns), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.WaitAvailable(t, ns, "rr", 1, 2)
		env.CreateGang(t, competitor(ns))
		// The new revision selects no node: its pods can never use the held GPUs.
		env.UpdatePCS(t, ns, "rr", func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.PodSpec.NodeSelector = map[string]string{"phalanx.dev/no-such-node": "true"}
		})
		var since time.Time
		framework.Eventually(t, wait, "the recreated gang's reservation", func(ctx context.Context) (bool, error) {
			g, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, "rr-0", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			var r schedv1.Reservation
			if err := json.Unmarshal([]byte(g.Annotations[schedv1.AnnotationReservation]), &r); err != nil {
				return false, fmt.Errorf("annotation %q: %v", g.Annotations[schedv1.AnnotationReservation], err)
			}
			since = r.Since.Time
			return len(r.Nodes) == 2, nil
		})
		framework.Eventually(t, wait, "the competitor bound after the hold", func(ctx context.Context) (bool, error) {
			return boundPods(ctx, env, ns, "other") == 2, nil
		})
		pods, err := env.GangPods(ctx, ns, "other")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods {
			for _, c := range p.Status.Conditions {
				// Bound at or after the end of the hold (the annotation has second precision).
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && c.LastTransitionTime.Time.Before(since.Add(hold-time.Second)) {
					t.Errorf("competitor pod %s bound at %s, before the hold ended (%s + %s)", p.Name, c.LastTransitionTime.Time, since, hold)
				}
			}
		}
	})
}

// A recreated replica's old gang that is still terminating (another controller's finalizer)
// when the controller creates it again: the reservation is neither lost nor given to the
// competitor. It holds on the terminating gang, waits in the PodCliqueSet's
// phalanx.dev/pending-reservations annotation, and lands on the new gang once the old one is
// gone; no pod joins the terminating gang.
func TestReservationSurvivesTerminatingGang(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("term", 2))
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, recreateSet(ns), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "rr", 1, 2)
	const finalizer = "test.phalanx.dev/slow-cleanup"
	gangs := env.Phalanx.SchedulerV1alpha1().PodGangs(ns)
	if _, err := gangs.Patch(ctx, "rr-0", types.MergePatchType, []byte(`{"metadata":{"finalizers":["`+finalizer+`"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	old, err := gangs.Get(ctx, "rr-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env.CreateGang(t, competitor(ns))
	framework.Eventually(t, wait, "the competitor waits for capacity", func(ctx context.Context) (bool, error) {
		g, err := gangs.Get(ctx, "other", metav1.GetOptions{})
		return err == nil && meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionUnschedulable), err
	})
	env.SetImage(t, ns, "rr", "registry.example.com/llm/worker:v2")

	// The old gang is terminating, its pods are gone, and the reservation is kept.
	framework.Eventually(t, wait, "old pods gone, reservation pending on the PodCliqueSet", func(ctx context.Context) (bool, error) {
		live, err := env.ListPods(ctx, ns, "rr")
		if err != nil {
			return false, err
		}
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "rr", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		g, err := gangs.Get(ctx, "rr-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range live {
			if p.Spec.Containers[0].Image == "registry.example.com/llm/worker:v2" {
				return false, framework.Terminal(fmt.Errorf("pod %s of the new revision joined the terminating gang", p.Name))
			}
		}
		return len(live) == 0 && g.DeletionTimestamp != nil && g.Annotations[schedv1.AnnotationReservation] != "" &&
			strings.Contains(pcs.Annotations["phalanx.dev/pending-reservations"], `"rr-0"`), nil
	})
	if n := boundPods(ctx, env, ns, "other"); n != 0 {
		t.Errorf("the competitor bound %d pods on the GPUs held for the recreated replica", n)
	}
	// The other controller finishes; the gang is created again with the reservation.
	if _, err := gangs.Patch(ctx, "rr-0", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRecreated(t, env, ns)
	g, err := gangs.Get(ctx, "rr-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.UID == old.UID {
		t.Fatal("the gang was not recreated")
	}
	if g.Annotations[schedv1.AnnotationReservation] == "" || g.Spec.ReuseReservationRef == nil {
		t.Errorf("recreated gang without its reservation: annotations %v, reuseReservationRef %v", g.Annotations, g.Spec.ReuseReservationRef)
	}
	if n := boundPods(ctx, env, ns, "other"); n != 0 {
		t.Errorf("the competitor bound %d pods on the GPUs held for the recreated replica", n)
	}
	framework.Eventually(t, wait, "the pending reservation removed from the PodCliqueSet", func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "rr", metav1.GetOptions{})
		return err == nil && pcs.Annotations["phalanx.dev/pending-reservations"] == "", err
	})
}

// The metrics of docs/metrics.md move as the scheduler and the controller work: gang
// placement time, Permit waits, surge admissions, update steps and duration, reservations.
func TestMetrics(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("metrics", 6))
	// Each hold ends when its replacement binds, so a long window costs the test nothing,
	// and a loaded machine cannot miss it (a 3 s hold could end before the competitor was
	// tried against it, and phalanx_reservation_blocked_pods_total did not move).
	const hold = 2 * time.Minute
	env.StartPhalanx(t, framework.Phalanx{Controller: true, ReservationHold: hold})
	before := map[string]float64{
		"placed":   framework.Metric(t, "phalanx_gang_time_to_placed_seconds", map[string]string{"kind": "PodGang"}),
		"bound":    framework.Metric(t, "phalanx_gang_members_bound_from_pass_total", map[string]string{"kind": "PodGang"}),
		"blocked":  framework.Metric(t, "phalanx_surge_admissions_total", map[string]string{"result": "blocked"}),
		"steps":    framework.Metric(t, "phalanx_update_steps_total", map[string]string{"strategy": "RollingUpdate", "action": "delete", "surge": "false"}),
		"duration": framework.Metric(t, "phalanx_update_duration_seconds", map[string]string{"strategy": "RollingUpdate"}),
		"held":     framework.Metric(t, "phalanx_reservation_blocked_pods_total", nil),
	}
	// 2 group replicas of 3 whole-node pods on 6 nodes: the surge is blocked, the update goes
	// on within maxUnavailable 1, each replaced replica's GPUs are held.
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(framework.Context(t), framework.GroupSet(ns, "m", 2, 1, 1, 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "m", 1, 6)
	// A competitor that the holds keep out while the replicas are replaced.
	env.CreateGang(t, framework.Gang{Namespace: ns, Name: "other", Groups: []framework.Group{{Name: "w", Pods: 3, MinReplicas: 3, GPUs: 8}}})
	env.SetImage(t, ns, "m", "registry.example.com/llm/prefill:v2")
	env.WaitUpdated(t, ns, "m", "registry.example.com/llm/prefill:v2", 6)
	after := func(name string, labels map[string]string) float64 { return framework.Metric(t, name, labels) }
	checks := []struct {
		what string
		got  float64
		min  float64
	}{
		{"phalanx_gang_time_to_placed_seconds{kind=PodGang} samples", after("phalanx_gang_time_to_placed_seconds", map[string]string{"kind": "PodGang"}) - before["placed"], 1},
		{"phalanx_gang_members_bound_from_pass_total{kind=PodGang}", after("phalanx_gang_members_bound_from_pass_total", map[string]string{"kind": "PodGang"}) - before["bound"], 1},
		{"phalanx_surge_admissions_total{result=blocked}", after("phalanx_surge_admissions_total", map[string]string{"result": "blocked"}) - before["blocked"], 1},
		{"phalanx_update_steps_total{RollingUpdate,delete,surge=false}", after("phalanx_update_steps_total", map[string]string{"strategy": "RollingUpdate", "action": "delete", "surge": "false"}) - before["steps"], 2},
		{"phalanx_update_duration_seconds{RollingUpdate} samples", after("phalanx_update_duration_seconds", map[string]string{"strategy": "RollingUpdate"}) - before["duration"], 1},
		{"phalanx_reservation_blocked_pods_total", after("phalanx_reservation_blocked_pods_total", nil) - before["held"], 1},
	}
	for _, c := range checks {
		if c.got < c.min {
			t.Errorf("%s grew by %v, want at least %v", c.what, c.got, c.min)
		}
	}
	// The gauge reads the gang stores of the running schedulers only (a stopped scheduler's
	// store leaves the collector), so the competitor is the one gang it counts.
	if got := after("phalanx_gangs_waiting", map[string]string{"kind": "PodGang", "reason": "InsufficientResources"}); got != 1 {
		t.Errorf("phalanx_gangs_waiting{PodGang,InsufficientResources} = %v, want 1: the competitor, the only gang that waits for capacity", got)
	}
	if got := after("phalanx_updates_in_progress", nil); got != 0 {
		t.Errorf("phalanx_updates_in_progress = %v after the update", got)
	}
}

// The PodCliqueSet of pkg/admission/testdata/grove-current.yaml (current Grove's fields and
// names) goes through the API server, the webhooks and Phalanx's CRD schema and is stored
// with every field it was written with.
func TestGroveCurrentPodCliqueSetStored(t *testing.T) {
	env := framework.Shared(t)
	ns := webhookNamespace(t, env)
	env.StartPhalanx(t, framework.Phalanx{Webhooks: true})
	raw, err := os.ReadFile(filepath.Join(env.Root, "pkg", "admission", "testdata", "grove-current.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var written map[string]any
	if err := yaml.Unmarshal(raw, &written); err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: written}
	obj.SetNamespace(ns)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	res := dyn.Resource(grovev1.SchemeGroupVersion.WithResource("podcliquesets")).Namespace(ns)
	var stored *unstructured.Unstructured
	framework.Eventually(t, 30*time.Second, "the Grove PodCliqueSet created through the webhooks", func(ctx context.Context) (bool, error) {
		stored, err = res.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		return err == nil, err
	})
	var missing []string
	walkLost(written["spec"], stored.Object["spec"], ".spec", &missing)
	if len(missing) > 0 {
		t.Errorf("the API server stored the Grove PodCliqueSet without: %v", missing)
	}
	if typ, _, _ := unstructured.NestedString(stored.Object, "spec", "updateStrategy", "type"); typ != "RollingRecreate" {
		t.Errorf("updateStrategy.type stored as %q", typ)
	}
}

// walkLost appends the paths of in that out lacks.
func walkLost(in, out any, path string, missing *[]string) {
	switch v := in.(type) {
	case map[string]any:
		o, ok := out.(map[string]any)
		if !ok {
			*missing = append(*missing, path)
			return
		}
		for k, iv := range v {
			if ov, ok := o[k]; ok {
				walkLost(iv, ov, path+"."+k, missing)
			} else {
				*missing = append(*missing, path+"."+k)
			}
		}
	case []any:
		o, ok := out.([]any)
		if !ok || len(o) != len(v) {
			*missing = append(*missing, path)
			return
		}
		for i := range v {
			walkLost(v[i], o[i], fmt.Sprintf("%s[%d]", path, i), missing)
		}
	}
}
