package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Events of adoption.
const (
	// ReasonManagedByAnotherOperator: the set's children carry another operator's
	// app.kubernetes.io/managed-by and the controller does not adopt from it (--adopt-from).
	ReasonManagedByAnotherOperator = "ManagedByAnotherOperator"
	// ReasonAdopted: the controller took the set's children over from another operator.
	ReasonAdopted = "Adopted"
)

// Annotations adoption leaves on every child it relabels, so that the set can be handed back
// to the operator it came from with the labels that operator reads (docs/operations.md).
const (
	// AnnotationAdoptedFrom is the operator a child was adopted from (its managed-by value).
	AnnotationAdoptedFrom = "phalanx.dev/adopted-from"
	// AnnotationAdoptedTemplateHash is the pod-template-hash the child carried under that
	// operator (PodCliques and pods): its own hash of the template, which Phalanx cannot
	// compute.
	AnnotationAdoptedTemplateHash = "phalanx.dev/adopted-template-hash"
	// AnnotationAdoptedStatus is the status that operator last wrote (the PodCliqueSet, its
	// PodCliques and scaling groups), as JSON: its own update bookkeeping, which Phalanx's
	// status replaces and a hand-back restores while the set's spec is unchanged.
	AnnotationAdoptedStatus = "phalanx.dev/adopted-status"
	// AnnotationAdoptedGeneration, on the PodCliqueSet, is its metadata.generation when it was
	// adopted.
	AnnotationAdoptedGeneration = "phalanx.dev/adopted-generation"
)

// indexByClique indexes the pods of the operators adopted from by "<namespace>/<PodClique>":
// Grove's pods carry their PodClique's name but not their PodCliqueSet's.
const indexByClique = "phalanx.dev/adopt-podclique"

// SetAdoptFrom names the operators (values of app.kubernetes.io/managed-by, "grove-operator"
// for Grove's) whose PodCliqueSets the controller takes over in place: their PodCliques,
// scaling groups, PodGangs, Services and pods are relabelled as its own, every pod and index
// kept (docs/operations.md, "Moving between Grove's operator and Phalanx"). Without it a set
// whose children another operator made is left alone, with a ManagedByAnotherOperator event.
// Call before Run; never adopt from an operator that is still running.
func (c *Controller) SetAdoptFrom(managers ...string) {
	c.adoptFrom = map[string]bool{}
	for _, m := range managers {
		if m != "" && m != workload.ManagedBy {
			c.adoptFrom[m] = true
		}
	}
}

// managedBySelector selects the pods and Services the controller's caches hold: its own and
// those of the operators it adopts from.
func (c *Controller) managedBySelector() string {
	managers := []string{workload.ManagedBy}
	for m := range c.adoptFrom {
		managers = append(managers, m)
	}
	sort.Strings(managers)
	if len(managers) == 1 {
		return labels.SelectorFromSet(labels.Set{workload.LabelManagedBy: workload.ManagedBy}).String()
	}
	return fmt.Sprintf("%s in (%s)", workload.LabelManagedBy, strings.Join(managers, ","))
}

// cliqueIndex is the indexByClique function.
func (c *Controller) cliqueIndex(obj any) ([]string, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok || !c.adoptFrom[p.Labels[workload.LabelManagedBy]] || p.Labels[grovev1.LabelPodClique] == "" {
		return nil, nil
	}
	return []string{p.Namespace + "/" + p.Labels[grovev1.LabelPodClique]}, nil
}

// foreign are the children of a PodCliqueSet that another operator made.
type foreign struct {
	manager  string
	cliques  []*grovev1.PodClique
	groups   []*grovev1.PodCliqueScalingGroup
	gangs    []*schedv1.PodGang
	services []*corev1.Service
	pods     []*corev1.Pod
	// claims are the ResourceClaims it made for the set's resource sharing.
	claims []*resourcev1.ResourceClaim
}

func (f *foreign) empty() bool {
	return len(f.cliques)+len(f.groups)+len(f.gangs)+len(f.services)+len(f.pods)+len(f.claims) == 0
}

// ownedBy reports whether uid is m's controller.
func ownedBy(m metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOf(m)
	return ref != nil && ref.UID == uid
}

// indexForeignBySet indexes the PodCliques, scaling groups, PodGangs and Services that another
// operator made (app.kubernetes.io/managed-by other than Phalanx's) by
// "<namespace>/<app.kubernetes.io/part-of>", so that a pass finds them without a scan (none,
// almost always).
const indexForeignBySet = "phalanx.dev/foreign-podcliqueset"

// foreignSetIndex is the indexForeignBySet function.
func foreignSetIndex(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil
	}
	l := m.GetLabels()
	if set := l[grovev1.LabelPodCliqueSet]; set != "" && l[workload.LabelManagedBy] != workload.ManagedBy {
		return []string{m.GetNamespace() + "/" + set}, nil
	}
	return nil, nil
}

// foreignOf lists the objects of idx that another operator made for set key and that the set
// (or one of owners) controls.
func foreignOf[T metav1.Object](idx cache.Indexer, key string, owners map[types.UID]bool) ([]T, error) {
	objs, err := idx.ByIndex(indexForeignBySet, key)
	if err != nil {
		return nil, fmt.Errorf("reading the %s index: %w", indexForeignBySet, err)
	}
	var out []T
	for _, o := range objs {
		t, ok := o.(T)
		if !ok {
			continue
		}
		if ref := metav1.GetControllerOf(t); ref != nil && owners[ref.UID] {
			out = append(out, t)
		}
	}
	return out, nil
}

// findForeign lists the children of pcs that another operator made: its PodCliques, scaling
// groups, PodGangs and Services (by part-of label, controlled by the set or, for a scaling
// group's cliques, by one of its groups) and the pods of those PodCliques. Pods and Services
// are seen only for the operators adopted from (the caches hold no other).
func (c *Controller) findForeign(pcs *grovev1.PodCliqueSet) (*foreign, error) {
	key := cacheKey(pcs)
	owners := map[types.UID]bool{pcs.UID: true}
	f := &foreign{}
	var err error
	if f.groups, err = foreignOf[*grovev1.PodCliqueScalingGroup](c.index.groups, key, owners); err != nil {
		return nil, err
	}
	for _, g := range f.groups {
		owners[g.UID] = true
	}
	if f.cliques, err = foreignOf[*grovev1.PodClique](c.index.cliques, key, owners); err != nil {
		return nil, err
	}
	if f.gangs, err = foreignOf[*schedv1.PodGang](c.index.gangs, key, owners); err != nil {
		return nil, err
	}
	if f.services, err = foreignOf[*corev1.Service](c.index.services, key, owners); err != nil {
		return nil, err
	}
	if c.index.claims != nil {
		// Shared claims are controlled by the set, a scaling group or a PodClique.
		claimOwners := maps.Clone(owners)
		for _, x := range f.cliques {
			claimOwners[x.UID] = true
		}
		if f.claims, err = foreignOf[*resourcev1.ResourceClaim](c.index.claims, key, claimOwners); err != nil {
			return nil, err
		}
	}
	switch {
	case len(f.cliques) > 0:
		f.manager = f.cliques[0].Labels[workload.LabelManagedBy]
	case len(f.groups) > 0:
		f.manager = f.groups[0].Labels[workload.LabelManagedBy]
	case len(f.gangs) > 0:
		f.manager = f.gangs[0].Labels[workload.LabelManagedBy]
	case len(f.services) > 0:
		f.manager = f.services[0].Labels[workload.LabelManagedBy]
	case len(f.claims) > 0:
		// Only claims left (their cache lags the others' after an adoption).
		f.manager = f.claims[0].Labels[workload.LabelManagedBy]
	}
	if len(c.adoptFrom) == 0 || f.manager != "" && !c.adoptFrom[f.manager] {
		return f, nil
	}
	// Pods by every PodClique of the set, adopted or not: the informer may show a PodClique
	// relabelled before its pods, and a pass that then ran would make the pods it misses anew.
	own, err := byIndex[*grovev1.PodClique](c.index.cliques, key)
	if err != nil {
		return nil, err
	}
	for _, pclq := range append(own, f.cliques...) {
		objs, err := c.index.pods.ByIndex(indexByClique, pclq.Namespace+"/"+pclq.Name)
		if err != nil {
			return nil, fmt.Errorf("reading the %s index: %w", indexByClique, err)
		}
		for _, o := range objs {
			if p, ok := o.(*corev1.Pod); ok && ownedBy(p, pclq.UID) {
				f.pods = append(f.pods, p)
			}
		}
	}
	if f.manager == "" && len(f.pods) > 0 {
		f.manager = f.pods[0].Labels[workload.LabelManagedBy]
	}
	return f, nil
}

// adoptForeign handles a PodCliqueSet whose children another operator made. It returns true
// when the pass must stop there: the children are not the controller's (yet).
//
// Without --adopt-from for that operator, nothing is written (two operators on the same
// objects fight: each deletes what the other creates) and a ManagedByAnotherOperator event
// says why the set is left alone. With it, every child is relabelled as the controller's own
// (the labels of its desired counterpart, under its resourceVersion): nothing is deleted or
// recreated, and pods keep their names (workload.Observed.PodNames). A pod is marked as of the
// current template only when the other operator said it is (adoptedHash); otherwise the update
// strategy replaces it as any outdated pod.
func (c *Controller) adoptForeign(ctx context.Context, pcs *grovev1.PodCliqueSet) (bool, error) {
	f, err := c.findForeign(pcs)
	if err != nil || f.empty() {
		return false, err
	}
	logger := klog.FromContext(ctx).WithValues("podCliqueSet", klog.KObj(pcs), "managedBy", f.manager)
	if !c.adoptFrom[f.manager] {
		logger.V(2).Info("Leaving a PodCliqueSet whose children another operator manages", "podCliques", len(f.cliques))
		if c.recorder != nil {
			c.recorder.Eventf(pcs, corev1.EventTypeWarning, ReasonManagedByAnotherOperator,
				"its children are managed by %q: Phalanx's controller leaves them alone (to move the set to Phalanx, stop that operator and run Phalanx with --adopt-from=%s)", f.manager, f.manager)
		}
		return true, nil
	}
	cliques := map[string]*grovev1.PodClique{}
	own, err := byIndex[*grovev1.PodClique](c.index.cliques, cacheKey(pcs))
	if err != nil {
		return true, err
	}
	for _, x := range append(own, f.cliques...) {
		cliques[x.Name] = x
	}
	groups := map[string]*grovev1.PodCliqueScalingGroup{}
	for _, x := range f.groups {
		groups[x.Name] = x
	}
	pods := map[string]*corev1.Pod{}
	for _, x := range f.pods {
		pods[x.Name] = x
	}
	want := workload.Desired(pcs, workload.Observed{Cliques: cliques, ScalingGroups: groups, PodNames: adoptedNames(pods)})
	desired := map[string]map[string]string{}
	key := func(kind, name string) string { return kind + "/" + name }
	for _, x := range want.Cliques {
		desired[key("PodClique", x.Name)] = x.Labels
	}
	for _, x := range want.ScalingGroups {
		desired[key("PodCliqueScalingGroup", x.Name)] = x.Labels
	}
	for _, x := range want.PodGangs {
		desired[key("PodGang", x.Name)] = x.Labels
	}
	for _, x := range want.Services {
		desired[key("Service", x.Name)] = x.Labels
	}
	for _, x := range want.Pods {
		desired[key("Pod", x.Name)] = x.Labels
	}
	ns := pcs.Namespace
	// The set first: where it came from, at which generation, and the status its operator
	// wrote; kept from the first adoption when a pass is repeated.
	if pcs.Annotations[AnnotationAdoptedFrom] == "" {
		st, err := json.Marshal(pcs.Status)
		if err != nil {
			return true, err
		}
		raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
			AnnotationAdoptedFrom: f.manager, AnnotationAdoptedGeneration: strconv.FormatInt(pcs.Generation, 10), AnnotationAdoptedStatus: string(st),
		}}})
		if err != nil {
			return true, err
		}
		if _, err := c.client.GroveV1alpha1().PodCliqueSets(ns).Patch(ctx, pcs.Name, types.MergePatchType, raw, metav1.PatchOptions{}); err != nil {
			return true, fmt.Errorf("recording the adoption of PodCliqueSet %s/%s: %w", ns, pcs.Name, err)
		}
	}
	statusOf := func(st any) string {
		raw, err := json.Marshal(st)
		if err != nil {
			return ""
		}
		return string(raw)
	}
	relabel := func(kind string, m metav1.Object, status string, patch func([]byte) error, extra func(map[string]string)) error {
		l := map[string]string{workload.LabelManagedBy: workload.ManagedBy, grovev1.LabelPodCliqueSet: pcs.Name}
		for k, v := range desired[key(kind, m.GetName())] {
			l[k] = v
		}
		if extra != nil {
			extra(l)
		}
		// resourceVersion makes the patch conditional: a child changed since it was read is
		// adopted by the next pass, from what it is then.
		ann := map[string]string{AnnotationAdoptedFrom: f.manager}
		if h := m.GetLabels()[grovev1.LabelPodTemplateHash]; h != "" {
			ann[AnnotationAdoptedTemplateHash] = h
		}
		if status != "" {
			ann[AnnotationAdoptedStatus] = status
		}
		raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": l, "annotations": ann, "resourceVersion": m.GetResourceVersion()}})
		if err != nil {
			return err
		}
		if err := patch(raw); err != nil {
			return fmt.Errorf("adopting %s %s/%s: %w", kind, ns, m.GetName(), err)
		}
		return nil
	}
	mp := types.MergePatchType
	var n int
	// Pods first: a pass that sees their PodClique adopted and them not yet stops here
	// (findForeign finds them through it) instead of making them anew.
	current := 0
	for _, x := range f.pods {
		pclq := cliques[x.Labels[grovev1.LabelPodClique]]
		if err := relabel("Pod", x, "", func(b []byte) error {
			_, err := c.kube.CoreV1().Pods(ns).Patch(ctx, x.Name, mp, b, metav1.PatchOptions{})
			return err
		}, func(l map[string]string) {
			if h, ok := adoptedHash(pcs, pclq, x, l[grovev1.LabelPodTemplateHash]); ok {
				l[grovev1.LabelPodTemplateHash] = h
				current++
			} else {
				// The desired pod's labels are of the current template; this pod keeps what
				// says it is not (the update strategy replaces it).
				l[grovev1.LabelPodTemplateHash] = x.Labels[grovev1.LabelPodTemplateHash]
			}
		}); err != nil {
			return true, err
		}
		n++
	}
	for _, x := range f.cliques {
		if err := relabel("PodClique", x, statusOf(x.Status), func(b []byte) error {
			_, err := c.client.GroveV1alpha1().PodCliques(ns).Patch(ctx, x.Name, mp, b, metav1.PatchOptions{})
			return err
		}, nil); err != nil {
			return true, err
		}
		n++
	}
	for _, x := range f.groups {
		if err := relabel("PodCliqueScalingGroup", x, statusOf(x.Status), func(b []byte) error {
			_, err := c.client.GroveV1alpha1().PodCliqueScalingGroups(ns).Patch(ctx, x.Name, mp, b, metav1.PatchOptions{})
			return err
		}, nil); err != nil {
			return true, err
		}
		n++
	}
	for _, x := range f.gangs {
		if err := relabel("PodGang", x, "", func(b []byte) error {
			_, err := c.client.SchedulerV1alpha1().PodGangs(ns).Patch(ctx, x.Name, mp, b, metav1.PatchOptions{})
			return err
		}, nil); err != nil {
			return true, err
		}
		n++
	}
	for _, x := range f.services {
		if err := relabel("Service", x, "", func(b []byte) error {
			_, err := c.kube.CoreV1().Services(ns).Patch(ctx, x.Name, mp, b, metav1.PatchOptions{})
			return err
		}, nil); err != nil {
			return true, err
		}
		n++
	}
	for _, x := range f.claims {
		if err := relabel("ResourceClaim", x, "", func(b []byte) error {
			_, err := c.kube.ResourceV1().ResourceClaims(ns).Patch(ctx, x.Name, mp, b, metav1.PatchOptions{})
			return err
		}, nil); err != nil {
			return true, err
		}
		n++
	}
	logger.Info("Adopted a PodCliqueSet's children from another operator", "objects", n, "pods", len(f.pods), "podsOfCurrentTemplate", current)
	if c.recorder != nil {
		c.recorder.Eventf(pcs, corev1.EventTypeNormal, ReasonAdopted,
			"adopted %d objects from %q (%d pods, %d of them of the current template; no pod deleted or recreated)", n, f.manager, len(f.pods), current)
	}
	// The relabelled children reach the caches as update events, which enqueue the set; the
	// delay covers a watch that lags.
	c.queue.AddAfter(cacheKey(pcs), time.Second)
	return true, nil
}

// adoptedHash is the pod-template-hash an adopted pod takes: the current template's (want)
// when the operator that made it said the pod is of the template the set asks for now, that
// is when the operator had observed the set's generation (status.observedGeneration), its
// PodClique's status.currentPodTemplateHash is the clique's target (its pod-template-hash
// label) and the pod carries that hash. A pod of an update the operator had not finished
// keeps its hash and is updated by Phalanx's strategy. Template hashes are each operator's
// own (Grove hashes Go structs of its API version): they are compared, never computed here.
func adoptedHash(pcs *grovev1.PodCliqueSet, pclq *grovev1.PodClique, pod *corev1.Pod, want string) (string, bool) {
	if pclq == nil || want == "" || pcs.Status.ObservedGeneration == nil || *pcs.Status.ObservedGeneration != pcs.Generation {
		return "", false
	}
	target, current := pclq.Labels[grovev1.LabelPodTemplateHash], ptr.Deref(pclq.Status.CurrentPodTemplateHash, "")
	if pclq.Labels[workload.LabelManagedBy] == workload.ManagedBy {
		// Adopted by an earlier pass: what the operator wrote is in the adoption's record.
		var st grovev1.PodCliqueStatus
		_ = json.Unmarshal([]byte(pclq.Annotations[AnnotationAdoptedStatus]), &st)
		target, current = pclq.Annotations[AnnotationAdoptedTemplateHash], ptr.Deref(st.CurrentPodTemplateHash, "")
	}
	if target == "" || current != target {
		return "", false
	}
	if pod.Labels[grovev1.LabelPodTemplateHash] != target {
		return "", false
	}
	return want, true
}

func cacheKey(m metav1.Object) string { return m.GetNamespace() + "/" + m.GetName() }
