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
// keeps pods in the unschedulable pool, where an update would run QueueingHints, out.
func (q *Queue) Resort(pod *v1.Pod, queued time.Time) bool {
	info, ok := q.queue.GetPod(pod.Name, pod.Namespace, pod.Spec.SchedulingGroup)
	switch {
	case !ok, info.Pod.UID != pod.UID, !info.Timestamp.Equal(queued), info.Gated(),
		info.Pod.Spec.NodeName != "", info.Pod.DeletionTimestamp != nil, q.assumed(info.Pod):
		return false
	}
	q.queue.Update(q.ctx, info.Pod, info.Pod)
	return true
}
