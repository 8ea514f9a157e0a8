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
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
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

// pendingTracker adds allocations in flight and allocated devices to claimsByName.
type pendingTracker struct {
	claimsByName
	pending   map[types.UID]bool
	allocated sets.Set[structured.DeviceID]
}

func (p pendingTracker) GetPendingAllocation(uid types.UID) *resourceapi.AllocationResult {
	if p.pending[uid] {
		return &resourceapi.AllocationResult{}
	}
	return nil
}

func (p pendingTracker) ListAllAllocatedDevices() (sets.Set[structured.DeviceID], error) {
	return p.allocated, nil
}

type sliceList []*resourceapi.ResourceSlice

func (s sliceList) ListWithDeviceTaintRules() ([]*resourceapi.ResourceSlice, error) { return s, nil }

type fakeDRA struct {
	fwk.SharedDRAManager
	claims fwk.ResourceClaimTracker
	slices sliceList
}

func (f fakeDRA) ResourceClaims() fwk.ResourceClaimTracker { return f.claims }
func (f fakeDRA) ResourceSlices() fwk.ResourceSliceLister  { return f.slices }

// What a pod's claims still need: an exact count as asked, one for a request of all devices
// or of a first-available list; nothing for a claim allocated or in flight, or not made yet.
// What a node has free: its slices' devices of the pool's newest generation, less those
// allocated (or in flight).
func TestDevicesWantedAndFree(t *testing.T) {
	request := func(name string, req resourceapi.DeviceRequest) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{req}}}}
	}
	exact := func(n int64) resourceapi.DeviceRequest {
		return resourceapi.DeviceRequest{Name: "r", Exactly: &resourceapi.ExactDeviceRequest{AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: n}}
	}
	tracker := pendingTracker{claimsByName: claimsByName{claims: map[string]*resourceapi.ResourceClaim{}}, pending: map[types.UID]bool{"pending": true}}
	for _, c := range []*resourceapi.ResourceClaim{
		request("four", exact(4)),
		request("all", resourceapi.DeviceRequest{Name: "r", Exactly: &resourceapi.ExactDeviceRequest{AllocationMode: resourceapi.DeviceAllocationModeAll}}),
		request("first", resourceapi.DeviceRequest{Name: "r", FirstAvailable: []resourceapi.DeviceSubRequest{{Name: "a", Count: 2}}}),
		request("pending", exact(8)),
		claimFor("done", false, "x"),
	} {
		tracker.claims["ns/"+c.Name] = c
	}
	var rcs []v1.PodResourceClaim
	for _, n := range []string{"four", "all", "first", "pending", "done"} {
		rcs = append(rcs, v1.PodResourceClaim{Name: n, ResourceClaimName: ptr.To(n)})
	}
	rcs = append(rcs, v1.PodResourceClaim{Name: "t", ResourceClaimTemplateName: ptr.To("t")})
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: v1.PodSpec{ResourceClaims: rcs}}
	if got := DevicesWanted(tracker, pod); got != 4+1+1 {
		t.Errorf("DevicesWanted = %d, want 6", got)
	}

	slice := func(node, pool string, gen int64, devices ...string) *resourceapi.ResourceSlice {
		s := &resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{Driver: "gpu", NodeName: ptr.To(node), Pool: resourceapi.ResourcePool{Name: pool, Generation: gen}}}
		for _, d := range devices {
			s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
		}
		return s
	}
	tracker.allocated = sets.New(structured.MakeDeviceID("gpu", "n1", "0"))
	dra := fakeDRA{claims: tracker, slices: sliceList{
		slice("n1", "n1", 2, "0", "1", "2"),
		slice("n1", "n1", 1, "old-0", "old-1"),
		slice("n2", "n2", 1, "0", "1"),
	}}
	if got, err := DevicesFree(dra, "n1"); err != nil || got != 2 {
		t.Errorf("DevicesFree(n1) = %d (%v), want 2 (3 of generation 2, one allocated; generation 1 is stale)", got, err)
	}
	if got, _ := DevicesFree(dra, "n3"); got != 0 {
		t.Errorf("DevicesFree of a node without slices = %d", got)
	}
}

func (c claimsByName) List() ([]*resourceapi.ResourceClaim, error) {
	var out []*resourceapi.ResourceClaim
	for _, cl := range c.claims {
		out = append(out, cl)
	}
	return out, nil
}

// Orphaned are the allocated claims all of whose pods are gone (a pod of the same name with
// another UID is a new pod, not the claim's); a claim with a live pod, one reserved for
// nobody, and an unallocated one are not.
func TestOrphanedClaims(t *testing.T) {
	tracker := claimsByName{claims: map[string]*resourceapi.ResourceClaim{}}
	for _, c := range []*resourceapi.ResourceClaim{
		claimFor("gone", false, "a-old"),
		claimFor("both-gone", false, "a-old", "b-old"),
		claimFor("one-alive", false, "a-old", "live"),
		claimFor("alive", false, "live"),
		claimFor("nobody", false),
	} {
		tracker.claims["ns/"+c.Name] = c
	}
	free := claimFor("free", false, "a-old")
	free.Status.Allocation = nil
	tracker.claims["ns/free"] = free
	// Pod "a-old" exists again under its name with a new UID; "live" exists as reserved.
	exists := func(_, name string, uid types.UID) bool { return name == "live" && uid == "live" }
	got, err := OrphanedClaims(tracker, exists)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	if want := []string{"both-gone", "gone"}; !reflect.DeepEqual(names, want) {
		t.Errorf("OrphanedClaims = %v, want %v", names, want)
	}
}
