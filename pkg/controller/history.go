package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// DefaultRevisionHistoryLimit is spec.revisionHistoryLimit when unset.
const DefaultRevisionHistoryLimit = 10

// AnnotationChangeCause is copied from the PodCliqueSet to the revision its template makes, as
// kubectl does for Deployments, so that the history says why each template came.
const AnnotationChangeCause = "kubernetes.io/change-cause"

// RevisionName is the name of the ControllerRevision of a template whose revision hash is rev.
func RevisionName(pcs string, rev string) string { return pcs + "-" + rev }

// RevisionData is what a ControllerRevision of a PodCliqueSet holds.
type RevisionData struct {
	Template grovev1.PodCliqueSetTemplateSpec `json:"template"`
}

// RevisionTemplate reads the template a ControllerRevision of a PodCliqueSet holds.
func RevisionTemplate(cr *appsv1.ControllerRevision) (*grovev1.PodCliqueSetTemplateSpec, error) {
	var d RevisionData
	if err := json.Unmarshal(cr.Data.Raw, &d); err != nil {
		return nil, fmt.Errorf("reading revision %s: %w", cr.Name, err)
	}
	return &d.Template, nil
}

// revisionTemplate returns the ControllerRevision name of namespace ns and its template; nil
// and no error when it is gone.
func (c *Controller) revisionTemplate(ns, name string) (*appsv1.ControllerRevision, *grovev1.PodCliqueSetTemplateSpec, error) {
	cr, err := c.revisions.ControllerRevisions(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	t, err := RevisionTemplate(cr)
	return cr, t, err
}

// Revisions lists the ControllerRevisions of a PodCliqueSet (labelled with its name and owned
// by it), oldest revision number first.
func Revisions(list []*appsv1.ControllerRevision, pcs *grovev1.PodCliqueSet) []*appsv1.ControllerRevision {
	var out []*appsv1.ControllerRevision
	for _, cr := range list {
		if cr.Labels[grovev1.LabelPodCliqueSet] != pcs.Name {
			continue
		}
		if ref := metav1.GetControllerOf(cr); ref == nil || ref.UID != pcs.UID {
			continue
		}
		out = append(out, cr)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Revision != out[j].Revision {
			return out[i].Revision < out[j].Revision
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// syncHistory keeps the template history of pcs as ControllerRevisions (apps/v1): one per
// distinct template, named RevisionName(pcs, rev), the template as data, numbered in the order
// the PodCliqueSet moved to them. The revision of the current template exists and has the
// highest number: a template the PodCliqueSet returns to (a rollback) gets a new number, as a
// Deployment's does. Beyond spec.revisionHistoryLimit, the oldest revisions are deleted, never
// the current one nor the last complete one (keep). It returns the current revision's name.
func (c *Controller) syncHistory(ctx context.Context, pcs *grovev1.PodCliqueSet, rev string, keep string) (string, error) {
	all, err := c.revisions.ControllerRevisions(pcs.Namespace).List(labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: pcs.Name}))
	if err != nil {
		return "", err
	}
	history := Revisions(all, pcs)
	name := RevisionName(pcs.Name, rev)
	var current *appsv1.ControllerRevision
	var highest int64
	for _, cr := range history {
		highest = max(highest, cr.Revision)
		if cr.Name == name {
			current = cr
		}
	}
	switch {
	case current == nil:
		data, err := json.Marshal(RevisionData{Template: pcs.Spec.Template})
		if err != nil {
			return "", fmt.Errorf("encoding the template of %s: %w", pcs.Name, err)
		}
		cr := &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: pcs.Namespace, Name: name,
				Labels:          map[string]string{grovev1.LabelPodCliqueSet: pcs.Name, workload.LabelManagedBy: workload.ManagedBy},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(pcs, grovev1.SchemeGroupVersion.WithKind("PodCliqueSet"))}},
			Data:     runtime.RawExtension{Raw: data},
			Revision: highest + 1,
		}
		if cause := pcs.Annotations[AnnotationChangeCause]; cause != "" {
			cr.Annotations = map[string]string{AnnotationChangeCause: cause}
		}
		if _, err := c.kube.AppsV1().ControllerRevisions(pcs.Namespace).Create(ctx, cr, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("recording revision %s: %w", name, err)
		}
		// AlreadyExists: this cache is behind; the next pass sees it.
		highest++
	case current.Revision < highest:
		upd := current.DeepCopy()
		upd.Revision = highest + 1
		if cause := pcs.Annotations[AnnotationChangeCause]; cause != "" {
			if upd.Annotations == nil {
				upd.Annotations = map[string]string{}
			}
			upd.Annotations[AnnotationChangeCause] = cause
		}
		if _, err := c.kube.AppsV1().ControllerRevisions(pcs.Namespace).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
			return "", fmt.Errorf("renumbering revision %s: %w", name, err)
		}
		highest++
	}
	limit := int(ptr.Deref(pcs.Spec.RevisionHistoryLimit, DefaultRevisionHistoryLimit))
	var old []*appsv1.ControllerRevision
	for _, cr := range history {
		if cr.Name != name && cr.Name != keep {
			old = append(old, cr)
		}
	}
	for i := 0; i < len(old)-limit; i++ {
		err := c.kube.AppsV1().ControllerRevisions(pcs.Namespace).Delete(ctx, old[i].Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &old[i].UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("pruning revision %s: %w", old[i].Name, err)
		}
		klog.FromContext(ctx).V(2).Info("Pruned a revision beyond revisionHistoryLimit", "podCliqueSet", klog.KObj(pcs), "revision", old[i].Name, "number", old[i].Revision, "limit", limit)
	}
	return name, nil
}
