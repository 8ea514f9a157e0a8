package gangplugin

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

var (
	storesMu sync.Mutex
	stores   = map[fwk.Handle]*gang.Store{}
	// sinks are the status sinks of each gang kind of a profile: preemption tells the victim
	// gang's own writer, whichever plugin preempted (a PodGang member may preempt a PodGroup).
	sinks = map[fwk.Handle]map[gang.Kind]StatusSink{}
)

// SharedStore returns the gang store of a scheduler profile (one per framework handle), made
// with m the first time. A later caller with a different surge label gets an error: both
// plugins of a profile must read membership the same way. When ctx (the scheduler's) ends,
// the store leaves the registry and the metrics collector, so that a scheduler started again
// in the same process (tests, a restart in place) reports only its own gangs.
func SharedStore(ctx context.Context, h fwk.Handle, m gang.Membership) (*gang.Store, error) {
	storesMu.Lock()
	defer storesMu.Unlock()
	if s := stores[h]; s != nil {
		if s.Membership() != m {
			return nil, fmt.Errorf("surge label %q differs from %q of the other gang plugin of this profile", m.SurgeLabel, s.Membership().SurgeLabel)
		}
		return s, nil
	}
	s := gang.NewStore(m, time.Now)
	stores[h] = s
	metrics.Register()
	metrics.AddGangState(s)
	context.AfterFunc(ctx, func() {
		storesMu.Lock()
		if stores[h] == s {
			delete(stores, h)
			delete(sinks, h)
		}
		storesMu.Unlock()
		metrics.RemoveGangState(s)
	})
	return s, nil
}

// StoreOf returns the gang store of a scheduler profile, nil when no gang plugin made one.
func StoreOf(h fwk.Handle) *gang.Store {
	storesMu.Lock()
	defer storesMu.Unlock()
	return stores[h]
}

// JSONConfig copies a client config for custom resources: the scheduler's own config asks
// for protobuf, which custom resources do not speak.
func JSONConfig(c *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(c)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	return cfg
}

// StoreForProfile returns the gang store of the running profile named profile (its
// schedulerName), nil when it has none.
func StoreForProfile(profile string) *gang.Store {
	storesMu.Lock()
	defer storesMu.Unlock()
	for h, s := range stores {
		if h.ProfileName() == profile {
			return s
		}
	}
	return nil
}

// registerSink records the status sink of a gang kind of a profile.
func registerSink(h fwk.Handle, kind gang.Kind, s StatusSink) {
	storesMu.Lock()
	defer storesMu.Unlock()
	if sinks[h] == nil {
		sinks[h] = map[gang.Kind]StatusSink{}
	}
	sinks[h][kind] = s
}

// sinkOf returns the status sink of a gang kind of a profile, nil when no plugin serves it.
func sinkOf(h fwk.Handle, kind gang.Kind) StatusSink {
	storesMu.Lock()
	defer storesMu.Unlock()
	return sinks[h][kind]
}
