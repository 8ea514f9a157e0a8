// Package server runs phalanx-scheduler: the kube-scheduler built by app.Setup and, under the
// same leader lease, the tasks that must run only on the leader (the PodCliqueSet
// controller). It is kube-scheduler's app.Run with one change: OnStartedLeading starts the
// leader tasks beside the scheduling loop, so one lease elects one leader for both roles and
// a follower neither schedules nor reconciles.
package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	goruntime "runtime"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	schedulerserverconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/pkg/scheduler"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangplan"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// LeaderTask runs while this process leads, until ctx ends.
type LeaderTask func(ctx context.Context)

// ErrLostLease is returned when leadership is lost while the process should go on: the
// caller must exit, as kube-scheduler does, so that nothing keeps acting without the lease.
var ErrLostLease = errors.New("leader lease lost")

// Run serves health and metrics, starts the informers, and runs the scheduler and the leader
// tasks while this process holds the lease (at once when leader election is off); rt (the
// scheduler's gang plugins' share) learns when it leads, and only then do their status writers
// write. It returns when ctx ends (nil) or the lease is lost (ErrLostLease).
func Run(ctx context.Context, cc *schedulerserverconfig.CompletedConfig, sched *scheduler.Scheduler, rt *gangplugin.Runtime, tasks ...LeaderTask) error {
	logger := klog.FromContext(ctx)
	cc.EventBroadcaster.StartRecordingToSink(ctx.Done())
	defer cc.EventBroadcaster.Shutdown()

	leading := make(chan struct{})
	isLeader := func() bool {
		select {
		case <-leading:
			return true
		default:
			return false
		}
	}
	handlersSynced := make(chan struct{})
	var checks []healthz.HealthChecker
	readyz := []healthz.HealthChecker{healthz.NewShutdownHealthz(ctx.Done()), healthz.NamedCheck("sched-handler-sync", func(*http.Request) error {
		select {
		case <-handlersSynced:
			return nil
		default:
			return fmt.Errorf("handlers are not fully synchronized")
		}
	})}
	if cc.LeaderElection != nil {
		checks = append(checks, cc.LeaderElection.WatchDog)
		readyz = append(readyz, cc.LeaderElection.WatchDog)
	}
	if cc.SecureServing != nil {
		m := mux.NewPathRecorderMux("phalanx-scheduler")
		healthz.InstallHandler(m, checks...)
		healthz.InstallLivezHandler(m)
		healthz.InstallReadyzHandler(m, readyz...)
		m.Handle("/metrics", legacyregistry.HandlerWithReset())
		m.HandleFunc("/leader", func(w http.ResponseWriter, _ *http.Request) { _, _ = fmt.Fprintln(w, isLeader()) })
		if cc.ComponentConfig.EnableProfiling {
			// As kube-scheduler: /debug/pprof (and contention profiles when asked).
			routes.Profiling{}.Install(m)
			if cc.ComponentConfig.EnableContentionProfiling {
				goruntime.SetBlockProfileRate(1)
			}
		}
		stop := make(chan struct{})
		stopped, listenerStopped, err := cc.SecureServing.Serve(chain(m, cc.Authentication.Authenticator, cc.Authorization.Authorizer), 5*time.Second, stop)
		if err != nil {
			close(stop)
			return fmt.Errorf("serving health and metrics: %w", err)
		}
		defer func() {
			close(stop)
			<-listenerStopped
			<-stopped
		}()
	}

	// Before the informers start: the planners' plugins register theirs on the same factory.
	if err := gangplan.Install(ctx, cc, sched, rt); err != nil {
		return err
	}
	cc.InformerFactory.Start(ctx.Done())
	if cc.DynInformerFactory != nil {
		cc.DynInformerFactory.Start(ctx.Done())
	}
	cc.InformerFactory.WaitForCacheSync(ctx.Done())
	if cc.DynInformerFactory != nil {
		cc.DynInformerFactory.WaitForCacheSync(ctx.Done())
	}
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		logger.Error(err, "Handlers are not fully synchronized")
	}
	close(handlersSynced)

	lead := func(ctx context.Context) {
		close(leading)
		rt.MarkLeading()
		logger.Info("Leading: scheduling and reconciling")
		for _, t := range tasks {
			go func() {
				defer utilruntime.HandleCrash()
				t(ctx)
			}()
		}
		sched.Run(ctx)
	}
	if cc.LeaderElection == nil {
		lead(ctx)
		return nil
	}
	lost := make(chan struct{})
	cc.LeaderElection.ReleaseOnCancel = true
	cc.LeaderElection.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: lead,
		OnStoppedLeading: func() {
			if ctx.Err() == nil {
				close(lost)
			}
		},
	}
	elector, err := leaderelection.NewLeaderElector(*cc.LeaderElection)
	if err != nil {
		return fmt.Errorf("creating the leader elector: %w", err)
	}
	elector.Run(ctx)
	select {
	case <-lost:
		return ErrLostLease
	default:
		return nil
	}
}

// chain wraps the endpoints with kube-scheduler's filters: authentication and authorization
// delegated to the API server, request info, panic recovery.
func chain(h http.Handler, authn authenticator.Request, authz authorizer.Authorizer) http.Handler {
	info := &apirequest.RequestInfoFactory{}
	h = genericapifilters.WithAuthorization(h, authz, scheme.Codecs)
	h = genericapifilters.WithAuthentication(h, authn, genericapifilters.Unauthorized(scheme.Codecs), nil, nil)
	h = genericapifilters.WithRequestInfo(h, info)
	h = genericapifilters.WithCacheControl(h)
	h = genericfilters.WithHTTPLogging(h)
	return genericfilters.WithPanicRecovery(h, info)
}
