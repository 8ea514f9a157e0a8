package gangplugin

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

func (p *Adapter) heldOn(n fwk.NodeInfo, own gang.Key) (gang.Resources, []gang.Hold) {
	return HeldOn(p.store, n, own)
}

// HeldOn is the capacity on n held for replacements of gangs other than own (the zero Key:
// every gang): per active reservation, what the gang had on the node minus what its pods
// there request now (and, for a reservation taken over from a replaced gang, what that gang's
// pods there request). It also returns the holds that still keep something.
func HeldOn(store *gang.Store, n fwk.NodeInfo, own gang.Key) (gang.Resources, []gang.Hold) {
	return heldOnFor(store, n, own, nil)
}

// heldOnFor is HeldOn as pod sees it: a preemption's hold does not keep out a pod of higher
// priority than its preemptor (it could preempt the preemptor anyway, as kube-scheduler's
// nominated pods keep out only pods of lower or equal priority). A nil pod sees every hold.
func heldOnFor(store *gang.Store, n fwk.NodeInfo, own gang.Key, pod *v1.Pod) (gang.Resources, []gang.Hold) {
	holds := store.HoldsOn(n.Node().Name, own)
	if len(holds) == 0 {
		return gang.Resources{}, nil
	}
	var held gang.Resources
	var active []gang.Hold
	for _, h := range holds {
		if pod != nil && h.Preemption && store.PriorityOf(pod) > h.Priority {
			continue
		}
		var have gang.Resources
		for _, pi := range n.GetPods() {
			if k, ok := store.Membership().KeyOf(pi.GetPod()); ok && (k == h.Gang || k == h.Replaces) {
				have = have.Add(gang.RequestsOf(pi.GetPod()))
				if h.Reserved.Devices > 0 {
					have.Devices += store.DevicesOf(pi.GetPod())
				}
			}
		}
		if rest := h.Reserved.Sub(have).Clamp(); !rest.IsZero() {
			held = held.Add(rest)
			active = append(active, h)
		}
	}
	return held, active
}

// NodeFree is the node's allocatable minus requested cpu, memory and GPUs.
func NodeFree(n fwk.NodeInfo) gang.Resources { return nodeFree(n) }

// heldTotal is heldOn summed over nodes (for the whole-gang feasibility check), with the
// holds that keep something.
func (p *Adapter) heldTotal(nodes []fwk.NodeInfo, own gang.Key) (gang.Resources, []gang.Hold) {
	var held gang.Resources
	var all []gang.Hold
	for _, n := range nodes {
		h, holds := p.heldOn(n, own)
		held = held.Add(h)
		all = append(all, holds...)
	}
	return held, all
}

// FilterHolds keeps a pod off capacity that is held for the replacement of another gang's
// members (see gang.Reservation). Pods of the holding gang see the node as it is.
func (p *Adapter) FilterHolds(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
	st, holds := p.checkHolds(pod, n)
	if st != nil {
		p.noteHoldBlocked(pod, holds)
		metrics.ReservationBlockedPods.Inc()
	}
	return st
}

// checkHolds is FilterHolds without its side effects (the wake-up it arranges, the metric):
// what the planner asks of every node it tries, many times per pass.
func (p *Adapter) checkHolds(pod *v1.Pod, n fwk.NodeInfo) (*fwk.Status, []gang.Hold) {
	own, _ := p.store.Membership().KeyOf(pod)
	held, holds := heldOnFor(p.store, n, own, pod)
	if len(holds) == 0 {
		return nil, nil
	}
	if !nodeFree(n).Sub(held).Fits(gang.RequestsOf(pod)) {
		names, until := holdSummary(holds)
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("capacity held for the replacement of members of PodGang %s until %s",
			names, until.UTC().Format(time.RFC3339))), holds
	}
	if held.Devices > 0 && len(pod.Spec.ResourceClaims) > 0 {
		want, free, err := p.devicesOn(pod, n)
		if err != nil {
			return fwk.AsStatus(err), nil
		}
		if free-held.Devices < want {
			names, until := holdSummary(holds)
			return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("DRA devices held for the replacement of members of PodGang %s until %s: the pod's claims need %d devices, %d of the node's %d free devices are held",
				names, until.UTC().Format(time.RFC3339), want, held.Devices, free)), holds
		}
	}
	return nil, nil
}

// devicesOn is how many devices pod's claims still need (gangdra.DevicesWanted) and how many
// of n's ResourceSlices' devices are free; none of either without DRA.
func (p *Adapter) devicesOn(pod *v1.Pod, n fwk.NodeInfo) (want, free int64, err error) {
	dra := p.handle.SharedDRAManager()
	if dra == nil {
		return 0, 0, nil
	}
	if want = gangdra.DevicesWanted(dra.ResourceClaims(), pod); want == 0 {
		return 0, 0, nil
	}
	free, err = gangdra.DevicesFree(dra, n.Node().Name)
	if err != nil {
		return 0, 0, fmt.Errorf("counting the free devices of node %s: %w", n.Node().Name, err)
	}
	return want, free, nil
}

// holdSummary names the gangs that hold (namespace/name, sorted, each once) and when the last
// of their holds ends.
func holdSummary(holds []gang.Hold) (string, time.Time) {
	seen := map[string]bool{}
	var names []string
	var until time.Time
	for _, h := range holds {
		if n := h.Gang.Namespace + "/" + h.Gang.Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
		if h.Until.After(until) {
			until = h.Until
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", "), until
}

// noteHoldBlocked remembers a pod that a hold kept off a node, so that it is tried again the
// moment the hold ends (no cluster event marks that moment). The holds were read before they
// were noted: a hold that ended in between (its release ran holdReleased while the pod was not
// noted yet) is ended here, or the pod would wait for the rest of its window. A pod noted
// already (its Filter on another node, a moment ago) was there for the release to find: it
// needs no second look (the Filter notes a pod on every node a hold keeps it off).
func (p *Adapter) noteHoldBlocked(pod *v1.Pod, holds []gang.Hold) {
	var fresh []gang.Key
	key := pod.Namespace + "/" + pod.Name
	p.timersMu.Lock()
	for _, h := range holds {
		if p.holdBlocked[h.Gang] == nil {
			p.holdBlocked[h.Gang] = map[string]*v1.Pod{}
		}
		if _, noted := p.holdBlocked[h.Gang][key]; !noted {
			fresh = append(fresh, h.Gang)
		}
		p.holdBlocked[h.Gang][key] = pod
		if p.holdTimers[h.Gang] == nil {
			k := h.Gang
			p.holdTimers[k] = time.AfterFunc(time.Until(h.Until)+10*time.Millisecond, func() { p.holdEnded(k) })
		}
	}
	p.timersMu.Unlock()
	for _, k := range fresh {
		p.holdReleased(k)
	}
}

// holdEnded wakes the pods a hold of gang k kept off its nodes: when its window closes (the
// timer), or at once when the gang's replacements bind and take the capacity back (PostBind).
func (p *Adapter) holdEnded(k gang.Key) {
	p.timersMu.Lock()
	blocked := p.holdBlocked[k]
	delete(p.holdBlocked, k)
	if t := p.holdTimers[k]; t != nil {
		t.Stop()
	}
	delete(p.holdTimers, k)
	p.timersMu.Unlock()
	if p.store.ReservationActive(k) {
		// The reservation was renewed meanwhile: wait for the new end.
		until := p.store.ReservationUntil(k)
		p.timersMu.Lock()
		if p.holdBlocked[k] == nil {
			p.holdBlocked[k] = map[string]*v1.Pod{}
		}
		for key, pod := range blocked {
			p.holdBlocked[k][key] = pod
		}
		p.holdTimers[k] = time.AfterFunc(time.Until(until)+10*time.Millisecond, func() { p.holdEnded(k) })
		p.timersMu.Unlock()
		return
	}
	if len(blocked) == 0 {
		return
	}
	if len(p.store.PendingPods(k)) > 0 {
		// The replacements had not all bound: the hold ran out on them.
		metrics.ReservationsExpired.Inc()
	}
	pods := make([]*v1.Pod, 0, len(blocked))
	for _, pod := range blocked {
		pods = append(pods, pod)
	}
	klog.Background().V(2).Info("Reservation ended; retrying the pods it held off", "gang", k.String(), "pods", len(pods))
	p.activatePods(klog.Background(), pods)
}

// holdReleased ends the hold of gang k at once when it no longer holds: a bind of its member
// took back what it reserved, or its object lost its reservation or is gone for good (a slice
// gang released by the controller), so that the pods it kept off are tried now rather than when
// its window closes (nothing else wakes them: their nodes did not change).
func (p *Adapter) holdReleased(k gang.Key) {
	p.timersMu.Lock()
	waiting := len(p.holdBlocked[k]) > 0
	p.timersMu.Unlock()
	if waiting && !p.store.ReservationActive(k) {
		p.holdEnded(k)
	}
}
