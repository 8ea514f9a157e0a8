// Package memberevents takes kube-scheduler's per-pod Scheduled event off the bind path of
// gang members placed with their gang's quorum. The framework writes one event per bound pod;
// for a gang, that is one API write per member on top of the bind, while the gang's own
// Scheduled event (written when the quorum binds) names every member and its node. Members
// placed on their own later (surge members, members above the minimum, replacements) keep
// their per-pod event, as do pods of no gang and every other event.
package memberevents

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// reasonScheduled is the reason of the framework's event for a bound pod.
const reasonScheduled = "Scheduled"

// Broadcaster wraps the scheduler's event broadcaster; the recorders it makes (one per
// profile, named by the profile's schedulerName) leave out the Scheduled event of members
// that the profile's gang store says were placed with their quorum.
type Broadcaster struct {
	events.EventBroadcasterAdapter
	// StoreOf returns the gang store of a profile (nil: none yet, or no gang plugin). It is
	// read at each event: the stores are made after the recorders.
	StoreOf func(profile string) *gang.Store
}

var _ events.EventBroadcasterAdapter = &Broadcaster{}

// NewRecorder returns the filtering recorder of profile name.
func (b *Broadcaster) NewRecorder(name string) events.EventRecorderLogger {
	return &recorder{EventRecorderLogger: b.EventBroadcasterAdapter.NewRecorder(name), profile: name, storeOf: b.StoreOf}
}

type recorder struct {
	events.EventRecorderLogger
	profile string
	storeOf func(string) *gang.Store
}

// Eventf records the event unless it is the Scheduled event of a member placed with its quorum.
func (r *recorder) Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...interface{}) {
	if r.coalesced(regarding, eventtype, reason) {
		metrics.MemberEventsCoalesced.Inc()
		return
	}
	r.EventRecorderLogger.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// WithLogger keeps the filter on the recorder the framework derives per cycle.
func (r *recorder) WithLogger(logger klog.Logger) events.EventRecorderLogger {
	return &recorder{EventRecorderLogger: r.EventRecorderLogger.WithLogger(logger), profile: r.profile, storeOf: r.storeOf}
}

func (r *recorder) coalesced(regarding runtime.Object, eventtype, reason string) bool {
	if reason != reasonScheduled || eventtype != v1.EventTypeNormal {
		return false
	}
	pod, ok := regarding.(*v1.Pod)
	if !ok {
		return false
	}
	s := r.storeOf(r.profile)
	return s != nil && s.WithQuorum(pod)
}
