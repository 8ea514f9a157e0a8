// Package v1alpha1 holds the scheduler.grove.io/v1alpha1 API: PodGang, schema-compatible with
// the Grove scheduler API so that PodGangs written by the Grove operator schedule with Phalanx.
//
// +kubebuilder:object:generate=true
// +groupName=scheduler.grove.io
// +k8s:deepcopy-gen=package
package v1alpha1
