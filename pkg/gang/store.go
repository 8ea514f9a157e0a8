package gang

import (
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Store holds what the scheduler knows about every gang: the spec from the gang object, the
// members from their pods, and what only the scheduler knows (assumed members, when the gang
// was established, back-off, why it waits). It is filled from informers and from the
// scheduler's hooks and is safe for concurrent use.
//
// Everything but the assumed marks, back-off and wait reasons can be rebuilt from the API
// objects, so a restarted scheduler resumes where the last one stopped.
//
// The methods are grouped by file: intake.go records gang objects, pods and the binding cycle
// (the only writes of membership); rules.go answers the rules of docs/architecture.md (quorum,
// established, base before scaled); queries.go what is still to place and the queue order;
// placement.go the topology domain; waits.go back-off and why a gang waits; status.go the
// summary for status writers and metrics; reservation.go the replacement holds.
type Store struct {
	membership Membership
	now        func() time.Time

	mu    countedRWMutex
	gangs map[Key]*entry
	// hold is how long reservations last (0: off).
	hold time.Duration
	// reserving are the gangs whose object carries a reservation: the Filter of every pod on
	// every node asks about holds, and it must not walk every gang to find none.
	reserving map[Key]bool
	// scaled indexes, by base gang, the gangs that have members based on it (the gang
	// established wakes them; it must not walk every gang). Entries of gangs that are gone
	// are skipped when read and dropped when their base gang is deleted.
	scaled map[Key]map[Key]bool
	// leaving are the entries kept only for the members that left them (entry.left): no
	// object, no member, a departure within the hold window. Pruned with the lingering holds.
	leaving map[Key]bool
	// victimOf maps a preemption victim not yet deleted (namespace/name) to its preemptor.
	victimOf map[string]Key
	// prioritized are the gangs whose object sets a priority of its own (Spec.Priority), and
	// anyPriority says whether there is one: the queue's Less compares pods of different
	// priorities without a look at their gangs while there is none.
	prioritized map[Key]bool
	anyPriority atomic.Bool
	// extraHold is how long a gang short of its minimum holds other gangs' extras (0: never;
	// extrahold.go); short are the gangs that started such a hold (pruned as they end), and
	// heldBy, per holder, the gangs whose extras it turned away (to wake them when it ends).
	extraHold time.Duration
	short     map[Key]bool
	heldBy    map[Key]map[Key]bool
	// devices counts the DRA devices a bound pod's claims were allocated (nil: no DRA); set
	// once, before the store is fed (SetDeviceCounter). Read on every pod event and hold
	// check without the store's lock.
	devices atomic.Pointer[DeviceCounter]
	// departureChecks, per gang kind, confirm the departures that leave a gang unheld
	// (departure.go); set before the store is fed.
	departureChecks map[Kind]DepartureCheck
}

// DeviceCounter returns how many DRA devices pod's ResourceClaims were allocated (a claim its
// members share counted once, on one of them). The store calls it without holding its lock.
type DeviceCounter func(pod *v1.Pod) int64

type entry struct {
	spec    *Spec
	members map[string]*member // by pod name
	// establishedAt is when this scheduler saw the quorum bind; zero when it did not.
	establishedAt time.Time
	// readBackWoken: ReadBackEstablished reported the gang established by its object's
	// record (a restart), so that its waiting members were woken once.
	readBackWoken bool
	backoffUntil  time.Time
	backoffReason string
	wait          Wait
	// domain is the value of the required pack label chosen for this gang.
	domain string
	// packNote says which preferred packing levels the gang's placement could not keep
	// (topology.go); cleared with domain.
	packNote string
	// served is set once a member for this scheduler has been seen, and stays while the entry
	// lives: a gang with no such member belongs to another scheduler, whose status and events
	// are not Phalanx's to write (docs/architecture.md rule 10).
	served bool
	// lingering is the reservation of a gang object that was deleted while its hold was
	// active (a recreated replica's gang, deleted to be created again): the hold stays for
	// its window, or until the gang object is created again and its own reservation governs.
	lingering *Reservation
	// left is what bound members that left the gang (deleted, terminating or finished)
	// requested, by node, over the hold window up to leftAt: what a gang that names this one
	// in ReuseFrom takes over. Kept only while holds are on.
	left   map[string]Resources
	leftAt time.Time
	// reused is the reservation derived from spec.ReuseFrom (nil until a footprint was seen).
	reused *Reservation
	// unconfirmed is, by node, what the gang had where bound members left it while none of
	// its reservations held, since unconfirmedAt; unconfirmedOf is the Since of the
	// reservation it had then (zero: none). Held until the gang object is known to bring no
	// newer reservation (departure.go).
	unconfirmed                  map[string]Resources
	unconfirmedAt, unconfirmedOf time.Time
	// reservationShort and reservationDone are the Since of the last reservation a bound member
	// left while it held, and of the last one taken back after that (noteReservation).
	reservationShort, reservationDone time.Time
	// placed counts, per podgroup of spec, the non-surge members bound or assumed, and bound
	// the members bound (recount keeps both current on every membership write; the queue order
	// and establishedLocked read them).
	placed []int32
	bound  int
	// plan is where the planner put the members the quorum needed (pod name → node), made at
	// plannedAt (plan.go); nil when there is none.
	plan      map[string]string
	plannedAt time.Time
	// preemption is the preemption this gang started (preemption.go), preemptHold the room it
	// holds for its members meanwhile; disruption marks a gang the scheduler preempted whole.
	preemption  *Preemption
	preemptHold *Reservation
	disruption  *Disruption
	// shortSince is when the gang's hold of extras started: its first failure to place its
	// minimum since it last had it placed, or a later failure that saw more schedulable nodes
	// than the one before; zero when it is not short. shortNodes is how many schedulable nodes
	// its last failed attempt saw (extrahold.go).
	shortSince time.Time
	shortNodes int
	// renewedAt is the latest failure that saw more schedulable nodes than the one before it
	// (zero: none since shortSince): it renews the hold for the gang's own workload only.
	renewedAt time.Time
	// victimsLeft are the victims of preemption not yet deleted (namespace/name).
	victimsLeft map[string]bool
}

// recount recomputes e.placed, notes how the reservation fares (noteReservation) and ends a
// hold of extras once the minimum is placed (extrahold.go).
func (e *entry) recount() {
	e.count()
	e.noteReservation()
	if !e.shortSince.IsZero() && placedQuorumLocked(e) {
		e.shortSince, e.shortNodes, e.renewedAt = time.Time{}, 0, time.Time{}
	}
}

// noteReservation records on every membership write how e's reservation fares. It is short of
// its replacements once a bound member left while it held (noteDeparture), or while it is not
// taken back and a member waits to bind (a gang made with a reservation: a coherent slice gang,
// whose old members were in other gangs, or a recreated replica). It is done once the bound
// members took it all back after that. A reservation that is done stays done: members that
// leave later (the PodCliqueSet deleted right after an update, a scale-in, a landed slice's pods
// returning to their regular gangs) are not replacements, and the capacity they free is
// nobody's to hold. A new reservation (another Since) starts afresh. A reservation seen before
// the members it was computed from (a scheduler restarted mid-update) is neither: those members
// are bound.
func (e *entry) noteReservation() {
	r := e.reservation()
	if r == nil || r.Since.Equal(e.reservationDone) {
		return
	}
	taken := reservationTakenBack(e, r)
	if !taken && e.bound < len(e.members) {
		e.reservationShort = r.Since
	}
	if taken && e.reservationShort.Equal(r.Since) {
		e.reservationDone = r.Since
	}
}

// noteDeparture records that bound member m leaves e while its reservation holds: the
// reservation is waiting for replacements from now on.
func (e *entry) noteDeparture(m *member) {
	if r := e.reservation(); r != nil && m.State == Bound {
		e.reservationShort = r.Since
	}
}

// count recomputes e.placed and e.bound.
func (e *entry) count() {
	e.bound = 0
	for _, m := range e.members {
		if m.State == Bound {
			e.bound++
		}
	}
	if e.spec == nil {
		e.placed = nil
		return
	}
	if len(e.placed) != len(e.spec.PodGroups) {
		e.placed = make([]int32, len(e.spec.PodGroups))
	} else {
		clear(e.placed)
	}
	for _, m := range e.members {
		if (m.State == Bound || m.State == Assumed) && !m.Surge && m.Group >= 0 && m.Group < len(e.placed) {
			e.placed[m.Group]++
		}
	}
}

type member struct {
	Member
	pod *v1.Pod
	// announced: the pod informer delivered this member ungated and its siblings were woken
	// (see ObservePod).
	announced bool
	// withQuorum: the member was assumed while its gang was not established, so its bind is
	// part of the gang's first placement, which the gang's own event reports (WithQuorum).
	withQuorum bool
}

// NewStore returns an empty store. now is the clock (time.Now in production).
func NewStore(m Membership, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{membership: m, now: now, gangs: map[Key]*entry{}, reserving: map[Key]bool{}, scaled: map[Key]map[Key]bool{}, leaving: map[Key]bool{}, victimOf: map[string]Key{}, prioritized: map[Key]bool{},
		short: map[Key]bool{}, heldBy: map[Key]map[Key]bool{}}
}

// SetDeviceCounter makes the store count the DRA devices of bound members (their Requests'
// Devices), so that the holds of their gangs keep those devices too. Call it before the store
// is fed.
func (s *Store) SetDeviceCounter(c DeviceCounter) { s.devices.Store(&c) }

// DevicesOf is the DRA devices pod's claims were allocated (0 without a DeviceCounter, for a
// pod without claims and for one not on a node).
func (s *Store) DevicesOf(pod *v1.Pod) int64 {
	if len(pod.Spec.ResourceClaims) == 0 || pod.Spec.NodeName == "" {
		return 0
	}
	if c := s.devices.Load(); c != nil && *c != nil {
		return (*c)(pod)
	}
	return 0
}

// Membership returns how the store reads pod labels.
func (s *Store) Membership() Membership { return s.membership }

func (s *Store) entryLocked(k Key) *entry {
	e := s.gangs[k]
	if e == nil {
		e = &entry{members: map[string]*member{}}
		s.gangs[k] = e
	}
	return e
}
