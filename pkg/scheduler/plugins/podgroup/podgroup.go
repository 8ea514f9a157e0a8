// Package podgroup is the PodGroup scheduler plugin: gangs for any workload (Jobs, JobSets,
// LeaderWorkerSets, Deployments) declared with the scheduler-plugins PodGroup API
// (scheduling.x-k8s.io/v1alpha1, pods labelled scheduling.x-k8s.io/pod-group). It runs on the
// same gang engine as the PodGang plugin (gangplugin, one store per profile), so a group that
// reached minMember is established: later and replacement members are placed one by one, and
// a rolling update of a gang-scheduled Deployment does not hang.
//
// It has no queue sort of its own: the PodGang plugin's order serves both kinds of gangs.
package podgroup

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/informers/externalversions"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// Name is the plugin name in scheduler profiles.
const Name = "PodGroup"

// Event is the framework's name for PodGroup events.
const Event fwk.EventResource = "podgroups.v1alpha1.scheduling.x-k8s.io"

// Plugin is the PodGroup plugin.
type Plugin struct {
	*gangplugin.Adapter
}

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.PreFilterPlugin   = &Plugin{}
	_ fwk.PostFilterPlugin  = &Plugin{}
	_ fwk.PreScorePlugin    = &Plugin{}
	_ fwk.ScorePlugin       = &Plugin{}
	_ fwk.ReservePlugin     = &Plugin{}
	_ fwk.PermitPlugin      = &Plugin{}
	_ fwk.PostBindPlugin    = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
	_ fwk.SignPlugin        = &Plugin{}
)

// New returns the plugin's factory for the scheduler whose gang plugins share rt: the plugin
// on the profile's shared gang store, with a PodGroup informer and the PodGroup status writer.
func New(rt *gangplugin.Runtime) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newPlugin(ctx, obj, h, rt)
	}
}

func newPlugin(ctx context.Context, obj runtime.Object, h fwk.Handle, rt *gangplugin.Runtime) (fwk.Plugin, error) {
	args, err := config.DecodeArgs[config.PodGroupArgs](Name, obj, config.SetDefaultsPodGroupArgs)
	if err != nil {
		return nil, err
	}
	store, err := rt.SharedStore(ctx, h, gang.Membership{SurgeLabel: args.SurgeLabelKey})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	client, err := rt.GangClient(h)
	if err != nil {
		return nil, fmt.Errorf("%s: creating the PodGroup client: %w", Name, err)
	}
	factory := externalversions.NewSharedInformerFactory(client, 0)
	groups := factory.Scheduling().V1alpha1().PodGroups()
	p := &Plugin{Adapter: gangplugin.NewAdapter(h, store, gangplugin.Options{Runtime: rt,
		Name: Name, Kind: gang.KindPodGroup, PermitTimeout: args.PermitWaitingTime(), Backoff: args.Backoff(),
		GangEvent: Event, ToSpec: toSpec,
	})}
	status := newStatusWriter(client, groups.Lister(), h.ClientSet(), store, h.EventRecorder())
	p.SetStatusSink(status)
	if err := p.Start(ctx, factory, groups.Informer(), status.StatusQueue); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).Info("PodGroup plugin ready", "permitTimeout", args.PermitWaitingTime(), "backoff", args.Backoff())
	return p, nil
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

func toSpec(obj any) (gang.Spec, bool) {
	switch o := obj.(type) {
	case *schedulingv1.PodGroup:
		return gang.SpecFromPodGroup(o), true
	case *unstructured.Unstructured:
		pg := &schedulingv1.PodGroup{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, pg); err != nil {
			return gang.Spec{}, false
		}
		return gang.SpecFromPodGroup(pg), true
	}
	return gang.Spec{}, false
}
