package gangplugin

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// StatusQueue feeds a status writer: gang keys in, one sync per key at a time, retries with
// back-off. It runs only once its scheduler leads: a follower writes nothing, and what it
// queued meanwhile is written once it leads.
type StatusQueue struct {
	kind  gang.Kind
	sync  func(ctx context.Context, k gang.Key) error
	queue workqueue.TypedRateLimitingInterface[gang.Key]
}

// NewStatusQueue returns a queue for gangs of kind, synced by sync.
func NewStatusQueue(name string, kind gang.Kind, sync func(ctx context.Context, k gang.Key) error) *StatusQueue {
	return &StatusQueue{kind: kind, sync: sync,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[gang.Key](),
			workqueue.TypedRateLimitingQueueConfig[gang.Key]{Name: name})}
}

// Enqueue asks for the gang's status to be brought up to date (gangs of other kinds are
// ignored).
func (q *StatusQueue) Enqueue(k gang.Key) {
	if k.Kind == q.kind {
		q.queue.Add(k)
	}
}

// EnqueueAfter asks for the gang's status to be brought up to date after d.
func (q *StatusQueue) EnqueueAfter(k gang.Key, d time.Duration) {
	if k.Kind == q.kind {
		q.queue.AddAfter(k, d)
	}
}

// Run processes the queue from when elected is closed (the scheduler leads; nil: at once)
// until ctx ends.
func (q *StatusQueue) Run(ctx context.Context, elected <-chan struct{}) {
	go func() {
		<-ctx.Done()
		q.queue.ShutDown()
	}()
	if elected != nil {
		select {
		case <-elected:
		case <-ctx.Done():
			return
		}
	}
	for {
		k, quit := q.queue.Get()
		if quit {
			return
		}
		if err := q.sync(ctx, k); err != nil {
			klog.FromContext(ctx).V(2).Info("Retrying gang status update", "gang", k.String(), "err", err)
			q.queue.AddRateLimited(k)
		} else {
			q.queue.Forget(k)
		}
		q.queue.Done(k)
	}
}
