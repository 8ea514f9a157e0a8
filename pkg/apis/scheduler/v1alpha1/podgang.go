package v1alpha1

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName={pg}
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Scheduled",type=string,JSONPath=`.status.conditions[?(@.type=="Scheduled")].status`
// +kubebuilder:printcolumn:name="Waiting",type=string,JSONPath=`.status.conditions[?(@.type=="phalanx.dev/Unschedulable")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodGang is a group of pods that is scheduled all-or-nothing: each of its podgroups must get
// at least minReplicas pods placed together, or none is.
type PodGang struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired gang.
	Spec PodGangSpec `json:"spec"`
	// Status is written by the scheduler.
	// +optional
	Status PodGangStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodGangList is a list of PodGangs.
type PodGangList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodGang `json:"items"`
}

// PodGangSpec is the desired gang.
type PodGangSpec struct {
	// PodGroups are the member groups of the gang.
	// +kubebuilder:validation:MinItems=1
	PodGroups []PodGroup `json:"podgroups"`
	// TopologyConstraint packs the whole gang into one topology domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// TopologyConstraintGroupConfigs packs a subset of the podgroups into one domain.
	// +optional
	TopologyConstraintGroupConfigs []TopologyConstraintGroupConfig `json:"topologyConstraintGroupConfigs,omitempty"`
	// PriorityClassName is the priority class of the gang.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// ReuseReservationRef names the PodGang this one replaces; the scheduler holds the capacity
	// that gang freed for this one for a bounded time.
	// +optional
	ReuseReservationRef *NamespacedName `json:"reuseReservationRef,omitempty"`
}

// PodGroup is a set of pods of a gang that share one pod template.
type PodGroup struct {
	// Name of the podgroup, unique in the gang.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// PodReferences are the pods of the group.
	PodReferences []NamespacedName `json:"podReferences"`
	// MinReplicas is how many pods of the group must be placed together. Pods above it are
	// placed best effort once the gang is established.
	// +kubebuilder:validation:Minimum=0
	MinReplicas int32 `json:"minReplicas"`
	// TopologyConstraint packs the pods of this group into one topology domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
}

// TopologyConstraint holds a packing constraint.
type TopologyConstraint struct {
	// PackConstraint is the packing constraint.
	// +optional
	PackConstraint *TopologyPackConstraint `json:"packConstraint,omitempty"`
}

// TopologyPackConstraint names node label keys (for example "example.com/rack") whose value
// the members share.
type TopologyPackConstraint struct {
	// Required: every member on nodes with one value of this label, or none placed.
	// +optional
	Required *string `json:"required,omitempty"`
	// Preferred: members placed on one value of this label where possible (a score).
	// +optional
	Preferred *string `json:"preferred,omitempty"`
}

// TopologyConstraintGroupConfig applies a constraint to some podgroups of a gang.
type TopologyConstraintGroupConfig struct {
	// Name of the group of podgroups.
	Name string `json:"name"`
	// PodGroupNames are the podgroups it covers.
	PodGroupNames []string `json:"podGroupNames"`
	// TopologyConstraint is the constraint.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
}

// NamespacedName names an object.
type NamespacedName struct {
	// Namespace of the object.
	Namespace string `json:"namespace"`
	// Name of the object.
	Name string `json:"name"`
}

// PodGangPhase is the phase of a PodGang.
// +kubebuilder:validation:Enum=Pending;Starting;Running
type PodGangPhase string

const (
	// PodGangPending: no member is bound yet (Grove writes it too, with Initialized).
	PodGangPending PodGangPhase = "Pending"
	// PodGangStarting: binding has started; not every member is bound and Running yet.
	PodGangStarting PodGangPhase = "Starting"
	// PodGangRunning: every member of the gang is bound and Running (Grove's meaning).
	PodGangRunning PodGangPhase = "Running"
)

// Condition types of a PodGang. Phalanx writes ConditionScheduled and ConditionUnschedulable,
// and DisruptionTarget only on a gang it preempts (reason PreemptedByPhalanx, Grove's meaning:
// "preempted by a higher priority PodGang"): Initialized, Ready, Unhealthy and a
// DisruptionTarget of any other reason are the operator's (Grove's) and are kept as they are
// by every write of Phalanx.
const (
	// ConditionScheduled is True once the quorum of the gang has been bound; its
	// lastTransitionTime marks when the gang became established. While False, its reason and
	// message say what the gang waits for.
	ConditionScheduled = "Scheduled"
	// ConditionUnschedulable is True while members of the gang wait (also members above the
	// quorum of an established gang); its reason says for what. Phalanx's own type, outside
	// Grove's vocabulary, hence the prefix (before v0.3 it was written as "Unschedulable").
	ConditionUnschedulable = "phalanx.dev/Unschedulable"
	// LegacyConditionUnschedulable is the type older Phalanx versions wrote; Phalanx removes it.
	LegacyConditionUnschedulable = "Unschedulable"
	// ConditionReady is True while every podgroup has minReplicas Ready pods (written by the
	// operator).
	ConditionReady = "Ready"
	// ConditionInitialized is True once the operator has created every pod and listed it in
	// podReferences (Grove's; Phalanx never writes it).
	ConditionInitialized = "Initialized"
)

// PodGangStatus is written by the scheduler.
type PodGangStatus struct {
	// Phase is Pending, Starting or Running.
	// +optional
	Phase PodGangPhase `json:"phase,omitempty"`
	// Conditions: Scheduled and phalanx.dev/Unschedulable (Phalanx); Initialized, Ready,
	// Unhealthy, DisruptionTarget (the operator).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// PlacementScore rates the placement from 0 to 1 (1 = best possible).
	// +optional
	PlacementScore *float64 `json:"placementScore,omitempty"`
}

// AnnotationReservation, on a PodGang, holds a Reservation as JSON: the capacity the gang had
// on each node when the controller deleted some of its members to replace them. The scheduler
// keeps what the gang has not yet taken back for the replacements, for a bounded time
// (PodGang plugin argument reservationHoldSeconds), and filters other pods off it.
const AnnotationReservation = "phalanx.dev/reservation"

// Reservation is the value of AnnotationReservation.
type Reservation struct {
	// Since is when the members were deleted; the hold ends reservationHoldSeconds later.
	Since metav1.Time `json:"since"`
	// Nodes are, per node, the requests of the gang's pods there before the deletion
	// (cpu, memory, nvidia.com/gpu), and the DRA devices their ResourceClaims were allocated
	// there (ReservationDevices).
	Nodes map[string]corev1.ResourceList `json:"nodes"`
}

// MarshalJSON writes Since to the microsecond (metav1.Time would cut it to the second): the
// scheduler tells one reservation of a gang from the next by Since, and a controller's steps
// follow each other within a second. Readers parse it as metav1.Time, whose RFC 3339 parser
// takes the fraction (and reads annotations of whole seconds as before).
func (r Reservation) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Since metav1.MicroTime               `json:"since"`
		Nodes map[string]corev1.ResourceList `json:"nodes"`
	}{Since: metav1.NewMicroTime(r.Since.Time), Nodes: r.Nodes})
}

// ReservationDevices, in a Reservation's node list, counts the DRA devices (resource.k8s.io
// ResourceClaims, any driver) the gang's pods had on the node: the scheduler keeps that many
// of the node's devices for the replacements, as it keeps cpu, memory and GPUs.
const ReservationDevices corev1.ResourceName = "phalanx.dev/dra-devices"
