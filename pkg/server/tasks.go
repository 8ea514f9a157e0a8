package server

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	schedulerserverconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/pkg/scheduler"

	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	phalanxscheduler "github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/surgeadmission"
)

// ControllerOptions are the PodCliqueSet controller's flags.
type ControllerOptions struct {
	// Workers reconcile PodCliqueSets in parallel.
	Workers int
	// QPS and Burst bound the controller's own API client (its creates and deletes do not
	// take the scheduler's binds' tokens, nor the other way round).
	QPS   float32
	Burst int
}

// DefaultControllerOptions are the flags' defaults: 4 workers; 100 QPS with bursts of 200.
// Measured (TestPerfBringUp, 1,000 pods in gangs of 8 on 2 cores): at 50/100 the creates took
// 18 s and bounded the bring-up (27.7 s, the binds following the creates); at 100/200 they took
// 8.7 s and the binds bounded it (20.5 s).
func DefaultControllerOptions() ControllerOptions {
	return ControllerOptions{Workers: 4, QPS: 100, Burst: 200}
}

// ControllerTask runs the PodCliqueSet controller with the scheduler's credentials on a client
// of its own (o.QPS, o.Burst), with surge admission answered by the scheduler's own Filter
// plugins on its cache (profile phalanx-scheduler, or the first profile when the configuration
// has no such name). configure, when not nil, may set options and test hooks on the controller
// before it starts.
func ControllerTask(cc *schedulerserverconfig.CompletedConfig, sched *scheduler.Scheduler, rt *gangplugin.Runtime, o ControllerOptions, configure func(*controller.Controller)) (LeaderTask, error) {
	if o.Workers < 1 || o.QPS <= 0 || o.Burst < 1 {
		return nil, fmt.Errorf("controller options: workers %d, QPS %v, burst %d: each must be positive", o.Workers, o.QPS, o.Burst)
	}
	cfg := rest.CopyConfig(cc.KubeConfig)
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.UserAgent = rest.DefaultKubernetesUserAgent() + "/podcliqueset-controller"
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the controller's client: %w", err)
	}
	client, err := versioned.NewForConfig(gangplugin.JSONConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("creating the Phalanx client: %w", err)
	}
	workers := o.Workers
	return func(ctx context.Context) {
		recorder, stop := controller.NewRecorder(kube)
		defer stop()
		c := controller.New(kube, client, recorder)
		profile := phalanxscheduler.SchedulerName
		if _, ok := sched.Profiles[profile]; !ok && len(cc.ComponentConfig.Profiles) > 0 {
			profile = cc.ComponentConfig.Profiles[0].SchedulerName
		}
		admitter, err := surgeadmission.NewFrameworkAdmitter(ctx, cc, sched, rt, profile)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Surge admission is off: surge members are created without a capacity check")
		} else {
			c.SetSurgeAdmitter(admitter)
		}
		if configure != nil {
			configure(c)
		}
		if err := c.Run(ctx, workers); err != nil {
			klog.FromContext(ctx).Error(err, "PodCliqueSet controller stopped")
		}
	}, nil
}
