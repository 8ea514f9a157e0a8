package gangplugin

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// Placement is a gang member and the node its gang's pass gave it.
type Placement struct {
	Pod  *v1.Pod
	Node string
}

// Binder takes a gang's planned members out of the per-pod path: from the scheduling cycle
// whose pass placed them (the cycle of placed, which is assumed and reserved), it assumes,
// reserves and permits each of members on its node and sends it to binding, so that the gang's
// quorum leaves the queue once and is bound from one snapshot. It stops at the first member it
// cannot take as planned (gone from the queue, changed, refused by a plugin on its node); that
// member and the ones after it go through their own cycles, where Permit and PostFilter are
// the safety net. It returns how many members it took. pkg/scheduler/gangcycle implements it
// with the scheduler's cache and queue; it is called on the scheduling goroutine.
type Binder interface {
	BindPlanned(ctx context.Context, profile string, placed Placement, members []Placement) int
}

// SetBinder gives the scheduler's gang plugins a Binder (nil: every member is placed by its
// own cycle, as with --member-cycles).
func (r *Runtime) SetBinder(b Binder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.binder = b
}

// Binder returns the scheduler's Binder, nil when it has none.
func (r *Runtime) Binder() Binder {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.binder
}

// bindPlanned has the Binder take the members of k's plan other than placed (placed's cycle
// made the plan and holds its node). Without a Binder they come through their own cycles.
func (p *Adapter) bindPlanned(ctx context.Context, k gang.Key, placed Placement, members []Placement) {
	if p.opts.Runtime == nil {
		return
	}
	b := p.opts.Runtime.Binder()
	if b == nil {
		return
	}
	n := b.BindPlanned(ctx, p.handle.ProfileName(), placed, members)
	metrics.MembersBoundWithGang.WithLabelValues(k.Kind.String()).Add(float64(n))
	if n < len(members) {
		klog.FromContext(ctx).V(3).Info("Gang members left to their own cycles", "gang", k.String(), "boundFromThePass", n, "left", len(members)-n)
	}
}
