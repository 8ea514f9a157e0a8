package gangplugin

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// Runtime is what the gang plugins of one scheduler share: per profile (framework handle) the
// gang store, the status sinks of each gang kind and the gang planner, and the scheduler's
// leadership. One scheduler has one Runtime, made by whoever builds the scheduler and handed to
// its plugin factories (phalanxscheduler.RegistryOptions), its planners and its leader loop:
// two schedulers in one process (tests, a restart in place) or two profiles of one scheduler
// share nothing, and a scheduler that does not lead writes no status though another in the
// same process does.
type Runtime struct {
	mu       sync.Mutex
	profiles map[fwk.Handle]*profile

	leadOnce sync.Once
	elected  chan struct{}

	// binder assumes and binds planned gang members from their pass's cycle (nil: none).
	binder Binder
	// gangClient, when set, is the client of the gang kinds (PodGangs, PodGroups) instead of
	// one made from each profile's kubeconfig.
	gangClient versioned.Interface
	// resorter re-sorts queued pods whose class changed (nil: none).
	resorter Resorter
	// gates are the member admissions of the profiles (GateOf).
	gates map[fwk.Handle]*Gate
	// plainSearch: pods of no gang get kube-scheduler's own search, not a plan
	// (PlanPlainPods(false)).
	plainSearch atomic.Bool
}

// profile is one scheduler profile's share of the Runtime.
type profile struct {
	store *gang.Store
	// sinks are the status sinks of each gang kind: preemption tells the victim gang's own
	// writer, whichever plugin preempted (a PodGang member may preempt a PodGroup).
	sinks   map[gang.Kind]StatusSink
	planner Planner
	// kaiEvents: the profile's pods are told they do not fit in KAI's words
	// (PodGangArgs.KAIEventProfiles).
	kaiEvents bool
	// queueOrder is told of the gangs the feed changed (QueueOrder).
	queueOrder QueueOrder
}

// NewRuntime returns the Runtime of one scheduler.
func NewRuntime() *Runtime {
	return &Runtime{profiles: map[fwk.Handle]*profile{}, gates: map[fwk.Handle]*Gate{}, elected: make(chan struct{})}
}

// Elected is closed once the scheduler leads (MarkLeading).
func (r *Runtime) Elected() <-chan struct{} { return r.elected }

// MarkLeading records that the scheduler leads: its status writers start. Safe to call more
// than once.
func (r *Runtime) MarkLeading() { r.leadOnce.Do(func() { close(r.elected) }) }

// Leading reports whether MarkLeading was called.
func (r *Runtime) Leading() bool {
	select {
	case <-r.elected:
		return true
	default:
		return false
	}
}

// SharedStore returns the gang store of a scheduler profile (one per framework handle), made
// with m the first time. A later caller with a different surge label gets an error: the gang
// plugins of a profile must read membership the same way. When ctx (the scheduler's) ends,
// the store leaves the Runtime and the metrics collector, so that a scheduler started again
// in the same process reports only its own gangs.
func (r *Runtime) SharedStore(ctx context.Context, h fwk.Handle, m gang.Membership) (*gang.Store, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.profiles[h]; p != nil {
		if p.store.Membership() != m {
			return nil, fmt.Errorf("surge label %q differs from %q of the other gang plugin of this profile", m.SurgeLabel, p.store.Membership().SurgeLabel)
		}
		return p.store, nil
	}
	s := gang.NewStore(m, time.Now)
	if dra := h.SharedDRAManager(); dra != nil {
		// Bound members count their claims' devices, so that their gangs' holds keep them.
		s.SetDeviceCounter(func(pod *v1.Pod) int64 { return gang.DevicesAllocated(dra.ResourceClaims().Get, pod) })
	}
	r.profiles[h] = &profile{store: s, sinks: map[gang.Kind]StatusSink{}}
	metrics.Register()
	metrics.AddGangState(s)
	context.AfterFunc(ctx, func() {
		r.mu.Lock()
		if p := r.profiles[h]; p != nil && p.store == s {
			delete(r.profiles, h)
		}
		r.mu.Unlock()
		metrics.RemoveGangState(s)
	})
	return s, nil
}

// StoreOf returns the gang store of a scheduler profile, nil when no gang plugin made one.
func (r *Runtime) StoreOf(h fwk.Handle) *gang.Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.profiles[h]; p != nil {
		return p.store
	}
	return nil
}

// StoreForProfile returns the gang store of the running profile named name (its
// schedulerName), nil when it has none.
func (r *Runtime) StoreForProfile(name string) *gang.Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.profileNamed(name); p != nil {
		return p.store
	}
	return nil
}

// profileNamed returns the running profile whose schedulerName is name, nil when none; r.mu
// is held.
func (r *Runtime) profileNamed(name string) *profile {
	for h, p := range r.profiles {
		if h.ProfileName() == name {
			return p
		}
	}
	return nil
}

// SetKAIEvents records that a profile's unschedulable pods get KAI's Unschedulable event in
// place of FailedScheduling (PodGangArgs.KAIEventProfiles); call after SharedStore.
func (r *Runtime) SetKAIEvents(h fwk.Handle) { r.onProfile(h, func(p *profile) { p.kaiEvents = true }) }

// onProfile runs f on the share of the Runtime of h's profile, under the Runtime's lock;
// nothing when the profile has none (no gang plugin made its store, or its scheduler ended).
func (r *Runtime) onProfile(h fwk.Handle, f func(*profile)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.profiles[h]; p != nil {
		f(p)
	}
}

// KAIEventsForProfile reports whether the running profile named name (its schedulerName)
// writes KAI's Unschedulable event (SetKAIEvents).
func (r *Runtime) KAIEventsForProfile(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.profileNamed(name)
	return p != nil && p.kaiEvents
}

// SetPlanner gives the gang plugins of a profile their planner (nil removes it). Until a
// profile has one, its gangs are placed member by member, each member's cycle on its own.
func (r *Runtime) SetPlanner(h fwk.Handle, pl Planner) {
	r.onProfile(h, func(p *profile) { p.planner = pl })
}

// PlannerOf returns the planner of a profile, nil when it has none (surge admission asks it
// too, so that a surge is judged by the same simulation and plugins as a gang).
func (r *Runtime) PlannerOf(h fwk.Handle) (pl Planner) {
	r.onProfile(h, func(p *profile) { pl = p.planner })
	return pl
}

// registerSink records the status sink of a gang kind of a profile.
func (r *Runtime) registerSink(h fwk.Handle, kind gang.Kind, s StatusSink) {
	r.onProfile(h, func(p *profile) { p.sinks[kind] = s })
}

// sinkOf returns the status sink of a gang kind of a profile, nil when no plugin serves it.
func (r *Runtime) sinkOf(h fwk.Handle, kind gang.Kind) (s StatusSink) {
	r.onProfile(h, func(p *profile) { s = p.sinks[kind] })
	return s
}

// SetGangClient makes the gang plugins read and write PodGangs and PodGroups through c
// instead of a client made from the scheduler's kubeconfig: for a scheduler built on a fake
// API (the gang-cycle benchmark). Call it before the scheduler is built.
func (r *Runtime) SetGangClient(c versioned.Interface) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gangClient = c
}

// GangClient is the client of the gang kinds for profile h: the one SetGangClient gave, or
// one made from h's kubeconfig (JSON: the gang kinds are CRDs).
func (r *Runtime) GangClient(h fwk.Handle) (versioned.Interface, error) {
	r.mu.Lock()
	c := r.gangClient
	r.mu.Unlock()
	if c != nil {
		return c, nil
	}
	return versioned.NewForConfig(JSONConfig(h.KubeConfig()))
}

// JSONConfig copies a client config for custom resources: the scheduler's own config asks
// for protobuf, which custom resources do not speak.
func JSONConfig(c *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(c)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	return cfg
}
