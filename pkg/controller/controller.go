// Package controller is the thin, level-triggered PodCliqueSet controller that runs inside
// phalanx-scheduler. Each pass observes the PodCliqueSet's children through informers,
// computes the desired world with pkg/workload and applies the difference. It keeps no state of
// its own: names are deterministic, so a restart at any point converges to the same objects
// without twins, and a stale cache can only cause an AlreadyExists or NotFound, never a
// duplicate.
package controller

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/client/informers/externalversions"
	grovelisters "github.com/phalanx-sched/phalanx/pkg/client/listers/grove/v1alpha1"
	schedlisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/surge"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Controller reconciles PodCliqueSets.
type Controller struct {
	kube     kubernetes.Interface
	client   versioned.Interface
	recorder record.EventRecorder

	kubeFactory    kubeinformers.SharedInformerFactory
	phalanxFactory externalversions.SharedInformerFactory
	sets           grovelisters.PodCliqueSetLister
	cliques        grovelisters.PodCliqueLister
	groups         grovelisters.PodCliqueScalingGroupLister
	gangs          schedlisters.PodGangLister
	pods           corelisters.PodLister
	services       corelisters.ServiceLister
	// index reads a set's children (observe).
	index childIndexers
	// desired keeps each set's replica worlds between its passes (workload.DesiredCache);
	// one worker at a time passes over a set, so each cache is used by one goroutine at once.
	desiredMu sync.Mutex
	desired   map[string]*workload.DesiredCache
	revisions appslisters.ControllerRevisionLister
	synced    []cache.InformerSynced
	// topologies reads Grove's ClusterTopologyBindings; nil until the API server serves them
	// (topology.go).
	topologies atomic.Pointer[grovelisters.ClusterTopologyBindingLister]
	// warnings are the last Warning event of each set and reason (warn).
	warnings     sync.Map
	topologyPoll time.Duration
	queue        workqueue.TypedRateLimitingInterface[string]

	// admitter, when set, is asked before every surge member is created.
	admitter surge.Admitter
	// nodeFactory feeds the node cache: lost nodes (releaseLost) and, with surge admission,
	// the retries of blocked surges.
	nodeFactory kubeinformers.SharedInformerFactory
	nodes       corelisters.NodeLister
	// releaseLostAfter is how long after its deletion deadline a member on a lost node is
	// released; negative: never (lost.go).
	releaseLostAfter time.Duration

	// updates tracks, per PodCliqueSet, whether it is updating and whether it is stalled (for
	// the gauges).
	updatesMu sync.Mutex
	updates   map[string]updateState

	// steps holds, per set, the newest member event no pass has seen yet (steps.go).
	steps *stepClock

	// expect holds the pod writes of earlier passes the pod cache has not shown yet.
	expect *expectations

	// statuses writes the statuses of the passes of Run's workers after each pass
	// (statuswriter.go); nil: Reconcile writes them itself before it returns (a caller that
	// drives Reconcile, as a preview does, reads them next). own are the status writes the
	// caches may not show yet.
	statuses *statusWriter
	own      *ownWrites
	// adoptFrom are the operators whose PodCliqueSets the controller takes over (SetAdoptFrom).
	adoptFrom map[string]bool

	// Hooks are set by previews and tests before Run (hooks.go).
	Hooks
	now func() time.Time
}

// New builds a controller. Pods and Services are watched only with the managed-by label, so
// the cache holds the controller's own objects, not the cluster's.
func New(kube kubernetes.Interface, client versioned.Interface, recorder record.EventRecorder) *Controller {
	var c *Controller
	kf := kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0, kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
		// Read when the informers start (Run), after SetAdoptFrom.
		o.LabelSelector = c.managedBySelector()
	}))
	pf := externalversions.NewSharedInformerFactory(client, 0)
	c = &Controller{
		kube: kube, client: client, recorder: recorder, kubeFactory: kf, phalanxFactory: pf,
		sets:      pf.Grove().V1alpha1().PodCliqueSets().Lister(),
		cliques:   pf.Grove().V1alpha1().PodCliques().Lister(),
		groups:    pf.Grove().V1alpha1().PodCliqueScalingGroups().Lister(),
		gangs:     pf.Scheduler().V1alpha1().PodGangs().Lister(),
		pods:      kf.Core().V1().Pods().Lister(),
		services:  kf.Core().V1().Services().Lister(),
		revisions: kf.Apps().V1().ControllerRevisions().Lister(),
		expect:    newExpectations(),
		own:       newOwnWrites(),
		steps:     newStepClock(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "podcliqueset"}),
		now:     time.Now,
		updates: map[string]updateState{},

		releaseLostAfter: DefaultReleaseLostMembersAfter,
		topologyPoll:     DefaultTopologyPoll,
	}
	foreign := cache.Indexers{indexForeignBySet: foreignSetIndex}
	c.index = childIndexers{
		cliques:  addSetIndex(pf.Grove().V1alpha1().PodCliques().Informer(), foreign),
		groups:   addSetIndex(pf.Grove().V1alpha1().PodCliqueScalingGroups().Informer(), foreign),
		gangs:    addSetIndex(pf.Scheduler().V1alpha1().PodGangs().Informer(), foreign),
		pods:     addSetIndex(kf.Core().V1().Pods().Informer(), cache.Indexers{indexByClique: c.cliqueIndex}),
		services: addSetIndex(kf.Core().V1().Services().Informer(), foreign),
	}
	metrics.Register()
	c.nodeFactory = kubeinformers.NewSharedInformerFactory(kube, 0)
	nodeInformer := c.nodeFactory.Core().V1().Nodes().Informer()
	// Only readiness, allocatable, schedulability and taints are read: the rest of a node (its
	// images, volumes, managed fields) is not kept twice in the scheduler's process.
	_ = nodeInformer.SetTransform(trimNode)
	c.nodes = c.nodeFactory.Core().V1().Nodes().Lister()
	_, _ = nodeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.Node)
			n, ok2 := newObj.(*corev1.Node)
			if ok1 && ok2 && !lost(o) && lost(n) {
				c.enqueueTerminatingOn(n.Name)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				c.enqueueTerminatingOn(n.Name)
			}
		},
	})
	c.synced = append(c.synced, nodeInformer.HasSynced)
	setHandler := cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueSet,
		UpdateFunc: func(old, o any) {
			if om, ok := old.(*grovev1.PodCliqueSet); ok {
				if nm, ok := o.(*grovev1.PodCliqueSet); ok {
					key := nm.Namespace + "/" + nm.Name
					if om.Generation != nm.Generation {
						// A new spec is the first step of an update.
						c.steps.note(key, c.now())
					}
					if statusOnly(om, nm) && !planningStatusChanged(om, nm) {
						// Counts and times: the statuses are written already by the
						// pass that computed them (its own write, nearly always).
						return
					}
				}
			}
			c.enqueueSet(o)
		},
		DeleteFunc: c.enqueueSet,
	}
	childHandler := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwner,
		UpdateFunc: func(_, o any) { c.enqueueOwner(o) },
		DeleteFunc: c.enqueueOwner,
	}
	for _, inf := range []cache.SharedIndexInformer{
		pf.Grove().V1alpha1().PodCliqueSets().Informer(),
	} {
		_, _ = inf.AddEventHandler(setHandler)
		c.synced = append(c.synced, inf.HasSynced)
	}
	// Cliques and scaling groups: a change of their status only (this controller's own
	// writes, nearly always) brings a status pass a moment later, not a plan at once.
	for _, inf := range []cache.SharedIndexInformer{
		pf.Grove().V1alpha1().PodCliques().Informer(),
		pf.Grove().V1alpha1().PodCliqueScalingGroups().Informer(),
	} {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: c.enqueueOwner,
			UpdateFunc: func(old, o any) {
				om, ok1 := old.(metav1.Object)
				nm, ok2 := o.(metav1.Object)
				if ok1 && ok2 && statusOnly(om, nm) {
					c.enqueueOwnerAfter(o, statusOnlyDelay)
					return
				}
				c.enqueueOwner(o)
			},
			DeleteFunc: c.enqueueOwner,
		})
		c.synced = append(c.synced, inf.HasSynced)
	}
	// Pods: a change that can let an update take a step (podStepChange) brings a pass at
	// once; any other (a bind, a container status) only changes statuses, and the passes of
	// such changes are gathered into one a moment later (statusOnlyDelay): at 100 replicas each
	// pass is tens of milliseconds of CPU, and a pass per bind held the key when the step came.
	// PodGang updates are status (the scheduler's conditions) or this controller's own writes.
	// The same for a pod this controller created appearing, or one it deleted turning
	// terminating: the pass that wrote it planned with it (expectations.seen).
	_, _ = kf.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if p, ok := o.(*corev1.Pod); ok && c.expect.seen(setKeyOf(p), p, false) {
				c.enqueueOwnerAfter(o, statusOnlyDelay)
				return
			}
			c.enqueueOwner(o)
		},
		UpdateFunc: func(old, o any) {
			op, ok1 := old.(*corev1.Pod)
			np, ok2 := o.(*corev1.Pod)
			if !ok1 || !ok2 {
				c.enqueueOwner(o)
				return
			}
			own := c.expect.seen(setKeyOf(np), np, false)
			if !podStepChange(op, np) || (own && ownDeletionOnly(op, np)) {
				c.enqueueOwnerAfter(o, statusOnlyDelay)
				return
			}
			c.enqueueOwner(o)
		},
		DeleteFunc: func(o any) {
			obj := o
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				c.expect.seen(setKeyOf(p), p, true)
			}
			c.enqueueOwner(o)
		},
	})
	c.synced = append(c.synced, kf.Core().V1().Pods().Informer().HasSynced)
	_, _ = pf.Scheduler().V1alpha1().PodGangs().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueOwner,
		UpdateFunc: func(old, o any) {
			og, ok1 := old.(*schedv1.PodGang)
			ng, ok2 := o.(*schedv1.PodGang)
			if ok1 && ok2 && og.Generation == ng.Generation && ng.DeletionTimestamp.Equal(og.DeletionTimestamp) {
				// The scheduler's conditions, or this controller's reservation annotations.
				c.enqueueOwnerAfter(o, statusOnlyDelay)
				return
			}
			c.enqueueOwner(o)
		},
		DeleteFunc: c.enqueueOwner,
	})
	c.synced = append(c.synced, pf.Scheduler().V1alpha1().PodGangs().Informer().HasSynced)
	for _, inf := range []cache.SharedIndexInformer{
		kf.Core().V1().Services().Informer(),
		kf.Apps().V1().ControllerRevisions().Informer(),
	} {
		_, _ = inf.AddEventHandler(childHandler)
		c.synced = append(c.synced, inf.HasSynced)
	}
	return c
}

// SetSurgeAdmitter makes the controller ask a before every surge member it creates (see
// pkg/surge). A blocked surge is retried when a node is added or changes its capacity or
// schedulability, and at least every 5 seconds while the update is under way. Call before Run.
func (c *Controller) SetSurgeAdmitter(a surge.Admitter) {
	c.admitter = a
	inf := c.nodeFactory.Core().V1().Nodes().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { c.retryBlockedSurges() },
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.Node)
			n, ok2 := newObj.(*corev1.Node)
			if ok1 && ok2 && (o.Spec.Unschedulable != n.Spec.Unschedulable || !apiequality.Semantic.DeepEqual(o.Status.Allocatable, n.Status.Allocatable) ||
				!apiequality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints)) {
				c.retryBlockedSurges()
			}
		},
	})
}

// trimNode is the node cache's transform: it keeps what the controller reads.
func trimNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil // a tombstone
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion},
		Spec:       corev1.NodeSpec{Unschedulable: n.Spec.Unschedulable, Taints: n.Spec.Taints},
		Status:     corev1.NodeStatus{Allocatable: n.Status.Allocatable, Conditions: n.Status.Conditions},
	}, nil
}

// retryBlockedSurges enqueues every PodCliqueSet whose status says a surge waits for capacity.
func (c *Controller) retryBlockedSurges() {
	sets, err := c.sets.List(labels.Everything())
	if err != nil {
		// A cache list does not fail today; if it ever does, the periodic re-check of every
		// blocked surge (5 s) still retries it, and the reason is not lost.
		utilruntime.HandleError(fmt.Errorf("listing PodCliqueSets to retry blocked surges: %w", err))
		return
	}
	for _, s := range sets {
		if surgeBlockedNow(s) {
			c.enqueueSet(s)
		}
	}
}

func (c *Controller) enqueueSet(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

func (c *Controller) enqueueOwner(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if set := m.GetLabels()[grovev1.LabelPodCliqueSet]; set != "" && m.GetLabels()[workload.LabelManagedBy] == workload.ManagedBy {
		key := m.GetNamespace() + "/" + set
		if v := klog.V(5); v.Enabled() { // not formatted on every event otherwise
			v.InfoS("Child changed", "podCliqueSet", key, "kind", fmt.Sprintf("%T", obj), "name", m.GetName())
		}
		if _, pod := obj.(*corev1.Pod); pod {
			// A member created, bound, Ready or gone: what an update's next step waits for.
			c.steps.note(key, c.now())
		}
		c.queue.Add(key)
	}
}

// statusOnlyDelay is how long after a change that only statuses read (statusOnly events) the
// pass that writes them runs; every such change within it shares that pass.
const statusOnlyDelay = 200 * time.Millisecond

// podStepChange reports whether a pod update can change what a pass plans: its readiness
// (availability), its deletion, its phase (a finished pod is replaced), its labels (revision,
// membership). A bind or a container status alone changes only statuses.
func podStepChange(old, cur *corev1.Pod) bool {
	return workload.PodReady(old) != workload.PodReady(cur) ||
		!old.DeletionTimestamp.Equal(cur.DeletionTimestamp) ||
		finished(old) != finished(cur) ||
		!maps.Equal(old.Labels, cur.Labels)
}

// finished reports whether a pod's containers have ended for good (phase Failed or Succeeded):
// the controller replaces such a member (heal.go). Pending to Running is not a step.
func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

// ownDeletionOnly reports whether the only step change from old to cur is a deletion starting
// (the caller knows it is this controller's own, expectations.seen).
func ownDeletionOnly(old, cur *corev1.Pod) bool {
	return old.DeletionTimestamp == nil && cur.DeletionTimestamp != nil &&
		readyCondition(old) == readyCondition(cur) && finished(old) == finished(cur) && maps.Equal(old.Labels, cur.Labels)
}

// setKeyOf is the queue key of the PodCliqueSet a pod of the controller's belongs to.
func setKeyOf(p *corev1.Pod) string { return p.Namespace + "/" + p.Labels[grovev1.LabelPodCliqueSet] }

// readyCondition is the status of a pod's Ready condition, whether or not it is being deleted.
func readyCondition(p *corev1.Pod) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status
		}
	}
	return ""
}

// enqueueOwnerAfter is enqueueOwner for a change that only statuses read: the pass comes after
// delay, shared with every such change meanwhile (and sooner with any other event).
func (c *Controller) enqueueOwnerAfter(obj any, delay time.Duration) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if set := m.GetLabels()[grovev1.LabelPodCliqueSet]; set != "" && m.GetLabels()[workload.LabelManagedBy] == workload.ManagedBy {
		if v := klog.V(5); v.Enabled() {
			v.InfoS("Child status changed", "podCliqueSet", m.GetNamespace()+"/"+set, "kind", fmt.Sprintf("%T", obj), "name", m.GetName())
		}
		c.queue.AddAfter(m.GetNamespace()+"/"+set, delay)
	}
}

// Run starts the informers and workers and blocks until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	defer c.shutdownInformers()
	if err := c.StartInformers(ctx); err != nil {
		return err
	}
	c.statuses = newStatusWriter(statusInterval, c.statusWritten)
	defer c.statuses.wait()
	logger.Info("PodCliqueSet controller started", "workers", workers)
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, c.worker, time.Second)
	}
	<-ctx.Done()
	logger.Info("PodCliqueSet controller stopped")
	return nil
}

// StartInformers starts the controller's informers and waits for their caches. Run calls it;
// a caller that drives Reconcile itself (a preview) calls it instead of Run.
func (c *Controller) StartInformers(ctx context.Context) error {
	c.watchTopologies(ctx)
	c.watchClaims(ctx)
	c.kubeFactory.Start(ctx.Done())
	c.phalanxFactory.Start(ctx.Done())
	c.nodeFactory.Start(ctx.Done())
	if !cache.WaitForNamedCacheSync("podcliqueset", ctx.Done(), c.synced...) {
		return fmt.Errorf("podcliqueset controller: caches did not sync")
	}
	return nil
}

// Informers are the factories the controller's caches come from (pods and services filtered
// to the controller's own). A caller that drives Reconcile itself, as a preview does, reads
// them to wait until the caches have caught up with what it wrote.
func (c *Controller) Informers() (kubeinformers.SharedInformerFactory, externalversions.SharedInformerFactory) {
	return c.kubeFactory, c.phalanxFactory
}

func (c *Controller) shutdownInformers() {
	c.kubeFactory.Shutdown()
	c.phalanxFactory.Shutdown()
	c.nodeFactory.Shutdown()
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.Reconcile(ctx, key); err != nil {
		if ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Reconciling PodCliqueSet", "key", key)
			c.reportFailure(key, err)
		}
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// ReasonReconcileFailed is the reason of the Warning event of a failed controller pass.
const ReasonReconcileFailed = "ReconcileFailed"

// reportFailure makes a failed pass visible where users look: a Warning event ReconcileFailed
// on the PodCliqueSet with the error (a refusal by RBAC, a ResourceQuota or an admission
// policy otherwise shows only in Phalanx's log, and the status stays as it was) and the
// phalanx_controller_reconcile_errors_total counter. Write conflicts are the ordinary outcome of
// concurrent writers and are retried silently.
func (c *Controller) reportFailure(key string, err error) {
	if apierrors.IsConflict(err) {
		return
	}
	reason := string(apierrors.ReasonForError(err))
	if reason == "" {
		reason = "Other"
	}
	metrics.ReconcileErrors.WithLabelValues(reason).Inc()
	ns, name, splitErr := cache.SplitMetaNamespaceKey(key)
	if splitErr != nil || c.recorder == nil {
		return
	}
	if pcs, getErr := c.sets.PodCliqueSets(ns).Get(name); getErr == nil {
		c.recorder.Eventf(pcs, corev1.EventTypeWarning, ReasonReconcileFailed, "%v (retried with backoff)", err)
		c.recordLastError(pcs, reason, err)
	}
}

// recordLastError writes the failure into status.lastErrors, as Grove's operator does (the
// next pass that succeeds empties it: setStatus). The same error repeated by the retries
// keeps its first observedAt and costs no write. Best effort: a failed write is logged; the
// event and the metric already report the failure.
func (c *Controller) recordLastError(pcs *grovev1.PodCliqueSet, reason string, err error) {
	want := grovev1.LastError{Code: "ERR_" + strings.ToUpper(snake(reason)), Description: err.Error()}
	if l := pcs.Status.LastErrors; len(l) == 1 && l[0].Code == want.Code && l[0].Description == want.Description {
		return
	}
	want.ObservedAt = metav1.NewTime(c.now())
	cp := pcs.DeepCopy()
	cp.Status.LastErrors = []grovev1.LastError{want}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, werr := c.client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{}); werr != nil && !apierrors.IsConflict(werr) {
		klog.FromContext(ctx).V(2).Info("Could not record the failure in status.lastErrors", "podCliqueSet", klog.KObj(pcs), "err", werr)
	}
}

// snake turns an API reason (RequestEntityTooLarge) into upper-case words joined by
// underscores once upper-cased (REQUEST_ENTITY_TOO_LARGE).
func snake(reason string) string {
	var b strings.Builder
	for i, r := range reason {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// desiredOf is the desired-world cache of the set with queue key key.
func (c *Controller) desiredOf(key string) *workload.DesiredCache {
	c.desiredMu.Lock()
	defer c.desiredMu.Unlock()
	if c.desired == nil {
		c.desired = map[string]*workload.DesiredCache{}
	}
	dc := c.desired[key]
	if dc == nil {
		dc = &workload.DesiredCache{}
		c.desired[key] = dc
	}
	return dc
}

// forgetDesired drops the cache of a set that is gone.
func (c *Controller) forgetDesired(key string) {
	c.desiredMu.Lock()
	defer c.desiredMu.Unlock()
	delete(c.desired, key)
}
