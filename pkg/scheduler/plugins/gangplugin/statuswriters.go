package gangplugin

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// This file holds what the status writers of every gang kind share: their Warning limiter and
// how they record events on a gang object.

// WarnEvery is how often the same Warning reason may be recorded again for one gang.
const WarnEvery = time.Minute

// WarnLimiter keeps a status writer from repeating a gang's Warning event: the same reason is
// recorded at most once per WarnEvery, however often its message changes.
type WarnLimiter struct {
	mu     sync.Mutex
	warned map[gang.Key]warning
	now    func() time.Time
}

type warning struct {
	reason string
	at     time.Time
}

// NewWarnLimiter returns a limiter on the clock now (time.Now when nil).
func NewWarnLimiter(now func() time.Time) *WarnLimiter {
	if now == nil {
		now = time.Now
	}
	return &WarnLimiter{warned: map[gang.Key]warning{}, now: now}
}

// MayWarn reports whether a Warning with reason may be recorded for gang k now, and notes it.
func (l *WarnLimiter) MayWarn(k gang.Key, reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if last, ok := l.warned[k]; ok && last.reason == reason && now.Sub(last.at) < WarnEvery {
		return false
	}
	l.warned[k] = warning{reason: reason, at: now}
	return true
}

// Forget drops what the limiter remembers of a deleted gang.
func (l *WarnLimiter) Forget(k gang.Key) {
	l.mu.Lock()
	delete(l.warned, k)
	l.mu.Unlock()
}

// RecordGangEvent records an event on gang k's object (of apiVersion and kind), with the
// object's UID when the store knows it. A nil recorder records nothing.
func RecordGangEvent(recorder events.EventRecorder, store *gang.Store, apiVersion, kind string, k gang.Key, eventType, reason, action, note string) {
	if recorder == nil {
		return
	}
	ref := &v1.ObjectReference{APIVersion: apiVersion, Kind: kind, Namespace: k.Namespace, Name: k.Name}
	if spec, ok := store.Spec(k); ok {
		ref.UID = spec.UID
	}
	recorder.Eventf(ref, nil, eventType, reason, action, "%s", note)
}
