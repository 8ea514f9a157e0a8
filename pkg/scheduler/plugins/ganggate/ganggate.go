// Package ganggate is the GangGate scheduler plugin: the PreEnqueue admission of the profile's
// gang members (gangplugin.Gate), apart from the gang plugins so that the queue re-evaluates a
// gated member only on the events that can admit it. A profile without it gates through the
// gang plugins' own PreEnqueue, as before.
package ganggate

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// Name is the plugin name in scheduler profiles.
const Name = "GangGate"

// Plugin admits a gang member to the scheduling queue once its gang may be placed.
type Plugin struct {
	gate *gangplugin.Gate
}

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
)

// New returns the plugin's factory for the scheduler whose gang plugins share rt.
func New(rt *gangplugin.Runtime) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		g := rt.GateOf(ctx, h)
		g.Enable()
		return &Plugin{gate: g}, nil
	}
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

// PreEnqueue holds a gang member until its gang may be placed (the gang plugin of its kind
// decides: gang.Store.Admissible); the status names what it waits for. Pods of no gang pass.
func (p *Plugin) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	return p.gate.Admit(pod)
}

// EventsToRegister are the events that can admit a held member: a pod added or ungated
// (a member of its gang); the gang plugins activate the others (their gang object seen, a
// base gang established). No node, device or bound-pod event: those never admit a member,
// and the queue skips a held member for them without a hint.
func (p *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return gangplugin.GateEvents(p.gate.Hint), nil
}
