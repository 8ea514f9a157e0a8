package surgeadmission_test

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/inspect"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/surgeadmission"
	"github.com/phalanx-sched/phalanx/pkg/surge"
)

func gpuNode(name string, gpus int64) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("64"), v1.ResourceMemory: resource.MustParse("512Gi"), v1.ResourcePods: resource.MustParse("110"),
		"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}, Status: v1.NodeStatus{Allocatable: rl, Capacity: rl}}
}

func gpuPod(name string, gpus int64) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": "x"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Limits: v1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}}}}}}
}

func admitter(t *testing.T, nodes ...*v1.Node) *surgeadmission.FrameworkAdmitter {
	t.Helper()
	profile, err := inspect.Profile()
	if err != nil {
		t.Fatal(err)
	}
	a, err := surgeadmission.NewStaticAdmitter(context.Background(), profile, kubefake.NewSimpleClientset(), func() ([]*v1.Node, []*v1.Pod) { return nodes, nil })
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAdmitSurge(t *testing.T) {
	a := admitter(t, gpuNode("n1", 8))
	v, err := a.AdmitSurge(context.Background(), surge.Request{What: "surge w[1]", Pods: []*v1.Pod{gpuPod("p", 8)}})
	if err != nil || !v.Fits {
		t.Fatalf("an 8-GPU pod on a free 8-GPU node: %+v, %v", v, err)
	}
	v, err = a.AdmitSurge(context.Background(), surge.Request{What: "surge w[1,2]", Pods: []*v1.Pod{gpuPod("p", 8), gpuPod("q", 8)}})
	if err != nil || v.Fits || !strings.Contains(v.Message, "surge w[1,2] needs 16 nvidia.com/gpu for 2 pod(s); 8 free") {
		t.Fatalf("two 8-GPU pods on one node: %+v, %v", v, err)
	}
}

// A plugin that fails (here PodTopologySpread on a selector it cannot parse) gives no answer:
// an error, never "does not fit", so the controller retries instead of reporting SurgeBlocked.
func TestAdmitSurgePluginErrorIsNoVerdict(t *testing.T) {
	a := admitter(t, gpuNode("n1", 8))
	p := gpuPod("p", 1)
	p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Sometimes", Values: []string{"x"}}}}}}
	v, err := a.AdmitSurge(context.Background(), surge.Request{What: "surge w[1]", Pods: []*v1.Pod{p}})
	if err == nil {
		t.Fatalf("a failing PreFilter plugin was read as a verdict: %+v", v)
	}
	if !strings.Contains(err.Error(), "PreFilter of p") {
		t.Errorf("error %q does not say where it failed", err)
	}
}

// The admitter runs the profile's own plugins as the profile configures them (the gang
// planner's): with the default profile a surge does not go onto a tainted node it does not
// tolerate; with a profile that turns TaintToleration's Filter off, it does, as the scheduler
// would then place it. The fixed plugin list this replaced answered "no" to both.
func TestAdmitSurgeFollowsTheProfile(t *testing.T) {
	ctx := context.Background()
	tainted := gpuNode("n1", 8)
	tainted.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}
	req := surge.Request{What: "surge w[1]", Pods: []*v1.Pod{gpuPod("p", 8)}}
	v, err := admitter(t, tainted).AdmitSurge(ctx, req)
	if err != nil || v.Fits || !strings.Contains(v.Message, "untolerated taint") {
		t.Fatalf("default profile, tainted node: %+v, %v; want a refusal naming the taint", v, err)
	}
	profile, err := inspect.Profile()
	if err != nil {
		t.Fatal(err)
	}
	profile.Plugins.Filter.Disabled = append(profile.Plugins.Filter.Disabled, config.Plugin{Name: names.TaintToleration})
	a, err := surgeadmission.NewStaticAdmitter(ctx, profile, kubefake.NewSimpleClientset(), func() ([]*v1.Node, []*v1.Pod) { return []*v1.Node{tainted}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.AdmitSurge(ctx, req); err != nil || !v.Fits {
		t.Fatalf("profile without TaintToleration's Filter, tainted node: %+v, %v; want it to fit", v, err)
	}
}

// A surge member of a gang with packing levels must fit in its podgroup's domains, which the
// gang's placed members fix: a worker of a scaling-group replica whose leader runs in rack a
// is refused while rack a is full, though rack b has room, and the refusal names the level.
func TestAdmitSurgeKeepsPackingLevels(t *testing.T) {
	rack := func(n *v1.Node, r string) *v1.Node { n.Labels["rack"] = r; return n }
	nodes := []*v1.Node{rack(gpuNode("n1", 8), "a"), rack(gpuNode("n2", 8), "a"), rack(gpuNode("n3", 8), "b"), rack(gpuNode("n4", 8), "b")}
	leader, other := gpuPod("leader-0", 8), gpuPod("other", 8)
	for _, p := range []*v1.Pod{leader, other} {
		// Bound pods count by their requests (the API server copies limits into them).
		p.Spec.Containers[0].Resources.Requests = p.Spec.Containers[0].Resources.Limits
	}
	leader.Spec.NodeName, other.Spec.NodeName = "n1", "n2"
	profile, err := inspect.Profile()
	if err != nil {
		t.Fatal(err)
	}
	a, err := surgeadmission.NewStaticAdmitter(context.Background(), profile, kubefake.NewSimpleClientset(),
		func() ([]*v1.Node, []*v1.Pod) { return nodes, []*v1.Pod{leader, other} })
	if err != nil {
		t.Fatal(err)
	}
	spec := gang.Spec{PodGroups: []gang.PodGroup{{Name: "leader", MinReplicas: 1, Pods: []string{"leader-0"}}, {Name: "worker", MinReplicas: 1, Pods: []string{"worker-0", "worker-1"}}},
		GroupPacks: []gang.GroupPack{{Name: "replica-0", PodGroups: []int{0, 1}, Pack: gang.Pack{Required: "rack"}}}}
	req := surge.Request{What: "surge worker[1]", Pods: []*v1.Pod{gpuPod("worker-1", 8)}, Levels: spec.Levels(),
		Groups: map[string]int{"worker-1": 1}, Placed: []gang.TopoMember{{Name: "leader-0", Group: 0, Requests: gang.Resources{GPU: 8}, Node: "n1"}}}
	v, err := a.AdmitSurge(context.Background(), req)
	if err != nil || v.Fits || !strings.Contains(v.Message, "group replica-0 has members placed in rack a, which has no room for its other 1") {
		t.Fatalf("a worker whose replica's leader is in a full rack: %+v, %v", v, err)
	}
	req.Levels, req.Groups, req.Placed = nil, nil, nil
	if v, err := a.AdmitSurge(context.Background(), req); err != nil || !v.Fits {
		t.Fatalf("the same worker without the gang's levels: %+v, %v (the test's cluster must have room elsewhere)", v, err)
	}
}
