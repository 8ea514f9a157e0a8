package podgroup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

const wait = 90 * time.Second

func gpuNodes(prefix string, n int) localcluster.NodeShape {
	return localcluster.NodeShape{Prefix: prefix, Count: n, GPUs: 8, CPU: "64", Memory: "512Gi"}
}

// podTemplate is a pod of a PodGroup that takes a whole 8-GPU node.
func podTemplate(group string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{schedulingv1.LabelPodGroup: group, "app": group}},
		Spec: corev1.PodSpec{
			SchedulerName:                 scheduler.SchedulerName,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "main", Image: "registry.example.com/train:v1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}},
		},
	}
}

func createPodGroup(t *testing.T, env *framework.Env, ns, name string, min int32) {
	t.Helper()
	pg := &schedulingv1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: schedulingv1.PodGroupSpec{MinMember: min}}
	if _, err := env.Phalanx.SchedulingV1alpha1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func groupPods(ctx context.Context, env *framework.Env, ns, group string) ([]corev1.Pod, error) {
	list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{schedulingv1.LabelPodGroup: group}.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// waitGroupEvent waits for an event with one of reasons on the PodGroup.
func waitGroupEvent(t *testing.T, env *framework.Env, ns, group string, reasons ...string) {
	t.Helper()
	framework.Eventually(t, wait, "event "+strings.Join(reasons, " or ")+" on PodGroup "+group, func(ctx context.Context) (bool, error) {
		for _, reason := range reasons {
			list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
				"involvedObject.kind": "PodGroup", "involvedObject.name": group, "reason": reason}.String()})
			if err != nil || len(list.Items) > 0 {
				return err == nil, err
			}
		}
		return false, nil
	})
}

// Must show 1: a Job of 8 pods with minMember 8 on capacity for 7 binds nothing; with one
// node more, all 8 bind.
func TestJobGangWaitsForCapacity(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, gpuNodes("job", 7))
	createPodGroup(t, env, ns, "train", 8)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"},
		Spec:       batchv1.JobSpec{Parallelism: ptr.To[int32](8), Completions: ptr.To[int32](8), Template: podTemplate("train")},
	}
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	attempts := framework.ReadGangAttempts(t, gang.KindPodGroup.String())
	if _, err := env.Kube.BatchV1().Jobs(ns).Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Any reason first: a group turned away only by Permit must fail the check, not time out.
	waitGroupEvent(t, env, ns, "train", gang.ReasonInsufficient, gang.ReasonMemberUnschedulable, gang.ReasonPermitTimeout)
	framework.ExpectNoNodeHeld(t, gang.KindPodGroup.String(), attempts)
	waitGroupEvent(t, env, ns, "train", gang.ReasonInsufficient)
	framework.ExpectNoNodeHeld(t, gang.KindPodGroup.String(), attempts)
	pods, err := groupPods(context.Background(), env, ns, "train")
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 8 || framework.CountBound(pods) != 0 {
		t.Fatalf("%d pods, %d bound; want 8 pods and none bound on capacity for 7", len(pods), framework.CountBound(pods))
	}
	env.AddNodes(t, gpuNodes("job-more", 1))
	framework.Eventually(t, wait, "all 8 Job pods bound", func(ctx context.Context) (bool, error) {
		pods, err := groupPods(ctx, env, ns, "train")
		return err == nil && framework.CountBound(pods) == 8, err
	})
	framework.Eventually(t, wait, "PodGroup phase past Scheduling", func(ctx context.Context) (bool, error) {
		pg, err := env.Phalanx.SchedulingV1alpha1().PodGroups(ns).Get(ctx, "train", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		switch pg.Status.Phase {
		case schedulingv1.PodGroupScheduled, schedulingv1.PodGroupRunning, schedulingv1.PodGroupFinished:
			return !pg.Status.ScheduleStartTime.IsZero(), nil
		}
		return false, nil
	})
}

// Must show 2: a Deployment of 4 with minMember 4, rolled with maxSurge 1 / maxUnavailable
// 0 on capacity for exactly 5 pods, completes: the surge pod joins the established group
// instead of waiting for a quorum of new pods that can never form.
func TestDeploymentRollingUpdateWithGang(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, gpuNodes("deploy", 5))
	createPodGroup(t, env, ns, "serve", 4)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "serve"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "serve"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
			Template: podTemplate("serve"),
		},
	}
	if _, err := env.Kube.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitRolledOut(t, ns, "serve", 1, 4)
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"registry.example.com/train:v2"}]}}}}`)
	if _, err := env.Kube.AppsV1().Deployments(ns).Patch(context.Background(), "serve", types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitRolledOut(t, ns, "serve", 2, 4)
	pods, err := groupPods(context.Background(), env, ns, "serve")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Spec.Containers[0].Image != "registry.example.com/train:v2" {
			t.Errorf("pod %s still runs %s", p.Name, p.Spec.Containers[0].Image)
		}
	}
}

// Must show 3: two PodGroups of 6 on capacity for 8 pods: one whole, the other waits whole.
// Twenty times.
func TestCompetingPodGroups(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, gpuNodes("compete", 8))
	for rep := 0; rep < 20; rep++ {
		a, b := fmt.Sprintf("a%d", rep), fmt.Sprintf("b%d", rep)
		createPodGroup(t, env, ns, a, 6)
		createPodGroup(t, env, ns, b, 6)
		for i := 0; i < 6; i++ {
			for _, g := range []string{a, b} {
				tmpl := podTemplate(g)
				pod := &corev1.Pod{ObjectMeta: tmpl.ObjectMeta, Spec: tmpl.Spec}
				pod.Namespace, pod.Name = ns, fmt.Sprintf("%s-%d", g, i)
				env.CreatePods(t, pod)
			}
		}
		var loser string
		framework.Eventually(t, wait, fmt.Sprintf("rep %d: one group fully bound", rep), func(ctx context.Context) (bool, error) {
			for _, pair := range [][2]string{{a, b}, {b, a}} {
				pods, err := groupPods(ctx, env, ns, pair[0])
				if err != nil {
					return false, err
				}
				if framework.CountBound(pods) == 6 {
					loser = pair[1]
					return true, nil
				}
			}
			return false, nil
		})
		waitGroupEvent(t, env, ns, loser, gang.ReasonInsufficient)
		pods, err := groupPods(context.Background(), env, ns, loser)
		if err != nil {
			t.Fatal(err)
		}
		if n := framework.CountBound(pods); n != 0 {
			t.Fatalf("rep %d: the waiting group %s has %d bound pods, want 0", rep, loser, n)
		}
		env.DeletePodsNow(t, ns, schedulingv1.LabelPodGroup+" in ("+a+","+b+")")
	}
}

// Must show 4: a PodGroup written for scheduler-plugins, as its documentation shows it, is
// accepted as is (strict field validation: nothing pruned or unknown).
func TestSchedulerPluginsPodGroupYAML(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	const doc = `
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: nginx
spec:
  scheduleTimeoutSeconds: 10
  minMember: 3
  minResources:
    cpu: "3"
    memory: 3Gi
`
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}
	if _, err := dyn.Resource(gvr).Namespace(ns).Create(context.Background(), obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("scheduler-plugins PodGroup refused: %v", err)
	}
	pg, err := env.Phalanx.SchedulingV1alpha1().PodGroups(ns).Get(context.Background(), "nginx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := gang.SpecFromPodGroup(pg)
	if spec.PodGroups[0].MinReplicas != 3 || spec.ScheduleTimeout != 10*time.Second || spec.MinResources == nil || spec.MinResources.MilliCPU != 3000 {
		t.Errorf("PodGroup read as %+v", spec)
	}
}
