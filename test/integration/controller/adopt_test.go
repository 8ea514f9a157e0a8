package controller

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/handoff"
	"github.com/phalanx-sched/phalanx/pkg/workload"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// groveManager is the app.kubernetes.io/managed-by value of Grove's operator.
const groveManager = "grove-operator"

// groveHash stands for Grove's pod-template-hash of a clique: Grove hashes its own Go types,
// so its hashes never equal Phalanx's; adoption compares them, it never computes them.
func groveHash(clique string) string { return "grove-" + clique }

// groveMade creates the children of pcs as Grove's operator makes them (as read from the
// objects it wrote for Grove's own e2e workloads on a kind cluster): every object labelled
// app.kubernetes.io/managed-by=grove-operator; pods named "<clique>-<random>" without the
// part-of label, owned by their PodClique, carrying Grove's hash, which their PodClique's label
// and status.currentPodTemplateHash also carry; a scaling group's PodCliques owned by the
// group; PodGangs naming the pods; the set's status.observedGeneration current. It returns the
// pods' names.
func groveMade(t *testing.T, env *framework.Env, pcs *grovev1.PodCliqueSet) []string {
	t.Helper()
	ctx := framework.Context(t)
	ns := pcs.Namespace
	world := workload.Desired(pcs, workload.Observed{})
	grove := func(l map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range l {
			out[k] = v
		}
		out[workload.LabelManagedBy] = groveManager
		delete(out, workload.LabelCliqueTemplate)
		return out
	}
	setOwner := metav1.NewControllerRef(pcs, grovev1.SchemeGroupVersion.WithKind("PodCliqueSet"))
	groupUID := map[string]*grovev1.PodCliqueScalingGroup{}
	for _, sg := range world.ScalingGroups {
		sg.Labels = grove(sg.Labels)
		got, err := env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).Create(ctx, sg, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		groupUID[sg.Name] = got
	}
	cliques := map[string]*grovev1.PodClique{}
	for _, pclq := range world.Cliques {
		template := pclq.Labels[workload.LabelCliqueTemplate]
		pclq.Labels = grove(pclq.Labels)
		pclq.Labels[grovev1.LabelPodTemplateHash] = groveHash(template)
		if sg := groupUID[pclq.Labels[grovev1.LabelPodCliqueScalingGroup]]; sg != nil {
			pclq.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(sg, grovev1.SchemeGroupVersion.WithKind("PodCliqueScalingGroup"))}
		} else {
			pclq.OwnerReferences = []metav1.OwnerReference{*setOwner}
		}
		got, err := env.Phalanx.GroveV1alpha1().PodCliques(ns).Create(ctx, pclq, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got.Status.CurrentPodTemplateHash = ptr.To(groveHash(template))
		got.Status.ObservedGeneration = ptr.To(got.Generation)
		if got, err = env.Phalanx.GroveV1alpha1().PodCliques(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		cliques[got.Name] = got
	}
	renamed := map[string]string{}
	var names []string
	var pods []*corev1.Pod
	for _, p := range world.Pods {
		pclq := cliques[p.Labels[grovev1.LabelPodClique]]
		name := pclq.Name + "-" + utilrand.String(5)
		renamed[p.Name] = name
		names = append(names, name)
		p.Name = name
		p.Labels = grove(p.Labels)
		delete(p.Labels, grovev1.LabelPodCliqueSet)
		p.Labels[grovev1.LabelPodTemplateHash] = pclq.Labels[grovev1.LabelPodTemplateHash]
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(pclq, grovev1.SchemeGroupVersion.WithKind("PodClique"))}
		pods = append(pods, p)
	}
	for _, g := range world.PodGangs {
		g.Labels = grove(g.Labels)
		for i := range g.Spec.PodGroups {
			for j, ref := range g.Spec.PodGroups[i].PodReferences {
				g.Spec.PodGroups[i].PodReferences[j] = schedv1.NamespacedName{Namespace: ref.Namespace, Name: renamed[ref.Name]}
			}
		}
		if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, svc := range world.Services {
		svc.Labels = grove(svc.Labels)
		if _, err := env.Kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sharing, err := workload.SharingOf(&pcs.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range world.Claims {
		owner := metav1.Object(pcs)
		switch sc.OwnerKind {
		case "PodClique":
			owner = cliques[sc.OwnerName]
		case "PodCliqueScalingGroup":
			owner = groupUID[sc.OwnerName]
		}
		claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: sc.Name, Namespace: ns,
			Labels:          grove(map[string]string{grovev1.LabelPodCliqueSet: pcs.Name, "app.kubernetes.io/component": workload.ComponentResourceClaim}),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, grovev1.SchemeGroupVersion.WithKind(sc.OwnerKind))}},
			Spec: sharing.Template(sc.Ref).Spec}
		if _, err := env.Kube.ResourceV1().ResourceClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pods {
		if _, err := env.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcs.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.ObservedGeneration = ptr.To(cur.Generation)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// sharedClaims are the UIDs, by name, of the namespace's shared claims that manager labels as
// its own.
func sharedClaims(t *testing.T, env *framework.Env, ns, manager string) map[string]string {
	t.Helper()
	list, err := env.Kube.ResourceV1().ResourceClaims(ns).List(context.Background(), metav1.ListOptions{LabelSelector: workload.LabelManagedBy + "=" + manager})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		out[c.Name] = string(c.UID)
	}
	return out
}

// podUIDs are the namespace's pods by name, with their UIDs, once all of them run.
func runningPods(ctx context.Context, env *framework.Env, ns string, want int) (map[string]string, bool, error) {
	list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, false, err
	}
	out := map[string]string{}
	for _, p := range list.Items {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			return nil, false, nil
		}
		out[p.Name] = string(p.UID)
	}
	return out, len(out) == want, nil
}

// groveSetRunning starts the scheduler on 16 GPU nodes named prefix-N and makes the
// disaggregated sample, with a claim per replica shared by its pods (shareFabric), as Grove's
// operator would (groveMade), its pods placed and Running:
// the namespace, the set, the pods' names and their UIDs by name.
func groveSetRunning(t *testing.T, env *framework.Env, prefix string) (string, *grovev1.PodCliqueSet, []string, map[string]string) {
	t.Helper()
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes(prefix, 16))
	env.StartScheduler(t, nil)
	// Grove's resourceSharing: a claim per replica shared by all its pods, from a
	// network-attached pool.
	sample := env.Sample(t, ns, "disaggregated.yaml")
	shareFabric(t, env, ns, sample)
	pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, sample, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := groveMade(t, env, pcs)
	var before map[string]string
	framework.Eventually(t, wait, fmt.Sprintf("Grove's %d pods placed and Running", len(names)), func(ctx context.Context) (bool, error) {
		var ok bool
		var err error
		before, ok, err = runningPods(ctx, env, ns, len(names))
		return ok, err
	})
	return ns, pcs, names, before
}

// A PodCliqueSet that Grove's operator made moves to Phalanx's controller in place: with
// --adopt-from=grove-operator every child is relabelled as Phalanx's, no pod is deleted or
// recreated (names, UIDs and indices kept), the pods Grove said are current are current for
// Phalanx, and the set is then Phalanx's to update.
func TestAdoptFromGroveKeepsEveryPod(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns, pcs, names, before := groveSetRunning(t, env, "adopt")

	claimsBefore := sharedClaims(t, env, ns, groveManager)
	env.StartController(t, func(c *controller.Controller) { c.SetAdoptFrom(groveManager) })
	env.WaitAvailable(t, ns, pcsName, 2, len(names))
	framework.Eventually(t, wait, "Grove's shared claims adopted, not made again", func(ctx context.Context) (bool, error) {
		return maps.Equal(sharedClaims(t, env, ns, workload.ManagedBy), claimsBefore), nil
	})
	hashes := workload.TemplateHashes(pcs)
	framework.Eventually(t, wait, "every pod Phalanx's, of the current template, with its name and UID", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		if len(list.Items) != len(before) {
			return false, fmt.Errorf("%d pods, want the %d Grove made", len(list.Items), len(before))
		}
		for _, p := range list.Items {
			if before[p.Name] != string(p.UID) {
				return false, fmt.Errorf("pod %s (%s) is not one Grove made: a pod was recreated", p.Name, p.UID)
			}
			if p.Labels[workload.LabelManagedBy] != workload.ManagedBy {
				return false, nil
			}
			if want := hashes[p.Labels[workload.LabelCliqueTemplate]]; p.Labels[grovev1.LabelPodTemplateHash] != want {
				return false, nil
			}
		}
		return true, nil
	})
	gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gangs.Items {
		if g.Labels[workload.LabelManagedBy] != workload.ManagedBy {
			t.Errorf("PodGang %s not adopted: managed-by %q", g.Name, g.Labels[workload.LabelManagedBy])
		}
		for _, pg := range g.Spec.PodGroups {
			for _, ref := range pg.PodReferences {
				if before[ref.Name] == "" {
					t.Errorf("PodGang %s names pod %s, not one Grove made", g.Name, ref.Name)
				}
			}
		}
	}
	events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + pcsName + ",reason=" + controller.ReasonAdopted})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) == 0 {
		t.Errorf("no %s event on the PodCliqueSet", controller.ReasonAdopted)
	}

	// The set is Phalanx's now: an update of one clique replaces its pods, by Phalanx's names.
	cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	frontend := -1
	for i, c := range cur.Spec.Template.Cliques {
		if c.Name == "frontend" {
			frontend = i
		}
	}
	if frontend < 0 {
		t.Fatal("the sample has no frontend clique")
	}
	spec := &cur.Spec.Template.Cliques[frontend].Spec.PodSpec
	spec.Containers[0].Env = append(spec.Containers[0].Env, corev1.EnvVar{Name: "ADOPTED", Value: "1"})
	if cur, err = env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	newHash := workload.TemplateHashes(cur)["frontend"]
	framework.Eventually(t, framework.UpdateTimeout, "the frontend pods replaced by Phalanx's, the others kept", func(ctx context.Context) (bool, error) {
		now, ok, err := runningPods(ctx, env, ns, len(before))
		if err != nil || !ok {
			return false, err
		}
		list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range list.Items {
			if p.Labels[workload.LabelCliqueTemplate] != "frontend" {
				if before[p.Name] != now[p.Name] {
					return false, fmt.Errorf("pod %s of another clique was replaced", p.Name)
				}
				continue
			}
			idx := p.Labels[grovev1.LabelPodCliquePodIndex]
			if p.Labels[grovev1.LabelPodTemplateHash] != newHash || p.Name != p.Labels[grovev1.LabelPodClique]+"-"+idx {
				return false, nil
			}
		}
		return true, nil
	})
}

// Without --adopt-from, a PodCliqueSet whose children Grove's operator made is left alone: no
// pod, PodClique or PodGang is written, and an event says why.
func TestGroveSetLeftAloneWithoutAdoption(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, env.Sample(t, ns, "disaggregated.yaml"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := groveMade(t, env, pcs)
	env.StartController(t, nil)
	framework.Eventually(t, wait, "a "+controller.ReasonManagedByAnotherOperator+" event", func(ctx context.Context) (bool, error) {
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + pcsName + ",reason=" + controller.ReasonManagedByAnotherOperator})
		return err == nil && len(events.Items) > 0, err
	})
	list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range list.Items {
		got = append(got, p.Name)
		if p.Labels[workload.LabelManagedBy] != groveManager {
			t.Errorf("pod %s relabelled: %v", p.Name, p.Labels)
		}
	}
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Errorf("pods %v, want Grove's %v untouched", got, names)
	}
	cur, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, pcsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.Status.Conditions) != 0 || cur.Status.CurrentGenerationHash != nil {
		t.Errorf("status written on a set Phalanx does not manage: %+v", cur.Status)
	}
}

// A set adopted from Grove's operator goes back to it with every pod: after
// `kubectl phalanx handback`, every child carries managed-by=grove-operator, the pods and
// PodCliques Grove's own template hash, and the PodCliques the status Grove last wrote, so
// that Grove's operator sees its objects at the revision it left them; Phalanx's controller
// (without --adopt-from) then leaves the set alone.
func TestHandBackToGrove(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns, _, names, before := groveSetRunning(t, env, "handback")
	claimsBefore := sharedClaims(t, env, ns, groveManager)
	stop := env.StartController(t, func(c *controller.Controller) { c.SetAdoptFrom(groveManager) })
	env.WaitAvailable(t, ns, pcsName, 2, len(names))
	stop()

	r, err := handoff.Handback(ctx, env.Kube, env.Phalanx, ns, pcsName, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.To != groveManager || r.Pods != len(names) || r.PodsWithTheirHash != len(names) || r.SpecChanged {
		t.Errorf("hand-back report %+v, want all %d pods to %s with Grove's hash", r, len(names), groveManager)
	}
	list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != len(before) {
		t.Errorf("%d pods after the hand-back, want %d", len(list.Items), len(before))
	}
	for _, p := range list.Items {
		if before[p.Name] != string(p.UID) {
			t.Errorf("pod %s (%s) is not one Grove made", p.Name, p.UID)
		}
		tmpl := p.Labels[workload.LabelCliqueTemplate]
		if p.Labels[workload.LabelManagedBy] != groveManager || p.Labels[grovev1.LabelPodTemplateHash] != groveHash(tmpl) {
			t.Errorf("pod %s: managed-by %q hash %q, want %q and Grove's %q", p.Name, p.Labels[workload.LabelManagedBy], p.Labels[grovev1.LabelPodTemplateHash], groveManager, groveHash(tmpl))
		}
	}
	cliques, err := env.Phalanx.GroveV1alpha1().PodCliques(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cliques.Items {
		want := c.Labels[grovev1.LabelPodTemplateHash]
		if c.Labels[workload.LabelManagedBy] != groveManager || !strings.HasPrefix(want, "grove-") || ptr.Deref(c.Status.CurrentPodTemplateHash, "") != want {
			t.Errorf("PodClique %s: managed-by %q, hash label %q, status.currentPodTemplateHash %q: want Grove's, as Grove wrote them", c.Name, c.Labels[workload.LabelManagedBy], want, ptr.Deref(c.Status.CurrentPodTemplateHash, ""))
		}
		if _, ok := c.Annotations[controller.AnnotationAdoptedStatus]; ok {
			t.Errorf("PodClique %s keeps the adoption record", c.Name)
		}
	}
	if got := sharedClaims(t, env, ns, groveManager); len(claimsBefore) == 0 || !maps.Equal(got, claimsBefore) {
		t.Errorf("shared claims handed back %v, want Grove's %v", got, claimsBefore)
	}
	env.StartController(t, nil)
	framework.Eventually(t, wait, "Phalanx's controller leaving the handed-back set alone", func(ctx context.Context) (bool, error) {
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + pcsName + ",reason=" + controller.ReasonManagedByAnotherOperator})
		return err == nil && len(events.Items) > 0, err
	})
}
