// Package v1alpha1 holds the grove.io/v1alpha1 API: PodCliqueSet, PodClique and
// PodCliqueScalingGroup, schema-compatible with the Grove operator's types, plus the
// update-strategy fields of the Phalanx design (maxSurge/maxUnavailable, ReplicaRecreate).
//
// +kubebuilder:object:generate=true
// +groupName=grove.io
// +k8s:deepcopy-gen=package
package v1alpha1
