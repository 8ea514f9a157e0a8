package gangplan

import (
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

func (a allocatedTracker) Get(ns, name string) (*resourceapi.ResourceClaim, error) {
	return nil, fmt.Errorf("resourceclaim %s/%s not found", ns, name)
}

func (a allocatedTracker) GatherAllocatedState() (*structured.AllocatedState, error) {
	return &structured.AllocatedState{AllocatedDevices: a.devices.Clone(), AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID]()}, nil
}

type managerOf struct {
	fwk.SharedDRAManager
	claims fwk.ResourceClaimTracker
}

func (m managerOf) ResourceClaims() fwk.ResourceClaimTracker { return m.claims }

// The planner's view of the DRA manager during one pass: the freed devices count as free, a
// simulated claim exists, an allocation the pass signals is seen (Get, GetPendingAllocation,
// the allocated devices) and withdrawn; none of it reaches the scheduler's tracker, and when
// the pass ends the view is the tracker again. The scheduler's allocations are read once per
// pass, as a scheduling cycle reads them once.
func TestDRAViewKeepsAPassToItself(t *testing.T) {
	id := func(d string) structured.DeviceID { return structured.MakeDeviceID("gpu", "node-a", d) }
	base := allocatedTracker{devices: sets.New(id("0"), id("1"), id("2"))}
	view := newDRAView(managerOf{claims: base})
	claims := view.ResourceClaims()
	check := func(when string, want ...structured.DeviceID) {
		t.Helper()
		listed, err := claims.ListAllAllocatedDevices()
		if err != nil || !listed.Equal(sets.New(want...)) {
			t.Errorf("%s: ListAllAllocatedDevices = %v (%v), want %v", when, listed.UnsortedList(), err, want)
		}
		st, err := claims.GatherAllocatedState()
		if err != nil || !st.AllocatedDevices.Equal(sets.New(want...)) {
			t.Errorf("%s: GatherAllocatedState = %v (%v), want %v", when, st, err, want)
		}
	}
	check("before", id("0"), id("1"), id("2"))

	simulated := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-3-gpu", UID: "sim"}}
	end := view.claims.beginPass(sets.New(id("1"), id("9")), []*resourceapi.ResourceClaim{simulated})
	check("in the pass", id("0"), id("2"))
	// The pass reads the scheduler's allocations once: a device allocated meanwhile (a claim
	// bound by another scheduler) is seen from the next pass on.
	base.devices.Insert(id("5"))
	check("allocated during the pass", id("0"), id("2"))
	if got, err := claims.Get("ns", "w-3-gpu"); err != nil || got != simulated {
		t.Errorf("the simulated claim: %v, %v", got, err)
	}
	allocated := simulated.DeepCopy()
	allocated.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Driver: "gpu", Pool: "node-a", Device: "7"}}}}
	if err := claims.SignalClaimPendingAllocation("sim", allocated); err != nil {
		t.Fatal(err)
	}
	check("with the pass's allocation", id("0"), id("2"), id("7"))
	if got, _ := claims.Get("ns", "w-3-gpu"); got.Status.Allocation == nil || claims.GetPendingAllocation("sim") == nil {
		t.Error("the pass's allocation is not seen")
	}
	if !claims.MaybeRemoveClaimPendingAllocation("sim", false) {
		t.Error("the pass's allocation was not withdrawn")
	}
	check("withdrawn", id("0"), id("2"))
	end()
	check("after the pass", id("0"), id("1"), id("2"), id("5"))
	if _, err := claims.Get("ns", "w-3-gpu"); err == nil {
		t.Error("the simulated claim outlived the pass")
	}
	if base.devices.Len() != 4 {
		t.Errorf("the scheduler's devices changed: %v", base.devices.UnsortedList())
	}
}
