package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

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

func (c *Controller) observe(pcs *grovev1.PodCliqueSet) (*observed, error) {
	sel := labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: pcs.Name, workload.LabelManagedBy: workload.ManagedBy})
	o := &observed{cliques: map[string]*grovev1.PodClique{}, groups: map[string]*grovev1.PodCliqueScalingGroup{}, gangs: map[string]*schedv1.PodGang{},
		pods: map[string]*corev1.Pod{}, services: map[string]*corev1.Service{}}
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
