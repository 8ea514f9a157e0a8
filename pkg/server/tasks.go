package server

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"
	schedulerserverconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"

	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// ControllerTask runs the PodCliqueSet controller with the scheduler's credentials.
// configure, when not nil, may set test hooks on the controller before it starts.
func ControllerTask(cc *schedulerserverconfig.CompletedConfig, workers int, configure func(*controller.Controller)) (LeaderTask, error) {
	client, err := versioned.NewForConfig(gangplugin.JSONConfig(cc.KubeConfig))
	if err != nil {
		return nil, fmt.Errorf("creating the Phalanx client: %w", err)
	}
	return func(ctx context.Context) {
		recorder, stop := controller.NewRecorder(cc.Client)
		defer stop()
		c := controller.New(cc.Client, client, recorder)
		if configure != nil {
			configure(c)
		}
		if err := c.Run(ctx, workers); err != nil {
			klog.FromContext(ctx).Error(err, "PodCliqueSet controller stopped")
		}
	}, nil
}
