package controller

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// observed holds a PodCliqueSet's children as the caches see them.
type observed struct {
	cliques  map[string]*grovev1.PodClique
	groups   map[string]*grovev1.PodCliqueScalingGroup
	gangs    map[string]*schedv1.PodGang
	pods     map[string]*corev1.Pod
	services map[string]*corev1.Service
	// claims are the ResourceClaims made for the set's resource sharing (empty when the API
	// server serves no DRA API).
	claims map[string]*resourcev1.ResourceClaim
	// podNames are the pods named otherwise than workload.PodName (adopted from another
	// operator), by the PodName of their clique and index (workload.Observed.PodNames).
	podNames map[string]string
	// topology is the set's packing domains as node label keys (workload.Observed.TopologyKeys).
	topology map[string]string
	// topologyCond and keepTopologyCond: the set's TopologyLevelsUnavailable condition
	// (Controller.topologyKeys).
	topologyCond     *metav1.Condition
	keepTopologyCond bool

	// byLabel are the pods grouped by the value of a label (podsBy), built once per pass
	// and label; setPod drops them.
	byLabel map[string]map[string][]*corev1.Pod
}

// podsBy returns the observed pods grouped by the value of label. Plan and status of a pass
// read the same groups; they are built once. Do not modify the result.
func (o *observed) podsBy(label string) map[string][]*corev1.Pod {
	if g, ok := o.byLabel[label]; ok {
		return g
	}
	g := map[string][]*corev1.Pod{}
	for _, p := range o.pods {
		if v, ok := p.Labels[label]; ok {
			g[v] = append(g[v], p)
		}
	}
	if o.byLabel == nil {
		o.byLabel = map[string]map[string][]*corev1.Pod{}
	}
	o.byLabel[label] = g
	return g
}

// setPod changes what the pass sees of pod name (a deletion it made); the groups of podsBy
// are built again.
func (o *observed) setPod(name string, p *corev1.Pod) {
	o.pods[name] = p
	o.byLabel = nil
}

// indexBySet indexes the controller's caches of a PodCliqueSet's children by
// "<namespace>/<PodCliqueSet name>": a pass reads its set's objects from the index, not by
// matching a label selector against every object of the namespace (a third of the pass's
// reading, measured in make perf-updates at 900 pods).
const indexBySet = "phalanx.dev/podcliqueset"

// setIndex is the indexBySet function: the PodCliqueSet of an object this controller manages.
func setIndex(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil
	}
	l := m.GetLabels()
	if set := l[grovev1.LabelPodCliqueSet]; set != "" && l[workload.LabelManagedBy] == workload.ManagedBy {
		return []string{m.GetNamespace() + "/" + set}, nil
	}
	return nil, nil
}

// childIndexers are the caches observe reads, indexed by set.
type childIndexers struct {
	cliques, groups, gangs, pods, services cache.Indexer
	// claims is nil when the API server serves no resource.k8s.io/v1 (claims.go).
	claims cache.Indexer
}

// addSetIndex adds indexBySet (and more indexers, if any) to an informer and returns its
// indexer.
func addSetIndex(inf cache.SharedIndexInformer, more ...cache.Indexers) cache.Indexer {
	idx := cache.Indexers{indexBySet: setIndex}
	for _, m := range more {
		for k, v := range m {
			idx[k] = v
		}
	}
	if err := inf.AddIndexers(idx); err != nil {
		// Only a stopped informer or a second index of the same name refuses; New adds it
		// once, before anything starts.
		panic(fmt.Sprintf("adding the PodCliqueSet index: %v", err))
	}
	return inf.GetIndexer()
}

// byIndex lists the objects of set key in idx, as T.
func byIndex[T any](idx cache.Indexer, key string) ([]T, error) {
	objs, err := idx.ByIndex(indexBySet, key)
	if err != nil {
		return nil, fmt.Errorf("reading the %s index: %w", indexBySet, err)
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// podName is the name of the pod of clique at index: an adopted pod's own name, else
// workload.PodName.
func (o *observed) podName(clique string, index int) string {
	name := workload.PodName(clique, index)
	if adopted, ok := o.podNames[name]; ok {
		return adopted
	}
	return name
}

// adoptedNames maps workload.PodName of each pod's clique and index to the pod's name, for the
// pods named otherwise (made by another operator and adopted). A pod that has its PodName
// name wins over an adopted one of the same index; of two adopted ones, the older.
func adoptedNames(pods map[string]*corev1.Pod) map[string]string {
	var out map[string]string
	for name, p := range pods {
		clique, idx := p.Labels[grovev1.LabelPodClique], p.Labels[grovev1.LabelPodCliquePodIndex]
		if clique == "" || idx == "" {
			continue
		}
		want := clique + "-" + idx
		if name == want || pods[want] != nil {
			continue
		}
		if cur, ok := out[want]; ok && !p.CreationTimestamp.Before(&pods[cur].CreationTimestamp) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[want] = name
	}
	return out
}

// observe reads the children of pcs from the caches.
func (c *Controller) observe(pcs *grovev1.PodCliqueSet) (*observed, error) {
	key := pcs.Namespace + "/" + pcs.Name
	o := &observed{cliques: map[string]*grovev1.PodClique{}, groups: map[string]*grovev1.PodCliqueScalingGroup{}, gangs: map[string]*schedv1.PodGang{},
		pods: map[string]*corev1.Pod{}, services: map[string]*corev1.Service{}}
	cliques, err := byIndex[*grovev1.PodClique](c.index.cliques, key)
	if err != nil {
		return nil, err
	}
	for _, x := range cliques {
		o.cliques[x.Name] = x
	}
	groups, err := byIndex[*grovev1.PodCliqueScalingGroup](c.index.groups, key)
	if err != nil {
		return nil, err
	}
	for _, x := range groups {
		o.groups[x.Name] = x
	}
	gangs, err := byIndex[*schedv1.PodGang](c.index.gangs, key)
	if err != nil {
		return nil, err
	}
	for _, x := range gangs {
		o.gangs[x.Name] = x
	}
	pods, err := byIndex[*corev1.Pod](c.index.pods, key)
	if err != nil {
		return nil, err
	}
	o.pods = make(map[string]*corev1.Pod, len(pods))
	for _, x := range pods {
		o.pods[x.Name] = x
	}
	o.podNames = adoptedNames(o.pods)
	o.topology, o.topologyCond, o.keepTopologyCond = c.topologyKeys(pcs)
	svcs, err := byIndex[*corev1.Service](c.index.services, key)
	if err != nil {
		return nil, err
	}
	for _, x := range svcs {
		o.services[x.Name] = x
	}
	o.claims = map[string]*resourcev1.ResourceClaim{}
	if c.index.claims != nil {
		claims, err := byIndex[*resourcev1.ResourceClaim](c.index.claims, key)
		if err != nil {
			return nil, err
		}
		for _, x := range claims {
			o.claims[x.Name] = x
		}
	}
	return o, nil
}
