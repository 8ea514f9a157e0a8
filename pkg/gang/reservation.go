package gang

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// Reservation is the capacity a gang had on each node when some of its members were deleted
// to be replaced (PodGang annotation phalanx.dev/reservation).
//
// The rule: while a reservation is active (for the store's hold duration from Since), the
// capacity held on a node is what the gang had there minus what its pods on the node request
// now. Old members that are still terminating and replacements that are already bound both
// count as taken back, so the hold is exactly the room the replacements have not used yet; it
// falls to zero on its own as they bind, and disappears when the time runs out. Other pods
// (of other gangs or of none) may only use the node's free capacity minus the holds.
type Reservation struct {
	Since time.Time
	Nodes map[string]Resources
}

// Hold is an active reservation on one node.
type Hold struct {
	Gang     Key
	Reserved Resources
	Until    time.Time
	// Replaces is the gang whose footprint the reservation took over (Spec.ReuseFrom), zero
	// when it is the gang's own: that gang's pods still on the node count as taken back too,
	// since they occupy what is held.
	Replaces Key
	// Preemption marks the room a preemptor gang holds while its victims terminate; Priority
	// is the preemptor's (a pod of higher priority is not kept out by it).
	Preemption bool
	Priority   int32
}

// ReservationFromPodGang reads the annotation; nil when absent or unreadable.
func ReservationFromPodGang(pg *schedv1.PodGang) *Reservation {
	raw, ok := pg.Annotations[schedv1.AnnotationReservation]
	if !ok {
		return nil
	}
	var r schedv1.Reservation
	if err := json.Unmarshal([]byte(raw), &r); err != nil || r.Since.IsZero() {
		return nil
	}
	out := &Reservation{Since: r.Since.Time, Nodes: make(map[string]Resources, len(r.Nodes))}
	for node, rl := range r.Nodes {
		out.Nodes[node] = ResourcesOf(rl)
	}
	return out
}

// Annotation is r as the value of the PodGang annotation phalanx.dev/reservation (the inverse
// of ReservationFromPodGang).
func (r *Reservation) Annotation() (string, error) {
	out := schedv1.Reservation{Since: metav1.NewTime(r.Since), Nodes: make(map[string]v1.ResourceList, len(r.Nodes))}
	for node, res := range r.Nodes {
		rl := v1.ResourceList{
			v1.ResourceCPU:               *resource.NewMilliQuantity(res.MilliCPU, resource.DecimalSI),
			v1.ResourceMemory:            *resource.NewQuantity(res.Memory, resource.BinarySI),
			v1.ResourceName(ResourceGPU): *resource.NewQuantity(res.GPU, resource.DecimalSI),
		}
		if res.Devices > 0 {
			rl[schedv1.ReservationDevices] = *resource.NewQuantity(res.Devices, resource.DecimalSI)
		}
		out.Nodes[node] = rl
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("encoding reservation: %w", err)
	}
	return string(raw), nil
}

// DerivedReservation is the reservation gang k took over from the gang its spec names in
// ReuseFrom (Grove's reuseReservationRef), nil when the gang carries its own or has none. It
// lives only in this process: the PodGang status writer records it on the gang object, so that
// a new leader holds the same capacity for the rest of the window.
func (s *Store) DerivedReservation(k Key) *Reservation {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil || e.spec == nil || e.spec.Reservation != nil || e.reused == nil {
		return nil
	}
	r := &Reservation{Since: e.reused.Since, Nodes: make(map[string]Resources, len(e.reused.Nodes))}
	for n, res := range e.reused.Nodes {
		r.Nodes[n] = res
	}
	return r
}

// ResourcesOf reads a resource list in the terms of the rules.
func ResourcesOf(rl v1.ResourceList) Resources {
	r := Resources{MilliCPU: rl.Cpu().MilliValue(), Memory: rl.Memory().Value()}
	if q, ok := rl[v1.ResourceName(ResourceGPU)]; ok {
		r.GPU = q.Value()
	}
	if q, ok := rl[schedv1.ReservationDevices]; ok {
		r.Devices = q.Value()
	}
	return r
}

// Clamp returns r with negative amounts set to zero.
func (r Resources) Clamp() Resources {
	return Resources{MilliCPU: max(r.MilliCPU, 0), Memory: max(r.Memory, 0), GPU: max(r.GPU, 0), Devices: max(r.Devices, 0)}
}

// IsZero reports whether r holds nothing.
func (r Resources) IsZero() bool {
	return r.MilliCPU <= 0 && r.Memory <= 0 && r.GPU <= 0 && r.Devices <= 0
}

// SetReservationHold sets how long reservations last; 0 turns them off.
func (s *Store) SetReservationHold(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = d
}

// ReservationHold returns how long reservations last.
func (s *Store) ReservationHold() time.Duration {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hold
}

// HasActiveHolds reports whether any reservation is active now (a cheap test that lets the
// plugin skip its Filter for every pod when there is none).
func (s *Store) HasActiveHolds() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.hold == 0 || len(s.reserving) == 0 {
		return false
	}
	now := s.now()
	for k := range s.reserving {
		if s.reservedLocked(s.gangs[k], now) {
			return true
		}
	}
	return false
}

// HoldsOn returns the active reservations on node of gangs other than except, by gang name.
// A reservation is active until its hold duration passes, or until the gang's bound members
// request at least what it reserved in total (its replacements are bound, wherever they
// landed).
func (s *Store) HoldsOn(node string, except Key) []Hold {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.hold == 0 || len(s.reserving) == 0 {
		return nil
	}
	now := s.now()
	var out []Hold
	for k := range s.reserving {
		e := s.gangs[k]
		if k == except {
			continue
		}
		if !s.activeLocked(e, now) {
			if s.unconfirmedLocked(e, now) && !e.unconfirmed[node].IsZero() {
				out = append(out, Hold{Gang: k, Reserved: e.unconfirmed[node], Until: e.unconfirmedAt.Add(UnconfirmedWindow)})
			}
			continue
		}
		r := e.reservation()
		if res, ok := r.Nodes[node]; ok && !res.IsZero() {
			h := Hold{Gang: k, Reserved: res, Until: s.holdUntilLocked(e, r)}
			if e.spec != nil && r == e.reused && e.spec.ReuseFrom != k {
				h.Replaces = e.spec.ReuseFrom
			}
			if r == e.preemptHold && e.preemption != nil {
				h.Preemption, h.Priority = true, e.preemption.Priority
			}
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gang.Name < out[j].Gang.Name })
	return out
}

// ReservationUntil returns when the gang's reservation ends (zero when it has none or holds
// are off).
func (s *Store) ReservationUntil(k Key) time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.gangs[k]
	if e == nil || s.hold == 0 {
		return time.Time{}
	}
	if now := s.now(); !s.activeLocked(e, now) && s.unconfirmedLocked(e, now) {
		return e.unconfirmedAt.Add(UnconfirmedWindow)
	}
	if r := e.reservation(); r != nil {
		return s.holdUntilLocked(e, r)
	}
	return time.Time{}
}

// TakenBack reports whether members that request bound in total take back what the
// reservation holds (GPUs, and cpu, memory and DRA devices where reserved): its replacements
// are bound, wherever they landed, and the hold has done its job.
func (r *Reservation) TakenBack(bound Resources) bool {
	var reserved Resources
	for _, res := range r.Nodes {
		reserved = reserved.Add(res)
	}
	return bound.Fits(reserved) && bound.Devices >= reserved.Devices
}

// reservationTakenBack is TakenBack with the gang's bound members.
func reservationTakenBack(e *entry, r *Reservation) bool {
	var bound Resources
	for _, m := range e.members {
		if m.State == Bound {
			bound = bound.Add(m.Requests)
		}
	}
	return r.TakenBack(bound)
}

// ReservationActive reports whether the gang's reservation holds capacity now (holds are on,
// its window is open and its replacements have not taken it back), or a departure not
// confirmed yet does (departure.go).
func (s *Store) ReservationActive(k Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.reservedLocked(s.gangs[k], s.now())
}

// reservedLocked: e's reservation is active at now, or a departure from e is unconfirmed.
func (s *Store) reservedLocked(e *entry, now time.Time) bool {
	return s.activeLocked(e, now) || s.unconfirmedLocked(e, now)
}

// activeLocked: holds are on, e's reservation window is open at now and its replacements have
// not taken it back (now, or once already: noteReservation).
func (s *Store) activeLocked(e *entry, now time.Time) bool {
	r := e.reservation()
	return r != nil && s.hold > 0 && now.Before(s.holdUntilLocked(e, r)) && !r.Since.Equal(e.reservationDone) && !reservationTakenBack(e, r)
}

// holdUntilLocked is when r, a reservation of e, ends: a preemption's hold with the
// preemption's window, any other reservationHoldSeconds after it started.
func (s *Store) holdUntilLocked(e *entry, r *Reservation) time.Time {
	if r == e.preemptHold && e.preemption != nil {
		return e.preemption.Until
	}
	return r.Since.Add(s.hold)
}

// reservation is the gang object's reservation (its own, or the one derived from ReuseFrom),
// the room held for it while its preemption's victims terminate, or the hold its deleted
// object left.
func (e *entry) reservation() *Reservation {
	switch {
	case e == nil:
		return nil
	case e.spec == nil:
		return e.lingering
	case e.spec.Reservation != nil:
		return e.spec.Reservation
	case e.reused != nil:
		return e.reused
	}
	return e.preemptHold
}

// ActiveHolds counts the gangs whose reservation is active now (for metrics).
func (s *Store) ActiveHolds() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now, n := s.now(), 0
	for k := range s.reserving {
		if s.activeLocked(s.gangs[k], now) {
			n++
		}
	}
	return n
}
