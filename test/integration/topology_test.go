package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// pack is a PodGang topology constraint.
func pack(required, preferred string) *schedv1.TopologyConstraint {
	p := &schedv1.TopologyPackConstraint{}
	if required != "" {
		p.Required = ptr.To(required)
	}
	if preferred != "" {
		p.Preferred = ptr.To(preferred)
	}
	return &schedv1.TopologyConstraint{PackConstraint: p}
}

// nodeLabels returns the labels of each pod's node, by pod name.
func nodeLabels(t *testing.T, env *framework.Env, pods []corev1.Pod) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, p := range pods {
		n, err := env.Kube.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[p.Name] = n.Labels
	}
	return out
}

// Every level of a gang's topology in one placement, as Grove writes it into a PodGang: the
// whole gang in one block, each of two scaling-group replicas (a topologyConstraintGroupConfig
// each) in one rack, its NVLink domain here. Block 0 and block 1 have the same free capacity
// (4 whole nodes), block 0 first by name, but block 0's racks have 3 and 1 free nodes: a
// replica of 2 whole-node pods there has a rack, the second has not. The gang lands in
// block 1, one replica per rack. Then a gang of 4 whole-node pods that prefers one rack, where
// no rack has 4 free nodes: it is placed anyway and its status says the preference was not
// kept.
func TestMultiLevelTopology(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	shape := localcluster.NodeShape{Prefix: "topo", Count: 16, GPUs: 8, CPU: "64", Memory: "512Gi", NodesPerRack: 4, RacksPerBlock: 2, BlocksPerZone: 2}
	env.AddNodes(t, shape)
	// Busy nodes: rack-0 1 of 4, rack-1 3 of 4, rack-2 2 of 4, rack-3 2 of 4.
	for i, node := range []int{0, 4, 5, 6, 8, 9, 12, 13} {
		f := framework.Gang{Namespace: ns, Name: fmt.Sprintf("filler-%d", i), Groups: []framework.Group{{Name: "f", Pods: 1, MinReplicas: 1, GPUs: 8}}}
		fp := f.Pod(f.Groups[0], 0)
		delete(fp.Labels, grovev1.LabelPodGang)
		fp.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": fmt.Sprintf("topo-%04d", node)}
		env.CreatePods(t, fp)
		env.WaitGangBound(t, ns, f.Name, 1, wait)
	}

	g := framework.Gang{Namespace: ns, Name: "prefill", PackRequired: localcluster.LabelBlock,
		Groups: []framework.Group{{Name: "r0", Pods: 2, MinReplicas: 2, GPUs: 8}, {Name: "r1", Pods: 2, MinReplicas: 2, GPUs: 8}},
		Customize: func(s *schedv1.PodGangSpec) {
			for _, r := range []string{"r0", "r1"} {
				s.TopologyConstraintGroupConfigs = append(s.TopologyConstraintGroupConfigs, schedv1.TopologyConstraintGroupConfig{
					Name: "replica-" + r, PodGroupNames: []string{r}, TopologyConstraint: pack(localcluster.LabelRack, "")})
			}
		}}
	env.CreateGang(t, g)
	pods := env.WaitGangBound(t, ns, g.Name, 4, wait)
	labels := nodeLabels(t, env, pods)
	blocks, racks := map[string]bool{}, map[string]map[string]bool{"r0": {}, "r1": {}}
	for _, p := range pods {
		blocks[labels[p.Name][localcluster.LabelBlock]] = true
		racks[p.Labels[grovev1.LabelPodClique]][labels[p.Name][localcluster.LabelRack]] = true
	}
	if len(blocks) != 1 || !blocks["block-1"] {
		t.Errorf("the gang is on blocks %v, want block-1 only (block-0 has no rack for the second replica)", blocks)
	}
	for r, in := range racks {
		if len(in) != 1 {
			t.Errorf("replica %s is on racks %v, want one", r, in)
		}
	}

	// Block 0 has 4 free nodes left, 3 on rack-0 and 1 on rack-1.
	spread := framework.Gang{Namespace: ns, Name: "spread",
		Groups:    []framework.Group{{Name: "w", Pods: 4, MinReplicas: 4, GPUs: 8}},
		Customize: func(s *schedv1.PodGangSpec) { s.TopologyConstraint = pack("", localcluster.LabelRack) }}
	env.CreateGang(t, spread)
	env.WaitGangBound(t, ns, spread.Name, 4, wait)
	pg := env.WaitGangCondition(t, ns, spread.Name, schedv1.ConditionScheduled, metav1.ConditionTrue, "QuorumBound", wait)
	if msg := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionScheduled).Message; !strings.Contains(msg, "preferred packing not kept: the gang") {
		t.Errorf("Scheduled message %q does not say the preferred rack was not kept", msg)
	}
}
