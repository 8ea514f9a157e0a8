// Package gangplugin adapts the scheduling framework's hooks to the gang rules of pkg/gang.
// The PodGang and PodGroup plugins each embed an Adapter for their kind of gang; both share
// one gang.Store per scheduler profile, so that one queue order and one engine serve every
// gang of the profile.
package gangplugin

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// EventMembers is how many members and nodes a gang's Scheduled event names (an event note
// holds 1 KiB; the rest are counted).
const EventMembers = 16

// StatusSink is told when a gang may need its status or events written.
type StatusSink interface {
	// Enqueue asks for the gang's status to be brought up to date.
	Enqueue(k gang.Key)
	// Established reports that the gang's quorum just bound.
	Established(k gang.Key)
	// Preempted reports that members of the gang were preempted (note names the preemptor);
	// the sink records one event on the gang and brings its status up to date.
	Preempted(k gang.Key, note string)
}

// Options configure an Adapter.
type Options struct {
	// Name is the plugin name (used to allow and reject waiting pods).
	Name string
	// Kind is the kind of gang the adapter serves; pods of other gangs are skipped.
	Kind gang.Kind
	// PermitTimeout is how long members wait in Permit for their quorum unless the gang sets
	// its own.
	PermitTimeout time.Duration
	// Backoff is how long a released gang waits before it is tried again.
	Backoff time.Duration
	// GangEvent is the framework event resource of the gang objects ("<plural>.<version>.<group>").
	GangEvent fwk.EventResource
	// ToSpec reads a gang object (typed or unstructured) into a gang spec.
	ToSpec func(obj any) (gang.Spec, bool)
	// NotServed says what serves the gang kind, for the log line when the API server does not
	// ("its CRD is not installed" when empty).
	NotServed string
	// Runtime is the scheduler's share of the gang plugins (sinks, planner, leadership); nil in
	// narrow unit tests: no planner, no other kind's sink, status written at once.
	Runtime *Runtime
}

// Adapter implements the gang hooks for one kind of gang.
type Adapter struct {
	opts   Options
	handle fwk.Handle
	store  *gang.Store
	status StatusSink

	timersMu sync.Mutex
	timers   map[gang.Key]*time.Timer
	// holdBlocked are the pods a reservation of the key's gang kept off nodes, woken by
	// holdTimers when it ends.
	holdBlocked map[gang.Key]map[string]*v1.Pod
	holdTimers  map[gang.Key]*time.Timer
	// extraTimers wake, per holder, the extras it turned away when its hold runs out
	// (extrahold.go).
	extraTimers map[gang.Key]*time.Timer
	// sharedOnce reads once whether the profile runs GangDynamicResources (shared).
	sharedOnce sync.Once
	shared     bool
	// pdbs are the PodDisruptionBudgets preemption honours (set by Start; nil in unit tests).
	pdbs policylisters.PodDisruptionBudgetLister
	// admission is the profile's member admission (set by Start; nil in unit tests): when the
	// profile runs GangGate, this plugin's PreEnqueue leaves admission to it.
	admission *Gate
}

// NewAdapter returns an adapter on the profile's shared store. status may be set later with
// SetStatusSink (it usually needs the store).
func NewAdapter(h fwk.Handle, store *gang.Store, o Options) *Adapter {
	return &Adapter{opts: o, handle: h, store: store, timers: map[gang.Key]*time.Timer{},
		holdBlocked: map[gang.Key]map[string]*v1.Pod{}, holdTimers: map[gang.Key]*time.Timer{},
		extraTimers: map[gang.Key]*time.Timer{}}
}

// stateKey is where PreFilter leaves what PostFilter and Score need; one per plugin, since
// both gang plugins of a profile see every pod.
func (p *Adapter) stateKey() fwk.StateKey { return fwk.StateKey(p.opts.Name) }

// SetStatusSink sets where status work of the adapter's kind goes, for this adapter and for
// the profile's other gang plugins (see sinkFor).
func (p *Adapter) SetStatusSink(s StatusSink) {
	p.status = s
	if p.opts.Runtime != nil {
		p.opts.Runtime.registerSink(p.handle, p.opts.Kind, s)
	}
}

// sinkFor is the status sink of gangs of kind k: this adapter's for its own kind, else the
// one the profile's plugin of that kind registered (nil when none serves it).
func (p *Adapter) sinkFor(k gang.Kind) StatusSink {
	if k == p.opts.Kind {
		return p.status
	}
	if p.opts.Runtime == nil {
		return nil
	}
	return p.opts.Runtime.sinkOf(p.handle, k)
}

// Name returns the plugin name.
func (p *Adapter) Name() string { return p.opts.Name }

// Store returns the shared gang store.
func (p *Adapter) Store() *gang.Store { return p.store }

// ours reports whether the pod is for this scheduler profile; pods of other schedulers are
// left alone, their gangs too.
func (p *Adapter) ours(pod *v1.Pod) bool {
	return p.handle == nil || pod.Spec.SchedulerName == p.handle.ProfileName()
}

// keyOf returns the pod's gang when it is of this adapter's kind.
func (p *Adapter) keyOf(pod *v1.Pod) (gang.Key, bool) {
	k, ok := p.store.Membership().KeyOf(pod)
	return k, ok && k.Kind == p.opts.Kind
}
