package gangplugin

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// This file holds what the status writers of every gang kind share (WriterBase): the Warning
// limiter, events on a gang object, the Preempted event, the writable check, the write from
// the live object, and the settler that holds back writes that tell nothing new.

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

// ConflictRetries bounds the re-reads after a conflict within one status write (then the
// status queue's back-off takes over).
const ConflictRetries = 3

// Write is what a status write ended with.
type Write uint8

const (
	// Unchanged: the live object already has the status.
	Unchanged Write = iota
	// Written: the status was written.
	Written
	// Gone: the object was deleted meanwhile.
	Gone
)

// WriteLive writes gang k's status with write, from the live object: write returns false
// when the object has the status already. After a conflict (another writer, or a stale cache
// of ours, moved the object) it reads the object again with get and starts over, at most
// ConflictRetries times, so a concurrent write by the gang's operator is never overwritten.
// It returns the object it last wrote or read.
func WriteLive[T any](k gang.Key, live T, write func(T) (bool, error), get func() (T, error)) (T, Write, error) {
	for attempt := 0; ; attempt++ {
		wrote, err := write(live)
		switch {
		case err == nil && wrote:
			return live, Written, nil
		case err == nil:
			return live, Unchanged, nil
		case !apierrors.IsConflict(err) || attempt == ConflictRetries:
			return live, Unchanged, fmt.Errorf("updating status of %s: %w", k, err)
		}
		next, err := get()
		if apierrors.IsNotFound(err) {
			return live, Gone, nil
		}
		if err != nil {
			return live, Unchanged, fmt.Errorf("reading %s after a conflict: %w", k, err)
		}
		live = next
	}
}

// WriterBase is what every gang status writer shares: the store it reads, the queue that
// feeds it, how it records events on its gang objects (of apiVersion and objectKind), and its
// Warning limiter.
type WriterBase struct {
	*StatusQueue
	Store    *gang.Store
	Warnings *WarnLimiter
	// Settler holds back writes that tell nothing new (Settle, FirstStatusAfter).
	Settler *Settler

	recorder               events.EventRecorder
	apiVersion, objectKind string
}

// NewWriterBase returns the base of a writer of gangs of kind, whose status queue (named
// queueName) runs sync.
func NewWriterBase(queueName string, kind gang.Kind, store *gang.Store, recorder events.EventRecorder, apiVersion, objectKind string, sync func(context.Context, gang.Key) error) WriterBase {
	return WriterBase{StatusQueue: NewStatusQueue(queueName, kind, sync), Store: store, Warnings: NewWarnLimiter(nil), Settler: NewSettler(nil),
		recorder: recorder, apiVersion: apiVersion, objectKind: objectKind}
}

// Event records an event on gang k's object, with the object's UID when the store knows it.
// A writer without a recorder records nothing.
func (b *WriterBase) Event(k gang.Key, eventType, reason, action, note string) {
	if b.recorder == nil {
		return
	}
	ref := &v1.ObjectReference{APIVersion: b.apiVersion, Kind: b.objectKind, Namespace: k.Namespace, Name: k.Name}
	if spec, ok := b.Store.Spec(k); ok {
		ref.UID = spec.UID
	}
	b.recorder.Eventf(ref, nil, eventType, reason, action, "%s", note)
}

// Preempted records the one Preempted event of a gang whose members were preempted (note
// names the preemptor) and asks for its status to be written (the DisruptionTarget condition
// of a gang preempted whole, where its kind has one).
func (b *WriterBase) Preempted(k gang.Key, note string) {
	b.Event(k, v1.EventTypeWarning, "Preempted", "Preempting", note)
	b.Enqueue(k)
}

// Writable returns the gang's status when it is Phalanx's to write now: a member of this
// scheduler was seen (a gang whose pods all name another scheduler is not ours), and its
// quorum is not binding (gang.Store.Binding: its establishment has the status written).
func (b *WriterBase) Writable(k gang.Key) (gang.Status, bool) {
	st := b.Store.Status(k)
	return st, st.Served && !st.Binding
}

// Settle is how long after a gang's last status write a write that changes only condition
// messages waits: a count moving, not a transition (members arriving one by one rewrite "w has
// 37 of 512" with every pod). A held write is written when the wait ends if it still differs
// then; a transition (a phase, a condition's status or reason, the observed generation) is
// written at once.
const Settle = 2 * time.Second

// FirstStatusAfter is how long a gang's first status waits while it says nothing but that the
// gang waits its turn (nothing blocks it, nothing is bound, it is not established): a gang
// placed meanwhile is written once, established. Without it every gang of a queue (a workload
// created at once, every pending gang after a restart) is written twice within its placement.
const FirstStatusAfter = 10 * time.Second

// Settler holds back a status writer's writes that tell nothing new (Settle,
// FirstStatusAfter).
type Settler struct {
	mu sync.Mutex
	// since is, per gang, when it was last written, or first held if it was not written yet.
	since map[gang.Key]time.Time
	now   func() time.Time
}

// NewSettler returns a settler on the clock now (time.Now when nil).
func NewSettler(now func() time.Time) *Settler {
	if now == nil {
		now = time.Now
	}
	return &Settler{since: map[gang.Key]time.Time{}, now: now}
}

// Hold returns how long a write of gang k's status must still wait (0: write now) when it
// may wait d (Quiet) after the gang's last write, or after its first hold when it was not
// written yet.
func (m *Settler) Hold(k gang.Key, d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	since, ok := m.since[k]
	if !ok {
		m.since[k] = now
		return d
	}
	return max(0, d-now.Sub(since))
}

// Wrote notes that gang k's status was written now.
func (m *Settler) Wrote(k gang.Key) {
	m.mu.Lock()
	m.since[k] = m.now()
	m.mu.Unlock()
}

// Forget drops what the settler remembers of a deleted gang.
func (m *Settler) Forget(k gang.Key) {
	m.mu.Lock()
	delete(m.since, k)
	m.mu.Unlock()
}

// Quiet returns how long a status for st may wait (Settler.Hold; 0: a transition, written at
// once): FirstStatusAfter when live has none of Phalanx's conditions yet (first, the type
// Phalanx writes first) and st is a gang waiting its turn; Settle when the phase stays
// (samePhase; a kind without one passes true) and the conditions differ from live's at most
// in their messages.
func Quiet(live, desired []metav1.Condition, first string, st gang.Status, samePhase bool) time.Duration {
	if meta.FindStatusCondition(live, first) == nil {
		if !st.Established && st.Bound == 0 && st.Wait.Reason == "" {
			return FirstStatusAfter
		}
		return 0
	}
	if samePhase && OnlyMessagesDiffer(live, desired) {
		return Settle
	}
	return 0
}

// OnlyMessagesDiffer reports whether conditions a and b have the same types, statuses,
// reasons and observed generations, so that they differ at most in their messages.
func OnlyMessagesDiffer(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		cb := meta.FindStatusCondition(b, a[i].Type)
		if cb == nil || a[i].Status != cb.Status || a[i].Reason != cb.Reason || a[i].ObservedGeneration != cb.ObservedGeneration {
			return false
		}
	}
	return true
}
