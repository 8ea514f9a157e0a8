package controller

import (
	"time"

	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// deleteWorkers bounds the pod deletions of one pass that are in flight at once.
const deleteWorkers = 16

// createWorkers bounds the PodClique and PodGang creates of one pass in flight at once (pods
// have their own slow start, batch.go).
const createWorkers = 16

// applier applies one pass's differences for one PodCliqueSet. Pods are created and deleted
// in parallel (batch.go); mu guards the counts.
// key is the PodCliqueSet's queue key (namespace/name), which its expectations are kept by.
func (a *applier) key() string { return cache.MetaObjectToName(a.pcs).String() }

type applier struct {
	c       *Controller
	ctx     context.Context
	pcs     *grovev1.PodCliqueSet
	mu      sync.Mutex
	created map[string]int
	deleted map[string]int
	// firstWrite is when the pass's first create or delete succeeded (zero: none).
	firstWrite time.Time
}

// wrote notes a successful create or delete. Call with mu held.
func (a *applier) wrote() {
	if a.firstWrite.IsZero() {
		a.firstWrite = a.c.now()
	}
}

// afterCreate counts a create of kind whose result was err (nil or AlreadyExists; the caller
// returns other errors): an AlreadyExists, an object a pass the cache has not shown yet made,
// is not a create of this pass and is neither counted, nor reported, nor given to the
// AfterCreate hook.
func (a *applier) afterCreate(kind string, err error) error {
	if err != nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.created == nil {
		a.created = map[string]int{}
	}
	a.created[kind]++
	a.wrote()
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
			if err == nil {
				// Not on AlreadyExists (made by a pass the informer has not shown yet): the
				// typed client then returns an empty object, with no name or UID to own pods.
				obs.groups[sg.Name] = got
			}
			if err := a.afterCreate("PodCliqueScalingGroup", err); err != nil {
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
	// Missing cliques are created in parallel: a new scaling-group replica has one per
	// clique of the group, and one after the other they were round trips on the step's path.
	var newCliques []*grovev1.PodClique
	for _, pclq := range want.Cliques {
		if obs.cliques[pclq.Name] == nil {
			newCliques = append(newCliques, pclq)
		}
	}
	var cliquesMu sync.Mutex
	if err := parallel(len(newCliques), createWorkers, func(i int) error {
		pclq := newCliques[i]
		got, err := c.client.GroveV1alpha1().PodCliques(ns).Create(ctx, pclq, metav1.CreateOptions{})
		if err := ignoreExists(err); err != nil {
			return fmt.Errorf("creating PodClique %s: %w", pclq.Name, err)
		}
		if err == nil {
			// Not on AlreadyExists (made by a pass the informer has not shown yet): the
			// typed client then returns an empty object, with no name or UID to own pods.
			cliquesMu.Lock()
			obs.cliques[pclq.Name] = got
			cliquesMu.Unlock()
		}
		return a.afterCreate("PodClique", err)
	}); err != nil {
		return err
	}
	for _, pclq := range want.Cliques {
		cur := obs.cliques[pclq.Name]
		switch {
		case cur == nil || slices.Contains(newCliques, pclq):
			// Created above (or its create failed with AlreadyExists: the cache shows it soon).
		case cur.Spec.Replicas != pclq.Spec.Replicas || ptr.Deref(cur.Spec.MinAvailable, 0) != ptr.Deref(pclq.Spec.MinAvailable, 0) ||
			cur.Annotations[workload.AnnotationTemplateReplicas] != pclq.Annotations[workload.AnnotationTemplateReplicas]:
			upd := cur.DeepCopy()
			upd.Spec.Replicas, upd.Spec.MinAvailable = pclq.Spec.Replicas, pclq.Spec.MinAvailable
			if v, ok := pclq.Annotations[workload.AnnotationTemplateReplicas]; ok {
				if upd.Annotations == nil {
					upd.Annotations = map[string]string{}
				}
				upd.Annotations[workload.AnnotationTemplateReplicas] = v
			}
			if _, err := c.client.GroveV1alpha1().PodCliques(ns).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating PodClique %s: %w", pclq.Name, err)
			}
		}
	}
	for _, svc := range want.Services {
		if obs.services[svc.Name] == nil {
			_, err := c.kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
			if ignoreExists(err) != nil {
				return fmt.Errorf("creating Service %s: %w", svc.Name, err)
			}
			if err := a.afterCreate("Service", err); err != nil {
				return err
			}
		}
	}
	// Shared claims before the pods that reference them.
	if err := a.applyClaims(obs, want); err != nil {
		return err
	}
	pending, err := pendingReservations(a.pcs)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Dropping unreadable pending reservations")
	}
	// Missing gangs are created in parallel, as cliques are.
	var newGangs []*schedv1.PodGang
	for _, g := range want.PodGangs {
		if obs.gangs[g.Name] == nil {
			newGangs = append(newGangs, g)
		}
	}
	if err := parallel(len(newGangs), createWorkers, func(i int) error {
		g := newGangs[i]
		_, err := c.client.SchedulerV1alpha1().PodGangs(ns).Create(ctx, recreatedGang(g, pending[g.Name]), metav1.CreateOptions{})
		if ignoreExists(err) != nil {
			return fmt.Errorf("creating PodGang %s: %w", g.Name, err)
		}
		return a.afterCreate("PodGang", err)
	}); err != nil {
		return err
	}
	for _, g := range newGangs {
		delete(pending, g.Name)
	}
	for _, g := range want.PodGangs {
		cur := obs.gangs[g.Name]
		switch {
		case cur == nil:
			// Created above.
		case !gangSpecEqual(g.Spec, cur.Spec):
			upd := cur.DeepCopy()
			upd.Spec = withReservationRef(g.Spec, cur.Spec)
			if _, err := c.client.SchedulerV1alpha1().PodGangs(ns).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating PodGang %s: %w", g.Name, err)
			}
		}
	}
	for name := range pending {
		if ro.drainingSlices[name] && obs.gangs[name] == nil {
			continue // the slice gang that takes the capacity back is made once its old members are gone
		}
		if g := obs.gangs[name]; !slices.ContainsFunc(want.PodGangs, func(w *schedv1.PodGang) bool { return w.Name == name }) || (g != nil && g.DeletionTimestamp == nil) {
			delete(pending, name) // no longer wanted, or created (by an earlier pass)
		}
	}
	// Coherent: the group replicas that have a pod (one with none waits for its slice).
	groupMembers := map[update.MemberRef]bool{}
	if coherent(a.pcs) {
		for _, p := range obs.pods {
			if p.Labels[grovev1.LabelPodCliqueScalingGroup] != "" {
				groupMembers[memberOf(p)] = true
			}
		}
	}
	// Scaling-group replicas with a pod still terminating: their missing pods wait until the
	// member is gone (the planner recreates a member whole once its old pods are gone; made
	// one by one as each old pod went, the new pods would run beside the old ones still
	// holding their GPUs).
	// Under ReplicaRecreate the same holds for a whole PodCliqueSet replica (update.PlanSet
	// plans no create inside it; its scaling groups' pods wait here).
	recreate := strategyType(a.pcs) == update.ReplicaRecreate
	terminating := map[update.MemberRef]bool{}
	goingReplicas := map[string]bool{}
	for _, p := range obs.pods {
		if p.DeletionTimestamp == nil {
			continue
		}
		if p.Labels[grovev1.LabelPodCliqueScalingGroup] != "" {
			terminating[memberOf(p)] = true
		}
		if recreate {
			goingReplicas[p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]] = true
		}
	}
	wantPods := map[string]bool{}
	var toCreate []*corev1.Pod
	for _, p := range want.Pods {
		wantPods[p.Name] = true
		if obs.pods[p.Name] != nil {
			continue
		}
		if g := obs.gangs[workload.GangOf(p.Labels)]; g != nil && g.DeletionTimestamp != nil {
			continue // a pod never joins a gang that is going away; its gang is created again first
		}
		// Pods of standalone cliques come and go as the update planner says (it bounds
		// surge and unavailability); pods of scaling groups are created when missing.
		if p.Labels[grovev1.LabelPodCliqueScalingGroup] == "" && !ro.creates[p.Name] &&
			index.Parse(p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]) < int(a.pcs.Spec.Replicas) {
			continue
		}
		if (p.Labels[grovev1.LabelPodCliqueScalingGroup] != "" && terminating[memberOf(p)]) || goingReplicas[p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]] {
			continue
		}
		// Coherent: a group replica with no pod is made whole in its slice, when the plan says.
		if key := memberOf(p); coherent(a.pcs) && p.Labels[grovev1.LabelPodCliqueScalingGroup] != "" && !groupMembers[key] && !ro.createGroups[key] {
			continue
		}
		owner := obs.cliques[p.Labels[grovev1.LabelPodClique]]
		if owner == nil {
			continue // its PodClique is not visible yet; the next pass creates the pod
		}
		pod := p.DeepCopy()
		pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, grovev1.SchemeGroupVersion.WithKind("PodClique"))}
		toCreate = append(toCreate, pod)
	}
	// By gang, so that the first batch is the first gang's missing members (batch.go).
	sort.SliceStable(toCreate, func(i, j int) bool {
		return workload.GangOf(toCreate[i].Labels) < workload.GangOf(toCreate[j].Labels)
	})
	first := 0
	for first < len(toCreate) && workload.GangOf(toCreate[first].Labels) == workload.GangOf(toCreate[0].Labels) {
		first++
	}
	if err := slowStart(len(toCreate), first, func(i int) error {
		c.expect.created(a.key(), a.pcs.UID, toCreate[i].Name)
		_, err := c.kube.CoreV1().Pods(ns).Create(ctx, toCreate[i], metav1.CreateOptions{})
		if err != nil {
			// Nothing was made, AlreadyExists included: the name may belong to a pod still
			// terminating, whose end would then be awaited as this create's appearance.
			c.expect.undo(a.key(), a.pcs.UID, toCreate[i].Name)
		}
		if ignoreExists(err) != nil {
			return fmt.Errorf("creating pod %s: %w", toCreate[i].Name, err)
		}
		return a.afterCreate("Pod", err)
	}); err != nil {
		return err
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
	res, err := reservations(obs, ro, metav1.NewTime(c.now()), a.claimDevices)
	if err != nil {
		return err
	}
	recreated := map[string]bool{}
	wantGangs := map[string]*schedv1.PodGang{}
	for _, g := range want.PodGangs {
		wantGangs[g.Name] = g
	}
	for _, r := range ro.deleteReplicas {
		if ro.replaced[update.MemberRef{Kind: update.SetReplicas, Unit: replicasUnitName, Index: r}] {
			for name, g := range obs.gangs {
				if g.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == strconv.Itoa(r) {
					recreated[name] = true
				}
			}
		}
	}
	if err := a.reserve(obs, res); err != nil {
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
					switch {
					case apierrors.IsAlreadyExists(err):
						// The old object is still terminating (it holds meanwhile): keep
						// the reservation for the pass that creates the gang again.
						if res[name] != "" {
							pending[name] = res[name]
						}
					case err != nil:
						return fmt.Errorf("creating PodGang %s again for the recreated replica: %w", name, err)
					}
				}
			}
		}
	}
	for g, r := range res {
		if ro.drainingSlices[g] && obs.gangs[g] == nil {
			pending[g] = r // the slice gang is made after its old members are gone
		}
	}
	if err := a.keepPending(pending); err != nil {
		return err
	}
	var replaced []*corev1.Pod
	for name := range ro.deletes {
		if p := obs.pods[name]; p != nil && p.DeletionTimestamp == nil {
			replaced = append(replaced, p)
		}
	}
	if err := parallel(len(replaced), deleteWorkers, func(i int) error {
		return a.deletePod(replaced[i], " to replace it")
	}); err != nil {
		return err
	}
	if err := a.deleteUnwanted(obs, want, wantPods); err != nil {
		return err
	}
	return a.landSlices(obs, want)
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
	if err := parallel(len(surplus), deleteWorkers, func(i int) error {
		return a.deletePod(surplus[i], "")
	}); err != nil {
		return err
	}
	wg, wc, wsg, ws := nameSet(want.PodGangs), nameSet(want.Cliques), nameSet(want.ScalingGroups), nameSet(want.Services)
	var errs []error
	for name, x := range obs.gangs {
		if !wg[name] {
			if err := a.releaseHold(x); err != nil {
				errs = append(errs, err)
				continue
			}
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
	errs = append(errs, a.deleteUnwantedClaims(obs, want))
	return errors.Join(errs...)
}

// deletePod deletes p (this incarnation only: a UID precondition), recorded in the
// expectations before the call and taken back when it fails; why ends the error message.
func (a *applier) deletePod(p *corev1.Pod, why string) error {
	a.c.expect.deleted(a.key(), a.pcs.UID, p)
	err := a.c.kube.CoreV1().Pods(a.pcs.Namespace).Delete(a.ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
	if err := ignoreNotFound(err); err != nil {
		a.c.expect.undo(a.key(), a.pcs.UID, p.Name)
		return fmt.Errorf("deleting pod %s%s: %w", p.Name, why, err)
	}
	a.countDelete("Pod")
	return nil
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
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.deleted == nil {
		a.deleted = map[string]int{}
	}
	a.deleted[kind]++
	a.wrote()
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
