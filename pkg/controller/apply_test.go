package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	phalanxfake "github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned/fake"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// A PodClique that already exists in the API server but not yet in the informer (made by an
// earlier pass, or seen again after an API server restart) is not taken as the owner of new
// pods in this pass: the typed client answers AlreadyExists with an empty object, and pods
// owned by it are refused by the API server ("ownerReferences[0].name: Required value"), in a
// loop. The pod waits for the pass that sees its PodClique.
func TestPodNotOwnedByCliqueThatAlreadyExisted(t *testing.T) {
	pcs := &grovev1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "pcs-uid"}, Spec: grovev1.PodCliqueSetSpec{Replicas: 1}}
	clique := &grovev1.PodClique{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0-worker", UID: "clique-uid"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0-worker-0", Labels: map[string]string{
		grovev1.LabelPodClique: "w-0-worker", grovev1.LabelPodCliqueSetReplicaIndex: "0"}}}
	kube := kubefake.NewClientset()
	c := New(kube, phalanxfake.NewSimpleClientset(clique.DeepCopy()), nil)
	obs := &observed{cliques: map[string]*grovev1.PodClique{}, groups: map[string]*grovev1.PodCliqueScalingGroup{},
		pods: map[string]*corev1.Pod{}}
	want := &workload.World{Cliques: []*grovev1.PodClique{clique}, Pods: []*corev1.Pod{pod}}
	a := &applier{c: c, ctx: context.Background(), pcs: pcs}
	if err := a.apply(obs, want, &rollout{creates: map[string]bool{pod.Name: true}}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	pods, err := kube.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		for _, ref := range p.OwnerReferences {
			if ref.Name == "" || ref.UID == "" {
				t.Errorf("pod %s created with owner reference %+v: no name or UID", p.Name, ref)
			}
		}
	}
	if _, seen := obs.cliques[clique.Name]; seen {
		t.Errorf("the PodClique that already existed recorded as observed: %+v", obs.cliques[clique.Name].ObjectMeta)
	}
}

// A create answered AlreadyExists (the object was made by a pass the cache has not shown yet)
// is not a create of this pass: the AfterCreate hook (a test's crash point, a count of the
// leader's writes) and the pass's "Created" counts see only the objects it made.
func TestAlreadyExistsIsNotACreate(t *testing.T) {
	pcs := &grovev1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "pcs-uid"}, Spec: grovev1.PodCliqueSetSpec{Replicas: 1}}
	existing := &grovev1.PodClique{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0-a", UID: "a-uid"}}
	fresh := &grovev1.PodClique{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0-b"}}
	c := New(kubefake.NewClientset(), phalanxfake.NewSimpleClientset(existing.DeepCopy()), nil)
	hooked := 0
	c.AfterCreate = func() error { hooked++; return nil }
	obs := &observed{cliques: map[string]*grovev1.PodClique{}, groups: map[string]*grovev1.PodCliqueScalingGroup{},
		pods: map[string]*corev1.Pod{}}
	a := &applier{c: c, ctx: context.Background(), pcs: pcs}
	if err := a.apply(obs, &workload.World{Cliques: []*grovev1.PodClique{existing, fresh}}, &rollout{}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if hooked != 1 || a.created["PodClique"] != 1 {
		t.Errorf("AfterCreate ran %d times and %d PodCliques counted as created; want 1 and 1 (one of the two already existed)", hooked, a.created["PodClique"])
	}
	if a.firstWrite.IsZero() {
		t.Errorf("the pass's first write was not noted")
	}
}
