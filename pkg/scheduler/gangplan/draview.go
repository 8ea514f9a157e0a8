package gangplan

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

// draView is the scheduler's DRA manager as the planner's framework sees it. Outside a
// preemption pass it is the manager itself; during one (Plan with Evicted pods), the devices
// of claims that only the evicted pods use count as free, as they will be once those pods are
// gone (kube-controller-manager deallocates a claim nobody reserves, and deletes a pod's
// claims from templates with the pod). Everything else, the allocations in flight included,
// is read through.
type draView struct {
	fwk.SharedDRAManager
	claims *claimView
}

func newDRAView(m fwk.SharedDRAManager) *draView {
	return &draView{SharedDRAManager: m, claims: &claimView{ResourceClaimTracker: m.ResourceClaims()}}
}

// ResourceClaims is the manager's claim tracker with the freed devices taken out.
func (v *draView) ResourceClaims() fwk.ResourceClaimTracker { return v.claims }

// claimView is a claim tracker whose allocated devices leave out freed.
type claimView struct {
	fwk.ResourceClaimTracker
	mu    sync.RWMutex
	freed sets.Set[structured.DeviceID]
}

// free sets the devices to count as free (nil: none) and returns a function that restores
// the previous view.
func (c *claimView) free(devices sets.Set[structured.DeviceID]) func() {
	c.mu.Lock()
	prev := c.freed
	c.freed = devices
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.freed = prev
		c.mu.Unlock()
	}
}

func (c *claimView) freedNow() sets.Set[structured.DeviceID] {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.freed
}

// ListAllAllocatedDevices is the tracker's allocated devices without the freed ones.
func (c *claimView) ListAllAllocatedDevices() (sets.Set[structured.DeviceID], error) {
	all, err := c.ResourceClaimTracker.ListAllAllocatedDevices()
	freed := c.freedNow()
	if err != nil || freed.Len() == 0 {
		return all, err
	}
	return all.Difference(freed), nil
}

// GatherAllocatedState is the tracker's allocation state without the freed devices. Shared
// devices (consumable capacity) are left as they are: gangdra.FreedClaims frees no claim with
// a share of a device.
func (c *claimView) GatherAllocatedState() (*structured.AllocatedState, error) {
	st, err := c.ResourceClaimTracker.GatherAllocatedState()
	freed := c.freedNow()
	if err != nil || st == nil || freed.Len() == 0 {
		return st, err
	}
	out := *st
	out.AllocatedDevices = st.AllocatedDevices.Difference(freed)
	return &out, nil
}

// devicesFreedBy is what the eviction of pods frees of allocated devices: the devices of the
// claims gangdra.FreedClaims names.
func devicesFreedBy(claims fwk.ResourceClaimTracker, pods []*v1.Pod) sets.Set[structured.DeviceID] {
	var freed sets.Set[structured.DeviceID]
	for _, claim := range gangdra.FreedClaims(claims, pods) {
		for _, r := range claim.Status.Allocation.Devices.Results {
			if freed == nil {
				freed = sets.New[structured.DeviceID]()
			}
			freed.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
		}
	}
	return freed
}
