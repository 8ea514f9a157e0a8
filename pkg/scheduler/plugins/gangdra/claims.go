package gangdra

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// FreedClaims are the ResourceClaims whose devices the eviction of pods frees: each claim of
// theirs that is allocated and reserved for none but them (kube-controller-manager deallocates
// a claim nobody reserves, and deletes a pod's claims from templates with the pod). A claim
// another pod also reserves keeps its devices, and so does one holding a share of a device
// (consumable capacity: a share is not told apart here), so that preemption never counts on a
// device it would not get.
func FreedClaims(claims fwk.ResourceClaimTracker, pods []*v1.Pod) []*resourceapi.ResourceClaim {
	if len(pods) == 0 {
		return nil
	}
	evicted := make(sets.Set[types.UID], len(pods))
	for _, p := range pods {
		evicted.Insert(p.UID)
	}
	var out []*resourceapi.ResourceClaim
	seen := sets.New[types.UID]()
	for _, p := range pods {
		for _, name := range gang.ClaimNames(p) {
			claim, err := claims.Get(p.Namespace, name)
			if err != nil || claim.Status.Allocation == nil || seen.Has(claim.UID) {
				continue
			}
			seen.Insert(claim.UID)
			if onlyFor(claim, evicted) {
				out = append(out, claim)
			}
		}
	}
	return out
}

// onlyFor reports whether claim is reserved for pods of uids alone (and for some) and holds
// no share of a device.
func onlyFor(claim *resourceapi.ResourceClaim, uids sets.Set[types.UID]) bool {
	if len(claim.Status.ReservedFor) == 0 {
		return false
	}
	for _, r := range claim.Status.ReservedFor {
		if r.Resource != "pods" || !uids.Has(r.UID) {
			return false
		}
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.ShareID != nil {
			return false
		}
	}
	return true
}

// DevicesWanted is how many devices pod's claims still need: for each claim not allocated
// yet, the devices its requests ask for (an exact count; one for a request of all matching
// devices or of a first-available list, the fewest it can take). A claim from a template that
// does not exist yet asks for nothing here (the DRA plugin keeps such a pod out of the queue).
func DevicesWanted(claims fwk.ResourceClaimTracker, pod *v1.Pod) int64 {
	var n int64
	for _, name := range gang.ClaimNames(pod) {
		c, err := claims.Get(pod.Namespace, name)
		if err != nil || c.Status.Allocation != nil || claims.GetPendingAllocation(c.UID) != nil {
			continue
		}
		for _, r := range c.Spec.Devices.Requests {
			switch {
			case r.Exactly != nil && r.Exactly.AllocationMode == resourceapi.DeviceAllocationModeExactCount:
				n += max(r.Exactly.Count, 1)
			default:
				n++
			}
		}
	}
	return n
}

// DevicesFree counts the devices that ResourceSlices publish on node (slices of that node
// name, of their pool's newest generation) and no claim has allocated, nor has in flight.
func DevicesFree(dra fwk.SharedDRAManager, node string) (int64, error) {
	slices, err := dra.ResourceSlices().ListWithDeviceTaintRules()
	if err != nil {
		return 0, err
	}
	allocated, err := dra.ResourceClaims().ListAllAllocatedDevices()
	if err != nil {
		return 0, err
	}
	// A pool being republished has slices of two generations: only the newest counts.
	type poolID struct{ driver, pool string }
	newest := map[poolID]int64{}
	for _, s := range slices {
		if id := (poolID{s.Spec.Driver, s.Spec.Pool.Name}); s.Spec.Pool.Generation > newest[id] {
			newest[id] = s.Spec.Pool.Generation
		}
	}
	var n int64
	for _, s := range slices {
		if s.Spec.NodeName == nil || *s.Spec.NodeName != node || s.Spec.Pool.Generation < newest[poolID{s.Spec.Driver, s.Spec.Pool.Name}] {
			continue
		}
		for _, d := range s.Spec.Devices {
			if !allocated.Has(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)) {
				n++
			}
		}
	}
	return n, nil
}

// OrphanedClaims are the claims that are allocated and reserved for pods that no longer exist
// (exists is false for each of them): kube-controller-manager deallocates them, or deletes them
// with their pods, a moment later, and their devices are free then. Preemption counts on
// them as it counts on terminating pods, so that a scheduler that did not see the preemption
// (a new leader) does not choose more victims while those devices are on their way back.
func OrphanedClaims(claims fwk.ResourceClaimTracker, exists func(namespace, name string, uid types.UID) bool) ([]*resourceapi.ResourceClaim, error) {
	all, err := claims.List()
	if err != nil {
		return nil, err
	}
	var out []*resourceapi.ResourceClaim
	for _, c := range all {
		if c.Status.Allocation == nil || len(c.Status.ReservedFor) == 0 {
			continue
		}
		gone := true
		for _, r := range c.Status.ReservedFor {
			if r.Resource != "pods" || exists(c.Namespace, r.Name, r.UID) {
				gone = false
				break
			}
		}
		if gone {
			out = append(out, c)
		}
	}
	return out, nil
}
