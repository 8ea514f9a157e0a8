// Package scheduler wires the Phalanx plugins into the kube-scheduler command and renders its
// default configuration.
package scheduler

import (
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/utils/ptr"

	// Registers the plugin argument types with the kube-scheduler configuration scheme.
	_ "github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/ganggate"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/podgang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/podgroup"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/workloadpodgroup"
)

// RegistryOptions registers every Phalanx plugin with the scheduler's out-of-tree registry; the
// gang plugins of that scheduler share rt (one per scheduler, see gangplugin.Runtime).
func RegistryOptions(rt *gangplugin.Runtime) []app.Option {
	return []app.Option{
		app.WithPlugin(podgang.Name, podgang.New(rt)),
		app.WithPlugin(podgroup.Name, podgroup.New(rt)),
		app.WithPlugin(workloadpodgroup.Name, workloadpodgroup.New(rt)),
		app.WithPlugin(gangdra.Name, gangdra.New),
		app.WithPlugin(ganggate.Name, ganggate.New(rt)),
	}
}

// enabledPlugins are the Phalanx plugins that the default profile enables at every extension
// point they implement. PodGang provides the queue order of all three kinds. Their score (GPU bin-packing, preferred packing) outweighs the
// default spreading score of NodeResourcesFit.
func enabledPlugins() []configv1.Plugin {
	return []configv1.Plugin{
		// Before the gang plugins, where DynamicResources runs in kube-scheduler's default
		// order: a gang plugin's PreFilter that refuses a gang ends the PreFilter phase, and
		// DynamicResources' PostFilter needs the state its own PreFilter writes.
		{Name: gangdra.Name, Weight: ptr.To[int32](2)}, // DynamicResources' own weight
		// Admits gang members to the queue (the gang plugins' PreEnqueue, on the events that
		// can admit a member only).
		{Name: ganggate.Name},
		{Name: podgang.Name, Weight: ptr.To[int32](3)},
		{Name: podgroup.Name, Weight: ptr.To[int32](3)},
		{Name: workloadpodgroup.Name, Weight: ptr.To[int32](3)},
	}
}

// disabledPlugins are the default plugins the Phalanx profile replaces: DefaultPreemption
// picks victims pod by pod for one preemptor, which breaks gangs; the gang plugins' PostFilter
// preempts instead. GangScheduling and PodGroupPodsCount (kube-scheduler's own gang plugins
// for scheduling.k8s.io PodGroups, in the default set when the GenericWorkload gate is on)
// would handle the WorkloadPodGroup plugin's pods a second time. The default scheduler's
// profile keeps all of them.
func disabledPlugins() []configv1.Plugin {
	return []configv1.Plugin{{Name: names.DefaultPreemption}, {Name: names.GangScheduling}, {Name: names.PodGroupPodsCount}, {Name: names.DynamicResources}}
}

// queueSort replaces the default PrioritySort: only one queue-sort plugin may be enabled.
func queueSort() configv1.PluginSet {
	return configv1.PluginSet{
		Enabled:  []configv1.Plugin{{Name: podgang.Name}},
		Disabled: []configv1.Plugin{{Name: "*"}},
	}
}
