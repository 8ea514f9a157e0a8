package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.hpaPodSelector
// +kubebuilder:resource:shortName={pclq}
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.spec.roleName`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodClique is a set of pods with one role (for example decode workers) in one PCS replica, or
// in one replica of a scaling group.
type PodClique struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state of the PodClique.
	Spec PodCliqueSpec `json:"spec"`
	// Status is the observed state of the PodClique.
	// +optional
	Status PodCliqueStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodCliqueList is a list of PodCliques.
type PodCliqueList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodClique `json:"items"`
}

// PodCliqueSpec is the desired state of a PodClique.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || self.minAvailable <= self.replicas",message="minAvailable must not exceed replicas",fieldPath=".minAvailable"
type PodCliqueSpec struct {
	// RoleName is the role of the pods of this clique, unique among the cliques of a
	// PodCliqueSet; it may be empty (as Grove allows).
	RoleName string `json:"roleName"`
	// PodSpec is the pod specification of every pod of the clique.
	PodSpec corev1.PodSpec `json:"podSpec"`
	// Replicas is the desired number of pods.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// MinAvailable is how many pods must be Ready for the clique to be available; it is the
	// podgroup minReplicas of the gang. Defaults to replicas.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// StartsAfter names cliques that must be ready before this one starts.
	// +optional
	// +listType=set
	StartsAfter []string `json:"startsAfter,omitempty"`
	// AutoScalingConfig is Grove's (HPA bounds for the clique); kept as written.
	// +optional
	AutoScalingConfig *GroveObject `json:"autoScalingConfig,omitempty"`
}

// PodCliqueStatus is the observed state of a PodClique.
type PodCliqueStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// Replicas is the number of pods that exist, surge pods included.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// ReadyReplicas is the number of Ready pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`
	// UpdatedReplicas is the number of pods of the current template.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// ScheduleGatedReplicas is the number of pods held by a scheduling gate.
	// +optional
	ScheduleGatedReplicas int32 `json:"scheduleGatedReplicas"`
	// Selector selects the pods of the clique (for the scale subresource).
	// +optional
	Selector *string `json:"hpaPodSelector,omitempty"`
	// Conditions: MinAvailableBreached, PodCliqueScheduled.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions           []metav1.Condition `json:"conditions,omitempty"`
	GroveComponentStatus `json:",inline"`
}

// GroveComponentStatus is the part of a PodClique's or PodCliqueScalingGroup's status that
// Grove's operator writes beside the counts above. Phalanx's controller writes, with Grove's
// meaning, scheduledReplicas (PodCliques: pods bound), currentPodTemplateHash (PodCliques: the
// template every live pod is at once its update is complete) and
// currentPodCliqueSetGenerationHash (the PodCliqueSet revision a converged clique or group is
// at); updateProgress and lastErrors are kept as written.
type GroveComponentStatus struct {
	// ScheduledReplicas is how many pods (replicas) Grove counts as scheduled.
	// +optional
	ScheduledReplicas *int32 `json:"scheduledReplicas,omitempty"`
	// +optional
	CurrentPodCliqueSetGenerationHash *string `json:"currentPodCliqueSetGenerationHash,omitempty"`
	// +optional
	CurrentPodTemplateHash *string `json:"currentPodTemplateHash,omitempty"`
	// +optional
	UpdateProgress *GroveObject `json:"updateProgress,omitempty"`
	// +optional
	LastErrors []GroveObject `json:"lastErrors,omitempty"`
}

// GroveObject is an object Grove defines and Phalanx keeps without reading it: any fields.
// +kubebuilder:validation:Type=object
// +kubebuilder:pruning:PreserveUnknownFields
type GroveObject struct {
	runtime.RawExtension `json:",inline"`
}
