package framework

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
)

// Group describes one podgroup of a test gang: Pods pods named <gang>-<group>-<i> with GPUs
// each, MinReplicas of them needed together.
type Group struct {
	Name        string
	Pods        int
	MinReplicas int32
	GPUs        int64
}

// Gang is a PodGang and its pods, as a test builds them.
type Gang struct {
	Namespace, Name string
	Groups          []Group
	// Base names the base PodGang of a scaled gang (pod label grove.io/base-podgang).
	Base string
	// PackRequired is the required packing label of the gang.
	PackRequired string
	// Gates puts a scheduling gate on every pod.
	Gates bool
	// PriorityClassName is set on every pod (the API server's Priority admission gives them
	// its value).
	PriorityClassName string
	// Customize, when set, edits the PodGang's spec before it is created (topology levels).
	Customize func(*schedv1.PodGangSpec)
}

// PodName is the name of the i-th pod of group g.
func (g Gang) PodName(group string, i int) string { return fmt.Sprintf("%s-%s-%d", g.Name, group, i) }

// PodGang returns the PodGang object of the gang.
func (g Gang) PodGang() *schedv1.PodGang {
	pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: g.Namespace, Name: g.Name}}
	for _, grp := range g.Groups {
		refs := make([]schedv1.NamespacedName, 0, grp.Pods)
		for i := 0; i < grp.Pods; i++ {
			refs = append(refs, schedv1.NamespacedName{Namespace: g.Namespace, Name: g.PodName(grp.Name, i)})
		}
		pg.Spec.PodGroups = append(pg.Spec.PodGroups, schedv1.PodGroup{Name: grp.Name, MinReplicas: grp.MinReplicas, PodReferences: refs})
	}
	if g.PackRequired != "" {
		pg.Spec.TopologyConstraint = &schedv1.TopologyConstraint{PackConstraint: &schedv1.TopologyPackConstraint{Required: ptr.To(g.PackRequired)}}
	}
	if g.Customize != nil {
		g.Customize(&pg.Spec)
	}
	return pg
}

// Pod returns the i-th pod of group grp.
func (g Gang) Pod(grp Group, i int) *corev1.Pod {
	l := map[string]string{
		grovev1.LabelPodGang:           g.Name,
		grovev1.LabelPodClique:         grp.Name,
		grovev1.LabelPodCliquePodIndex: strconv.Itoa(i),
		"test.phalanx.dev/gang":        g.Name,
	}
	if g.Base != "" {
		l[grovev1.LabelBasePodGang] = g.Base
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: g.Namespace, Name: g.PodName(grp.Name, i), Labels: l},
		Spec: corev1.PodSpec{
			SchedulerName:                 scheduler.SchedulerName,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{
				Name:  "main",
				Image: "registry.example.com/inference:v1",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")},
					Limits:   corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(grp.GPUs, resource.DecimalSI)},
				},
			}},
		},
	}
	pod.Spec.PriorityClassName = g.PriorityClassName
	if g.Gates {
		pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "test.phalanx.dev/hold"}}
	}
	return pod
}

// Pods returns every pod of the gang.
func (g Gang) Pods() []*corev1.Pod {
	var pods []*corev1.Pod
	for _, grp := range g.Groups {
		for i := 0; i < grp.Pods; i++ {
			pods = append(pods, g.Pod(grp, i))
		}
	}
	return pods
}

// CreateGang creates the PodGang and then its pods.
func (e *Env) CreateGang(t testing.TB, g Gang) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.Phalanx.SchedulerV1alpha1().PodGangs(g.Namespace).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PodGang %s: %v", g.Name, err)
	}
	e.CreatePods(t, g.Pods()...)
}

// CreatePods creates pods.
func (e *Env) CreatePods(t testing.TB, pods ...*corev1.Pod) {
	t.Helper()
	for _, p := range pods {
		if _, err := e.Kube.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s: %v", p.Name, err)
		}
	}
}

// GangPods lists the pods of a test gang.
func (e *Env) GangPods(ctx context.Context, ns, name string) ([]corev1.Pod, error) {
	list, err := e.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{"test.phalanx.dev/gang": name}.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// CountBound returns how many of the pods have a node.
func CountBound(pods []corev1.Pod) int {
	n := 0
	for i := range pods {
		if pods[i].Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// WaitGangBound waits until n pods of the gang are bound and Running.
func (e *Env) WaitGangBound(t testing.TB, ns, name string, n int, timeout time.Duration) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	Eventually(t, timeout, fmt.Sprintf("%d pods of gang %s bound and Running", n, name), func(ctx context.Context) (bool, error) {
		var err error
		if pods, err = e.GangPods(ctx, ns, name); err != nil {
			return false, err
		}
		running := 0
		for i := range pods {
			if pods[i].Spec.NodeName != "" && pods[i].Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == n, nil
	})
	return pods
}

// WaitGangCondition waits until the PodGang has the condition with the status (and the
// reason, when not empty), and returns the PodGang.
func (e *Env) WaitGangCondition(t testing.TB, ns, name, condType string, status metav1.ConditionStatus, reason string, timeout time.Duration) *schedv1.PodGang {
	t.Helper()
	var pg *schedv1.PodGang
	Eventually(t, timeout, fmt.Sprintf("PodGang %s condition %s=%s (%s)", name, condType, status, reason), func(ctx context.Context) (bool, error) {
		var err error
		if pg, err = e.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pg.Status.Conditions, condType)
		return c != nil && c.Status == status && (reason == "" || c.Reason == reason), nil
	})
	return pg
}

// DeletePodsNow deletes pods at once (grace period 0) and waits until they are gone.
func (e *Env) DeletePodsNow(t testing.TB, ns string, selector string) {
	t.Helper()
	ctx := context.Background()
	if err := e.Kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{LabelSelector: selector}); err != nil {
		t.Fatalf("deleting pods %q: %v", selector, err)
	}
	Eventually(t, 30*time.Second, "pods "+selector+" gone", func(ctx context.Context) (bool, error) {
		list, err := e.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		return err == nil && len(list.Items) == 0, err
	})
}
