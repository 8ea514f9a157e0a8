package gangdra

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"
)

// claimsByName is a claim tracker that knows claims by name (Get only).
type claimsByName struct {
	fwk.ResourceClaimTracker
	claims map[string]*resourceapi.ResourceClaim
}

func (c claimsByName) Get(ns, name string) (*resourceapi.ResourceClaim, error) {
	if cl, ok := c.claims[ns+"/"+name]; ok {
		return cl, nil
	}
	return nil, fmt.Errorf("claim %s/%s not found", ns, name)
}

func claimFor(name string, share bool, users ...types.UID) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{}}}
	r := resourceapi.DeviceRequestAllocationResult{Driver: "gpu", Pool: "node-a", Device: name}
	if share {
		r.ShareID = ptr.To(types.UID("share"))
	}
	c.Status.Allocation.Devices.Results = []resourceapi.DeviceRequestAllocationResult{r}
	for _, u := range users {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: string(u), UID: u})
	}
	return c
}

// FreedClaims names the claims the eviction frees: allocated and reserved for the evicted pods
// alone, each once (a claim two victims share), found by name or through the pod's status
// (a claim from a template); a claim another pod also reserves, one with a device share, one
// not allocated, one reserved for nobody and a template's claim not made yet free nothing.
func TestFreedClaims(t *testing.T) {
	tracker := claimsByName{claims: map[string]*resourceapi.ResourceClaim{}}
	add := func(c *resourceapi.ResourceClaim) { tracker.claims["ns/"+c.Name] = c }
	add(claimFor("own-a", false, "a"))
	add(claimFor("shared-ab", false, "a", "b"))
	add(claimFor("with-other", false, "a", "other"))
	add(claimFor("device-share", true, "b"))
	add(claimFor("nobody", false))
	unallocated := claimFor("unallocated", false, "b")
	unallocated.Status.Allocation = nil
	add(unallocated)
	add(claimFor("from-template", false, "b"))
	pod := func(uid types.UID, claims ...v1.PodResourceClaim) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: string(uid), UID: uid}, Spec: v1.PodSpec{ResourceClaims: claims}}
	}
	byName := func(n string) v1.PodResourceClaim {
		return v1.PodResourceClaim{Name: n, ResourceClaimName: ptr.To(n)}
	}
	a := pod("a", byName("own-a"), byName("shared-ab"), byName("with-other"))
	b := pod("b", byName("shared-ab"), byName("device-share"), byName("nobody"), byName("unallocated"),
		v1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: ptr.To("t")},
		v1.PodResourceClaim{Name: "later", ResourceClaimTemplateName: ptr.To("t")})
	b.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("from-template")}}

	var got []string
	for _, c := range FreedClaims(tracker, []*v1.Pod{a, b}) {
		got = append(got, c.Name)
	}
	sort.Strings(got)
	if want := []string{"from-template", "own-a", "shared-ab"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FreedClaims = %v, want %v", got, want)
	}
	if got := FreedClaims(tracker, []*v1.Pod{pod("c")}); len(got) != 0 {
		t.Errorf("a pod without claims frees %v", got)
	}
	if got := FreedClaims(tracker, []*v1.Pod{b}); len(got) != 1 || got[0].Name != "from-template" {
		t.Errorf("b alone frees %v; want only from-template (shared-ab is a's too)", got)
	}
}
