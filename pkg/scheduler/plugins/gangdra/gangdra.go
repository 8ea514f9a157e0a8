// Package gangdra is kube-scheduler's DynamicResources plugin for gang members: the members of
// one gang that use the same ResourceClaim (Grove's resourceSharing: one claim for a podgroup
// or a scaling-group replica) share its allocation while it is in flight.
//
// The DynamicResources plugin refuses a pod whose claim has an allocation in flight for another
// pod ("is in the process of being allocated"), except inside one pod-group cycle, where later
// pods take the allocation the first pod's Reserve made. A gang's members are placed in cycles
// of their own and wait in Permit for each other before any of them writes the allocation, so
// every member after the first would be refused for ever. This plugin gives each gang a group
// cycle of its own and puts a member into it only for the duration of the DynamicResources
// plugin's PreFilter, Reserve and Unreserve: the scheduler core reads the same field to tell a
// pod-group cycle of its own (it would assume the pod into the snapshot instead of the cache
// and skip PostFilter), so the field is never left set outside those calls.
package gangdra

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// Name is the plugin's name; a profile enables it in place of DynamicResources.
const Name = "GangDynamicResources"

// Plugin is the DynamicResources plugin with a group cycle per gang; every extension point
// but PreFilter, Reserve and Unreserve is the embedded plugin's own.
type Plugin struct {
	*dynamicresources.DynamicResources
	groups groups
}

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.PreFilterPlugin   = &Plugin{}
	_ fwk.FilterPlugin      = &Plugin{}
	_ fwk.PostFilterPlugin  = &Plugin{}
	_ fwk.ScorePlugin       = &Plugin{}
	_ fwk.ReservePlugin     = &Plugin{}
	_ fwk.PreBindPlugin     = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
	_ fwk.SignPlugin        = &Plugin{}
)

// New builds kube-scheduler's DynamicResources plugin (with the scheduler's feature gates) from
// args: DynamicResourcesArgs, or nil for their defaults.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args, err := Args(obj)
	if err != nil {
		return nil, err
	}
	factory, ok := frameworkplugins.NewInTreeRegistry()[names.DynamicResources]
	if !ok {
		return nil, fmt.Errorf("%s: kube-scheduler has no %s plugin", Name, names.DynamicResources)
	}
	pl, err := factory(ctx, args, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	dra, ok := pl.(*dynamicresources.DynamicResources)
	if !ok {
		return nil, fmt.Errorf("%s: %s is a %T", Name, names.DynamicResources, pl)
	}
	return &Plugin{DynamicResources: dra}, nil
}

// Args reads the plugin's args: DynamicResourcesArgs (pluginConfig name GangDynamicResources,
// kind DynamicResourcesArgs), or their defaults when none are given.
func Args(obj runtime.Object) (*config.DynamicResourcesArgs, error) {
	switch a := obj.(type) {
	case *config.DynamicResourcesArgs:
		return a, nil
	case nil:
		v1args := &configv1.DynamicResourcesArgs{}
		scheme.Scheme.Default(v1args)
		out := &config.DynamicResourcesArgs{}
		if err := scheme.Scheme.Convert(v1args, out, nil); err != nil {
			return nil, fmt.Errorf("%s: defaulting its args: %w", Name, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: args of type %T, want DynamicResourcesArgs (pluginConfig %q, kind DynamicResourcesArgs)", Name, obj, Name)
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return Name }

// PreFilter is DynamicResources' PreFilter inside the member's gang's group cycle: a claim whose
// allocation another member's Reserve made is taken as allocated there.
func (p *Plugin) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	defer p.enter(state, pod)()
	return p.DynamicResources.PreFilter(ctx, state, pod, nodes)
}

// Reserve is DynamicResources' Reserve inside the group cycle: an allocation made for the
// member is recorded there for the gang's later members.
func (p *Plugin) Reserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	defer p.enter(state, pod)()
	return p.DynamicResources.Reserve(ctx, state, pod, node)
}

// Unreserve is DynamicResources' Unreserve inside the group cycle: a withdrawn allocation
// leaves it too. It may run in the member's binding cycle, beside another member's
// scheduling cycle: the group cycle is entered under its lock.
func (p *Plugin) Unreserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) {
	defer p.enter(state, pod)()
	p.DynamicResources.Unreserve(ctx, state, pod, node)
}

// enter puts the member into its gang's group cycle, under the group's lock, and returns what
// takes it out. A pod with no claim, of no gang, or already in a pod-group cycle of the
// scheduler's own is left as it is.
func (p *Plugin) enter(state fwk.CycleState, pod *v1.Pod) (leave func()) {
	cs, ok := state.(*framework.CycleState)
	if !ok || len(pod.Spec.ResourceClaims) == 0 || cs.GetPodGroupSchedulingCycle() != nil {
		return func() {}
	}
	k, ok := gang.DefaultMembership().KeyOf(pod)
	if !ok {
		return func() {}
	}
	g := p.groups.of(k, time.Now())
	g.mu.Lock()
	cs.SetPodGroupSchedulingCycle(g)
	return func() {
		cs.SetPodGroupSchedulingCycle(nil)
		g.mu.Unlock()
	}
}

// groupCycle is one gang's pod-group cycle state. The DynamicResources plugin keeps there the
// allocations in flight that the gang's members share.
type groupCycle struct {
	mu   sync.Mutex
	data map[fwk.StateKey]fwk.StateData
	used time.Time // last entered (groups.of)
}

var _ fwk.PodGroupCycleState = &groupCycle{}

// NewGroupCycle is an empty pod-group cycle state, for a framework whose cycles the scheduler
// core never reads (the gang planner's pass).
func NewGroupCycle() fwk.PodGroupCycleState { return newGroupCycle() }

func newGroupCycle() *groupCycle { return &groupCycle{data: map[fwk.StateKey]fwk.StateData{}} }

func (g *groupCycle) ShouldRecordPluginMetrics() bool { return false }

func (g *groupCycle) Read(key fwk.StateKey) (fwk.StateData, error) {
	if d, ok := g.data[key]; ok {
		return d, nil
	}
	return nil, fwk.ErrNotFound
}

func (g *groupCycle) Write(key fwk.StateKey, val fwk.StateData) { g.data[key] = val }

func (g *groupCycle) Delete(key fwk.StateKey) { delete(g.data, key) }

func (g *groupCycle) GetParentPlacementCycleState() fwk.PlacementCycleState { return nil }

// idleAfter is how long a gang's group cycle is kept unused: longer than any allocation stays
// in flight (a member waits in Permit for at most its gang's timeout, and binds within
// DynamicResources' binding timeout).
const idleAfter = 30 * time.Minute

// groups are the gangs' group cycles, made when a gang's first member with claims is tried and
// dropped once unused for idleAfter (swept at most once a minute).
type groups struct {
	mu    sync.Mutex
	m     map[gang.Key]*groupCycle
	swept time.Time
}

func (gs *groups) of(k gang.Key, now time.Time) *groupCycle {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.m == nil {
		gs.m = map[gang.Key]*groupCycle{}
	}
	if now.Sub(gs.swept) > time.Minute {
		gs.swept = now
		for key, g := range gs.m {
			if now.Sub(g.used) > idleAfter {
				delete(gs.m, key)
			}
		}
		if len(gs.m) > 0 {
			klog.V(5).InfoS("Gang DRA group cycles", "gangs", len(gs.m))
		}
	}
	g := gs.m[k]
	if g == nil {
		g = newGroupCycle()
		gs.m[k] = g
	}
	g.used = now
	return g
}
