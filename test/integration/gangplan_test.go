package integration

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// A gang whose total fits the free capacity but whose members do not fit the nodes (two
// whole-node members and one more on two 8-GPU and two 4-GPU nodes: 24 GPUs free for 24) is
// found out by the one-pass plan before any member holds a node: no member waits in Permit or
// is released from it, and the PodGang says which podgroup fits nowhere. A node that makes
// room places the gang whole.
func TestGangWithNoPlacementHoldsNothing(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("frag-big", 2, 8))
	env.AddNodes(t, nodes("frag-small", 2, 4))
	g := framework.Gang{Namespace: ns, Name: "whole", Groups: []framework.Group{{Name: "w", Pods: 3, MinReplicas: 3, GPUs: 8}}}
	before := framework.ReadGangAttempts(t, gang.KindPodGang.String())
	env.CreateGang(t, g)
	pg := env.WaitGangCondition(t, ns, g.Name, schedv1.ConditionUnschedulable, metav1.ConditionTrue, gang.ReasonInsufficient, wait)
	c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable)
	if !strings.Contains(c.Message, "has no placement for the 3 members its quorum needs") || !strings.Contains(c.Message, "podgroup w fits no node") ||
		!strings.Contains(c.Message, "Insufficient nvidia.com/gpu") {
		t.Errorf("Unschedulable message %q does not say that no placement exists for the whole gang and why", c.Message)
	}
	now := framework.ReadGangAttempts(t, gang.KindPodGang.String())
	if now.PermitWaits != before.PermitWaits || now.PermitRejections != before.PermitRejections {
		t.Errorf("members of a gang with no placement held nodes: Permit waits +%v, rejections +%v; want none",
			now.PermitWaits-before.PermitWaits, now.PermitRejections-before.PermitRejections)
	}
	if now.Backoffs-before.Backoffs < 1 {
		t.Errorf("the gang with no placement did not back off as a whole")
	}
	pods, err := env.GangPods(context.Background(), ns, g.Name)
	if err != nil {
		t.Fatal(err)
	}
	if n := framework.CountBound(pods); n != 0 {
		t.Fatalf("%d members bound, want 0", n)
	}
	env.AddNodes(t, nodes("frag-more", 1, 8))
	env.WaitGangBound(t, ns, g.Name, 3, wait)
}

// Each member of a gang placed by the plan is written once on its way to its node: the bind.
// No status.nominatedNodeName while it waits for its quorum (Phalanx's default for
// NominatedNodeNameForExpectation), no PodScheduled=False from a member tried before its gang
// could be placed, and no per-pod Scheduled event (the gang's event names the members).
func TestGangMembersWrittenOnlyByTheBind(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("once", 3, 8))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.Kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	g := leaderWorkers(ns, "lw")
	env.CreateGang(t, g)
	updates := map[string]int{}
	bound := map[string]bool{}
	for len(bound) < 5 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the pod watch ended with %d of 5 members bound", len(bound))
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod || ev.Type != watch.Modified || bound[pod.Name] {
				continue
			}
			updates[pod.Name]++
			if pod.Spec.NodeName != "" {
				bound[pod.Name] = true
			} else {
				t.Errorf("member %s written before its bind: nominatedNodeName %q, conditions %v", pod.Name, pod.Status.NominatedNodeName, pod.Status.Conditions)
			}
		case <-ctx.Done():
			t.Fatalf("%d of 5 members bound after %v", len(bound), wait)
		}
	}
	for name, n := range updates {
		if n != 1 {
			t.Errorf("member %s: %d writes until bound, want 1 (the bind)", name, n)
		}
	}
	// Events: the PodGang's Scheduled event names every member and its node; the members have
	// no Scheduled event of their own (events are written in order, so by the time the gang's
	// is there, a member's would be too).
	waitEvent(t, env, ns, g.Name, "Scheduled")
	evs, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs.Items {
		switch {
		case ev.InvolvedObject.Kind == "Pod" && ev.Reason == "Scheduled":
			t.Errorf("member %s has its own Scheduled event %q; the gang's event stands for it", ev.InvolvedObject.Name, ev.Message)
		case ev.InvolvedObject.Kind == "PodGang" && ev.Reason == "Scheduled":
			for name := range bound {
				if !strings.Contains(ev.Message, name+" on ") {
					t.Errorf("the gang's Scheduled event %q does not name member %s and its node", ev.Message, name)
				}
			}
		}
	}
}
