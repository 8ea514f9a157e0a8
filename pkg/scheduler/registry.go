// Package scheduler wires the Phalanx plugins into the kube-scheduler command and renders its
// default configuration.
package scheduler

import (
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// RegistryOptions registers every Phalanx plugin with the scheduler's out-of-tree registry.
func RegistryOptions() []app.Option {
	return []app.Option{}
}

// enabledPlugins are the Phalanx plugins that the default profile enables at every extension
// point they implement.
func enabledPlugins() []configv1.Plugin {
	return nil
}
