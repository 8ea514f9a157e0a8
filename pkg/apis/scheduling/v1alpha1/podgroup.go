package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LabelPodGroup is the pod label that names the PodGroup a pod belongs to.
const LabelPodGroup = "scheduling.x-k8s.io/pod-group"

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="MinMember",type=integer,JSONPath=`.spec.minMember`
// +kubebuilder:printcolumn:name="Running",type=integer,JSONPath=`.status.running`
// +kubebuilder:printcolumn:name="Succeeded",type=integer,JSONPath=`.status.succeeded`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.failed`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodGroup is a gang of pods (of any workload) that is scheduled all-or-nothing: at least
// minMember pods are placed together, or none is.
type PodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired group.
	Spec PodGroupSpec `json:"spec,omitempty"`
	// Status is written by the scheduler.
	// +optional
	Status PodGroupStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodGroupList is a list of PodGroups.
type PodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodGroup `json:"items"`
}

// PodGroupSpec is the desired group.
type PodGroupSpec struct {
	// MinMember is how many pods must be placed together.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MinMember int32 `json:"minMember,omitempty"`
	// MinResources is the total of resources the group needs to start; a group whose
	// minResources do not fit in the cluster is not attempted.
	// +optional
	MinResources corev1.ResourceList `json:"minResources,omitempty"`
	// ScheduleTimeoutSeconds is how long the placed members of an incomplete group wait for the
	// rest before they are all released.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
}

// PodGroupPhase is the phase of a PodGroup.
type PodGroupPhase string

const (
	// PodGroupPending: the group is waiting for members or capacity.
	PodGroupPending PodGroupPhase = "Pending"
	// PodGroupScheduling: members are being placed.
	PodGroupScheduling PodGroupPhase = "Scheduling"
	// PodGroupScheduled: minMember members are bound (status.scheduled >= minMember).
	PodGroupScheduled PodGroupPhase = "Scheduled"
	// PodGroupRunning: minMember members are running.
	PodGroupRunning PodGroupPhase = "Running"
	// PodGroupFinished: every member has succeeded.
	PodGroupFinished PodGroupPhase = "Finished"
	// PodGroupFailed: a member has failed.
	PodGroupFailed PodGroupPhase = "Failed"
)

// PodGroupStatus is written by the scheduler.
type PodGroupStatus struct {
	// Phase of the group.
	// +optional
	Phase PodGroupPhase `json:"phase,omitempty"`
	// OccupiedBy names the workload that owns the group.
	// +optional
	OccupiedBy string `json:"occupiedBy,omitempty"`
	// Scheduled is the number of members bound to a node that have not finished (as
	// scheduler-plugins' schema before v0.28 has it; a newer CRD without the field prunes it).
	// +optional
	Scheduled int32 `json:"scheduled,omitempty"`
	// Running is the number of running members.
	// +optional
	Running int32 `json:"running,omitempty"`
	// Succeeded is the number of succeeded members.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`
	// Failed is the number of failed members.
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// ScheduleStartTime is when the group was first attempted.
	// +optional
	ScheduleStartTime metav1.Time `json:"scheduleStartTime,omitempty"`
}
