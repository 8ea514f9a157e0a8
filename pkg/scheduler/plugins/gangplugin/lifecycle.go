package gangplugin

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// established reports a gang that just became established and wakes those who waited for it:
// its surge members and the scaled gangs based on it. Waking them must not depend on the
// status write that follows.
func (p *Adapter) established(logger klog.Logger, k gang.Key) {
	logger.V(2).Info("Gang established", "gang", k.String(), "nodes", len(p.store.PlacedNodes(k)))
	if spec, ok := p.store.Spec(k); ok && !spec.CreatedAt.IsZero() {
		metrics.GangTimeToPlaced.WithLabelValues(k.Kind.String()).Observe(time.Since(spec.CreatedAt).Seconds())
	}
	p.status.Established(k)
	p.activate(logger, k)
	p.activatePods(logger, p.store.PendingPodsBasedOn(k))
}

// allowWaiting lets every member of the gang that waits in Permit go.
func (p *Adapter) allowWaiting(k gang.Key) {
	m := p.store.Membership()
	p.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if wk, ok := m.KeyOf(wp.GetPod()); ok && wk == k {
			wp.Allow(p.opts.Name)
		}
	})
}

// rejectWaiting rejects every member of the gang that waits in Permit.
func (p *Adapter) rejectWaiting(k gang.Key, msg string) {
	m := p.store.Membership()
	p.handle.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if wk, ok := m.KeyOf(wp.GetPod()); ok && wk == k {
			wp.Reject(p.opts.Name, msg)
		}
	})
}

// releaseGang rejects the gang's waiting members, starts its back-off and schedules the
// members' return to the active queue when the back-off ends. seen is the number of
// schedulable nodes of the scheduling cycle that failed (schedulableNodes), -1 outside one.
func (p *Adapter) releaseGang(ctx context.Context, k gang.Key, reason, msg string, seen int) {
	p.rejectWaiting(k, msg)
	p.setWaitSeen(k, gang.Wait{Reason: reason, Message: msg}, seen)
	d := p.opts.Backoff
	if !p.startBackoff(k, d, msg) {
		return
	}
	metrics.Backoffs.WithLabelValues(k.Kind.String(), reason).Inc()
	logger := klog.FromContext(ctx)
	logger.V(2).Info("Gang released and backing off", "gang", k.String(), "backoff", d, "reason", reason)
	p.timersMu.Lock()
	defer p.timersMu.Unlock()
	if t := p.timers[k]; t != nil {
		t.Stop()
	}
	p.timers[k] = time.AfterFunc(d, func() {
		p.timersMu.Lock()
		delete(p.timers, k)
		p.timersMu.Unlock()
		p.activate(logger, k)
	})
}

// activate moves the gang's pending members back to the active queue, where PreEnqueue
// decides again. The framework requeues gated pods only on events it sees; a new unscheduled
// pod is not one of them (unless the GenericWorkload gate is on), so the plugin wakes the gang
// itself when its member set changes. It must not run under the queue's lock (PreEnqueue,
// QueueingHints).
func (p *Adapter) activate(logger klog.Logger, k gang.Key) {
	p.activatePods(logger, p.store.PendingPods(k))
}

func (p *Adapter) activatePods(logger klog.Logger, pods []*v1.Pod) {
	if len(pods) == 0 {
		return
	}
	m := make(map[string]*v1.Pod, len(pods))
	for _, pod := range pods {
		m[pod.Namespace+"/"+pod.Name] = pod
	}
	p.handle.Activate(logger, m)
}

// BackoffScheduled reports whether a wake-up is pending for the gang (for tests).
func (p *Adapter) BackoffScheduled(k gang.Key) bool {
	p.timersMu.Lock()
	defer p.timersMu.Unlock()
	return p.timers[k] != nil
}
