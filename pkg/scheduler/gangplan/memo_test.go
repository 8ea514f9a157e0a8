package gangplan

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Members alike share a key: the same template, or claims of their own with equal specs; an
// index label matters only while some pod has required anti-affinity. A member whose verdicts
// depend on other nodes has none: required pod anti-affinity, hard spreading, a claim by name
// that another member uses too, a claim allocated already, devices not tied to a node.
func TestSiblingKey(t *testing.T) {
	spec := func(count int64) resourceapi.ResourceClaimSpec {
		return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "gpu",
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}}}}
	}
	claims := map[string]*resourceapi.ResourceClaim{
		"c-0": {Spec: spec(1)}, "c-1": {Spec: spec(1)}, "c-big": {Spec: spec(8)},
		"c-done": {Spec: spec(1), Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{}}},
	}
	rules := memoRules{sharedClaims: map[string]bool{"ns/shared": true}, claim: func(_, name string) (*resourceapi.ResourceClaim, error) {
		if c, ok := claims[name]; ok {
			return c, nil
		}
		return nil, fmt.Errorf("not found")
	}}
	member := func(i int, edit func(*v1.Pod)) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("m-", i), Labels: map[string]string{"index": fmt.Sprint(i)}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Env: []v1.EnvVar{{Name: "INDEX", Value: fmt.Sprint(i)}}}}}}
		if edit != nil {
			edit(p)
		}
		return p
	}
	byName := func(name string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(name)}}
		}
	}
	template := func(p *v1.Pod) {
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu8")}}
	}
	if a, b := siblingKey(member(0, nil), rules), siblingKey(member(1, nil), rules); a == "" || a != b {
		t.Errorf("plain members alike: %q, %q", a, b)
	}
	labels := rules
	labels.labelsMatter = true
	if a, b := siblingKey(member(0, nil), labels), siblingKey(member(1, nil), labels); a == b {
		t.Error("index labels ignored while some pod has required anti-affinity")
	}
	if a, b := siblingKey(member(0, template), rules), siblingKey(member(1, template), rules); a == "" || a != b {
		t.Errorf("members of one claim template: %q, %q", a, b)
	}
	if a, b := siblingKey(member(0, byName("c-0")), rules), siblingKey(member(1, byName("c-1")), rules); a == "" || a != b {
		t.Errorf("members with claims of their own, equal specs: %q, %q", a, b)
	}
	if a, b := siblingKey(member(0, byName("c-0")), rules), siblingKey(member(1, byName("c-big")), rules); a == b {
		t.Error("claims asking for 1 and 8 devices weigh alike")
	}
	devices := rules
	devices.devicesShared = true
	for name, p := range map[string]*v1.Pod{
		"shared claim":    member(0, byName("shared")),
		"allocated claim": member(0, byName("c-done")),
		"unknown claim":   member(0, byName("c-gone")),
		"anti-affinity": member(0, func(p *v1.Pod) {
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "zone"}}}}
		}),
		"hard spreading": member(0, func(p *v1.Pod) {
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule}}
		}),
	} {
		if k := siblingKey(p, rules); k != "" {
			t.Errorf("%s: key %q, want none", name, k)
		}
	}
	if k := siblingKey(member(0, template), devices); k != "" {
		t.Errorf("devices not tied to a node: key %q, want none", k)
	}
}

// The kept verdicts of a key stay bounded by the nodes: once more than twice the nodes (and a
// margin) were kept, as when nodes came and went, they start afresh; the other keys keep theirs.
func TestPassMemoBoundedByNodes(t *testing.T) {
	var m passMemo
	churned := m.byKey.of("churned", 10)
	for i := range 2*10 + passMemoSlack + 1 {
		churned[fmt.Sprint("gone-", i)] = keptVerdict{}
	}
	steady := m.byKey.of("steady", 10)
	steady["n0"] = keptVerdict{generation: 7}
	if got := m.byKey.of("churned", 10); len(got) != 0 {
		t.Errorf("%d verdicts kept for 10 nodes, want them dropped", len(got))
	}
	if got := m.byKey.of("steady", 10); got["n0"].generation != 7 {
		t.Errorf("the steady key lost its verdict: %v", got)
	}
	// Within the bound nothing is dropped.
	within := m.byKey.of("within", 10)
	for i := range 2 * 10 {
		within[fmt.Sprint("n", i)] = keptVerdict{}
	}
	if got := m.byKey.of("within", 10); len(got) != 20 {
		t.Errorf("%d verdicts kept within the bound, want 20", len(got))
	}
}
