package gangplugin

import (
	"context"
	"fmt"
	"time"

	"github.com/phalanx-sched/phalanx/pkg/served"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// KindRecheck is how often a plugin whose gang kind the API server does not serve checks
// discovery again (tests shorten it).
var KindRecheck = 30 * time.Second

// startWhenServed starts the gang informers and waits for their caches when the API server
// serves the gang kind. When it does not (the CRD is not installed, the API is off), it says so once and
// returns at once: members of the kind wait in PreEnqueue, and a goroutine checks discovery
// every KindRecheck and starts the informers when the kind appears, after which onGang wakes
// the members of each gang it records. (No framework event of the kind is registered, see
// EventsToRegister: the framework would wait for its informer before scheduling anything.)
func (p *Adapter) startWhenServed(ctx context.Context, factory InformerFactory) error {
	logger := klog.FromContext(ctx).WithValues("plugin", p.opts.Name)
	gvr, _ := schema.ParseResourceArg(string(p.opts.GangEvent))
	if gvr == nil {
		return fmt.Errorf("%s: gang event %q is not <plural>.<version>.<group>", p.opts.Name, p.opts.GangEvent)
	}
	served, err := p.served(*gvr)
	if err != nil {
		logger.Info("Could not ask the API server whether it serves the gang kind; assuming it does", "resource", gvr.String(), "err", err)
		served = true
	}
	if served {
		return p.startInformers(ctx, factory)
	}
	why := p.opts.NotServed
	if why == "" {
		why = "its CRD is not installed"
	}
	logger.Info("The API server does not serve this gang kind; its pods wait until it does", "resource", gvr.String(), "why", why, "recheck", KindRecheck)
	go func() {
		_ = wait.PollUntilContextCancel(ctx, KindRecheck, false, func(ctx context.Context) (bool, error) {
			ok, err := p.served(*gvr)
			if err != nil || !ok {
				logger.V(4).Info("Gang kind still not served", "resource", gvr.String(), "err", err)
				return false, nil
			}
			logger.Info("The API server serves the gang kind now; starting its informer", "resource", gvr.String())
			if err := p.startInformers(ctx, factory); err != nil {
				logger.Error(err, "Starting the gang informer")
			}
			return true, nil
		})
	}()
	return nil
}

// served reports whether the API server serves gvr (served.Resource).
func (p *Adapter) served(gvr schema.GroupVersionResource) (bool, error) {
	return served.Resource(p.handle.ClientSet().Discovery(), gvr)
}

func (p *Adapter) startInformers(ctx context.Context, factory InformerFactory) error {
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("%s: informer for %v did not sync", p.opts.Name, typ)
		}
	}
	return nil
}
