package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName={pcsg}
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="MinAvailable",type=integer,JSONPath=`.spec.minAvailable`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodCliqueScalingGroup is one scaling group of one PCS replica: its replicas each hold one
// PodClique per clique name. Replicas 0..minAvailable-1 join the base PodGang of the PCS replica;
// every higher replica has a scaled PodGang of its own.
type PodCliqueScalingGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state of the scaling group.
	Spec PodCliqueScalingGroupSpec `json:"spec"`
	// Status is the observed state of the scaling group.
	// +optional
	Status PodCliqueScalingGroupStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodCliqueScalingGroupList is a list of PodCliqueScalingGroups.
type PodCliqueScalingGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodCliqueScalingGroup `json:"items"`
}

// PodCliqueScalingGroupSpec is the desired state of a scaling group.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || self.minAvailable <= self.replicas",message="minAvailable must not exceed replicas",fieldPath=".minAvailable"
type PodCliqueScalingGroupSpec struct {
	// Replicas is the desired number of replicas of the group.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// MinAvailable is the number of replicas in the base gang.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// CliqueNames are the cliques that form one replica of the group.
	// +kubebuilder:validation:MinItems=1
	// +listType=set
	CliqueNames []string `json:"cliqueNames"`
}

// PodCliqueScalingGroupStatus is the observed state of a scaling group.
type PodCliqueScalingGroupStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// Replicas is the number of replicas that exist, surge replicas included.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// AvailableReplicas is the number of replicas whose every clique meets minAvailable.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas"`
	// UpdatedReplicas is the number of replicas of the current template.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// Selector selects the pods of the group (for the scale subresource).
	// +optional
	Selector *string `json:"selector,omitempty"`
	// Conditions: MinAvailableBreached.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions           []metav1.Condition `json:"conditions,omitempty"`
	GroveComponentStatus `json:",inline"`
}
