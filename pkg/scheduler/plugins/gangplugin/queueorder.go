package gangplugin

import (
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// Resorter moves a queued pod to its place in the scheduler's queue after its sort key
// changed (pkg/scheduler/resort implements it on kube-scheduler's queue). Resort reports
// whether the pod was re-sorted: false when the queue no longer holds it as queued at queued.
type Resorter interface {
	Resort(pod *v1.Pod, queued time.Time) bool
}

// QueueOrder is a profile's queue order (its QueueSort plugin): it is told of every change
// the feed writes to a gang, which may move the gang's queued members to another class
// (needed for the minimum or extra, gang.QueueKey.Extra). GangChanged is called on informer
// and hook goroutines, never under the store's lock, and must not block.
type QueueOrder interface {
	GangChanged(k gang.Key)
}

// SetResorter gives the scheduler's queue order the scheduler's queue (nil: queued pods keep
// their place until they are queued again).
func (r *Runtime) SetResorter(q Resorter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resorter = q
}

// Resorter returns the scheduler's Resorter, nil when it has none.
func (r *Runtime) Resorter() Resorter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resorter
}

// SetQueueOrder registers the queue order of the profile of h (nil: none).
func (r *Runtime) SetQueueOrder(h fwk.Handle, o QueueOrder) {
	r.onProfile(h, func(p *profile) { p.queueOrder = o })
}

func (r *Runtime) queueOrderOf(h fwk.Handle) (o QueueOrder) {
	r.onProfile(h, func(p *profile) { o = p.queueOrder })
	return o
}

// classMayChange tells the profile's queue order that gang k changed in the store.
func (p *Adapter) classMayChange(k gang.Key) {
	if p.opts.Runtime == nil {
		return
	}
	if o := p.opts.Runtime.queueOrderOf(p.handle); o != nil {
		o.GangChanged(k)
	}
}
