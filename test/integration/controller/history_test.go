package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/inspect"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// The template history: one ControllerRevision per template the PodCliqueSet rolled to,
// numbered in order, named by status.updateRevision and status.completeRevision; `rollout
// undo` sets the previous template back and the controller rolls to it (its revision is
// renumbered, not duplicated); an unknown --to-revision is refused with the revisions there
// are; beyond revisionHistoryLimit the oldest revisions go, never the current or the complete
// one.
func TestRevisionHistoryAndUndo(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("history", 4))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.Workers(ns, "w", 1, 0, 600)
	pcs.Spec.RevisionHistoryLimit = ptr.To[int32](1)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "w", 1, 3)
	image := func(v string) string { return "registry.example.com/llm/worker:" + v }
	history := func() (*grovev1.PodCliqueSet, []inspect.Revision) {
		t.Helper()
		p, revs, _, err := inspect.LoadHistory(ctx, env.Kube, env.Phalanx, ns, "w")
		if err != nil {
			t.Fatal(err)
		}
		return p, revs
	}
	// waitRevisions waits until the history is want ("number:image" from oldest) with the last
	// entry current (the update to it complete).
	waitRevisions := func(want string) []inspect.Revision {
		t.Helper()
		var revs []inspect.Revision
		framework.Eventually(t, wait, "revisions "+want, func(ctx context.Context) (bool, error) {
			var p *grovev1.PodCliqueSet
			p, revs = history()
			var got []string
			for _, r := range revs {
				got = append(got, fmt.Sprintf("%d:%s", r.Number, strings.TrimPrefix(r.Images[0], "worker=registry.example.com/llm/worker:")))
			}
			last := revs[len(revs)-1]
			return strings.Join(got, " ") == want && last.Update && last.Complete &&
				p.Status.UpdateRevision == last.Name && p.Status.UpdateRevision == controller.RevisionName("w", p.Status.CurrentRevision), nil
		})
		return revs
	}
	waitRevisions("1:v1")
	env.SetImage(t, ns, "w", image("v2"))
	env.WaitUpdated(t, ns, "w", image("v2"), 3)
	waitRevisions("1:v1 2:v2")

	// Undo: back to v1, which becomes revision 3.
	to, err := inspect.Undo(ctx, env.Kube, env.Phalanx, ns, "w", 0)
	if err != nil || to != 1 {
		t.Fatalf("undo: revision %d, %v; want 1", to, err)
	}
	env.WaitUpdated(t, ns, "w", image("v1"), 3)
	revs := waitRevisions("2:v2 3:v1")
	if p, _ := history(); p.Annotations[controller.AnnotationChangeCause] != "kubectl phalanx rollout undo --to-revision=1" || revs[1].ChangeCause != p.Annotations[controller.AnnotationChangeCause] {
		t.Errorf("change cause %q on the PodCliqueSet, %q on the revision", p.Annotations[controller.AnnotationChangeCause], revs[1].ChangeCause)
	}
	if _, err := inspect.Undo(ctx, env.Kube, env.Phalanx, ns, "w", 7); err == nil || !strings.Contains(err.Error(), "--to-revision 7: PodCliqueSet w has no such revision (recorded: [2 3])") {
		t.Errorf("undo to an unknown revision: %v", err)
	}

	// revisionHistoryLimit 1: v3 and v4 push v2 out; the current and the complete revision
	// stay whatever the limit.
	env.SetImage(t, ns, "w", image("v3"))
	env.WaitUpdated(t, ns, "w", image("v3"), 3)
	waitRevisions("3:v1 4:v3")
	env.SetImage(t, ns, "w", image("v4"))
	env.WaitUpdated(t, ns, "w", image("v4"), 3)
	waitRevisions("4:v3 5:v4")
}

// updateStrategy.rollbackOnFailure: an update whose new pods can fit no node makes no step for
// its 2 s progress deadline; the controller sets the last complete template back (the members
// of that revision are never touched), reports Progressing=False/RolledBack with the reason,
// records a RolledBack event, and the rollback's own update completes (no surge left,
// UpdateInProgress False). A new template change by the user clears the record.
func TestRollbackOnFailure(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("rollback", 4))
	env.StartScheduler(t, nil)
	env.StartController(t, nil)
	pcs := framework.Workers(ns, "w", 1, 0, 2)
	pcs.Spec.UpdateStrategy.RollbackOnFailure = true
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "w", 1, 3)
	env.WaitRevisionComplete(t, ns, "w")
	before := podIdentities(t, env, ns, "w")
	env.UpdatePCS(t, ns, "w", func(p *grovev1.PodCliqueSet) {
		c := &p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0]
		c.Image = "registry.example.com/llm/worker:v2"
		c.Resources.Limits["nvidia.com/gpu"] = resource.MustParse("16") // no node has 16
	})
	p := waitProgressing(t, env, ns, "w", grovev1.ReasonRolledBack, metav1.ConditionFalse)
	if c := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionProgressing); !strings.Contains(c.Message, "no update step for 2s (progressDeadlineSeconds)") {
		t.Errorf("Progressing message %q does not say why", c.Message)
	}
	if got := p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0]; got.Image != "registry.example.com/llm/worker:v1" || got.Resources.Limits.Name("nvidia.com/gpu", resource.DecimalSI).Value() != 8 {
		t.Errorf("template after the rollback: %s, %v", got.Image, got.Resources.Limits)
	}
	rec, ok := controller.RolledBack(p)
	if !ok || rec.To != p.Status.CompleteRevision || rec.From == rec.To {
		t.Errorf("rollback record %+v (ok %v), complete revision %s", rec, ok, p.Status.CompleteRevision)
	}
	framework.Eventually(t, wait, "RolledBack event", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=w,reason=" + grovev1.ReasonRolledBack})
		return err == nil && len(list.Items) > 0, err
	})
	framework.Eventually(t, wait, "the rollback's update complete, the v1 members untouched", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "w", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		u := meta.FindStatusCondition(p.Status.Conditions, grovev1.ConditionUpdateInProgress)
		return u != nil && u.Status == metav1.ConditionFalse && fmt.Sprint(podIdentities(t, env, ns, "w")) == fmt.Sprint(before), nil
	})
	// A new change by the user clears the record and the condition. It also lifts the 2 s
	// deadline: with rollbackOnFailure still on, a healthy step that takes 2 s on a loaded
	// machine would be rolled back.
	env.UpdatePCS(t, ns, "w", func(p *grovev1.PodCliqueSet) {
		p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "registry.example.com/llm/worker:v3"
		p.Spec.UpdateStrategy.ProgressDeadlineSeconds = ptr.To[int32](600)
	})
	env.WaitUpdated(t, ns, "w", "registry.example.com/llm/worker:v3", 3)
	p = waitProgressing(t, env, ns, "w", "UpdateComplete", metav1.ConditionTrue)
	if _, ok := controller.RolledBack(p); ok {
		t.Error("the rollback record outlived a new template change")
	}
}

// rollingUpdate.partition 2 of 3 replicas: an update reaches replica 2 only (a canary); the
// replicas below keep the complete revision, a lost member of theirs comes back from it (after
// a restart of the controller too), and
// Progressing says Partitioned (no deadline, updatedReplicas 1); lowering the partition to 0
// completes the update, and the complete revision moves.
func TestPartition(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("partition", 4))
	env.StartScheduler(t, nil)
	stopController := env.StartController(t, nil)
	pcs := framework.Workers(ns, "p", 1, 0, 600)
	pcs.Spec.Replicas = 3
	pcs.Spec.Template.Cliques[0].Spec.Replicas = 1
	pcs.Spec.UpdateStrategy.RollingUpdate = &grovev1.RollingUpdateBudget{Partition: ptr.To[int32](2)}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "p", 3, 3)
	v1Revision := env.WaitRevisionComplete(t, ns, "p")
	before := podIdentities(t, env, ns, "p")
	env.SetImage(t, ns, "p", "registry.example.com/llm/worker:v2")
	p := waitProgressing(t, env, ns, "p", controller.ReasonPartitioned, metav1.ConditionTrue)
	now := podIdentities(t, env, ns, "p")
	for _, name := range []string{"p-0-worker-0", "p-1-worker-0"} {
		if now[name] != before[name] {
			t.Errorf("%s below the partition changed: %q -> %q", name, before[name], now[name])
		}
	}
	if !strings.HasSuffix(now["p-2-worker-0"], "worker:v2") || len(now) != 3 {
		t.Errorf("replica 2 not updated, or a surge left: %v", now)
	}
	if p.Status.UpdatedReplicas != 1 || p.Status.CompleteRevision != v1Revision {
		t.Errorf("updatedReplicas %d (want 1), completeRevision %s (want the held %s)", p.Status.UpdatedReplicas, p.Status.CompleteRevision, v1Revision)
	}
	// The controller restarted here keeps holding (the hold is read from the status and the
	// revision, not remembered), and a member below the partition that is lost comes back from
	// the held template.
	stopController()
	env.StartController(t, nil)
	if err := env.Kube.CoreV1().Pods(ns).Delete(ctx, "p-0-worker-0", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "p-0-worker-0 recreated at v1", func(ctx context.Context) (bool, error) {
		got := podIdentities(t, env, ns, "p")["p-0-worker-0"]
		return got != "" && got != before["p-0-worker-0"] && strings.HasSuffix(got, "worker:v1"), nil
	})
	// Lowering the partition goes on to the end.
	env.UpdatePCS(t, ns, "p", func(p *grovev1.PodCliqueSet) { p.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0) })
	env.WaitUpdated(t, ns, "p", "registry.example.com/llm/worker:v2", 3)
	p = waitProgressing(t, env, ns, "p", "UpdateComplete", metav1.ConditionTrue)
	framework.Eventually(t, wait, "the complete revision moved", func(ctx context.Context) (bool, error) {
		p, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "p", metav1.GetOptions{})
		return err == nil && p.Status.CompleteRevision == p.Status.UpdateRevision && p.Status.CompleteRevision != v1Revision && p.Status.UpdatedReplicas == 3, err
	})
}
