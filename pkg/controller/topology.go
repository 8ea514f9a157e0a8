package controller

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Reasons of the events that say a set's packing domains could not be resolved.
const (
	ReasonTopologyNotFound      = "TopologyNotFound"
	ReasonTopologyDomainUnknown = "TopologyDomainUnknown"
)

// watchTopologies starts reading Grove's ClusterTopologyBindings when the API server serves
// them (Grove's CRD is installed): a set whose constraints name a binding then has its
// packing domains written into its PodGangs as the binding's node label keys, as Grove's
// operator writes them. A binding that changes brings a pass of every set that names it.
// Without the CRD nothing is read, and domains are node label keys as written. Call before
// the factories start.
func (c *Controller) watchTopologies(ctx context.Context) {
	resources, err := c.kube.Discovery().ServerResourcesForGroupVersion(grovev1.SchemeGroupVersion.String())
	if err != nil && !apierrors.IsNotFound(err) {
		klog.FromContext(ctx).Info("Could not tell whether the API server serves ClusterTopologyBindings; packing domains are taken as node label keys", "err", err)
		return
	}
	if resources == nil || !slices.ContainsFunc(resources.APIResources, func(r metav1.APIResource) bool { return r.Name == "clustertopologybindings" }) {
		klog.FromContext(ctx).V(2).Info("The API server serves no grove.io ClusterTopologyBindings; packing domains are taken as node label keys")
		return
	}
	inf := c.phalanxFactory.Grove().V1alpha1().ClusterTopologyBindings()
	c.topologies = inf.Lister()
	enqueueNaming := func(obj any) {
		name := ""
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if b, ok := obj.(*grovev1.ClusterTopologyBinding); ok {
			name = b.Name
		}
		sets, err := c.sets.List(labels.Everything())
		if err != nil {
			return
		}
		for _, s := range sets {
			if n, _ := workload.TopologyName(s); n != "" && n == name {
				c.enqueueSet(s)
			}
		}
	}
	_, _ = inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueueNaming,
		UpdateFunc: func(_, obj any) { enqueueNaming(obj) },
		DeleteFunc: enqueueNaming,
	})
	c.synced = append(c.synced, inf.Informer().HasSynced)
}

// topologyKeys resolves the packing domains of pcs through the ClusterTopologyBinding its
// constraints name (workload.Observed.TopologyKeys): nil when it names none. A binding that
// cannot be read, and a domain the binding does not list, get a Warning event on the set; the
// domain is then written as it is, so a required constraint is never dropped (its pods wait,
// and the scheduler says no node carries that label, until the binding lists it).
func (c *Controller) topologyKeys(pcs *grovev1.PodCliqueSet) map[string]string {
	name, err := workload.TopologyName(pcs)
	if err != nil {
		c.warn(pcs, ReasonTopologyNotFound, err.Error())
		return nil
	}
	if name == "" {
		return nil
	}
	if c.topologies == nil {
		c.warn(pcs, ReasonTopologyNotFound, fmt.Sprintf("topologyName %q: the API server serves no grove.io ClusterTopologyBindings (Grove's CRD is not installed, or was installed after phalanx-scheduler started); packing domains are taken as node label keys", name))
		return nil
	}
	b, err := c.topologies.Get(name)
	if err != nil {
		c.warn(pcs, ReasonTopologyNotFound, fmt.Sprintf("topologyName %q: %v; packing domains are taken as node label keys until it exists", name, err))
		return nil
	}
	keys := workload.TopologyKeysOf(b)
	for _, d := range workload.TopologyDomains(pcs) {
		if keys[d] == "" {
			c.warn(pcs, ReasonTopologyDomainUnknown, fmt.Sprintf("packing domain %q is not a level of ClusterTopologyBinding %s (levels: %v); taken as a node label key", d, name, b.Spec.Levels))
		}
	}
	return keys
}

// warn records a Warning event on pcs (the recorder aggregates repeats).
func (c *Controller) warn(pcs *grovev1.PodCliqueSet, reason, msg string) {
	if c.recorder != nil {
		c.recorder.Event(pcs, corev1.EventTypeWarning, reason, msg)
	}
}
