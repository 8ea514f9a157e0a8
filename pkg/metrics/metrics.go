// Package metrics defines the Prometheus metrics of Phalanx. They are registered with the
// component-base legacy registry, which phalanx-scheduler serves on /metrics next to the
// kube-scheduler's own. Labels are bounded: gang kind, reason, strategy, action, result; never
// pod, gang or PodCliqueSet names. docs/metrics.md lists them.
package metrics

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const namespace = "phalanx"

var (
	// GangTimeToPlaced is the time from a gang's creation to its quorum bound (established).
	GangTimeToPlaced = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Name: "gang_time_to_placed_seconds",
		Help:           "Time from the creation of a gang object to the bind that completed its quorum.",
		Buckets:        metrics.ExponentialBuckets(0.05, 2, 14), // 50 ms .. ~7 min
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})
	// PermitWaits counts members held in Permit for their gang's quorum.
	PermitWaits = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "permit_waits_total",
		Help:           "Gang members held in Permit until their quorum was reached.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})
	// MembersBoundWithGang counts gang members assumed and sent to binding from the
	// scheduling cycle whose pass placed them, without a queue pop or a cycle of their own.
	MembersBoundWithGang = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "gang_members_bound_from_pass_total",
		Help:           "Gang members assumed and sent to binding from the scheduling cycle of the pass that placed them (no queue pop or scheduling cycle of their own).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})
	// GangPlans counts one-pass gang placements, by outcome (Placed, NoPlacement).
	GangPlans = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "gang_plans_total",
		Help:           "Passes that placed every member a gang needed for its quorum against one snapshot, by outcome (Placed, NoPlacement).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind", "outcome"})
	// PlainPodPlans counts the passes that placed a pod of no gang, by outcome (Placed,
	// NoPlacement, Error).
	PlainPodPlans = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "plain_pod_plans_total",
		Help:           "Pods of no gang placed by the profile's planner with the Filter verdicts kept from earlier pods alike, by outcome (Placed: the cycle checks the one node found; NoPlacement, Error: the cycle searches every node as kube-scheduler does).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"outcome"})
	// Preemptions counts the preemption decisions of gang-aware preemption, by outcome
	// (Preempted, WaitingForVictims, NoRoom, NoCandidates, NotEligible).
	Preemptions = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "preemptions_total",
		Help:           "Gang-aware preemption attempts for a preemptor (a gang's deficit or one pod), by outcome (Preempted, WaitingForVictims, NoRoom, NoCandidates, NotEligible).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind", "outcome"})
	// PreemptionVictims counts the victim units evicted by preemption: whole gangs, members
	// above their gang's minimum (or surge members), pods of no gang.
	PreemptionVictims = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "preemption_victims_total",
		Help:           "Victim units evicted by gang-aware preemption, by unit (gang: a whole gang; member: a member above its gang's minimum or a surge member; pod: a pod of no gang).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"unit"})
	// MemberEventsCoalesced counts kube-scheduler's per-pod Scheduled events left out for
	// members placed with their gang's quorum (the gang's own event names them).
	MemberEventsCoalesced = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "member_scheduled_events_coalesced_total",
		Help:           "Per-pod Scheduled events not written for gang members placed with their quorum (the gang's Scheduled event names every member and node).",
		StabilityLevel: metrics.ALPHA,
	})
	// QueueResorts counts queued gang members re-sorted in the scheduling queue because their
	// class changed while they waited (a lost member made an extra needed, a gang's priority
	// changed).
	QueueResorts = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "queue_resorts_total",
		Help:           "Queued gang members moved to their new place in the scheduling queue after their class (needed for the gang's minimum or extra, priority) changed while they waited.",
		StabilityLevel: metrics.ALPHA,
	})
	// PermitRejections counts members released from Permit or refused there, by reason.
	PermitRejections = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "permit_rejections_total",
		Help:           "Gang members refused in Permit or released before their quorum, by reason (QuorumTimeout, MembersLost, SurgeNotEstablished).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind", "reason"})
	// Backoffs counts gangs released as a whole and put in back-off.
	Backoffs = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "gang_backoffs_total",
		Help:           "Gangs released as a whole and put in back-off, by reason.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind", "reason"})
	// SurgeAdmissions counts surge admission decisions.
	SurgeAdmissions = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "surge_admissions_total",
		Help:           "Surge members checked against the scheduler's cache before creation: granted or blocked.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	// MembersReplaced counts finished members (evicted, shut down, exited) deleted to be
	// recreated at their index, and members released from a lost node (controller/lost.go).
	MembersReplaced = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "members_replaced_total",
		Help:           "PodCliqueSet pods deleted to be recreated at their index, by reason: finished (phase Failed or Succeeded) as Evicted, NodeShutdown, Succeeded, Failed; or left terminating on a lost node past their deletion deadline, NodeLost.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"reason"})
	// GangTerminations counts units recycled by gang termination (controller/terminate.go).
	GangTerminations = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "gang_terminations_total",
		Help:           "PodCliqueSet units whose pods were all deleted and recreated because a gang stayed below its minAvailable longer than terminationDelay, by scope: Replica (a whole PodCliqueSet replica) or ScalingGroupReplica.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"scope"})
	// ReservationBlockedPods counts pods kept off capacity held for replacements.
	ReservationBlockedPods = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "reservation_blocked_pods_total",
		Help:           "Times a pod (or a gang) was kept off capacity held for another gang's replacements.",
		StabilityLevel: metrics.ALPHA,
	})
	// PreferredPackingFallbacks counts preferred packing levels that a gang's placement could
	// not keep (no domain had room for the level's members), by gang kind.
	PreferredPackingFallbacks = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "preferred_packing_fallbacks_total",
		Help:           "Preferred topology packing levels (gang, group config or podgroup) that a gang's placement could not keep, by gang kind.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})
	// ExtrasHeld counts pods above their gang's minimum turned away for another gang's minimum.
	ExtrasHeld = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "extras_held_total",
		Help:           "Times a pod above its gang's minimum (a surge member or a member beyond its podgroup's minReplicas) waited while a gang of equal or higher priority placed its minimum.",
		StabilityLevel: metrics.ALPHA,
	})
	// ReservationsExpired counts holds that ran out while they kept pods out.
	ReservationsExpired = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "reservations_expired_total",
		Help:           "Replacement holds that reached reservationHoldSeconds while they still kept other pods out.",
		StabilityLevel: metrics.ALPHA,
	})
	// UpdateDuration is the time from the start to the end of a PodCliqueSet update.
	UpdateDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Name: "update_duration_seconds",
		Help:           "Duration of completed PodCliqueSet updates, by strategy.",
		Buckets:        metrics.ExponentialBuckets(1, 2, 14), // 1 s .. ~4.5 h
		StabilityLevel: metrics.ALPHA,
	}, []string{"strategy"})
	// UpdateSteps counts the planner's actions applied by the controller.
	UpdateSteps = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "update_steps_total",
		Help:           "Update actions applied (create or delete of a member; surge or not), by strategy.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"strategy", "action", "surge"})
	// UpdatesInProgress and UpdatesStalled are the PodCliqueSets updating, and those past
	// their progress deadline.
	UpdatesInProgress = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: namespace, Name: "updates_in_progress",
		Help:           "PodCliqueSets with an update under way.",
		StabilityLevel: metrics.ALPHA,
	})
	// Rollbacks counts failed updates rolled back by updateStrategy.rollbackOnFailure.
	Rollbacks = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "update_rollbacks_total",
		Help:           "Failed PodCliqueSet updates rolled back to their last complete revision (updateStrategy.rollbackOnFailure).",
		StabilityLevel: metrics.ALPHA,
	})
	// SlicesLanded counts the coherent slices (updateStrategy Coherent) that became available
	// and whose pods returned to their regular gangs.
	SlicesLanded = metrics.NewCounter(&metrics.CounterOpts{
		Namespace: namespace, Name: "coherent_slices_landed_total",
		Help:           "Coherent slices (updateStrategy Coherent) made whole at a new revision that became available.",
		StabilityLevel: metrics.ALPHA,
	})
	UpdatesStalled = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: namespace, Name: "updates_stalled",
		Help:           "PodCliqueSets whose update made no step for progressDeadlineSeconds (Progressing=False).",
		StabilityLevel: metrics.ALPHA,
	})
	// ReconcileErrors counts the controller's passes over a PodCliqueSet that failed, by the
	// API reason of the error (Forbidden, Invalid, ...; "Other" when it is not an API error).
	// Write conflicts, the ordinary outcome of concurrent writers, are not counted.
	ReconcileErrors = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Name: "controller_reconcile_errors_total",
		Help:           "PodCliqueSet controller passes that failed, by API error reason (conflicts not counted).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"reason"})
	// ControllerStepLatency is the time from the event that let a PodCliqueSet take its next
	// step (a member created, bound, Ready or gone; a new spec) to the first write of the
	// controller pass that takes it (pkg/controller/steps.go).
	ControllerStepLatency = metrics.NewHistogram(&metrics.HistogramOpts{
		Namespace: namespace, Name: "controller_step_latency_seconds",
		Help:           "Time from the member event that enables a PodCliqueSet's next step to the controller's first write for it.",
		Buckets:        metrics.ExponentialBuckets(0.001, 2, 16), // 1 ms .. ~33 s
		StabilityLevel: metrics.ALPHA,
	})
	// ServerFeatureDisabled is 1 for each scheduler feature gate turned off at start because
	// the API server does not serve the API it needs (an older minor; docs/compatibility.md).
	ServerFeatureDisabled = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace, Name: "server_feature_disabled",
		Help:           "Scheduler feature gates turned off at start because the API server does not serve their API (1 per gate).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature"})
)

var registerOnce sync.Once

// Register registers every metric once; later calls do nothing. Collectors that read live
// state (gangs waiting, holds active) are registered by their owners with RegisterCollector.
func Register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(GangTimeToPlaced, PermitWaits, MembersBoundWithGang, GangPlans, PlainPodPlans, Preemptions, PreemptionVictims, MemberEventsCoalesced, QueueResorts, PermitRejections, Backoffs, SurgeAdmissions, MembersReplaced, GangTerminations,
			ReservationBlockedPods, ExtrasHeld, PreferredPackingFallbacks, ReservationsExpired, UpdateDuration, UpdateSteps, UpdatesInProgress, UpdatesStalled, Rollbacks, SlicesLanded, ReconcileErrors, ServerFeatureDisabled, ControllerStepLatency)
	})
}

// GangState is what the gangs-waiting collector reads at scrape time.
type GangState interface {
	// WaitingByReason counts the gangs that wait, by reason, per kind.
	WaitingByReason() map[[2]string]int
	// ActiveHolds counts the gangs whose replacement hold is active.
	ActiveHolds() int
}

var (
	gangsWaitingDesc = metrics.NewDesc("phalanx_gangs_waiting", "Gangs that are not placed, by kind and the reason they wait.",
		[]string{"kind", "reason"}, nil, metrics.ALPHA, "")
	holdsActiveDesc = metrics.NewDesc("phalanx_reservations_active", "Gangs whose freed capacity is held for their replacements now.",
		nil, nil, metrics.ALPHA, "")
)

type gangCollector struct {
	metrics.BaseStableCollector
	mu     sync.Mutex
	states []GangState
}

var collector = &gangCollector{}
var collectorOnce sync.Once

// AddGangState adds a gang store to what the collector reports (one per scheduler profile).
func AddGangState(s GangState) {
	collectorOnce.Do(func() { legacyregistry.CustomMustRegister(collector) })
	collector.mu.Lock()
	defer collector.mu.Unlock()
	collector.states = append(collector.states, s)
}

// RemoveGangState stops reporting a gang store (its scheduler stopped).
func RemoveGangState(s GangState) {
	collector.mu.Lock()
	defer collector.mu.Unlock()
	for i, x := range collector.states {
		if x == s {
			collector.states = append(collector.states[:i], collector.states[i+1:]...)
			return
		}
	}
}

func (c *gangCollector) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- gangsWaitingDesc
	ch <- holdsActiveDesc
}

func (c *gangCollector) CollectWithStability(ch chan<- metrics.Metric) {
	c.mu.Lock()
	states := append([]GangState(nil), c.states...)
	c.mu.Unlock()
	waiting := map[[2]string]int{}
	holds := 0
	for _, s := range states {
		for k, n := range s.WaitingByReason() {
			waiting[k] += n
		}
		holds += s.ActiveHolds()
	}
	for k, n := range waiting {
		ch <- metrics.NewLazyConstMetric(gangsWaitingDesc, metrics.GaugeValue, float64(n), k[0], k[1])
	}
	ch <- metrics.NewLazyConstMetric(holdsActiveDesc, metrics.GaugeValue, float64(holds))
}
