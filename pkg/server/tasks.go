package server

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"
	schedulerserverconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/pkg/scheduler"

	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	phalanxscheduler "github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/surgeadmission"
)

// ControllerTask runs the PodCliqueSet controller with the scheduler's credentials, with surge
// admission answered by the scheduler's own Filter plugins on its cache (profile
// phalanx-scheduler, or the first profile when the configuration has no such name).
// configure, when not nil, may set test hooks on the controller before it starts.
func ControllerTask(cc *schedulerserverconfig.CompletedConfig, sched *scheduler.Scheduler, workers int, configure func(*controller.Controller)) (LeaderTask, error) {
	client, err := versioned.NewForConfig(gangplugin.JSONConfig(cc.KubeConfig))
	if err != nil {
		return nil, fmt.Errorf("creating the Phalanx client: %w", err)
	}
	return func(ctx context.Context) {
		recorder, stop := controller.NewRecorder(cc.Client)
		defer stop()
		c := controller.New(cc.Client, client, recorder)
		profile := phalanxscheduler.SchedulerName
		if _, ok := sched.Profiles[profile]; !ok && len(cc.ComponentConfig.Profiles) > 0 {
			profile = cc.ComponentConfig.Profiles[0].SchedulerName
		}
		admitter, err := surgeadmission.NewFrameworkAdmitter(ctx, cc, sched, profile)
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
