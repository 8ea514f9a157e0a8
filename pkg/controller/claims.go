package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/served"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Reasons of the events about Grove's resource sharing.
const (
	ReasonInvalidResourceSharing = "InvalidResourceSharing"
	ReasonClaimTemplateNotFound  = "ResourceClaimTemplateNotFound"
)

// watchClaims reads the ResourceClaims this controller makes for Grove's resource sharing
// (resource.k8s.io/v1, label-filtered to its own), when the API server serves them. Without
// DRA's API nothing is read and no claim is made (a set that shares claims gets an event).
// Call before the factories start.
func (c *Controller) watchClaims(ctx context.Context) {
	ok, err := served.Resource(c.kube.Discovery(), resourcev1.SchemeGroupVersion.WithResource("resourceclaims"))
	if err != nil || !ok {
		klog.FromContext(ctx).V(2).Info("The API server serves no resource.k8s.io/v1 ResourceClaims; Grove's resourceSharing makes no claims", "err", err)
		return
	}
	inf := c.kubeFactory.Resource().V1().ResourceClaims().Informer()
	c.index.claims = addSetIndex(inf, cache.Indexers{indexForeignBySet: foreignSetIndex})
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwnerAfterStatus,
		UpdateFunc: func(_, o any) { c.enqueueOwnerAfterStatus(o) },
		DeleteFunc: c.enqueueOwner,
	})
	c.synced = append(c.synced, inf.HasSynced)
}

// enqueueOwnerAfterStatus brings a pass a moment later: a claim appearing or being allocated
// is this controller's own write or the scheduler's, and plans nothing at once.
func (c *Controller) enqueueOwnerAfterStatus(obj any) { c.enqueueOwnerAfter(obj, statusOnlyDelay) }

// applyClaims creates the shared claims the world asks for that do not exist, each from its
// template (the set's resourceClaimTemplates, else a ResourceClaimTemplate object), owned by the
// object it is shared under (the set, a scaling group or a PodClique: it goes with it). A claim
// whose owner the cache does not show yet is made by a later pass; one whose template cannot
// be read gets an event and is looked for again (claimTemplateRetry): the pods that reference
// it wait for it, the rest of the set goes on.
func (a *applier) applyClaims(obs *observed, want *workload.World) error {
	if len(want.Claims) == 0 {
		return nil
	}
	c, ns := a.c, a.pcs.Namespace
	sharing, err := workload.SharingOf(&a.pcs.Spec.Template)
	if err != nil {
		c.warn(a.pcs, ReasonInvalidResourceSharing, err.Error())
	} else {
		c.clearWarning(a.pcs, ReasonInvalidResourceSharing)
	}
	if c.index.claims == nil {
		c.warn(a.pcs, ReasonInvalidResourceSharing, "resourceSharing asks for ResourceClaims, but the API server serves no resource.k8s.io/v1 (DRA): none is made")
		return nil
	}
	var errs []error
	var missing []string // claims whose template cannot be read
	for _, sc := range want.Claims {
		if obs.claims[sc.Name] != nil {
			continue
		}
		var owner metav1.Object
		var gvk = grovev1.SchemeGroupVersion.WithKind(sc.OwnerKind)
		switch sc.OwnerKind {
		case "PodCliqueSet":
			owner = a.pcs
		case "PodClique":
			if x := obs.cliques[sc.OwnerName]; x != nil && x.UID != "" {
				owner = x
			}
		case "PodCliqueScalingGroup":
			if x := obs.groups[sc.OwnerName]; x != nil && x.UID != "" {
				owner = x
			}
		}
		if owner == nil {
			continue // made once its owner shows in the cache
		}
		spec := sharing.Template(sc.Ref)
		if spec == nil {
			tns := sc.Ref.Namespace
			if tns == "" {
				tns = ns
			}
			t, err := c.kube.ResourceV1().ResourceClaimTemplates(tns).Get(a.ctx, sc.Ref.Name, metav1.GetOptions{})
			if err != nil {
				missing = append(missing, fmt.Sprintf("%s (ResourceClaimTemplate %s/%s: %v)", sc.Name, tns, sc.Ref.Name, err))
				continue
			}
			spec = &t.Spec
		}
		claim := &resourcev1.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Name: sc.Name, Namespace: ns, Labels: map[string]string{
				grovev1.LabelPodCliqueSet: a.pcs.Name, workload.LabelManagedBy: workload.ManagedBy, labelComponent: workload.ComponentResourceClaim},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, gvk)}},
			Spec: *spec.Spec.DeepCopy(),
		}
		_, err := c.kube.ResourceV1().ResourceClaims(ns).Create(a.ctx, claim, metav1.CreateOptions{})
		if err := ignoreExists(err); err != nil {
			errs = append(errs, fmt.Errorf("creating ResourceClaim %s: %w", sc.Name, err))
			continue
		}
		if err := a.afterCreate("ResourceClaim", err); err != nil {
			errs = append(errs, err)
		}
	}
	if len(missing) > 0 {
		// The rest of the set goes on (its pods that reference such a claim wait for it); no
		// event says when a template appears, so look again.
		c.warn(a.pcs, ReasonClaimTemplateNotFound, fmt.Sprintf("not made, their template is neither in spec.template.resourceClaimTemplates nor readable: %s", strings.Join(missing, "; ")))
		c.queue.AddAfter(a.key(), claimTemplateRetry)
	} else {
		c.clearWarning(a.pcs, ReasonClaimTemplateNotFound)
	}
	return errors.Join(errs...)
}

// claimTemplateRetry is how soon a pass looks again for a ResourceClaimTemplate it could not read.
const claimTemplateRetry = 30 * time.Second

// labelComponent is app.kubernetes.io/component, as Grove labels the claims it makes.
const labelComponent = "app.kubernetes.io/component"

// deleteUnwantedClaims deletes the shared claims this controller made for the set that the
// world no longer asks for (a scaling group or clique scaled in, an entry removed).
func (a *applier) deleteUnwantedClaims(obs *observed, want *workload.World) error {
	wanted := make(map[string]bool, len(want.Claims))
	for _, sc := range want.Claims {
		wanted[sc.Name] = true
	}
	var errs []error
	for name, x := range obs.claims {
		if wanted[name] || x.DeletionTimestamp != nil {
			continue
		}
		errs = append(errs, a.deleteObject("ResourceClaim", name, x.UID, func(o metav1.DeleteOptions) error {
			return a.c.kube.ResourceV1().ResourceClaims(a.pcs.Namespace).Delete(a.ctx, name, o)
		}))
	}
	return errors.Join(errs...)
}
