// Package memberevents shapes the per-pod events of kube-scheduler's profiles:
//
//   - it takes the Scheduled event off the bind path of gang members placed with their gang's
//     quorum. The framework writes one event per bound pod; for a gang, that is one API write
//     per member on top of the bind, while the gang's own Scheduled event (written when the
//     quorum binds) names every member and its node. Members placed on their own later (surge
//     members, members above the minimum, replacements) keep their per-pod event, as do pods of
//     no gang and every other event;
//   - for a profile that speaks KAI's words (PodGangArgs.KAIEventProfiles), it writes a
//     pod's FailedScheduling as KAI's scheduler does: a core/v1 Warning event of reason
//     Unschedulable from the component named as the profile, which tools written against KAI
//     (Grove's e2e suite) look for.
package memberevents

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// Reasons of the framework's events and of KAI's.
const (
	// reasonScheduled is the reason of the framework's event for a bound pod.
	reasonScheduled = "Scheduled"
	// reasonFailedScheduling is the reason of the framework's event for a pod a cycle could
	// not place.
	reasonFailedScheduling = "FailedScheduling"
	// ReasonKAIUnschedulable is the reason KAI's scheduler gives a pod it cannot place.
	ReasonKAIUnschedulable = "Unschedulable"
)

// Broadcaster wraps the scheduler's event broadcaster; the recorders it makes (one per
// profile, named by the profile's schedulerName) leave out the Scheduled event of members
// that the profile's gang store says were placed with their quorum (unless
// KeepMemberScheduled), and write FailedScheduling in KAI's words for profiles that ask.
type Broadcaster struct {
	events.EventBroadcasterAdapter
	// StoreOf returns the gang store of a profile (nil: none yet, or no gang plugin). It is
	// read at each event: the stores are made after the recorders.
	StoreOf func(profile string) *gang.Store
	// KAIEvents reports whether a profile writes KAI's Unschedulable event (nil: none does);
	// read at each event, as StoreOf.
	KAIEvents func(profile string) bool
	// KeepMemberScheduled keeps every Scheduled event.
	KeepMemberScheduled bool
}

var _ events.EventBroadcasterAdapter = &Broadcaster{}

// NewRecorder returns the recorder of profile name.
func (b *Broadcaster) NewRecorder(name string) events.EventRecorderLogger {
	return &recorder{
		EventRecorderLogger: b.EventBroadcasterAdapter.NewRecorder(name),
		legacy:              b.EventBroadcasterAdapter.DeprecatedNewLegacyRecorder(name),
		profile:             name, b: b,
	}
}

type recorder struct {
	events.EventRecorderLogger
	// legacy writes core/v1 events with source component profile (KAI's kind of event).
	legacy  record.EventRecorderLogger
	profile string
	b       *Broadcaster
}

// Eventf records the event unless it is the Scheduled event of a member placed with its
// quorum; a pod's FailedScheduling goes out as KAI's Unschedulable where the profile asks.
func (r *recorder) Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...interface{}) {
	if r.coalesced(regarding, eventtype, reason) {
		metrics.MemberEventsCoalesced.Inc()
		return
	}
	if r.asKAI(regarding, eventtype, reason) {
		r.legacy.Eventf(regarding, v1.EventTypeWarning, ReasonKAIUnschedulable, note, args...)
		return
	}
	r.EventRecorderLogger.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// WithLogger keeps the filter on the recorder the framework derives per cycle.
func (r *recorder) WithLogger(logger klog.Logger) events.EventRecorderLogger {
	return &recorder{EventRecorderLogger: r.EventRecorderLogger.WithLogger(logger), legacy: r.legacy.WithLogger(logger), profile: r.profile, b: r.b}
}

func (r *recorder) asKAI(regarding runtime.Object, eventtype, reason string) bool {
	if reason != reasonFailedScheduling || eventtype != v1.EventTypeWarning || r.b.KAIEvents == nil {
		return false
	}
	if _, ok := regarding.(*v1.Pod); !ok {
		return false
	}
	return r.b.KAIEvents(r.profile)
}

func (r *recorder) coalesced(regarding runtime.Object, eventtype, reason string) bool {
	if r.b.KeepMemberScheduled || reason != reasonScheduled || eventtype != v1.EventTypeNormal {
		return false
	}
	pod, ok := regarding.(*v1.Pod)
	if !ok {
		return false
	}
	s := r.b.StoreOf(r.profile)
	return s != nil && s.WithQuorum(pod)
}
