package gang

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// ClaimGetter reads a ResourceClaim by namespace and name (a lister, the scheduler's claim
// tracker or the API).
type ClaimGetter func(namespace, name string) (*resourceapi.ResourceClaim, error)

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

// DevicesAllocated counts the DRA devices pod's claims were allocated, the Devices of a
// reservation: a claim reserved for several pods (a gang's shared claim) is counted on the
// first pod it is reserved for only, so that a gang's devices add up once; a claim allocated
// for pod but not reserved yet (in flight) counts for it. A claim that cannot be read counts
// nothing.
func DevicesAllocated(get ClaimGetter, pod *v1.Pod) int64 {
	var n int64
	for _, name := range ClaimNames(pod) {
		c, err := get(pod.Namespace, name)
		if err != nil || c.Status.Allocation == nil {
			continue
		}
		if len(c.Status.ReservedFor) > 0 && c.Status.ReservedFor[0].UID != pod.UID {
			continue
		}
		n += int64(len(c.Status.Allocation.Devices.Results))
	}
	return n
}
