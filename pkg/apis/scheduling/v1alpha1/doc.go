// Package v1alpha1 holds the scheduling.x-k8s.io/v1alpha1 PodGroup API, schema-compatible with
// kubernetes-sigs/scheduler-plugins so that existing PodGroup manifests work as they are.
//
// +kubebuilder:object:generate=true
// +groupName=scheduling.x-k8s.io
// +k8s:deepcopy-gen=package
package v1alpha1
