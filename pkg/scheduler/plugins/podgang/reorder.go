package podgang

import (
	"context"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// reorder re-sorts the queued members of gangs whose class changed (queuekeys.go): the feed
// tells it of every gang it changes (GangChanged, gangplugin.QueueOrder), and its one worker
// compares each such gang's queued members' keys with the store's, drops the keys that
// differ and has the scheduler's queue re-sort those members (gangplugin.Resorter). A gang
// that lost a bound member thus has its extras already in the active queue popped as the
// members its minimum needs, ahead of other gangs' extras, rather than where they were
// queued. Changes of one gang that arrive while the worker runs are checked once.
type reorder struct {
	mu    sync.Mutex
	dirty map[gang.Key]bool
	wake  chan struct{}
}

func newReorder() *reorder { return &reorder{dirty: map[gang.Key]bool{}, wake: make(chan struct{}, 1)} }

var _ gangplugin.QueueOrder = &Plugin{}

// GangChanged implements gangplugin.QueueOrder: k's queued members are checked by the worker.
func (p *Plugin) GangChanged(k gang.Key) {
	r := p.reorder
	r.mu.Lock()
	r.dirty[k] = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// runReorder is the worker; it ends with ctx. resorter gives the scheduler's queue, set once
// the scheduler is built (after its plugins); until then, and without one, changes are
// dropped and queued members keep their place until they are queued again.
func (p *Plugin) runReorder(ctx context.Context, resorter func() gangplugin.Resorter) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.reorder.wake:
			p.reorderChanged(klog.FromContext(ctx), resorter())
		}
	}
}

// reorderChanged checks the gangs changed since its last run and returns how many members it
// re-sorted.
func (p *Plugin) reorderChanged(logger klog.Logger, resorter gangplugin.Resorter) int {
	r := p.reorder
	r.mu.Lock()
	changed := r.dirty
	r.dirty = map[gang.Key]bool{}
	r.mu.Unlock()
	if resorter == nil {
		return 0
	}
	moved := 0
	for k := range changed {
		entries := p.queued.of(k)
		if len(entries) == 0 {
			continue // none of its members waits in the queue with a key
		}
		pods := make([]*v1.Pod, len(entries))
		for i, e := range entries {
			pods[i] = e.pod
		}
		keys, oks := p.Store().SortKeys(pods)
		for i, e := range entries {
			if sameKey(e, keys[i], oks[i]) || !p.queued.dropIfSame(e) {
				continue
			}
			if resorter.Resort(e.pod, e.queued) {
				moved++
				metrics.QueueResorts.Inc()
				logger.V(4).Info("Gang member re-sorted in the scheduling queue: its class changed while it was queued",
					"pod", klog.KObj(e.pod), "gang", k.String(), "extraBefore", e.key.Extra, "extra", keys[i].Extra,
					"priorityBefore", e.key.Priority, "priority", keys[i].Priority)
			}
		}
	}
	return moved
}
