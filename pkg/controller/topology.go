package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	grovelisters "github.com/phalanx-sched/phalanx/pkg/client/listers/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/served"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Reasons of the events that say a set's packing domains could not be resolved.
const (
	ReasonTopologyNotFound      = "TopologyNotFound"
	ReasonTopologyDomainUnknown = "TopologyDomainUnknown"
)

// DefaultTopologyPoll is how often the controller asks whether the API server serves Grove's
// ClusterTopologyBindings, while it does not.
const DefaultTopologyPoll = 30 * time.Second

// SetTopologyPoll sets how often the controller looks for Grove's ClusterTopologyBinding CRD
// while the API server does not serve it (DefaultTopologyPoll). Call before Run.
func (c *Controller) SetTopologyPoll(d time.Duration) { c.topologyPoll = d }

// watchTopologies reads Grove's ClusterTopologyBindings once the API server serves them
// (Grove's CRD is installed, before or after the controller started): a set whose constraints
// name a binding then has its packing domains written into its PodGangs as the binding's node
// label keys, as Grove's operator writes them. A binding that appears or changes brings a pass
// of every set that names it. Until the CRD is served, domains are node label keys as written.
// Call before the factories start: a CRD served now is part of the first sync.
func (c *Controller) watchTopologies(ctx context.Context) {
	if c.topologiesServed(ctx) {
		inf, lister := c.readTopologies()
		c.synced = append(c.synced, inf.HasSynced) // no pass runs before the first sync
		c.topologies.Store(&lister)
		return
	}
	// The poll stops (pollCtx) once the informer runs; the informer lives as long as ctx.
	pollCtx, stop := context.WithCancel(ctx)
	go wait.UntilWithContext(pollCtx, func(pollCtx context.Context) {
		if !c.topologiesServed(pollCtx) {
			return
		}
		defer stop()
		inf, lister := c.readTopologies()
		c.phalanxFactory.Start(ctx.Done()) // starts the informer just requested
		if !cache.WaitForNamedCacheSync("clustertopologybindings", ctx.Done(), inf.HasSynced) {
			return
		}
		c.topologies.Store(&lister)
		klog.FromContext(ctx).Info("Reading Grove's ClusterTopologyBindings (the API server serves them now)")
		c.enqueueNamingTopology("")
	}, c.topologyPoll)
}

// topologiesServed asks discovery whether the API server serves grove.io ClusterTopologyBindings.
func (c *Controller) topologiesServed(ctx context.Context) bool {
	ok, err := served.Resource(c.kube.Discovery(), grovev1.SchemeGroupVersion.WithResource("clustertopologybindings"))
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Could not tell whether the API server serves ClusterTopologyBindings", "err", err)
	}
	return ok
}

// readTopologies requests the ClusterTopologyBinding informer (started by the next factory
// Start); a binding that changes enqueues the sets that name it.
func (c *Controller) readTopologies() (cache.SharedIndexInformer, grovelisters.ClusterTopologyBindingLister) {
	inf := c.phalanxFactory.Grove().V1alpha1().ClusterTopologyBindings()
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if b, ok := obj.(*grovev1.ClusterTopologyBinding); ok {
			c.enqueueNamingTopology(b.Name)
		}
	}
	_, _ = inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	return inf.Informer(), inf.Lister()
}

// enqueueNamingTopology enqueues the sets whose constraints name binding name ("": any).
func (c *Controller) enqueueNamingTopology(name string) {
	sets, err := c.sets.List(labels.Everything())
	if err != nil {
		return
	}
	for _, s := range sets {
		if n, _ := workload.TopologyName(s); n != "" && (name == "" || n == name) {
			c.enqueueSet(s)
		}
	}
}

// topologyKeys resolves the packing domains of pcs through the ClusterTopologyBinding its
// constraints name (workload.Observed.TopologyKeys): nil when it names none. A binding that
// cannot be read, and a domain the binding does not list, get a Warning event on the set; the
// domain is then written as it is, so a required constraint is never dropped (its pods wait,
// and the scheduler says no node carries that label, until the binding lists it). It also
// returns the set's TopologyLevelsUnavailable condition as Grove's operator writes it
// (topologyCondition), nil when the set is to have none, and keep when the condition is to
// stay as it is.
func (c *Controller) topologyKeys(pcs *grovev1.PodCliqueSet) (keys map[string]string, cond *metav1.Condition, keep bool) {
	lister := c.topologies.Load()
	name, err := workload.TopologyName(pcs)
	if err != nil {
		c.warn(pcs, ReasonTopologyNotFound, err.Error())
		return nil, nil, true
	}
	domains := workload.TopologyDomains(pcs)
	if name == "" {
		if lister == nil {
			return nil, nil, false // no Grove topology here: nothing to say
		}
		if len(domains) == 0 {
			return nil, topologyCondition(pcs, metav1.ConditionFalse, ReasonAllTopologyLevelsAvailable, "No topology constraints defined"), false
		}
		return nil, topologyCondition(pcs, metav1.ConditionUnknown, ReasonTopologyNameMissing,
			"topology constraints name no topologyName: their domains are taken as node label keys"), false
	}
	resolved := true
	defer func() {
		if resolved {
			c.clearWarning(pcs, ReasonTopologyNotFound)
			c.clearWarning(pcs, ReasonTopologyDomainUnknown)
		}
	}()
	if lister == nil {
		resolved = false
		c.warn(pcs, ReasonTopologyNotFound, fmt.Sprintf("topologyName %q: the API server serves no grove.io ClusterTopologyBindings (Grove's CRD is not installed; it is looked for every 30 s); packing domains are taken as node label keys", name))
		return nil, topologyCondition(pcs, metav1.ConditionUnknown, ReasonClusterTopologyNotFound,
			"ClusterTopologyBinding resource not found (the API server serves no grove.io ClusterTopologyBindings)"), false
	}
	b, err := (*lister).Get(name)
	if err != nil {
		resolved = false
		c.warn(pcs, ReasonTopologyNotFound, fmt.Sprintf("topologyName %q: %v; packing domains are taken as node label keys until it exists", name, err))
		return nil, topologyCondition(pcs, metav1.ConditionUnknown, ReasonClusterTopologyNotFound, "ClusterTopologyBinding resource not found"), false
	}
	keys = workload.TopologyKeysOf(b)
	var unknown []string
	for _, d := range domains {
		if keys[d] == "" {
			unknown = append(unknown, d)
		}
	}
	if len(unknown) > 0 {
		resolved = false
		c.warn(pcs, ReasonTopologyDomainUnknown, fmt.Sprintf("packing domains %q are not levels of ClusterTopologyBinding %s (levels: %v); taken as node label keys", unknown, name, b.Spec.Levels))
		return keys, topologyCondition(pcs, metav1.ConditionTrue, ReasonTopologyLevelsUnavailable, fmt.Sprintf("Unavailable topology domains: %v", unknown)), false
	}
	return keys, topologyCondition(pcs, metav1.ConditionFalse, ReasonAllTopologyLevelsAvailable, "All topology levels are available"), false
}

// Grove's TopologyLevelsUnavailable condition of a PodCliqueSet, and its reasons: whether the
// packing domains its constraints name are levels of the ClusterTopologyBinding they name.
const (
	ConditionTopologyLevelsUnavailable = "TopologyLevelsUnavailable"
	ReasonAllTopologyLevelsAvailable   = "AllClusterTopologyLevelsAvailable"
	ReasonTopologyLevelsUnavailable    = "ClusterTopologyLevelsUnavailable"
	ReasonClusterTopologyNotFound      = "ClusterTopologyNotFound"
	ReasonTopologyNameMissing          = "TopologyNameMissing"
)

func topologyCondition(pcs *grovev1.PodCliqueSet, status metav1.ConditionStatus, reason, msg string) *metav1.Condition {
	return &metav1.Condition{Type: ConditionTopologyLevelsUnavailable, Status: status, Reason: reason, Message: msg, ObservedGeneration: pcs.Generation}
}

// setTopologyCondition writes the condition topologyKeys returned into st (see there).
func setTopologyCondition(st *grovev1.PodCliqueSetStatus, cond *metav1.Condition, keep bool, now metav1.Time) {
	switch {
	case keep:
	case cond == nil:
		meta.RemoveStatusCondition(&st.Conditions, ConditionTopologyLevelsUnavailable)
	default:
		c := *cond
		c.LastTransitionTime = now
		meta.SetStatusCondition(&st.Conditions, c)
	}
}

// warn records a Warning event on pcs when it says something else than the last one of its
// reason did: the checks that call it run on every pass, and a pass is not news.
func (c *Controller) warn(pcs *grovev1.PodCliqueSet, reason, msg string) {
	k := warningKey{set: cache.MetaObjectToName(pcs).String(), reason: reason}
	if last, ok := c.warnings.Load(k); ok && last == msg {
		return
	}
	c.warnings.Store(k, msg)
	if c.recorder != nil {
		c.recorder.Event(pcs, corev1.EventTypeWarning, reason, msg)
	}
}

// warningKey is a set and a reason of warn.
type warningKey struct{ set, reason string }

// clearWarning forgets the last warning of reason on pcs: the condition it reported is gone,
// and a recurrence is news again.
func (c *Controller) clearWarning(pcs *grovev1.PodCliqueSet, reason string) {
	c.warnings.Delete(warningKey{set: cache.MetaObjectToName(pcs).String(), reason: reason})
}

// forgetWarnings forgets every warning of the set key (it is gone).
func (c *Controller) forgetWarnings(key string) {
	c.warnings.Range(func(k, _ any) bool {
		if k.(warningKey).set == key {
			c.warnings.Delete(k)
		}
		return true
	})
}
