// Package controller is the thin, level-triggered PodCliqueSet controller that runs inside
// phalanx-scheduler. Each pass observes the PodCliqueSet's children through informers,
// computes the desired world with pkg/workload and applies the difference. It keeps no state of
// its own: names are deterministic, so a restart at any point converges to the same objects
// without twins, and a stale cache can only cause an AlreadyExists or NotFound, never a
// duplicate.
package controller

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/client/informers/externalversions"
	grovelisters "github.com/phalanx-sched/phalanx/pkg/client/listers/grove/v1alpha1"
	schedlisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/surge"
	"github.com/phalanx-sched/phalanx/pkg/update"
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
	synced         []cache.InformerSynced
	queue          workqueue.TypedRateLimitingInterface[string]

	// admitter, when set, is asked before every surge member is created.
	admitter surge.Admitter
	// nodeFactory feeds the node informer that retries blocked surges (only with surge).
	nodeFactory kubeinformers.SharedInformerFactory

	// updates tracks, per PodCliqueSet, whether it is updating and whether it is stalled (for
	// the gauges).
	updatesMu sync.Mutex
	updates   map[string]updateState

	// OnPlan, when set, is told the plan of every pass before it is applied (previews and
	// tests record the update's steps with it).
	OnPlan func(pcs *grovev1.PodCliqueSet, plan update.Plan)

	// AfterCreate, when set, runs after every successful create; an error ends the pass.
	// Tests use it to stop the controller at a chosen point, as a crash would.
	AfterCreate func() error
	now         func() time.Time
}

// New builds a controller. Pods and Services are watched only with the managed-by label, so
// the cache holds the controller's own objects, not the cluster's.
func New(kube kubernetes.Interface, client versioned.Interface, recorder record.EventRecorder) *Controller {
	kf := kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0, kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = labels.SelectorFromSet(labels.Set{workload.LabelManagedBy: workload.ManagedBy}).String()
	}))
	pf := externalversions.NewSharedInformerFactory(client, 0)
	c := &Controller{
		kube: kube, client: client, recorder: recorder, kubeFactory: kf, phalanxFactory: pf,
		sets:     pf.Grove().V1alpha1().PodCliqueSets().Lister(),
		cliques:  pf.Grove().V1alpha1().PodCliques().Lister(),
		groups:   pf.Grove().V1alpha1().PodCliqueScalingGroups().Lister(),
		gangs:    pf.Scheduler().V1alpha1().PodGangs().Lister(),
		pods:     kf.Core().V1().Pods().Lister(),
		services: kf.Core().V1().Services().Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "podcliqueset"}),
		now:     time.Now,
		updates: map[string]updateState{},
	}
	metrics.Register()
	setHandler := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueSet,
		UpdateFunc: func(_, o any) { c.enqueueSet(o) },
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
	for _, inf := range []cache.SharedIndexInformer{
		pf.Grove().V1alpha1().PodCliques().Informer(),
		pf.Grove().V1alpha1().PodCliqueScalingGroups().Informer(),
		pf.Scheduler().V1alpha1().PodGangs().Informer(),
		kf.Core().V1().Pods().Informer(),
		kf.Core().V1().Services().Informer(),
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
	c.nodeFactory = kubeinformers.NewSharedInformerFactory(c.kube, 0)
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
	c.synced = append(c.synced, inf.HasSynced)
}

// retryBlockedSurges enqueues every PodCliqueSet whose status says a surge waits for capacity.
func (c *Controller) retryBlockedSurges() {
	sets, err := c.sets.List(labels.Everything())
	if err != nil {
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
		c.queue.Add(m.GetNamespace() + "/" + set)
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
	c.kubeFactory.Start(ctx.Done())
	c.phalanxFactory.Start(ctx.Done())
	if c.nodeFactory != nil {
		c.nodeFactory.Start(ctx.Done())
	}
	if !cache.WaitForNamedCacheSync("podcliqueset", ctx.Done(), c.synced...) {
		return fmt.Errorf("podcliqueset controller: caches did not sync")
	}
	return nil
}

func (c *Controller) shutdownInformers() {
	c.kubeFactory.Shutdown()
	c.phalanxFactory.Shutdown()
	if c.nodeFactory != nil {
		c.nodeFactory.Shutdown()
	}
}

// CachesHold reports whether the controller's caches hold exactly these pods and gangs
// (name and resourceVersion): a preview waits for it between passes.
func (c *Controller) CachesHold(namespace string, pods []corev1.Pod, gangs []schedv1.PodGang, pcs *grovev1.PodCliqueSet) bool {
	cached, err := c.pods.Pods(namespace).List(labels.Everything())
	if err != nil || len(cached) != len(pods) {
		return false
	}
	rv := map[string]string{}
	for _, p := range cached {
		rv[p.Name] = p.ResourceVersion
	}
	for _, p := range pods {
		if rv[p.Name] != p.ResourceVersion {
			return false
		}
	}
	cg, err := c.gangs.PodGangs(namespace).List(labels.Everything())
	if err != nil || len(cg) != len(gangs) {
		return false
	}
	rv = map[string]string{}
	for _, g := range cg {
		rv[g.Name] = g.ResourceVersion
	}
	for _, g := range gangs {
		if rv[g.Name] != g.ResourceVersion {
			return false
		}
	}
	cur, err := c.sets.PodCliqueSets(namespace).Get(pcs.Name)
	return err == nil && cur.ResourceVersion == pcs.ResourceVersion
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
		}
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// observed holds a PodCliqueSet's children as the caches see them.
type observed struct {
	cliques  map[string]*grovev1.PodClique
	groups   map[string]*grovev1.PodCliqueScalingGroup
	gangs    map[string]*schedv1.PodGang
	pods     map[string]*corev1.Pod
	services map[string]*corev1.Service
}

func (c *Controller) observe(pcs *grovev1.PodCliqueSet) (*observed, error) {
	sel := labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: pcs.Name, workload.LabelManagedBy: workload.ManagedBy})
	o := &observed{map[string]*grovev1.PodClique{}, map[string]*grovev1.PodCliqueScalingGroup{}, map[string]*schedv1.PodGang{}, map[string]*corev1.Pod{}, map[string]*corev1.Service{}}
	cliques, err := c.cliques.PodCliques(pcs.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	for _, x := range cliques {
		o.cliques[x.Name] = x
	}
	groups, err := c.groups.PodCliqueScalingGroups(pcs.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	for _, x := range groups {
		o.groups[x.Name] = x
	}
	gangs, err := c.gangs.PodGangs(pcs.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	for _, x := range gangs {
		o.gangs[x.Name] = x
	}
	pods, err := c.pods.Pods(pcs.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	for _, x := range pods {
		o.pods[x.Name] = x
	}
	svcs, err := c.services.Services(pcs.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	for _, x := range svcs {
		o.services[x.Name] = x
	}
	return o, nil
}

// Reconcile brings one PodCliqueSet's children to the desired world and writes statuses.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pcs, err := c.sets.PodCliqueSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.trackUpdate(key, updateState{})
		return nil // owner references let the garbage collector remove the children
	}
	if err != nil {
		return err
	}
	if pcs.DeletionTimestamp != nil {
		return nil
	}
	obs, err := c.observe(pcs)
	if err != nil {
		return err
	}
	ro, err := planRollout(pcs, obs, nil)
	if err != nil {
		return fmt.Errorf("planning the update of %s: %w", key, err)
	}
	if c.admitter != nil {
		blocked, err := c.admitSurges(ctx, pcs, obs, ro)
		if err != nil {
			return err
		}
		if len(blocked) > 0 {
			if ro, err = planRollout(pcs, obs, blocked); err != nil {
				return fmt.Errorf("planning the update of %s: %w", key, err)
			}
		}
	}
	if c.OnPlan != nil {
		c.OnPlan(pcs, ro.plan)
	}
	want := workload.Desired(pcs, workload.Observed{ScalingGroups: obs.groups, SurgePods: ro.surge, SurgeGroupReplicas: ro.surgeGroups, SurgeReplicas: ro.surgeReplicas})
	a := &applier{c: c, ctx: ctx, pcs: pcs}
	if err := a.apply(obs, want, ro); err != nil {
		return err
	}
	if pcs.Status.CurrentRevision != "" {
		// An update (not the creation): count its steps.
		strategy := strategyOf(pcs)
		for _, act := range ro.plan.Actions {
			metrics.UpdateSteps.WithLabelValues(strategy, strings.ToLower(string(act.Type)), strconv.FormatBool(act.Surge)).Inc()
		}
	}
	if err := c.writeStatus(ctx, pcs, obs, want, ro); err != nil {
		return err
	}
	if !ro.plan.Done {
		// An update in progress is looked at again even without events, so that a stall
		// turns into ProgressDeadlineExceeded on time.
		c.queue.AddAfter(key, 5*time.Second)
	}
	return nil
}

// applier applies one pass's differences for one PodCliqueSet.
type applier struct {
	c       *Controller
	ctx     context.Context
	pcs     *grovev1.PodCliqueSet
	created map[string]int
	deleted map[string]int
}

func (a *applier) afterCreate(kind string) error {
	if a.created == nil {
		a.created = map[string]int{}
	}
	a.created[kind]++
	if a.c.AfterCreate != nil {
		return a.c.AfterCreate()
	}
	return nil
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// apply creates what is missing (groups, cliques, services, gangs, then pods, so that a pod
// never exists before its gang), updates what changed and deletes what is no longer wanted
// (not-ready pods first).
func (a *applier) apply(obs *observed, want *workload.World, ro *rollout) error {
	ctx, c, ns := a.ctx, a.c, a.pcs.Namespace
	defer a.report()
	for _, sg := range want.ScalingGroups {
		cur := obs.groups[sg.Name]
		switch {
		case cur == nil:
			got, err := c.client.GroveV1alpha1().PodCliqueScalingGroups(ns).Create(ctx, sg, metav1.CreateOptions{})
			if err := ignoreExists(err); err != nil {
				return fmt.Errorf("creating PodCliqueScalingGroup %s: %w", sg.Name, err)
			}
			if got != nil {
				obs.groups[sg.Name] = got
			}
			if err := a.afterCreate("PodCliqueScalingGroup"); err != nil {
				return err
			}
		case cur.Spec.Replicas != sg.Spec.Replicas || cur.Annotations[workload.AnnotationTemplateReplicas] != sg.Annotations[workload.AnnotationTemplateReplicas]:
			upd := cur.DeepCopy()
			upd.Spec.Replicas = sg.Spec.Replicas
			if upd.Annotations == nil {
				upd.Annotations = map[string]string{}
			}
			upd.Annotations[workload.AnnotationTemplateReplicas] = sg.Annotations[workload.AnnotationTemplateReplicas]
			if _, err := c.client.GroveV1alpha1().PodCliqueScalingGroups(ns).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating PodCliqueScalingGroup %s: %w", sg.Name, err)
			}
		}
	}
	for _, pclq := range want.Cliques {
		cur := obs.cliques[pclq.Name]
		switch {
		case cur == nil:
			got, err := c.client.GroveV1alpha1().PodCliques(ns).Create(ctx, pclq, metav1.CreateOptions{})
			if err := ignoreExists(err); err != nil {
				return fmt.Errorf("creating PodClique %s: %w", pclq.Name, err)
			}
			if got != nil {
				obs.cliques[pclq.Name] = got
			}
			if err := a.afterCreate("PodClique"); err != nil {
				return err
			}
		case cur.Spec.Replicas != pclq.Spec.Replicas || ptr.Deref(cur.Spec.MinAvailable, 0) != ptr.Deref(pclq.Spec.MinAvailable, 0):
			upd := cur.DeepCopy()
			upd.Spec.Replicas, upd.Spec.MinAvailable = pclq.Spec.Replicas, pclq.Spec.MinAvailable
			if _, err := c.client.GroveV1alpha1().PodCliques(ns).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating PodClique %s: %w", pclq.Name, err)
			}
		}
	}
	for _, svc := range want.Services {
		if obs.services[svc.Name] == nil {
			if _, err := c.kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); ignoreExists(err) != nil {
				return fmt.Errorf("creating Service %s: %w", svc.Name, err)
			}
			if err := a.afterCreate("Service"); err != nil {
				return err
			}
		}
	}
	for _, g := range want.PodGangs {
		cur := obs.gangs[g.Name]
		switch {
		case cur == nil:
			if _, err := c.client.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g, metav1.CreateOptions{}); ignoreExists(err) != nil {
				return fmt.Errorf("creating PodGang %s: %w", g.Name, err)
			}
			if err := a.afterCreate("PodGang"); err != nil {
				return err
			}
		case !apiequality.Semantic.DeepEqual(cur.Spec, withReservationRef(g.Spec, cur.Spec)):
			upd := cur.DeepCopy()
			upd.Spec = withReservationRef(g.Spec, cur.Spec)
			if _, err := c.client.SchedulerV1alpha1().PodGangs(ns).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating PodGang %s: %w", g.Name, err)
			}
		}
	}
	wantPods := map[string]bool{}
	for _, p := range want.Pods {
		wantPods[p.Name] = true
		if obs.pods[p.Name] != nil {
			continue
		}
		// Pods of standalone cliques come and go as the update planner says (it bounds
		// surge and unavailability); pods of scaling groups are created when missing.
		if p.Labels[grovev1.LabelPodCliqueScalingGroup] == "" && !ro.creates[p.Name] &&
			index.Parse(p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]) < int(a.pcs.Spec.Replicas) {
			continue
		}
		owner := obs.cliques[p.Labels[grovev1.LabelPodClique]]
		if owner == nil {
			continue // its PodClique is not visible yet; the next pass creates the pod
		}
		pod := p.DeepCopy()
		pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, grovev1.SchemeGroupVersion.WithKind("PodClique"))}
		if _, err := c.kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); ignoreExists(err) != nil {
			return fmt.Errorf("creating pod %s: %w", pod.Name, err)
		}
		if err := a.afterCreate("Pod"); err != nil {
			return err
		}
	}
	for sg, replicas := range ro.deleteGroups {
		for _, j := range replicas {
			for name, p := range obs.pods {
				if p.Labels[grovev1.LabelPodCliqueScalingGroup] == sg && p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == strconv.Itoa(j) {
					ro.deletes[name] = true
				}
			}
		}
	}
	// Replacements: the capacity the deleted members hold is reserved for their
	// replacements before they go.
	res, err := reservations(obs, ro, metav1.NewTime(c.now()))
	if err != nil {
		return err
	}
	recreated := map[string]bool{}
	wantGangs := map[string]*schedv1.PodGang{}
	for _, g := range want.PodGangs {
		wantGangs[g.Name] = g
	}
	for _, r := range ro.deleteReplicas {
		if ro.replaced[replicasUnitName+"/"+strconv.Itoa(r)] {
			for name, g := range obs.gangs {
				if g.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == strconv.Itoa(r) {
					recreated[name] = true
				}
			}
		}
	}
	if err := a.reserve(obs, res, recreated); err != nil {
		return err
	}
	// ReplicaRecreate: a replica is recreated with new gangs; its pods and gangs go first. A
	// replaced replica's gangs are created again at once, carrying the reservation.
	for _, r := range ro.deleteReplicas {
		for name, p := range obs.pods {
			if p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == strconv.Itoa(r) {
				ro.deletes[name] = true
			}
		}
		for name, g := range obs.gangs {
			if g.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == strconv.Itoa(r) {
				if err := a.deleteObject("PodGang", name, g.UID, func(o metav1.DeleteOptions) error {
					return c.client.SchedulerV1alpha1().PodGangs(ns).Delete(ctx, name, o)
				}); err != nil {
					return err
				}
				if w := wantGangs[name]; recreated[name] && w != nil {
					_, err := c.client.SchedulerV1alpha1().PodGangs(ns).Create(ctx, recreatedGang(w, res[name]), metav1.CreateOptions{})
					if ignoreExists(err) != nil {
						return fmt.Errorf("creating PodGang %s again for the recreated replica: %w", name, err)
					}
				}
			}
		}
	}
	for name := range ro.deletes {
		p := obs.pods[name]
		if p == nil || p.DeletionTimestamp != nil {
			continue
		}
		if err := ignoreNotFound(c.kube.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})); err != nil {
			return fmt.Errorf("deleting pod %s to replace it: %w", name, err)
		}
		a.countDelete("Pod")
	}
	return a.deleteUnwanted(obs, want, wantPods)
}

func (a *applier) deleteUnwanted(obs *observed, want *workload.World, wantPods map[string]bool) error {
	ctx, c, ns := a.ctx, a.c, a.pcs.Namespace
	var surplus []*corev1.Pod
	for name, p := range obs.pods {
		if !wantPods[name] && p.DeletionTimestamp == nil {
			surplus = append(surplus, p)
		}
	}
	// Not-ready pods first, then the highest index.
	sort.Slice(surplus, func(i, j int) bool {
		ri, rj := workload.PodReady(surplus[i]), workload.PodReady(surplus[j])
		if ri != rj {
			return !ri
		}
		return index.Parse(surplus[i].Labels[grovev1.LabelPodCliquePodIndex]) > index.Parse(surplus[j].Labels[grovev1.LabelPodCliquePodIndex])
	})
	for _, p := range surplus {
		if err := ignoreNotFound(c.kube.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})); err != nil {
			return fmt.Errorf("deleting pod %s: %w", p.Name, err)
		}
		a.countDelete("Pod")
	}
	wg, wc, wsg, ws := nameSet(want.PodGangs), nameSet(want.Cliques), nameSet(want.ScalingGroups), nameSet(want.Services)
	var errs []error
	for name, x := range obs.gangs {
		if !wg[name] {
			errs = append(errs, a.deleteObject("PodGang", name, x.UID, func(o metav1.DeleteOptions) error {
				return c.client.SchedulerV1alpha1().PodGangs(ns).Delete(ctx, name, o)
			}))
		}
	}
	for name, x := range obs.cliques {
		if !wc[name] {
			errs = append(errs, a.deleteObject("PodClique", name, x.UID, func(o metav1.DeleteOptions) error {
				return c.client.GroveV1alpha1().PodCliques(ns).Delete(ctx, name, o)
			}))
		}
	}
	for name, x := range obs.groups {
		if !wsg[name] {
			errs = append(errs, a.deleteObject("PodCliqueScalingGroup", name, x.UID, func(o metav1.DeleteOptions) error {
				return c.client.GroveV1alpha1().PodCliqueScalingGroups(ns).Delete(ctx, name, o)
			}))
		}
	}
	for name, x := range obs.services {
		if !ws[name] {
			errs = append(errs, a.deleteObject("Service", name, x.UID, func(o metav1.DeleteOptions) error {
				return c.kube.CoreV1().Services(ns).Delete(ctx, name, o)
			}))
		}
	}
	return errors.Join(errs...)
}

// withReservationRef is the desired gang spec with the reservation reference the live one
// carries (set when it was created for a recreated replica; the desired world does not know it).
func withReservationRef(want, cur schedv1.PodGangSpec) schedv1.PodGangSpec {
	out := *want.DeepCopy()
	out.ReuseReservationRef = cur.ReuseReservationRef
	return out
}

// nameSet is the set of the objects' names.
func nameSet[T metav1.Object](objs []T) map[string]bool {
	m := make(map[string]bool, len(objs))
	for _, o := range objs {
		m[o.GetName()] = true
	}
	return m
}

func (a *applier) deleteObject(kind, name string, uid types.UID, del func(metav1.DeleteOptions) error) error {
	if err := ignoreNotFound(del(metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})); err != nil {
		return fmt.Errorf("deleting %s %s: %w", kind, name, err)
	}
	a.countDelete(kind)
	return nil
}

func (a *applier) countDelete(kind string) {
	if a.deleted == nil {
		a.deleted = map[string]int{}
	}
	a.deleted[kind]++
}

// report records one event per kind and verb for the pass.
func (a *applier) report() {
	if a.c.recorder == nil {
		return
	}
	for _, kind := range sortedKeys(a.created) {
		a.c.recorder.Eventf(a.pcs, corev1.EventTypeNormal, "Created", "Created %d %s(s)", a.created[kind], kind)
	}
	for _, kind := range sortedKeys(a.deleted) {
		a.c.recorder.Eventf(a.pcs, corev1.EventTypeNormal, "Deleted", "Deleted %d %s(s) no longer wanted", a.deleted[kind], kind)
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeStatus updates the status of the PodCliques, scaling groups and the PodCliqueSet.
func (c *Controller) writeStatus(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed, want *workload.World, ro *rollout) error {
	now := metav1.NewTime(c.now())
	hashes := ro.hashes
	podsByClique := map[string][]*corev1.Pod{}
	for _, p := range obs.pods {
		podsByClique[p.Labels[grovev1.LabelPodClique]] = append(podsByClique[p.Labels[grovev1.LabelPodClique]], p)
	}
	var conflicts []string
	for _, pclq := range obs.cliques {
		members := make([]index.Member, 0, len(podsByClique[pclq.Name]))
		for _, p := range podsByClique[pclq.Name] {
			members = append(members, index.Member{Name: p.Name, Index: index.Parse(p.Labels[grovev1.LabelPodCliquePodIndex])})
		}
		if err := index.Track(members, int(pclq.Spec.Replicas)).Error(); err != nil {
			conflicts = append(conflicts, pclq.Name+": "+err.Error())
		}
		st := workload.CliqueStatus(pclq, podsByClique[pclq.Name], hashes[pclq.Labels[workload.LabelCliqueTemplate]], now)
		if !statusEqual(pclq.Status.Conditions, st.Conditions) || pclq.Status.Replicas != st.Replicas || pclq.Status.ReadyReplicas != st.ReadyReplicas ||
			pclq.Status.UpdatedReplicas != st.UpdatedReplicas || !ptr.Equal(pclq.Status.ObservedGeneration, st.ObservedGeneration) || !ptr.Equal(pclq.Status.Selector, st.Selector) {
			upd := pclq.DeepCopy()
			upd.Status = st
			got, err := c.client.GroveV1alpha1().PodCliques(pcs.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{})
			if apierrors.IsNotFound(err) {
				continue // deleted by this pass (no longer wanted): nothing to report
			}
			if err != nil {
				return fmt.Errorf("updating status of PodClique %s: %w", pclq.Name, err)
			}
			obs.cliques[pclq.Name] = got
		}
	}
	for _, sg := range obs.groups {
		var members []*grovev1.PodClique
		for _, pclq := range obs.cliques {
			if pclq.Labels[grovev1.LabelPodCliqueScalingGroup] == sg.Name {
				members = append(members, pclq)
			}
		}
		st := workload.ScalingGroupStatus(sg, members, now)
		if !statusEqual(sg.Status.Conditions, st.Conditions) || sg.Status.Replicas != st.Replicas || sg.Status.AvailableReplicas != st.AvailableReplicas ||
			sg.Status.UpdatedReplicas != st.UpdatedReplicas || !ptr.Equal(sg.Status.ObservedGeneration, st.ObservedGeneration) || !ptr.Equal(sg.Status.Selector, st.Selector) {
			upd := sg.DeepCopy()
			upd.Status = st
			if _, err := c.client.GroveV1alpha1().PodCliqueScalingGroups(pcs.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{}); ignoreNotFound(err) != nil {
				return fmt.Errorf("updating status of PodCliqueScalingGroup %s: %w", sg.Name, err)
			}
		}
	}
	st := setStatus(pcs, obs, want, now, conflicts)
	setProgress(&st, pcs, ro, now)
	c.reportSurge(pcs, &st)
	if apiequality.Semantic.DeepEqual(stripTimes(pcs.Status), stripTimes(st)) {
		return nil
	}
	upd := pcs.DeepCopy()
	upd.Status = st
	if _, err := c.client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating status of PodCliqueSet %s: %w", pcs.Name, err)
	}
	c.observeUpdate(pcs, &st)
	if len(conflicts) > 0 && c.recorder != nil {
		c.recorder.Eventf(pcs, corev1.EventTypeWarning, "IndexConflict", "Pods claim the same index; they are left in place for you to resolve: %v", conflicts)
	}
	return nil
}

// setStatus computes the PodCliqueSet status: a replica is available when each of its gangs
// has minReplicas Ready pods in every podgroup, updated when every pod it should have exists
// with its template's revision.
func setStatus(pcs *grovev1.PodCliqueSet, obs *observed, want *workload.World, now metav1.Time, conflicts []string) grovev1.PodCliqueSetStatus {
	st := *pcs.Status.DeepCopy()
	st.ObservedGeneration = ptr.To(pcs.Generation)
	st.Selector = ptr.To(labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: pcs.Name}).String())
	replicas := map[string]bool{}
	gangsOf := map[string][]*schedv1.PodGang{}
	for _, g := range obs.gangs {
		r := g.Labels[grovev1.LabelPodCliqueSetReplicaIndex]
		replicas[r] = true
		gangsOf[r] = append(gangsOf[r], g)
	}
	st.Replicas = int32(len(replicas))
	st.AvailableReplicas, st.UpdatedReplicas = 0, 0
	for r := range replicas {
		available := len(gangsOf[r]) > 0
		for _, g := range gangsOf[r] {
			if !workload.GangAvailable(g, obs.pods) {
				available = false
			}
		}
		if available {
			st.AvailableReplicas++
		}
	}
	updated := map[string]bool{}
	for r := range replicas {
		updated[r] = true
	}
	for _, p := range want.Pods {
		r := p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]
		cur := obs.pods[p.Name]
		if cur == nil || cur.Labels[grovev1.LabelPodTemplateHash] != p.Labels[grovev1.LabelPodTemplateHash] {
			updated[r] = false
		}
	}
	for r, ok := range updated {
		if ok && replicas[r] {
			st.UpdatedReplicas++
		}
	}
	avail := metav1.Condition{Type: grovev1.ConditionAvailable, ObservedGeneration: pcs.Generation, LastTransitionTime: now}
	if st.AvailableReplicas >= pcs.Spec.Replicas {
		avail.Status, avail.Reason = metav1.ConditionTrue, "ReplicasAvailable"
		avail.Message = "every replica's gangs have minAvailable Ready pods"
	} else {
		avail.Status, avail.Reason = metav1.ConditionFalse, "ReplicasUnavailable"
		avail.Message = strconv.Itoa(int(st.AvailableReplicas)) + " of " + strconv.Itoa(int(pcs.Spec.Replicas)) + " replicas are available"
	}
	meta.SetStatusCondition(&st.Conditions, avail)
	conflict := metav1.Condition{Type: "IndexConflict", ObservedGeneration: pcs.Generation, LastTransitionTime: now, Status: metav1.ConditionFalse, Reason: "NoConflict", Message: "every pod holds its own index"}
	if len(conflicts) > 0 {
		conflict.Status, conflict.Reason = metav1.ConditionTrue, "DuplicateIndex"
		conflict.Message = fmt.Sprintf("pods claim the same index and are left in place: %v", conflicts)
	}
	meta.SetStatusCondition(&st.Conditions, conflict)
	return st
}

// updateState is what the update gauges count for one PodCliqueSet.
type updateState struct{ updating, stalled bool }

// trackUpdate records a PodCliqueSet's update state and sets the gauges.
func (c *Controller) trackUpdate(key string, s updateState) {
	c.updatesMu.Lock()
	defer c.updatesMu.Unlock()
	if s == (updateState{}) {
		delete(c.updates, key)
	} else {
		c.updates[key] = s
	}
	updating, stalled := 0, 0
	for _, u := range c.updates {
		if u.updating {
			updating++
		}
		if u.stalled {
			stalled++
		}
	}
	metrics.UpdatesInProgress.Set(float64(updating))
	metrics.UpdatesStalled.Set(float64(stalled))
}

// observeUpdate records, after a status write, the duration of an update that just ended
// and the update gauges.
func (c *Controller) observeUpdate(pcs *grovev1.PodCliqueSet, st *grovev1.PodCliqueSetStatus) {
	p := st.UpdateProgress
	if p == nil {
		return
	}
	old := pcs.Status.UpdateProgress
	if p.UpdateEndedAt != nil && old != nil && old.UpdateEndedAt == nil && pcs.Status.CurrentRevision == st.CurrentRevision {
		metrics.UpdateDuration.WithLabelValues(strategyOf(pcs)).Observe(p.UpdateEndedAt.Sub(p.UpdateStartedAt.Time).Seconds())
	}
	prog := meta.FindStatusCondition(st.Conditions, grovev1.ConditionProgressing)
	c.trackUpdate(pcs.Namespace+"/"+pcs.Name, updateState{
		updating: p.UpdateEndedAt == nil,
		stalled:  prog != nil && prog.Reason == grovev1.ReasonProgressDeadlineExceeded,
	})
}

func strategyOf(pcs *grovev1.PodCliqueSet) string {
	if pcs.Spec.UpdateStrategy != nil && pcs.Spec.UpdateStrategy.Type != "" {
		return string(pcs.Spec.UpdateStrategy.Type)
	}
	return string(grovev1.RollingUpdateStrategyType)
}

// reportSurge records an event when a surge becomes blocked (or its reason changes) and when
// it is no longer blocked.
func (c *Controller) reportSurge(pcs *grovev1.PodCliqueSet, st *grovev1.PodCliqueSetStatus) {
	if c.recorder == nil {
		return
	}
	was := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionSurgeBlocked)
	now := meta.FindStatusCondition(st.Conditions, grovev1.ConditionSurgeBlocked)
	wasBlocked := was != nil && was.Status == metav1.ConditionTrue
	switch {
	case now != nil && now.Status == metav1.ConditionTrue && (!wasBlocked || was.Message != now.Message):
		c.recorder.Event(pcs, corev1.EventTypeWarning, grovev1.ConditionSurgeBlocked, "No surge member was created: "+now.Message)
	case wasBlocked && (now == nil || now.Status != metav1.ConditionTrue):
		c.recorder.Event(pcs, corev1.EventTypeNormal, "SurgeUnblocked", "No surge waits for capacity any more (it fits now, or the update no longer needs it)")
	}
}

func statusEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		cb := meta.FindStatusCondition(b, a[i].Type)
		if cb == nil || cb.Status != a[i].Status || cb.Reason != a[i].Reason || cb.Message != a[i].Message || cb.ObservedGeneration != a[i].ObservedGeneration {
			return false
		}
	}
	return true
}

func stripTimes(st grovev1.PodCliqueSetStatus) grovev1.PodCliqueSetStatus {
	out := *st.DeepCopy()
	for i := range out.Conditions {
		out.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return out
}
