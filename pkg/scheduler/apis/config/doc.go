// Package config holds the typed arguments of the Phalanx scheduler plugins. The types are
// registered in the kube-scheduler configuration scheme (kubescheduler.config.k8s.io, both the
// internal version and v1) so that a KubeSchedulerConfiguration file can carry them in
// profiles[].pluginConfig[].args, and so that they are defaulted like in-tree plugin args.
//
// +kubebuilder:object:generate=true
// +k8s:deepcopy-gen=package
package config
