package gangplugin

import (
	"context"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// Gate is the admission at PreEnqueue of one profile's gang members (Store.Admissible: the gang
// object and its members are there, a surge or scaled gang's base is established), run by the
// GangGate plugin when the profile enables it and by each gang plugin's own PreEnqueue when not.
//
// Why a plugin of its own: kube-scheduler's queue re-evaluates a gated pod on every event its
// gating plugin registers. A gang plugin registers node, device and bound-pod events for its
// Filter's rejections, so while it gated, each node added (5,000 at a scheduler's start) walked
// every gated member through the plugin's hints (13% of the CPU of a 1000 x 3 start-up on 5,000
// nodes). GangGate registers only the events that can admit a member (a pod added or ungated,
// hintPod; the gang feed activates the rest), so the queue passes gated members by for any
// other event without calling a hint (`TestGatedMembersSkipNodeEvents`).
type Gate struct {
	// enabled: the profile runs GangGate, and the gang plugins' own PreEnqueue admits all.
	enabled atomic.Bool
	mu      sync.Mutex
	// gaters are the profile's gang plugins, copied on write (read without the lock at every
	// PreEnqueue and hint).
	gaters atomic.Pointer[[]*Adapter]
}

// GateOf returns the gate of profile h, made at its first call: by the GangGate plugin and
// by each gang plugin of the profile, in whichever order the framework builds them. It
// leaves the Runtime when ctx (the scheduler's) ends.
func (r *Runtime) GateOf(ctx context.Context, h fwk.Handle) *Gate {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g := r.gates[h]; g != nil {
		return g
	}
	g := &Gate{}
	g.gaters.Store(&[]*Adapter{})
	r.gates[h] = g
	context.AfterFunc(ctx, func() {
		r.mu.Lock()
		if r.gates[h] == g {
			delete(r.gates, h)
		}
		r.mu.Unlock()
	})
	return g
}

// Enable hands the profile's admission to the GangGate plugin.
func (g *Gate) Enable() { g.enabled.Store(true) }

// Enabled reports whether the GangGate plugin admits the profile's members.
func (g *Gate) Enabled() bool { return g.enabled.Load() }

// AttachGate makes the adapter one of its profile's gaters (Gate); Start calls it. Nothing
// without a Runtime.
func (p *Adapter) AttachGate(ctx context.Context) {
	if p.opts.Runtime == nil || p.admission != nil {
		return
	}
	p.admission = p.opts.Runtime.GateOf(ctx, p.handle)
	p.admission.add(p)
}

// add registers a gang plugin of the profile.
func (g *Gate) add(a *Adapter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	next := append(append([]*Adapter{}, *g.gaters.Load()...), a)
	g.gaters.Store(&next)
}

// gaterOf is the profile's gang plugin of the kind of pod's gang; nil for a pod of no gang or
// of a kind no plugin of the profile serves. The plugins of a profile share one store, whose
// membership names the kind.
func (g *Gate) gaterOf(pod *v1.Pod) *Adapter {
	gaters := *g.gaters.Load()
	if len(gaters) == 0 {
		return nil
	}
	k, ok := gaters[0].store.Membership().KeyOf(pod)
	if !ok {
		return nil
	}
	for _, a := range gaters {
		if a.opts.Kind == k.Kind {
			return a
		}
	}
	return nil
}

// Admit is PreEnqueue for every gang kind of the profile: the admission of the gang plugin of
// the pod's kind (nil: admitted).
func (g *Gate) Admit(pod *v1.Pod) *fwk.Status {
	if a := g.gaterOf(pod); a != nil {
		return a.admitMember(pod)
	}
	return nil
}

// Hint is the QueueingHint of the gate's events: Queue when the pod's gang plugin would wake
// it (hintPod: a member of its gang added or ungated, or its own last gate removed).
func (g *Gate) Hint(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	if a := g.gaterOf(pod); a != nil {
		return a.hintPod(logger, pod, oldObj, newObj)
	}
	return fwk.QueueSkip, nil
}

// GateEvents are the events that can admit a gated member: a pod added, or one that lost its
// scheduling gates (the gang feed activates members when their gang object arrives or their
// base is established).
func GateEvents(hint fwk.QueueingHintFn) []fwk.ClusterEventWithHint {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.UpdatePodSchedulingGatesEliminated}, QueueingHintFn: hint},
	}
}
