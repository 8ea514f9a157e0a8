package controller

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// BenchmarkPass is the pure part of one controller pass (plan, desired world through the
// controller's cache, PodCliqueSet status) over a PodCliqueSet of N replicas, each a scaling group of 3 replicas of a leader and
// 2 workers (9 pods; make perf's update workload), every pod Ready and at the new template but
// one group replica's: the cost an update pays at each of its steps, on top of the API calls.
func BenchmarkPass(b *testing.B) {
	for _, replicas := range []int{10, 100} {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			pcs, obs := benchWorld(replicas)
			in := rolloutInputs{hashes: workload.TemplateHashes(pcs)}
			now := metav1.Now()
			dc := &workload.DesiredCache{}
			var gone *corev1.Pod
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Each pass sees one replica changed (a member gone, or back), as an update's
				// steps do: the desired-world cache rebuilds that replica only.
				if gone != nil {
					obs.pods[gone.Name], gone = gone, nil
				} else {
					name := workload.PodName(workload.GroupCliqueName(pcs.Name, i%replicas, "sg", 0, "leader"), 0)
					gone = obs.pods[name]
					delete(obs.pods, name)
				}
				obs.byLabel = nil // a pass observes afresh: its groupings are its own cost
				ro, err := planRollout(pcs, obs, nil, in)
				if err != nil {
					b.Fatal(err)
				}
				want := dc.Desired(pcs, ro.observed(obs))
				_ = setStatus(pcs, obs, want, now, nil, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(replicas*9), "µs/pod")
		})
	}
}

// benchWorld is the observed world of a PodCliqueSet of n replicas (see BenchmarkPass).
func benchWorld(n int) (*grovev1.PodCliqueSet, *observed) {
	clique := func(name string, pods int32) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: name, Spec: grovev1.PodCliqueSpec{RoleName: name, Replicas: pods, PodSpec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: name, Image: "registry.example.com/llm/prefill:v1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("2")}}}},
		}}}
	}
	pcs := &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pcsg", UID: "uid", Generation: 2},
		Spec: grovev1.PodCliqueSetSpec{
			Replicas:       int32(n),
			UpdateStrategy: &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingUpdateStrategyType},
			Template: grovev1.PodCliqueSetTemplateSpec{
				Cliques: []grovev1.PodCliqueTemplateSpec{clique("leader", 1), clique("worker", 2)},
				PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{{
					Name: "sg", CliqueNames: []string{"leader", "worker"}, Replicas: ptr.To[int32](3), MinAvailable: ptr.To[int32](3),
					UpdateStrategy: &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))},
				}},
			},
		},
	}
	w := workload.Desired(pcs, workload.Observed{})
	obs := &observed{cliques: map[string]*grovev1.PodClique{}, groups: map[string]*grovev1.PodCliqueScalingGroup{},
		gangs: map[string]*schedv1.PodGang{}, pods: map[string]*corev1.Pod{}, services: map[string]*corev1.Service{}}
	for _, c := range w.Cliques {
		obs.cliques[c.Name] = c
	}
	for _, g := range w.ScalingGroups {
		obs.groups[g.Name] = g
	}
	for _, g := range w.PodGangs {
		obs.gangs[g.Name] = g
	}
	for i, p := range w.Pods {
		p := p.DeepCopy()
		p.Spec.NodeName = "node"
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		if i < 3 { // one group replica still at the old template: an update under way
			p.Labels[grovev1.LabelPodTemplateHash] = "old"
		}
		obs.pods[p.Name] = p
	}
	return pcs, obs
}
