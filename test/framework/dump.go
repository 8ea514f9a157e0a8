package framework

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// dumpNamespace logs what a failed test left in namespace ns: each pod (node, phase, gang and
// slice labels, why it is not scheduled) and each PodGang (its podgroups, reservation and
// conditions), so that a failure seen once in CI can be read from its log.
func (e *Env) dumpNamespace(t testing.TB, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b strings.Builder
	fmt.Fprintf(&b, "namespace %s at the failure:\n", ns)
	if pods, err := e.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
		fmt.Fprintf(&b, "  pods: %v\n", err)
	} else {
		for _, p := range pods.Items {
			why := ""
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
					why = c.Reason + ": " + c.Message
				}
			}
			deleting := ""
			if p.DeletionTimestamp != nil {
				deleting = " deleting"
			}
			fmt.Fprintf(&b, "  pod %s uid=%s node=%q phase=%s%s gang=%q slice=%q %s\n", p.Name, p.UID, p.Spec.NodeName, p.Status.Phase, deleting,
				p.Labels[grovev1.LabelPodGang], p.Labels[grovev1.LabelCoherentSlice], why)
		}
	}
	if gangs, err := e.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{}); err != nil {
		fmt.Fprintf(&b, "  podgangs: %v\n", err)
	} else {
		for _, g := range gangs.Items {
			var groups []string
			for _, pg := range g.Spec.PodGroups {
				groups = append(groups, fmt.Sprintf("%s(min %d, %d pods)", pg.Name, pg.MinReplicas, len(pg.PodReferences)))
			}
			var conds []string
			for _, c := range g.Status.Conditions {
				conds = append(conds, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
			}
			reuse := ""
			if r := g.Spec.ReuseReservationRef; r != nil {
				reuse = r.Namespace + "/" + r.Name
			}
			fmt.Fprintf(&b, "  podgang %s groups=%v reservation=%q reuse=%q conditions=%v\n", g.Name, groups,
				g.Annotations[schedv1.AnnotationReservation], reuse, conds)
		}
	}
	// One line a call: each carries the dump.go: prefix that hack/test-summary.sh repeats at the
	// end of a failed run (CI keeps the tail).
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		t.Log(line)
	}
}
