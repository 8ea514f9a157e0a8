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
