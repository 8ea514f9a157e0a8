package podgang

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// queueKeys holds each queued pod's gang.QueueKey as it was when the queue first compared
// the pod after queueing it, and gives that key to every later comparison until the pod is
// queued again (a failed attempt re-adds it with a new timestamp; an update of the pod, a new
// resourceVersion, re-sorts it in the heap) or its class changes (reorder.go drops the key and
// has the queue re-sort the pod). A heap stays ordered only while its keys hold still; read
// from the gang store at each comparison, a key (placed counts, establishment) changed under
// pods already in the heap, and minimums before extras held for the pod being pushed only.
//
// The store is read once per queueing of a pod, not at each of the heap's comparisons. Keys
// are kept by gang too, so that a change of a gang finds its queued members.
type queueKeys struct {
	mu     sync.Mutex
	keys   map[types.UID]queuedKey
	byGang map[gangRef]map[types.UID]bool
}

// gangRef names a gang within the queue keys: its namespace and name (a PodGang and a
// PodGroup of one name share it; their members are only checked together).
type gangRef struct{ namespace, name string }

type queuedKey struct {
	// queued and version identify one queueing of the pod: the queue's timestamp and the
	// pod's resourceVersion.
	queued  time.Time
	version string
	pod     *v1.Pod
	key     gang.QueueKey
	ok      bool
}

func newQueueKeys() *queueKeys {
	return &queueKeys{keys: map[types.UID]queuedKey{}, byGang: map[gangRef]map[types.UID]bool{}}
}

// get returns pod's key for its queueing at queued, computing it the first time.
func (q *queueKeys) get(pod *v1.Pod, queued time.Time, compute func() (gang.QueueKey, bool)) (gang.QueueKey, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, found := q.keys[pod.UID]; found && e.queued.Equal(queued) && e.version == pod.ResourceVersion {
		return e.key, e.ok
	}
	k, ok := compute()
	q.dropLocked(pod.UID)
	q.keys[pod.UID] = queuedKey{queued: queued, version: pod.ResourceVersion, pod: pod, key: k, ok: ok}
	if ok {
		ref := gangRef{pod.Namespace, k.Name}
		if q.byGang[ref] == nil {
			q.byGang[ref] = map[types.UID]bool{}
		}
		q.byGang[ref][pod.UID] = true
	}
	return k, ok
}

// forget drops the key of a pod that left the queue: popped (PreFilter), bound or deleted.
func (q *queueKeys) forget(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dropLocked(uid)
}

func (q *queueKeys) dropLocked(uid types.UID) {
	e, found := q.keys[uid]
	if !found {
		return
	}
	delete(q.keys, uid)
	if e.ok {
		ref := gangRef{e.pod.Namespace, e.key.Name}
		delete(q.byGang[ref], uid)
		if len(q.byGang[ref]) == 0 {
			delete(q.byGang, ref)
		}
	}
}

// of returns the keys of gang k's queued members.
func (q *queueKeys) of(k gang.Key) []queuedKey {
	q.mu.Lock()
	defer q.mu.Unlock()
	uids := q.byGang[gangRef{k.Namespace, k.Name}]
	out := make([]queuedKey, 0, len(uids))
	for uid := range uids {
		out = append(out, q.keys[uid])
	}
	return out
}

// dropIfSame drops e's pod's key if it is still e (the same queueing, the same key); false
// when the pod was queued again or left meanwhile.
func (q *queueKeys) dropIfSame(e queuedKey) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	cur, found := q.keys[e.pod.UID]
	if !found || !cur.queued.Equal(e.queued) || cur.version != e.version || !sameKey(cur, e.key, e.ok) {
		return false
	}
	q.dropLocked(e.pod.UID)
	return true
}

// sameKey reports whether e holds key (and ok).
func sameKey(e queuedKey, key gang.QueueKey, ok bool) bool {
	if e.ok != ok {
		return false
	}
	a := e.key
	return a.Extra == key.Extra && a.Priority == key.Priority && a.Created.Equal(key.Created) && a.Name == key.Name && a.Index == key.Index
}

// len is the number of pods with a key (tests).
func (q *queueKeys) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.keys)
}
