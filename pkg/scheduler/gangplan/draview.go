package gangplan

import (
	"errors"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

// draView is the scheduler's DRA manager as the planner's framework sees it: the manager
// read through, with what one pass adds kept in the view and dropped when the pass ends.
//   - The allocations a pass's members make (the DRA plugin's Reserve signals them in
//     flight, so that the members after them see their devices taken) stay in the view: the
//     scheduler's own cycles and binding cycles never see a plan's allocations, and a pass
//     may run beside them (surge admission).
//   - During a preemption pass, the devices of claims that only the evicted pods use count as
//     free, as they will be once those pods are gone (gangdra.FreedClaims).
//   - Claims of pods not created yet (a surge member's claims from templates) are read as if
//     they existed.
//   - The allocated devices and the ResourceSlices are read once per pass, at their first
//     read, and every member's PreFilter sees that reading (passState.allocated, slices), as
//     the members of one scheduling cycle see one: the pass is one cycle of the scheduler's.
//     The verdicts a pass keeps carry a fingerprint of exactly that reading (deviceState).
type draView struct {
	fwk.SharedDRAManager
	claims *claimView
	slices *sliceView
}

func newDRAView(m fwk.SharedDRAManager) *draView {
	claims := &claimView{ResourceClaimTracker: m.ResourceClaims()}
	return &draView{SharedDRAManager: m, claims: claims, slices: &sliceView{manager: m, claims: claims}}
}

// ResourceClaims is the manager's claim tracker seen through the pass.
func (v *draView) ResourceClaims() fwk.ResourceClaimTracker { return v.claims }

// ResourceSlices is the manager's slices, read once per pass.
func (v *draView) ResourceSlices() fwk.ResourceSliceLister { return v.slices }

// sliceView lists the manager's ResourceSlices once per pass (outside a pass: every time).
type sliceView struct {
	manager fwk.SharedDRAManager
	claims  *claimView // its mutex and passState hold the pass's reading
}

func (v *sliceView) ListWithDeviceTaintRules() ([]*resourceapi.ResourceSlice, error) {
	c := v.claims
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pass == nil {
		return v.manager.ResourceSlices().ListWithDeviceTaintRules()
	}
	if c.pass.slices == nil {
		all, err := v.manager.ResourceSlices().ListWithDeviceTaintRules()
		if err != nil {
			return nil, err
		}
		c.pass.slices = all
	}
	return c.pass.slices, nil
}

// claimView is a claim tracker with one pass's additions (passState) over the scheduler's.
type claimView struct {
	fwk.ResourceClaimTracker
	mu   sync.RWMutex
	pass *passState
}

// passState is what one pass sees beyond the scheduler's tracker.
type passState struct {
	// freed are allocated devices counted as free (a preemption's victims').
	freed sets.Set[structured.DeviceID]
	// claims are claims by namespace/name that exist only in the pass: simulated ones, and
	// claims with an allocation the pass made.
	claims map[string]*resourceapi.ResourceClaim
	// pending are the allocations the pass made, by claim UID, with how many members use
	// each (a claim its members share is allocated once).
	pending map[types.UID]*pendingAllocation
	// allocated is the scheduler's allocation state as the pass first read it (nil: not read
	// yet); slices likewise. Neither is written: the allocator only reads them.
	allocated *structured.AllocatedState
	slices    []*resourceapi.ResourceSlice
}

type pendingAllocation struct {
	claim *resourceapi.ResourceClaim
	users int
}

// beginPass starts a pass that sees freed devices as free and simulated claims as existing;
// the returned function ends it and drops everything the pass added.
func (c *claimView) beginPass(freed sets.Set[structured.DeviceID], simulated []*resourceapi.ResourceClaim) func() {
	st := &passState{freed: freed, claims: make(map[string]*resourceapi.ResourceClaim, len(simulated)), pending: map[types.UID]*pendingAllocation{}}
	for _, claim := range simulated {
		st.claims[claim.Namespace+"/"+claim.Name] = claim
	}
	c.mu.Lock()
	c.pass = st
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.pass = nil
		c.mu.Unlock()
	}
}

// Get is the pass's version of the claim (simulated, or allocated by the pass), or the
// scheduler's.
func (c *claimView) Get(namespace, name string) (*resourceapi.ResourceClaim, error) {
	c.mu.RLock()
	if c.pass != nil {
		if claim, ok := c.pass.claims[namespace+"/"+name]; ok {
			c.mu.RUnlock()
			return claim, nil
		}
	}
	c.mu.RUnlock()
	return c.ResourceClaimTracker.Get(namespace, name)
}

// List is the scheduler's claims with the pass's versions in their place, and the simulated
// ones.
func (c *claimView) List() ([]*resourceapi.ResourceClaim, error) {
	all, err := c.ResourceClaimTracker.List()
	c.mu.RLock()
	defer c.mu.RUnlock()
	if err != nil || c.pass == nil || len(c.pass.claims) == 0 {
		return all, err
	}
	out := make([]*resourceapi.ResourceClaim, 0, len(all)+len(c.pass.claims))
	for _, claim := range all {
		if _, own := c.pass.claims[claim.Namespace+"/"+claim.Name]; !own {
			out = append(out, claim)
		}
	}
	for _, claim := range c.pass.claims {
		out = append(out, claim)
	}
	return out, nil
}

// SignalClaimPendingAllocation records an allocation of the pass (outside a pass: the
// scheduler's tracker's).
func (c *claimView) SignalClaimPendingAllocation(uid types.UID, allocated *resourceapi.ResourceClaim) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pass == nil {
		return c.ResourceClaimTracker.SignalClaimPendingAllocation(uid, allocated)
	}
	if p := c.pass.pending[uid]; p != nil {
		p.users++
		return nil
	}
	c.pass.pending[uid] = &pendingAllocation{claim: allocated, users: 1}
	c.pass.claims[allocated.Namespace+"/"+allocated.Name] = allocated
	return nil
}

// GetPendingAllocation is the pass's allocation of the claim, or the scheduler's in flight.
func (c *claimView) GetPendingAllocation(uid types.UID) *resourceapi.AllocationResult {
	c.mu.RLock()
	if c.pass != nil {
		if p := c.pass.pending[uid]; p != nil {
			c.mu.RUnlock()
			return p.claim.Status.Allocation
		}
	}
	c.mu.RUnlock()
	return c.ResourceClaimTracker.GetPendingAllocation(uid)
}

// MaybeRemoveClaimPendingAllocation withdraws an allocation of the pass.
func (c *claimView) MaybeRemoveClaimPendingAllocation(uid types.UID, force bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pass == nil {
		return c.ResourceClaimTracker.MaybeRemoveClaimPendingAllocation(uid, force)
	}
	p := c.pass.pending[uid]
	if p == nil {
		return false
	}
	if p.users--; p.users > 0 && !force {
		return false
	}
	delete(c.pass.pending, uid)
	key := p.claim.Namespace + "/" + p.claim.Name
	if cur := c.pass.claims[key]; cur == p.claim {
		delete(c.pass.claims, key)
	}
	return true
}

// AssumedClaimRestore: the pass assumes nothing in the scheduler's tracker (the DRA plugin
// calls it after a withdrawn allocation).
func (c *claimView) AssumedClaimRestore(namespace, name string) {
	c.mu.RLock()
	inPass := c.pass != nil
	c.mu.RUnlock()
	if !inPass {
		c.ResourceClaimTracker.AssumedClaimRestore(namespace, name)
	}
}

// ListAllAllocatedDevices is the scheduler's allocated devices, less the freed ones, plus
// those the pass allocated. In a pass it is the pass's reading (passAllocated), with the
// devices of shares counted whole, as the tracker counts them without consumable capacity
// (the DRA plugin reads this only then).
func (c *claimView) ListAllAllocatedDevices() (sets.Set[structured.DeviceID], error) {
	st, err := c.passAllocated()
	if err != nil {
		return nil, err
	}
	if st == nil {
		all, err := c.ResourceClaimTracker.ListAllAllocatedDevices()
		if err != nil {
			return all, err
		}
		return c.inPass(all), nil
	}
	all := st.AllocatedDevices
	if st.AllocatedSharedDeviceIDs.Len() > 0 {
		all = all.Clone()
		for id := range st.AllocatedSharedDeviceIDs {
			all.Insert(id.GetDeviceID())
		}
	}
	return c.inPass(all), nil
}

// GatherAllocatedState is the scheduler's allocation state (the allocator reads it with
// consumable capacity) with the same changes; in a pass, the pass's reading. Shares of
// devices are left as the scheduler has them: no claim with a share is freed
// (gangdra.FreedClaims), and a share the pass allocates counts as its whole device.
func (c *claimView) GatherAllocatedState() (*structured.AllocatedState, error) {
	st, err := c.passAllocated()
	if err != nil {
		return nil, err
	}
	if st == nil {
		if st, err = c.ResourceClaimTracker.GatherAllocatedState(); err != nil || st == nil {
			return st, err
		}
	}
	out := *st
	out.AllocatedDevices = c.inPass(st.AllocatedDevices)
	return &out, nil
}

// passAllocated is the pass's reading of the scheduler's allocation state, read now if it is
// the pass's first (nil outside a pass). A reading the tracker reports as torn is an error
// the caller retries, as the DRA plugin does.
func (c *claimView) passAllocated() (*structured.AllocatedState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pass == nil {
		return nil, nil
	}
	if c.pass.allocated == nil {
		st, err := c.ResourceClaimTracker.GatherAllocatedState()
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, errors.New("no allocation state")
		}
		c.pass.allocated = st
	}
	return c.pass.allocated, nil
}

// inPass is the allocated devices all as the pass sees them (a new set when it differs).
func (c *claimView) inPass(all sets.Set[structured.DeviceID]) sets.Set[structured.DeviceID] {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.pass == nil || (c.pass.freed.Len() == 0 && len(c.pass.pending) == 0) {
		return all
	}
	out := all.Difference(c.pass.freed)
	for _, p := range c.pass.pending {
		insertDevices(out, p.claim)
	}
	return out
}

// insertDevices adds the devices allocated to claim to set.
func insertDevices(set sets.Set[structured.DeviceID], claim *resourceapi.ResourceClaim) {
	for _, r := range claim.Status.Allocation.Devices.Results {
		set.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
	}
}

// devicesFreedBy is what the eviction of pods frees of allocated devices (the devices of the
// claims gangdra.FreedClaims names), with the devices of claims.
func devicesFreedBy(claims fwk.ResourceClaimTracker, pods []*v1.Pod, freedClaims []*resourceapi.ResourceClaim) sets.Set[structured.DeviceID] {
	all := append(gangdra.FreedClaims(claims, pods), freedClaims...)
	if len(all) == 0 {
		return nil
	}
	freed := sets.New[structured.DeviceID]()
	for _, claim := range all {
		insertDevices(freed, claim)
	}
	return freed
}
