package gangplan

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"
)

// allocatedTracker is a claim tracker whose allocated devices are fixed.
type allocatedTracker struct {
	fwk.ResourceClaimTracker
	devices sets.Set[structured.DeviceID]
}

func (a allocatedTracker) ListAllAllocatedDevices() (sets.Set[structured.DeviceID], error) {
	return a.devices.Clone(), nil
}

func (a allocatedTracker) GatherAllocatedState() (*structured.AllocatedState, error) {
	return &structured.AllocatedState{AllocatedDevices: a.devices.Clone(), AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID]()}, nil
}

type managerOf struct {
	fwk.SharedDRAManager
	claims fwk.ResourceClaimTracker
}

func (m managerOf) ResourceClaims() fwk.ResourceClaimTracker { return m.claims }

// The planner's view of the DRA manager counts the freed devices as free while a preemption
// pass weighs them (both ways the DRA plugin reads allocations), and is the manager itself
// again once the pass restores it; the manager's own sets are never changed.
func TestDRAViewFreesDevicesForOnePass(t *testing.T) {
	id := func(d string) structured.DeviceID { return structured.MakeDeviceID("gpu", "node-a", d) }
	base := allocatedTracker{devices: sets.New(id("0"), id("1"), id("2"))}
	view := newDRAView(managerOf{claims: base})
	check := func(when string, want ...structured.DeviceID) {
		t.Helper()
		listed, err := view.ResourceClaims().ListAllAllocatedDevices()
		if err != nil || !listed.Equal(sets.New(want...)) {
			t.Errorf("%s: ListAllAllocatedDevices = %v (%v), want %v", when, listed.UnsortedList(), err, want)
		}
		st, err := view.ResourceClaims().GatherAllocatedState()
		if err != nil || !st.AllocatedDevices.Equal(sets.New(want...)) {
			t.Errorf("%s: GatherAllocatedState = %v (%v), want %v", when, st, err, want)
		}
	}
	check("before", id("0"), id("1"), id("2"))
	restore := view.claims.free(sets.New(id("1"), id("9")))
	check("during the pass", id("0"), id("2"))
	restore()
	check("after the pass", id("0"), id("1"), id("2"))
	if base.devices.Len() != 3 {
		t.Errorf("the manager's devices changed: %v", base.devices.UnsortedList())
	}
}
