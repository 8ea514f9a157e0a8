// Package resort moves a queued pod to its place in kube-scheduler's scheduling queue after
// the key its queue order sorts it by has changed (docs/architecture.md, "Queue order").
//
// The queue's heap is ordered by the QueueSort plugin's Less at the moment each pod is pushed
// or updated; a key that changes while the pod sits in the heap leaves it where it was. The
// gang queue order fixes each queued pod's key (podgang's queue keys) and, when a gang's
// change moves its members to another class (a lost member makes an extra needed for the
// minimum), drops the member's key and asks the queue to update the pod in place, which
// re-sorts it under the queue's own lock: the heap stays a heap, and the member is popped
// where its new class puts it.
package resort

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// Queue re-sorts pods in one scheduler's scheduling queue.
type Queue struct {
	// ctx is the scheduler's (the queue logs through it).
	ctx   context.Context
	queue internalqueue.SchedulingQueue
	// assumed reports whether the scheduler's cache holds pod as assumed (its binding is in
	// flight): such a pod has left the queue whatever the queue's last copy says.
	assumed func(*v1.Pod) bool
}

// New returns the Queue of sched; ctx is the scheduler's.
func New(ctx context.Context, sched *scheduler.Scheduler) *Queue {
	return NewForQueue(ctx, sched.SchedulingQueue, func(p *v1.Pod) bool {
		a, err := sched.Cache.IsAssumedPod(p)
		return err != nil || a
	})
}

// NewForQueue returns a Queue on queue; assumed (nil: none is) tells the pods whose binding
// is in flight.
func NewForQueue(ctx context.Context, queue internalqueue.SchedulingQueue, assumed func(*v1.Pod) bool) *Queue {
	if assumed == nil {
		assumed = func(*v1.Pod) bool { return false }
	}
	return &Queue{ctx: ctx, queue: queue, assumed: assumed}
}

// Resort re-sorts pod where the queue holds it (the active queue's heap, or the back-off
// queue), provided the queue still holds it as queued at queued (the queueing its old key
// belongs to): a pod queued again since, popped, bound or gated is left alone, since its old
// key is in no heap. It reports whether the pod was re-sorted. The caller has dropped the
// pod's old key, so that the queue's comparisons compute the new one.
//
// The queue's Update with the pod it holds (no change of the pod) re-sorts it without
// requeueing: in the active or back-off queue it is fixed in place; the timestamp check
// keeps pods in the unschedulable pool, where an update would run QueueingHints, out (a pod
// gets there only through a pop and a failed attempt, which stamps it anew).
//
// GetPod hands out the queue's own entry; its fields are read once, at once, outside the
// queue's lock (the queue offers no copy). The scheduler writes them only when it pops the
// pod and queues it again; a pod popped between GetPod and Update is in flight there, and
// Update records it as an event of its attempt instead of re-sorting it.
func (q *Queue) Resort(pod *v1.Pod, queued time.Time) bool {
	info, ok := q.queue.GetPod(pod.Name, pod.Namespace, pod.Spec.SchedulingGroup)
	if !ok {
		return false
	}
	held, stamp, gated := info.Pod, info.Timestamp, info.Gated()
	switch {
	case held.UID != pod.UID, !stamp.Equal(queued), gated,
		held.Spec.NodeName != "", held.DeletionTimestamp != nil, q.assumed(held):
		return false
	}
	q.queue.Update(q.ctx, held, held)
	return true
}
