package gangdra

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	fwk "k8s.io/kube-scheduler/framework"
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
		for _, name := range ClaimNames(p) {
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

// ClaimNames are the names of the ResourceClaims pod uses (resourceclaim.Name: those it names,
// and those made for it from templates as its status records them; not made yet: left out).
func ClaimNames(pod *v1.Pod) []string {
	var out []string
	for i := range pod.Spec.ResourceClaims {
		if name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i]); err == nil && name != nil {
			out = append(out, *name)
		}
	}
	return out
}
