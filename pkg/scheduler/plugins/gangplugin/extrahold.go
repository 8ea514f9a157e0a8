package gangplugin

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// holdExtra is PreFilter's minimums-first check (gang.Store.HeldExtra, docs/architecture.md
// rule "5 minimums first"): a member above its gang's minimum waits while another gang of equal or
// higher priority waits for its minimum. It returns the rejection, nil when the pod may go on;
// the pod is woken when the holder's minimum is placed or its hold runs out (wakeHeld).
func (p *Adapter) holdExtra(state fwk.CycleState, k gang.Key, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	holder, until, held := p.store.HeldExtra(pod, func() int { return schedulableNodes(nodes) })
	if !held {
		return nil
	}
	p.noteHeld(holder, k)
	p.armExtraTimer(holder, until)
	state.Write(p.stateKey(), &cycleState{extraHeld: true})
	metrics.ExtrasHeld.Inc()
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf(
		"above the minimum of %s: waits while %s, of equal or higher priority, places its minimum (until %s at the latest)",
		k, holder, until.UTC().Format(time.RFC3339)))
}

// armExtraTimer wakes what holder held when its hold runs out, unless a timer does already.
func (p *Adapter) armExtraTimer(holder gang.Key, until time.Time) {
	p.timersMu.Lock()
	defer p.timersMu.Unlock()
	if p.extraTimers[holder] != nil {
		return
	}
	p.extraTimers[holder] = time.AfterFunc(time.Until(until)+10*time.Millisecond, func() { p.extraHoldEnded(holder) })
}

// extraHoldEnded is the timer of holder's hold: it wakes what holder held, unless holder holds
// again by now (placed and short once more: a new hold, with a later end), when it waits for
// that end instead.
func (p *Adapter) extraHoldEnded(holder gang.Key) {
	p.timersMu.Lock()
	delete(p.extraTimers, holder)
	p.timersMu.Unlock()
	if until, holding := p.store.HoldUntil(holder); holding {
		p.armExtraTimer(holder, until)
		return
	}
	p.wakeHeld(holder)
}

// wakeHeld moves back to the active queue the members of the gangs whose extras holder
// turned away, once holder holds no more (its minimum placed, its hold over, its object
// gone); while it still holds, nothing. No cluster event marks that moment.
func (p *Adapter) wakeHeld(holder gang.Key) {
	keys := p.takeHeld(holder)
	if len(keys) == 0 {
		return
	}
	logger := klog.Background()
	logger.V(2).Info("Gang no longer holds extras; retrying them", "holder", holder.String(), "gangs", len(keys))
	for _, k := range keys {
		p.activate(logger, k)
	}
}
