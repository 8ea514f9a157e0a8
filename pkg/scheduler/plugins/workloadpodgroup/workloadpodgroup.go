// Package workloadpodgroup is the WorkloadPodGroup scheduler plugin: gangs declared with the
// upstream Workload API (scheduling.k8s.io/v1beta1 PodGroups; pods join one with
// spec.schedulingGroup.podGroupName), on the same gang engine as the PodGang and PodGroup
// plugins (gangplugin, one store and one queue order per profile). A group that reached
// schedulingPolicy.gang.minCount is established: later members, surge pods of a rolling
// Deployment and replacements of lost members are placed one by one, which upstream's
// in-tree GangScheduling does not do.
//
// kube-scheduler's own pod-group cycle (feature gate GenericWorkload in the scheduler
// process) would take these pods out of Phalanx's hands, so the plugin refuses to start when
// that gate is on in this process; the API server's gate is what serves the API.
package workloadpodgroup

import (
	"context"
	"fmt"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// Name is the plugin name in scheduler profiles.
const Name = "WorkloadPodGroup"

// Event is the framework's name for upstream PodGroup events.
const Event fwk.EventResource = "podgroups.v1beta1.scheduling.k8s.io"

// Plugin is the WorkloadPodGroup plugin.
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

// ErrInTreeWorkload is returned by New when kube-scheduler's own pod-group cycle is on in
// this process.
var ErrInTreeWorkload = fmt.Errorf("%s: the GenericWorkload feature gate is on in this scheduler process: kube-scheduler's own pod-group cycle would schedule the members of scheduling.k8s.io PodGroups instead of Phalanx; start phalanx-scheduler without --feature-gates=GenericWorkload=true (the API server's gate and --runtime-config=scheduling.k8s.io/v1beta1=true are what serve the API)", Name)

// New returns the plugin's factory for the scheduler whose gang plugins share rt: the plugin
// on the profile's shared gang store, with its own PodGroup informer (started when the API server
// serves scheduling.k8s.io/v1beta1, see gangplugin.Start) and the PodGroup status writer.
func New(rt *gangplugin.Runtime) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newPlugin(ctx, obj, h, rt)
	}
}

func newPlugin(ctx context.Context, obj runtime.Object, h fwk.Handle, rt *gangplugin.Runtime) (fwk.Plugin, error) {
	args, err := config.DecodeArgs[config.WorkloadPodGroupArgs](Name, obj, config.SetDefaultsWorkloadPodGroupArgs)
	if err != nil {
		return nil, err
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		return nil, ErrInTreeWorkload
	}
	store, err := rt.SharedStore(ctx, h, gang.Membership{SurgeLabel: args.SurgeLabelKey})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	// A factory of its own: the scheduler's would wait for this informer before scheduling
	// anything, and the API may not be served.
	factory := informers.NewSharedInformerFactory(h.ClientSet(), 0)
	groups := factory.Scheduling().V1beta1().PodGroups()
	p := &Plugin{Adapter: gangplugin.NewAdapter(h, store, gangplugin.Options{Runtime: rt,
		Name: Name, Kind: gang.KindWorkloadPodGroup, PermitTimeout: args.PermitWaitingTime(), Backoff: args.Backoff(),
		GangEvent: Event, ToSpec: toSpec,
		NotServed: "the API server serves scheduling.k8s.io/v1beta1 only with --feature-gates=GenericWorkload=true --runtime-config=scheduling.k8s.io/v1beta1=true",
	})}
	status := newStatusWriter(h.ClientSet(), groups.Lister(), store, h.EventRecorder())
	p.SetStatusSink(status)
	if err := p.Start(ctx, factory, groups.Informer(), status.StatusQueue); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).Info("WorkloadPodGroup plugin ready", "permitTimeout", args.PermitWaitingTime(), "backoff", args.Backoff())
	return p, nil
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

func toSpec(obj any) (gang.Spec, bool) {
	if pg, ok := obj.(*schedulingv1beta1.PodGroup); ok {
		return gang.SpecFromWorkloadPodGroup(pg), true
	}
	return gang.Spec{}, false
}
