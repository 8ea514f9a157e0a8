// Package gang is the gang model of Phalanx: which pods form a gang, when a gang has its
// quorum, when it is established, which members are surge members, and when a scaled gang may
// start. It is the one engine behind the PodGang and PodGroup scheduler plugins and it imports
// neither the scheduler framework nor client-go, so that every rule of docs/architecture.md
// ("Scheduling semantics") is tested here without a scheduler.
//
// The rules, as implemented:
//
//  1. Quorum: a gang may bind when, for every podgroup, bound + assumed non-surge members
//     reach minReplicas (Store.QuorumMet).
//  2. Surge members never count toward quorum and never wait for it; they may be placed
//     only once their gang is established (Store.Admissible, Store.PermitSurge).
//  3. Established, not ready: a gang is established from the moment its quorum first binds
//     (or its object says Scheduled=True) for as long as any member is bound. Replacements of
//     an established gang form a sub-gang: the deficit of each podgroup, all-or-nothing,
//     which is rule 1 with the bound members already counted.
//  4. Base before scaled: a member of a scaled gang waits until its base gang is established.
//  5. Queue order: priority, gang creation time, gang name, member index (Before).
//  6. Minimums first: a gang whose minimum failed to fit holds other gangs' extras of equal or
//     lower priority for a bounded time (Store.HeldExtra).
package gang

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Kind says which API a gang comes from.
type Kind uint8

const (
	// KindPodGang is a scheduler.grove.io PodGang.
	KindPodGang Kind = iota + 1
	// KindPodGroup is a scheduling.x-k8s.io PodGroup.
	KindPodGroup
	// KindWorkloadPodGroup is an upstream scheduling.k8s.io PodGroup (the Workload API):
	// pods join it with spec.schedulingGroup.podGroupName.
	KindWorkloadPodGroup
)

func (k Kind) String() string {
	switch k {
	case KindPodGang:
		return "PodGang"
	case KindPodGroup:
		return "PodGroup"
	case KindWorkloadPodGroup:
		return "PodGroup.scheduling.k8s.io"
	}
	return "Unknown"
}

// Key names a gang.
type Key struct {
	Kind      Kind
	Namespace string
	Name      string
}

func (k Key) String() string { return fmt.Sprintf("%s %s/%s", k.Kind, k.Namespace, k.Name) }

// State is where a member is in its life, as far as gang rules care.
type State uint8

const (
	// Gated: the pod exists but carries scheduling gates; it cannot be scheduled yet.
	Gated State = iota + 1
	// Pending: the pod exists, has no gates and no node.
	Pending
	// Assumed: the scheduler reserved a node for the pod (it waits in Permit or is binding).
	Assumed
	// Bound: the pod has a node.
	Bound
)

func (s State) String() string {
	switch s {
	case Gated:
		return "Gated"
	case Pending:
		return "Pending"
	case Assumed:
		return "Assumed"
	case Bound:
		return "Bound"
	}
	return "Unknown"
}

// Resources are the requests that gang feasibility is checked on.
type Resources struct {
	MilliCPU int64
	Memory   int64
	GPU      int64
	// Devices counts DRA devices (ResourceClaims' allocations, any driver). Only holds carry
	// them: a pod's own requests (RequestsOf) and a node's free room (cpu, memory, GPUs) do
	// not, and Fits and Shortfall leave them out. A hold's devices are weighed against the
	// node's ResourceSlices, for pods with claims only (gangplugin's hold Filter).
	Devices int64
}

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	return Resources{MilliCPU: r.MilliCPU + o.MilliCPU, Memory: r.Memory + o.Memory, GPU: r.GPU + o.GPU, Devices: r.Devices + o.Devices}
}

// Sub returns r - o.
func (r Resources) Sub(o Resources) Resources {
	return Resources{MilliCPU: r.MilliCPU - o.MilliCPU, Memory: r.Memory - o.Memory, GPU: r.GPU - o.GPU, Devices: r.Devices - o.Devices}
}

// Fits reports whether need fits into r (cpu, memory and GPUs; not Devices).
func (r Resources) Fits(need Resources) bool {
	return need.MilliCPU <= r.MilliCPU && need.Memory <= r.Memory && need.GPU <= r.GPU
}

// Shortfall names the first resource of need that r cannot hold, as "needs 16 nvidia.com/gpu,
// 8 free"; empty when need fits.
func (r Resources) Shortfall(need Resources) string {
	switch {
	case need.GPU > r.GPU:
		return fmt.Sprintf("needs %d %s, %d free", need.GPU, ResourceGPU, max(r.GPU, 0))
	case need.MilliCPU > r.MilliCPU:
		return fmt.Sprintf("needs %dm cpu, %dm free", need.MilliCPU, max(r.MilliCPU, 0))
	case need.Memory > r.Memory:
		return fmt.Sprintf("needs %d bytes of memory, %d free", need.Memory, max(r.Memory, 0))
	}
	return ""
}

// ResourceGPU is the GPU resource name that feasibility and bin-packing look at.
const ResourceGPU = "nvidia.com/gpu"

// Member is one pod of a gang.
type Member struct {
	UID  types.UID
	Name string
	// Group is the index of the member's podgroup in Spec.PodGroups, or -1 when the gang does
	// not (yet) say which podgroup the pod is in.
	Group int
	// Index orders members of one podgroup in the queue.
	Index int
	// Surge marks a member created above the desired count during an update.
	Surge bool
	State State
	Node  string
	// Requests are the pod's resource requests.
	Requests Resources
	// Running is true when the pod phase is Running (for the gang's phase).
	Running bool
	// Ready is true when the pod has condition Ready=True.
	Ready bool
}

// PodGroup is one podgroup of a gang spec.
type PodGroup struct {
	Name        string
	MinReplicas int32
	// Pods are the names of the pods the gang lists for this group (podReferences).
	Pods []string
	// Pack packs the podgroup's members (PodGang podgroups[].topologyConstraint).
	Pack Pack
}

// GroupPack packs the members of some podgroups together (PodGang
// topologyConstraintGroupConfigs: one scaling-group replica inside one NVLink domain, say).
type GroupPack struct {
	Name string
	// PodGroups are indices into Spec.PodGroups.
	PodGroups []int
	Pack      Pack
}

// Pack is a topology packing constraint: node label keys whose value members share.
type Pack struct {
	// Required: every member on nodes with one value of this label.
	Required string
	// Preferred: members on one value of this label where possible.
	Preferred string
}

// DisruptionMode says how preemption may take a gang's members.
type DisruptionMode uint8

const (
	// DisruptionGang is Phalanx's rule: members above their podgroup's minimum (and surge
	// members) one by one, the rest only with the whole gang.
	DisruptionGang DisruptionMode = iota
	// DisruptionSingle: every member may be taken alone (upstream disruptionMode single, set
	// explicitly).
	DisruptionSingle
	// DisruptionAll: the gang is taken whole or not at all, its members above the minimum too
	// (upstream disruptionMode all).
	DisruptionAll
)

// Spec is what the gang object says, in the terms of the rules.
type Spec struct {
	Key       Key
	PodGroups []PodGroup
	// Pack packs the whole gang; GroupPacks and each podgroup's Pack pack parts of it (see
	// Levels: every level holds at once, each inside the ones that contain it).
	Pack       Pack
	GroupPacks []GroupPack
	CreatedAt  time.Time
	UID        types.UID
	// Scheduled is true when the object's status has condition Scheduled=True: the gang was
	// established before (possibly by another scheduler instance).
	Scheduled bool
	// ScheduleTimeout, when set, overrides the plugin's Permit timeout (PodGroup
	// scheduleTimeoutSeconds).
	ScheduleTimeout time.Duration
	// MinResources, when set, is the whole-gang feasibility floor (PodGroup minResources).
	MinResources *Resources
	// Reservation, when set, holds capacity for the replacements of deleted members.
	Reservation *Reservation
	// Priority, when set, is the gang's priority (an upstream PodGroup's spec.priority): the
	// queue orders the gang's members by it and preemption compares it, instead of the pods'
	// own priorities.
	Priority *int32
	// PreemptNever: the gang does not preempt (an upstream PodGroup's preemptionPolicy Never).
	PreemptNever bool
	// DisruptionMode is how preemption may take the gang's members (an upstream PodGroup's
	// disruptionMode).
	DisruptionMode DisruptionMode
	// ReuseFrom names the gang this one replaces (PodGang spec.reuseReservationRef, set by
	// another operator; same namespace only). A gang without a Reservation of its own then
	// reserves what ReuseFrom's members held when the store first saw the reference (see
	// Store.SetSpec).
	ReuseFrom Key
}
