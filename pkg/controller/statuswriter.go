package controller

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// statusWriter writes the statuses of a pass after the pass has returned, so that the next
// step of the same PodCliqueSet does not wait behind them: the queue runs one pass per key at
// a time, and an update is a chain of steps each waiting for the one before, so the status
// writes of every step sat on the update's critical path (measured: about half of the step
// latency at 100 replicas). Per key at most one write runs; a newer pass's write replaces one
// still waiting (statuses are levels: the newest wins), so writes of one key never overlap
// and never go out of order.
//
// Writes of one key start at least interval apart: the first after a quiet spell goes at
// once, the ones that follow it carry every pass of the interval in one write. An update's
// steps come tens of milliseconds apart, and a write per step (measured at 100 replicas: 5,000
// status writes in a 70 s update, a quarter of all API writes) took API server time from the
// next step's creates and deletes; a status up to interval old is what a reader sees anyway.
// An urgent write (a condition that may last less than the interval, SurgeBlocked) goes at
// once: coalesced, a surge refused and then given up for maxUnavailable was never written.
type statusWriter struct {
	mu       sync.Mutex
	running  map[string]bool
	pending  map[string]func(context.Context) error
	interval time.Duration
	// done reports each write's result (the controller logs and retries failures).
	done func(ctx context.Context, key string, err error)
	wg   sync.WaitGroup
	// closed is set by wait: a pass still finishing while the controller stops submits
	// nothing more (its write is dropped; the next leader computes the statuses again), so
	// that no write starts while wait waits (a WaitGroup may not grow from zero during Wait).
	closed bool
	// stop ends the spacing of writes when wait begins (a write waiting runs at once).
	stop chan struct{}
	// after is time.After (tests replace it to hold the spacing until they release it).
	after func(time.Duration) <-chan time.Time
	// wake ends the spacing of a key's writes for an urgent write (one slot per running key).
	wake map[string]chan struct{}
}

// statusInterval is the controller's spacing of status writes of one PodCliqueSet.
const statusInterval = 500 * time.Millisecond

func newStatusWriter(interval time.Duration, done func(ctx context.Context, key string, err error)) *statusWriter {
	return &statusWriter{running: map[string]bool{}, pending: map[string]func(context.Context) error{}, interval: interval, done: done, stop: make(chan struct{}), after: time.After, wake: map[string]chan struct{}{}}
}

// submit runs write for key now when no write of key ran in the last interval, else after
// that (replacing a write that waits); an urgent write does not wait for the interval (it
// still waits for a write in flight).
func (w *statusWriter) submit(ctx context.Context, key string, write func(context.Context) error, urgent bool) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.pending[key] = write
	if w.running[key] {
		if urgent {
			select {
			case w.wake[key] <- struct{}{}:
			default: // woken already
			}
		}
		w.mu.Unlock()
		return
	}
	w.running[key] = true
	wake := make(chan struct{}, 1)
	w.wake[key] = wake
	w.wg.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.wg.Done()
		for {
			w.mu.Lock()
			write := w.pending[key]
			delete(w.pending, key)
			if write == nil {
				delete(w.running, key)
				delete(w.wake, key)
				w.mu.Unlock()
				return
			}
			w.mu.Unlock()
			w.done(ctx, key, write(ctx))
			if w.interval > 0 {
				select {
				case <-w.after(w.interval):
				case <-wake:
				case <-w.stop:
				case <-ctx.Done():
				}
			}
		}
	}()
}

// wait refuses further writes and blocks until none is in flight (shutdown).
func (w *statusWriter) wait() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
	w.mu.Unlock()
	w.wg.Wait()
}

// statusWritten handles the result of a deferred status write: a conflict (the object moved
// since the pass read it) brings a new pass at once, which computes the status again; another
// failure is reported as a failed pass would be and retried with backoff.
func (c *Controller) statusWritten(ctx context.Context, key string, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	if apierrors.IsConflict(err) {
		c.queue.Add(key)
		return
	}
	klog.FromContext(ctx).Error(err, "Writing PodCliqueSet statuses", "key", key)
	c.reportFailure(key, err)
	c.queue.AddRateLimited(key)
}

// ownWrites remembers, per PodCliqueSet, the objects this controller's status writes returned
// and the resourceVersion each was written over, so that a status computed before the cache
// shows a write starts from what was written (read your own writes) instead of failing on a
// conflict or, worse, writing derived fields (an update's start time) again from an older
// status.
type ownWrites struct {
	mu sync.Mutex
	m  map[string]map[string]ownWrite // set key -> kind/name -> write
}

type ownWrite struct {
	over string
	obj  any
}

func newOwnWrites() *ownWrites {
	return &ownWrites{m: map[string]map[string]ownWrite{}}
}

// note records that obj (as returned by the API server) was written over resourceVersion over.
func (o *ownWrites) note(set, kind, name, over string, obj metav1.Object) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m[set] == nil {
		o.m[set] = map[string]ownWrite{}
	}
	o.m[set][kind+"/"+name] = ownWrite{over: over, obj: obj}
}

// fresher returns what was written of kind/name when the cache still shows the version it
// was written over (cachedRV), else nil (the cache has caught up, or someone else wrote since:
// the cache's copy is the one to start from, and the record is dropped).
func (o *ownWrites) fresher(set, kind, name, cachedRV string) any {
	o.mu.Lock()
	defer o.mu.Unlock()
	w, ok := o.m[set][kind+"/"+name]
	if !ok {
		return nil
	}
	if w.over == cachedRV {
		return w.obj
	}
	delete(o.m[set], kind+"/"+name)
	return nil
}

// forget drops what is kept for a set that is gone.
func (o *ownWrites) forget(set string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, set)
}

// statusOnly reports whether an update from old to cur changed neither the spec (generation)
// nor the metadata the controller reads: only the status (or bookkeeping such as managed
// fields).
func statusOnly(old, cur metav1.Object) bool {
	return old.GetGeneration() == cur.GetGeneration() &&
		old.GetDeletionTimestamp().Equal(cur.GetDeletionTimestamp()) &&
		maps.Equal(old.GetLabels(), cur.GetLabels()) &&
		maps.Equal(old.GetAnnotations(), cur.GetAnnotations()) &&
		slices.Equal(old.GetFinalizers(), cur.GetFinalizers())
}

// freshBase brings the objects whose statuses a deferred write computes from up to date: the
// PodCliqueSet, its cliques and scaling groups as the cache has them now, or as this
// controller last wrote them when the cache does not show that write yet. ok is false when the
// PodCliqueSet is gone or its spec changed since the pass (nothing is to be written).
func (c *Controller) freshBase(key string, pcs *grovev1.PodCliqueSet, obs *observed) (*grovev1.PodCliqueSet, bool) {
	cur, err := c.sets.PodCliqueSets(pcs.Namespace).Get(pcs.Name)
	if err != nil || cur.UID != pcs.UID || cur.Generation != pcs.Generation {
		// Gone, or its spec changed since the pass: the status of the pass's plan would claim
		// the new generation observed. The spec's event has queued a pass that writes it.
		return nil, false
	}
	if w, ok := c.own.fresher(key, "PodCliqueSet", cur.Name, cur.ResourceVersion).(*grovev1.PodCliqueSet); ok {
		cur = w
	}
	for name, x := range obs.cliques {
		obs.cliques[name] = freshest(c.own, key, "PodClique", x, c.cliques.PodCliques(pcs.Namespace).Get)
	}
	for name, x := range obs.groups {
		obs.groups[name] = freshest(c.own, key, "PodCliqueScalingGroup", x, c.groups.PodCliqueScalingGroups(pcs.Namespace).Get)
	}
	return cur, true
}

// freshest is the newest known version of child x of set: the cache's (get), or what this
// controller last wrote of it when the cache does not show that write yet.
func freshest[T metav1.Object](own *ownWrites, set, kind string, x T, get func(name string) (T, error)) T {
	if got, err := get(x.GetName()); err == nil && got.GetUID() == x.GetUID() {
		x = got
	}
	if w, ok := own.fresher(set, kind, x.GetName(), x.GetResourceVersion()).(T); ok {
		x = w
	}
	return x
}

// planningStatusChanged reports whether a PodCliqueSet status change is one a pass plans from:
// the complete revision (partition, Coherent scope) or a condition's status or reason (a
// progress deadline exceeded starts a rollback). Counts and times are not.
func planningStatusChanged(old, cur *grovev1.PodCliqueSet) bool {
	if old.Status.CompleteRevision != cur.Status.CompleteRevision || len(old.Status.Conditions) != len(cur.Status.Conditions) {
		return true
	}
	for _, c := range cur.Status.Conditions {
		o := meta.FindStatusCondition(old.Status.Conditions, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason {
			return true
		}
	}
	return false
}
