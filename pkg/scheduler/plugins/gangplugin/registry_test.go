package gangplugin

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// Two schedulers in one process have two Runtimes: the one that leads writes statuses, the
// other writes nothing (with one process-wide signal, the follower's writers started as soon
// as the leader's did).
func TestStatusQueueWritesOnlyForItsLeadingScheduler(t *testing.T) {
	leader, follower := NewRuntime(), NewRuntime()
	var byLeader, byFollower atomic.Int64
	k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
	ql := NewStatusQueue("leader", gang.KindPodGang, func(context.Context, gang.Key) error { byLeader.Add(1); return nil })
	qf := NewStatusQueue("follower", gang.KindPodGang, func(context.Context, gang.Key) error { byFollower.Add(1); return nil })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ql.Run(ctx, leader.Elected())
	go qf.Run(ctx, follower.Elected())
	ql.Enqueue(k)
	qf.Enqueue(k)
	leader.MarkLeading()
	synced := func(n *atomic.Int64) {
		_ = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) { return n.Load() > 0, nil })
	}
	synced(&byLeader)
	if byLeader.Load() != 1 {
		t.Fatalf("the leading scheduler's queue synced %d times, want 1", byLeader.Load())
	}
	if follower.Leading() || byFollower.Load() != 0 {
		t.Fatalf("the follower leads %v and synced %d times; want false and 0", follower.Leading(), byFollower.Load())
	}
	// Once it leads, what it queued meanwhile is written.
	follower.MarkLeading()
	synced(&byFollower)
	if byFollower.Load() != 1 {
		t.Errorf("the new leader synced %d times, want 1", byFollower.Load())
	}
}
