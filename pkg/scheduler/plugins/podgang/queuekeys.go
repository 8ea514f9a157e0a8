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
// queued again: a failed attempt re-adds it with a new timestamp, and an update of the pod
// (a new resourceVersion) re-sorts it in the heap. A heap stays ordered only while its keys
// hold still; read from the gang store at each comparison, a key (placed counts,
// establishment) changed under pods already in the heap, and minimums before extras held
// for the pod being pushed only.
//
// The store is read once per queueing of a pod, not at each of the heap's comparisons.
type queueKeys struct {
	mu   sync.Mutex
	keys map[types.UID]queuedKey
}

type queuedKey struct {
	// queued and version identify one queueing of the pod: the queue's timestamp and the
	// pod's resourceVersion.
	queued  time.Time
	version string
	key     gang.QueueKey
	ok      bool
}

func newQueueKeys() *queueKeys { return &queueKeys{keys: map[types.UID]queuedKey{}} }

// get returns pod's key for its queueing at queued, computing it the first time.
func (q *queueKeys) get(pod *v1.Pod, queued time.Time, compute func() (gang.QueueKey, bool)) (gang.QueueKey, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, found := q.keys[pod.UID]; found && e.queued.Equal(queued) && e.version == pod.ResourceVersion {
		return e.key, e.ok
	}
	k, ok := compute()
	q.keys[pod.UID] = queuedKey{queued: queued, version: pod.ResourceVersion, key: k, ok: ok}
	return k, ok
}

// forget drops the key of a pod that left the queue for good (bound or deleted).
func (q *queueKeys) forget(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.keys, uid)
}

// len is the number of pods with a key (tests).
func (q *queueKeys) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.keys)
}
