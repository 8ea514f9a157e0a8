package update

import (
	"sort"
	"time"
)

// ExpectationsTTL is how long a write is waited for before a pass acts without seeing it (a
// watch event lost for good; ReplicaSet's controller waits the same 5 minutes).
const ExpectationsTTL = 5 * time.Minute

// Expectations are the member writes of earlier passes that the caches have not shown yet,
// in the Kubernetes controller style (ReplicaSet's, Grove's expect package): a pass must not
// plan from a view that lacks its own writes, or it would create a member twice, or count a
// member it has already deleted as available and delete another one beyond maxUnavailable.
// Keys name members (pod names in the controller); uids tell a recreated member from the
// one that was deleted. The zero value is ready to use; not safe for concurrent use (the
// controller keeps one per PodCliqueSet, used by the one worker that holds its key).
type Expectations struct {
	creates map[string]time.Time
	deletes map[string]expectedDelete
}

type expectedDelete struct {
	uid string
	at  time.Time
}

// Seen is what the view shows of a member: present, its uid, and whether it is terminating.
type Seen func(key string) (uid string, terminating, present bool)

// ExpectCreate records a member created at now.
func (e *Expectations) ExpectCreate(key string, now time.Time) {
	if e.creates == nil {
		e.creates = map[string]time.Time{}
	}
	e.creates[key] = now
}

// ExpectDelete records the deletion of the member key with uid at now.
func (e *Expectations) ExpectDelete(key, uid string, now time.Time) {
	if e.deletes == nil {
		e.deletes = map[string]expectedDelete{}
	}
	e.deletes[key] = expectedDelete{uid: uid, at: now}
}

// Observe drops the writes the view shows (a created member present; a deleted one gone,
// terminating, or replaced by another uid) and those older than ExpectationsTTL, and returns
// the keys still awaited (sorted) and those that expired. A pass acts only when none is
// awaited.
func (e *Expectations) Observe(seen Seen, now time.Time) (awaited, expired []string) {
	for key, at := range e.creates {
		_, _, present := seen(key)
		switch {
		case present:
			delete(e.creates, key)
		case now.Sub(at) > ExpectationsTTL:
			delete(e.creates, key)
			expired = append(expired, key)
		default:
			awaited = append(awaited, key)
		}
	}
	for key, d := range e.deletes {
		uid, terminating, present := seen(key)
		switch {
		case !present || terminating || uid != d.uid:
			delete(e.deletes, key)
		case now.Sub(d.at) > ExpectationsTTL:
			delete(e.deletes, key)
			expired = append(expired, key)
		default:
			awaited = append(awaited, key)
		}
	}
	sort.Strings(awaited)
	sort.Strings(expired)
	return awaited, expired
}

// Lower drops what is recorded for key: the write failed and will not show. Writes are
// recorded before they are made (an event can reach the cache before the call returns, and
// must find its write recorded), so a failed one is taken back.
func (e *Expectations) Lower(key string) {
	delete(e.creates, key)
	delete(e.deletes, key)
}

// Pending reports whether any write is still recorded (before Observe).
func (e *Expectations) Pending() bool { return len(e.creates)+len(e.deletes) > 0 }

// Confirms reports whether a view of member key (its uid, terminating, present) shows one of
// the recorded writes taking effect: a created member present, a deleted member (by its uid)
// terminating. A member gone is not a confirmation: it is the end of the deletion, a new
// state (its replacement may be made).
func (e *Expectations) Confirms(key, uid string, terminating, present bool) bool {
	if _, ok := e.creates[key]; ok && present {
		return true
	}
	d, ok := e.deletes[key]
	return ok && present && terminating && uid == d.uid
}

// Saw drops what a watch event of member key shows done (a create present; a delete gone,
// terminating or replaced by another uid), as Observe does for a whole view. Controllers call
// it from their event handlers, as ReplicaSet's lowers its expectations there: a member
// created and gone again between two passes (deleted by someone else at once) is seen by the
// handler, never by a pass, and its create would otherwise be awaited until ExpectationsTTL.
func (e *Expectations) Saw(key, uid string, terminating, present bool) {
	if _, ok := e.creates[key]; ok && present {
		delete(e.creates, key)
	}
	if d, ok := e.deletes[key]; ok && (!present || terminating || uid != d.uid) {
		delete(e.deletes, key)
	}
}
