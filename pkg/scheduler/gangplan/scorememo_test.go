package gangplan

import (
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/utils/ptr"
)

// Members alike keep one key while only local Score plugins run for them; their images count
// while ImageLocality scores, their labels while InterPodAffinity does. A member with pod
// affinity of its own, with claims while DynamicResources scores, or one for which a Score
// plugin runs whose score reads other nodes (soft topology spreading) or is not known, keeps
// none.
func TestScoreKey(t *testing.T) {
	all := []string{names.NodeResourcesFit, names.NodeResourcesBalancedAllocation, names.ImageLocality, names.TaintToleration,
		names.NodeAffinity, names.InterPodAffinity, names.PodTopologySpread, names.VolumeBinding, names.DynamicResources}
	skips := func(ps ...string) func(string) bool {
		return func(p string) bool {
			for _, s := range ps {
				if s == p {
					return true
				}
			}
			return false
		}
	}
	// What PreScore skips for a plain member: spreading, affinity and devices.
	plain := skips(names.PodTopologySpread, names.InterPodAffinity, names.DynamicResources)
	member := func(i int, image string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("m-", i), Labels: map[string]string{"index": fmt.Sprint(i)}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: image}}}}
	}
	if a, b := scoreKey(member(0, "img:1"), "k", all, plain), scoreKey(member(1, "img:1"), "k", all, plain); a == "" || a != b {
		t.Errorf("members alike: %q, %q", a, b)
	}
	if a, b := scoreKey(member(0, "img:1"), "k", all, plain), scoreKey(member(1, "img:2"), "k", all, plain); a == b {
		t.Error("members of different images share raw scores while ImageLocality scores them")
	}
	noImages := skips(names.PodTopologySpread, names.InterPodAffinity, names.DynamicResources, names.ImageLocality)
	if a, b := scoreKey(member(0, "img:1"), "k", all, noImages), scoreKey(member(1, "img:2"), "k", all, noImages); a == "" || a != b {
		t.Errorf("images counted while ImageLocality does not score: %q, %q", a, b)
	}
	withAffinity := skips(names.PodTopologySpread, names.DynamicResources)
	if a, b := scoreKey(member(0, "img:1"), "k", all, withAffinity), scoreKey(member(1, "img:1"), "k", all, withAffinity); a == "" || a == b {
		t.Errorf("labels ignored while InterPodAffinity scores the members: %q, %q", a, b)
	}
	if a, b := scoreKey(member(0, "img:1"), "k", all, plain), scoreKey(member(0, "img:1"), "k", all, noImages); a == b {
		t.Error("members scored by different plugins share raw scores")
	}
	preferred := member(0, "img:1")
	preferred.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: v1.PodAffinityTerm{TopologyKey: "zone"}}}}}
	claims := member(0, "img:1")
	claims.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}}
	if k := scoreKey(member(0, "img:1"), "k", all, skips(names.PodTopologySpread, names.InterPodAffinity)); k == "" {
		t.Error("no key for a member without claims while DynamicResources scores it (0 everywhere)")
	}
	for name, k := range map[string]string{
		"no Filter key":         scoreKey(member(0, "img:1"), "", all, plain),
		"pod affinity":          scoreKey(preferred, "k", all, withAffinity),
		"soft spreading scores": scoreKey(member(0, "img:1"), "k", all, skips(names.InterPodAffinity, names.DynamicResources)),
		"claims":                scoreKey(claims, "k", all, skips(names.PodTopologySpread, names.InterPodAffinity)),
		"an unknown plugin":     scoreKey(member(0, "img:1"), "k", append(all, "example.com/Custom"), plain),
	} {
		if k != "" {
			t.Errorf("%s: key %q, want none", name, k)
		}
	}
}

// Raw scores outlive their pass under the member's key, with the snapshot's node count while
// ImageLocality scores (it scales an image's spread by it), and not at all while
// InterPodAffinity scores (its PreScore reads pods on every node).
func TestScoreKeyAcrossPasses(t *testing.T) {
	all := []string{names.NodeResourcesFit, names.ImageLocality, names.InterPodAffinity, names.NodeAffinity}
	skips := func(ps ...string) func(string) bool {
		return func(p string) bool { return slices.Contains(ps, p) }
	}
	if k := scoreKeyAcrossPasses("k", all, skips(names.ImageLocality, names.InterPodAffinity), 10); k != "k" {
		t.Errorf("local plugins only: %q, want the member's key", k)
	}
	a, b := scoreKeyAcrossPasses("k", all, skips(names.InterPodAffinity), 10), scoreKeyAcrossPasses("k", all, skips(names.InterPodAffinity), 11)
	if a == "" || a == b {
		t.Errorf("ImageLocality scores: %q on 10 nodes, %q on 11, want keys apart", a, b)
	}
	if k := scoreKeyAcrossPasses("k", all, skips(names.ImageLocality), 10); k != "" {
		t.Errorf("InterPodAffinity scores: %q, want none", k)
	}
	if k := scoreKeyAcrossPasses("", all, skips(names.ImageLocality, names.InterPodAffinity), 10); k != "" {
		t.Errorf("no key within the pass: %q, want none", k)
	}
}

// A placed member's node is scored again; the others keep theirs. A member not alike starts
// afresh.
func TestScoreMemoForgetsChangedNodes(t *testing.T) {
	var m scoreMemo
	raw := m.use("a")
	raw["n1"], raw["n2"] = []fwk.PluginScore{{Name: "p", Score: 1}}, []fwk.PluginScore{{Name: "p", Score: 2}}
	m.changed("n1")
	if got := m.use("a"); len(got) != 1 || got["n2"] == nil {
		t.Errorf("after n1 changed: %v, want n2 alone", got)
	}
	if got := m.use("b"); len(got) != 0 {
		t.Errorf("another key took %v", got)
	}
	if got := m.use(""); got != nil {
		t.Errorf("no key: %v, want nothing kept", got)
	}
}
