package gangplan

import (
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	fwk "k8s.io/kube-scheduler/framework"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"
)

// deviceState is what the DRA allocator reads of the cluster beyond the Node objects, as
// fingerprints: a member's Filter verdict on a node, given where its devices come from,
// holds while the node's generation and its entry here are what they were (passMemo).
//
// A node's fingerprint covers its ResourceSlices (UID, resourceVersion, pool generation,
// the devices' taints, which DeviceTaintRules add without a new resourceVersion) and the
// devices allocated from its pools: dedicated, shared and consumed capacity, in flight
// included. Devices of slices not tied to one node are not covered; no verdict of a member
// that could take them is kept (memoRules.devicesShared). classes is a fingerprint of the
// DeviceClasses, part of the key of the verdicts kept (a class's selectors decide which
// devices a request may take).
type deviceState struct {
	byNode  map[string]uint64
	classes string
}

// fingerprintSeed is the process's seed for fingerprints (they never leave the process).
var fingerprintSeed = maphash.MakeSeed()

// mix spreads a hash so that a sum of them is a fingerprint of a set (order does not count).
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func fingerprint(parts ...string) uint64 {
	return mix(maphash.String(fingerprintSeed, strings.Join(parts, "\x00")))
}

// nodeDevices reads m's ResourceSlices, allocated devices and DeviceClasses into a
// deviceState. m is the planner's view during a pass: the slices and allocations are the
// pass's one reading, which every member's allocator reads (draView), so the fingerprint is
// of what the verdicts were given on. It fails when the claim tracker is changed while it
// reads (the tracker reports it); no verdict is kept then.
func nodeDevices(m fwk.SharedDRAManager) (*deviceState, error) {
	slices, err := m.ResourceSlices().ListWithDeviceTaintRules()
	if err != nil {
		return nil, fmt.Errorf("listing ResourceSlices: %w", err)
	}
	st := &deviceState{byNode: make(map[string]uint64, len(slices))}
	poolNode := make(map[string]string, len(slices))
	for _, s := range slices {
		if s.Spec.NodeName == nil || *s.Spec.NodeName == "" {
			continue
		}
		node := *s.Spec.NodeName
		poolNode[s.Spec.Driver+"\x00"+s.Spec.Pool.Name] = node
		st.byNode[node] += fingerprint(string(s.UID), s.ResourceVersion, strconv.FormatInt(s.Spec.Pool.Generation, 10))
		for _, d := range s.Spec.Devices {
			for _, t := range d.Taints {
				st.byNode[node] += fingerprint("taint", s.Spec.Driver, s.Spec.Pool.Name, d.Name, t.Key, t.Value, string(t.Effect))
			}
		}
	}
	alloc, err := m.ResourceClaims().GatherAllocatedState()
	if err != nil {
		return nil, fmt.Errorf("reading allocated devices: %w", err)
	}
	if alloc != nil {
		on := func(driver, pool string) (string, bool) {
			n, ok := poolNode[driver+"\x00"+pool]
			return n, ok
		}
		for id := range alloc.AllocatedDevices {
			if n, ok := on(id.Driver.String(), id.Pool.String()); ok {
				st.byNode[n] += fingerprint("allocated", id.String())
			}
		}
		for id := range alloc.AllocatedSharedDeviceIDs {
			dev := id.GetDeviceID()
			if n, ok := on(dev.Driver.String(), dev.Pool.String()); ok {
				st.byNode[n] += fingerprint("shared", id.String())
			}
		}
		for id, consumed := range alloc.AggregatedCapacity {
			if n, ok := on(id.Driver.String(), id.Pool.String()); ok {
				names := make([]string, 0, len(consumed))
				for name := range consumed {
					names = append(names, string(name))
				}
				sort.Strings(names)
				parts := []string{"capacity", id.String()}
				for _, name := range names {
					parts = append(parts, name, consumed[resourceapi.QualifiedName(name)].String())
				}
				st.byNode[n] += fingerprint(parts...)
			}
		}
	}
	if st.classes, err = deviceClasses(m); err != nil {
		return nil, err
	}
	return st, nil
}

// deviceClasses is a fingerprint of m's DeviceClasses.
func deviceClasses(m fwk.SharedDRAManager) (string, error) {
	classes, err := m.DeviceClasses().List()
	if err != nil {
		return "", fmt.Errorf("listing DeviceClasses: %w", err)
	}
	var sum uint64
	for _, c := range classes {
		sum += fingerprint(c.Name, c.ResourceVersion)
	}
	return strconv.FormatUint(sum, 16), nil
}

// takesDevices reports whether pod takes devices through the DRA plugin: it has
// ResourceClaims, or asks for an extended resource a DeviceClass provides.
func (pl *Planner) takesDevices(pod *v1.Pod) bool {
	if !pl.dra {
		return false
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return true
	}
	resolver := pl.draView.DeviceClassResolver()
	if resolver == nil {
		return false
	}
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for name := range c.Resources.Requests {
				if v1helper.IsExtendedResourceName(name) && resolver.GetDeviceClass(name) != nil {
					return true
				}
			}
		}
	}
	return false
}
