// Package handoff hands a PodCliqueSet that Phalanx's controller adopted (--adopt-from) back to
// the operator it came from, every pod kept: its children are relabelled with that operator's
// app.kubernetes.io/managed-by, and, while the set's spec is what it was at adoption, with the
// template hashes and the status that operator last wrote (recorded by the adoption), so that
// it sees its own objects at the revision it left them and starts no update.
// docs/operations.md, "Moving between Grove's operator and Phalanx".
package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Report is what a hand-back did.
type Report struct {
	// To is the operator the set was handed to.
	To string
	// Objects are the children relabelled (PodCliques, scaling groups, PodGangs, Services,
	// pods); Pods of them pods.
	Objects, Pods int
	// PodsWithTheirHash are the pods that got that operator's template hash back: of the
	// template the set asks for, which is the one the operator last saw. The others carry
	// Phalanx's hash, and the operator replaces them as pods of an older revision.
	PodsWithTheirHash int
	// SpecChanged: the set's spec changed since the adoption (its generation moved): the
	// operator's hashes and status no longer describe it, nothing of them is restored, and the
	// operator rolls every pod to the spec as it computes it.
	SpecChanged bool
}

// Handback hands PodCliqueSet ns/name back to operator to (empty: the one it was adopted
// from, its phalanx.dev/adopted-from annotation). Phalanx's controller must not adopt from
// that operator meanwhile (run it without --adopt-from, or scheduler-only), or it takes the
// set again.
func Handback(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, ns, name, to string) (Report, error) {
	sets := client.GroveV1alpha1().PodCliqueSets(ns)
	pcs, err := sets.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return Report{}, err
	}
	if to == "" {
		to = pcs.Annotations[controller.AnnotationAdoptedFrom]
	}
	if to == "" {
		return Report{}, fmt.Errorf("pcs/%s was not adopted from another operator (no %s annotation): name the operator to hand it to", name, controller.AnnotationAdoptedFrom)
	}
	if to == workload.ManagedBy {
		return Report{}, fmt.Errorf("pcs/%s: %q is Phalanx's own controller", name, to)
	}
	r := Report{To: to}
	gen, err := strconv.ParseInt(pcs.Annotations[controller.AnnotationAdoptedGeneration], 10, 64)
	r.SpecChanged = err != nil || gen != pcs.Generation
	restore := !r.SpecChanged && pcs.Annotations[controller.AnnotationAdoptedFrom] == to
	sel := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: name, workload.LabelManagedBy: workload.ManagedBy}).String()}
	forget := map[string]any{controller.AnnotationAdoptedFrom: nil, controller.AnnotationAdoptedTemplateHash: nil, controller.AnnotationAdoptedStatus: nil}
	patchOf := func(m metav1.Object, hash string) ([]byte, error) {
		l := map[string]any{workload.LabelManagedBy: to}
		if hash != "" {
			l[grovev1.LabelPodTemplateHash] = hash
		}
		return json.Marshal(map[string]any{"metadata": map[string]any{"labels": l, "annotations": forget, "resourceVersion": m.GetResourceVersion()}})
	}
	mp := types.MergePatchType

	// Scaling groups and PodCliques: their status as the operator wrote it, then the labels.
	groups, err := client.GroveV1alpha1().PodCliqueScalingGroups(ns).List(ctx, sel)
	if err != nil {
		return r, err
	}
	for i := range groups.Items {
		sg := &groups.Items[i]
		if restore && sg.Annotations[controller.AnnotationAdoptedStatus] != "" {
			if err := json.Unmarshal([]byte(sg.Annotations[controller.AnnotationAdoptedStatus]), &sg.Status); err != nil {
				return r, fmt.Errorf("PodCliqueScalingGroup %s: annotation %s: %w", sg.Name, controller.AnnotationAdoptedStatus, err)
			}
			if sg, err = client.GroveV1alpha1().PodCliqueScalingGroups(ns).UpdateStatus(ctx, sg, metav1.UpdateOptions{}); err != nil {
				return r, fmt.Errorf("restoring the status of PodCliqueScalingGroup %s: %w", groups.Items[i].Name, err)
			}
		}
		raw, err := patchOf(sg, "")
		if err != nil {
			return r, err
		}
		if _, err := client.GroveV1alpha1().PodCliqueScalingGroups(ns).Patch(ctx, sg.Name, mp, raw, metav1.PatchOptions{}); err != nil {
			return r, fmt.Errorf("handing back PodCliqueScalingGroup %s: %w", sg.Name, err)
		}
		r.Objects++
	}
	cliques, err := client.GroveV1alpha1().PodCliques(ns).List(ctx, sel)
	if err != nil {
		return r, err
	}
	// theirHash is, by clique template, the operator's hash of it (while restoring): read from
	// the PodCliques it made, given also to those Phalanx made from the same template since
	// (a scale-out), whose pods are then the operator's current ones too.
	theirHash := map[string]string{}
	if restore {
		for _, pclq := range cliques.Items {
			if h := pclq.Annotations[controller.AnnotationAdoptedTemplateHash]; h != "" {
				theirHash[pclq.Labels[workload.LabelCliqueTemplate]] = h
			}
		}
	}
	for i := range cliques.Items {
		pclq := &cliques.Items[i]
		hash := theirHash[pclq.Labels[workload.LabelCliqueTemplate]]
		if restore {
			if st := pclq.Annotations[controller.AnnotationAdoptedStatus]; st != "" {
				if err := json.Unmarshal([]byte(st), &pclq.Status); err != nil {
					return r, fmt.Errorf("PodClique %s: annotation %s: %w", pclq.Name, controller.AnnotationAdoptedStatus, err)
				}
				if pclq, err = client.GroveV1alpha1().PodCliques(ns).UpdateStatus(ctx, pclq, metav1.UpdateOptions{}); err != nil {
					return r, fmt.Errorf("restoring the status of PodClique %s: %w", cliques.Items[i].Name, err)
				}
			}
		}
		raw, err := patchOf(pclq, hash)
		if err != nil {
			return r, err
		}
		if _, err := client.GroveV1alpha1().PodCliques(ns).Patch(ctx, pclq.Name, mp, raw, metav1.PatchOptions{}); err != nil {
			return r, fmt.Errorf("handing back PodClique %s: %w", pclq.Name, err)
		}
		r.Objects++
	}

	gangs, err := client.SchedulerV1alpha1().PodGangs(ns).List(ctx, sel)
	if err != nil {
		return r, err
	}
	for i := range gangs.Items {
		raw, err := patchOf(&gangs.Items[i], "")
		if err != nil {
			return r, err
		}
		if _, err := client.SchedulerV1alpha1().PodGangs(ns).Patch(ctx, gangs.Items[i].Name, mp, raw, metav1.PatchOptions{}); err != nil {
			return r, fmt.Errorf("handing back PodGang %s: %w", gangs.Items[i].Name, err)
		}
		r.Objects++
	}
	svcs, err := kube.CoreV1().Services(ns).List(ctx, sel)
	if err != nil {
		return r, err
	}
	for i := range svcs.Items {
		raw, err := patchOf(&svcs.Items[i], "")
		if err != nil {
			return r, err
		}
		if _, err := kube.CoreV1().Services(ns).Patch(ctx, svcs.Items[i].Name, mp, raw, metav1.PatchOptions{}); err != nil {
			return r, fmt.Errorf("handing back Service %s: %w", svcs.Items[i].Name, err)
		}
		r.Objects++
	}

	// Shared claims (Grove's resourceSharing), where the API server serves DRA.
	claims, err := kube.ResourceV1().ResourceClaims(ns).List(ctx, sel)
	if err != nil && !apierrors.IsNotFound(err) {
		return r, err
	}
	if claims != nil {
		for i := range claims.Items {
			raw, err := patchOf(&claims.Items[i], "")
			if err != nil {
				return r, err
			}
			if _, err := kube.ResourceV1().ResourceClaims(ns).Patch(ctx, claims.Items[i].Name, mp, raw, metav1.PatchOptions{}); err != nil {
				return r, fmt.Errorf("handing back ResourceClaim %s: %w", claims.Items[i].Name, err)
			}
			r.Objects++
		}
	}

	// Pods: a pod of the template the set asks for (Phalanx's hash of it) gets the operator's
	// hash of the same template, whether the operator or Phalanx made it.
	current := workload.TemplateHashes(pcs)
	pods, err := kube.CoreV1().Pods(ns).List(ctx, sel)
	if err != nil {
		return r, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		hash := ""
		tmpl := p.Labels[workload.LabelCliqueTemplate]
		if h := theirHash[tmpl]; h != "" && p.Labels[grovev1.LabelPodTemplateHash] == current[tmpl] {
			hash = h
			r.PodsWithTheirHash++
		}
		raw, err := patchOf(p, hash)
		if err != nil {
			return r, err
		}
		if _, err := kube.CoreV1().Pods(ns).Patch(ctx, p.Name, mp, raw, metav1.PatchOptions{}); err != nil {
			return r, fmt.Errorf("handing back pod %s: %w", p.Name, err)
		}
		r.Objects++
		r.Pods++
	}

	// The set last: its status as the operator wrote it, and the adoption record dropped.
	if restore && pcs.Annotations[controller.AnnotationAdoptedStatus] != "" {
		if err := json.Unmarshal([]byte(pcs.Annotations[controller.AnnotationAdoptedStatus]), &pcs.Status); err != nil {
			return r, fmt.Errorf("pcs/%s: annotation %s: %w", name, controller.AnnotationAdoptedStatus, err)
		}
		if pcs, err = sets.UpdateStatus(ctx, pcs, metav1.UpdateOptions{}); err != nil {
			return r, fmt.Errorf("restoring the status of pcs/%s: %w", name, err)
		}
	}
	raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		controller.AnnotationAdoptedFrom: nil, controller.AnnotationAdoptedGeneration: nil, controller.AnnotationAdoptedStatus: nil,
	}}})
	if err != nil {
		return r, err
	}
	if _, err := sets.Patch(ctx, name, mp, raw, metav1.PatchOptions{}); err != nil {
		return r, fmt.Errorf("dropping the adoption record of pcs/%s: %w", name, err)
	}
	return r, nil
}

// String is the report as the CLI prints it.
func (r Report) String() string {
	s := fmt.Sprintf("handed to %s: %d objects relabelled, %d pods, %d of them with %s's template hash", r.To, r.Objects, r.Pods, r.PodsWithTheirHash, r.To)
	switch {
	case r.SpecChanged:
		s += fmt.Sprintf("; the spec changed since the adoption: %s replaces the pods as an update", r.To)
	case r.PodsWithTheirHash < r.Pods:
		s += fmt.Sprintf("; %s replaces the other %d as pods of an older revision", r.To, r.Pods-r.PodsWithTheirHash)
	}
	return s
}
