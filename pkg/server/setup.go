package server

import (
	"context"
	"fmt"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	schedulerserverconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	kubeschedulerconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangcycle"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/memberevents"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/resort"
)

// SetupOptions are Phalanx's additions to kube-scheduler's set-up.
type SetupOptions struct {
	// Runtime is what the scheduler's gang plugins share (gangplugin.Runtime); required, and
	// the same one given to phalanxscheduler.RegistryOptions, Run and ControllerTask.
	Runtime *gangplugin.Runtime
	// MemberScheduledEvents keeps kube-scheduler's per-pod Scheduled event for gang members
	// placed with their quorum. Off, the gang's own Scheduled event names them and their nodes,
	// and each such member costs one API write (its bind) instead of two (memberevents).
	MemberScheduledEvents bool
	// MemberCycles places every gang member in a scheduling cycle of its own, as kube-scheduler
	// does, instead of binding the members a gang's pass placed from the pass's cycle
	// (pkg/scheduler/gangcycle).
	MemberCycles bool
	// PlainPodSearch leaves every pod of no gang to kube-scheduler's own search in its cycle,
	// instead of placing it with the profile's planner and its kept Filter verdicts
	// (gangplugin.Runtime.PlanPlainPods).
	PlainPodSearch bool
}

// Setup is kube-scheduler's app.Setup (the same steps, in the same order) with two changes:
// the profiles' event recorders come from a memberevents.Broadcaster (which leaves out
// members' Scheduled events unless so.MemberScheduledEvents, and writes KAI's Unschedulable
// for profiles that ask) (app.Setup builds the recorders inside scheduler.New, from the
// broadcaster it made a line before, so the wrap cannot be added after it); and the pod
// informer's handlers see a pod recreated under its name as a delete and an add
// (splitRecreatedPods).
func Setup(ctx context.Context, opts *options.Options, so SetupOptions, outOfTree ...app.Option) (*schedulerserverconfig.CompletedConfig, *scheduler.Scheduler, error) {
	if so.Runtime == nil {
		return nil, nil, fmt.Errorf("setting up phalanx-scheduler: SetupOptions.Runtime is required")
	}
	cfg, err := latest.Default()
	if err != nil {
		return nil, nil, err
	}
	opts.ComponentConfig = cfg
	if errs := opts.Validate(); len(errs) > 0 {
		return nil, nil, utilerrors.NewAggregate(errs)
	}
	c, err := opts.Config(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Before scheduler.New builds its informers: an informer of an API the server lacks
	// would never sync, and the scheduler would wait for it without scheduling anything.
	if _, err := AdaptToServer(ctx, c.Client.Discovery(), utilfeature.DefaultMutableFeatureGate, 30*time.Second); err != nil {
		return nil, nil, err
	}
	c.EventBroadcaster = &memberevents.Broadcaster{EventBroadcasterAdapter: c.EventBroadcaster,
		StoreOf: so.Runtime.StoreForProfile, KAIEvents: so.Runtime.KAIEventsForProfile,
		KeepMemberScheduled: so.MemberScheduledEvents}
	cc := c.Complete()
	registry := make(runtime.Registry)
	for _, option := range outOfTree {
		if err := option(registry); err != nil {
			return nil, nil, fmt.Errorf("registering the Phalanx plugins: %w", err)
		}
	}
	recorders := func(name string) events.EventRecorderLogger { return cc.EventBroadcaster.NewRecorder(name) }
	var completed []kubeschedulerconfig.KubeSchedulerProfile
	sched, err := scheduler.New(ctx,
		cc.Client,
		splitRecreatedPods(cc.InformerFactory),
		cc.DynInformerFactory,
		recorders,
		scheduler.WithComponentConfigVersion(cc.ComponentConfig.TypeMeta.APIVersion),
		scheduler.WithKubeConfig(cc.KubeConfig),
		scheduler.WithProfiles(cc.ComponentConfig.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cc.ComponentConfig.PercentageOfNodesToScore),
		scheduler.WithFrameworkOutOfTreeRegistry(registry),
		scheduler.WithPodMaxBackoffSeconds(cc.ComponentConfig.PodMaxBackoffSeconds),
		scheduler.WithPodInitialBackoffSeconds(cc.ComponentConfig.PodInitialBackoffSeconds),
		scheduler.WithPodMaxInUnschedulablePodsDuration(cc.PodMaxInUnschedulablePodsDuration),
		scheduler.WithExtenders(cc.ComponentConfig.Extenders...),
		scheduler.WithParallelism(cc.ComponentConfig.Parallelism),
		scheduler.WithBuildFrameworkCapturer(func(p kubeschedulerconfig.KubeSchedulerProfile) { completed = append(completed, p) }),
	)
	if err != nil {
		return nil, nil, err
	}
	// Queued gang members whose class changes (a lost member makes an extra needed) are
	// re-sorted in the scheduler's queue (pkg/scheduler/resort).
	so.Runtime.SetResorter(resort.New(ctx, sched))
	// The planner calls no scheduler extender: with extenders configured, a pod of no gang
	// keeps the cycle's own search, which asks them of every node it finds.
	plans := !so.PlainPodSearch && len(cc.ComponentConfig.Extenders) == 0
	if !so.PlainPodSearch && len(cc.ComponentConfig.Extenders) > 0 {
		klog.FromContext(ctx).Info("Pods of no gang are searched by kube-scheduler's own cycle: scheduler extenders are configured", "extenders", len(cc.ComponentConfig.Extenders))
	}
	so.Runtime.PlanPlainPods(plans)
	switch why := gangcycle.Usable(sched); {
	case so.MemberCycles:
		klog.FromContext(ctx).Info("Gang members are placed in cycles of their own (--member-cycles)")
	case why != "":
		klog.FromContext(ctx).Info("Gang members are placed in cycles of their own", "reason", why)
	default:
		so.Runtime.SetBinder(gangcycle.New(ctx, sched))
	}
	if err := options.LogOrWriteConfig(klog.FromContext(ctx), opts.WriteConfigTo, &cc.ComponentConfig, completed); err != nil {
		return nil, nil, err
	}
	return &cc, sched, nil
}
