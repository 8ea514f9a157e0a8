package podgang

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/ganggate"
)

// gatedQueue is kube-scheduler's queue for a profile with the PodGang plugin, and GangGate
// when withGate, each with the QueueingHints of its EventsToRegister (every call counted in
// calls); the PodGang plugin sorts it.
func gatedQueue(t testing.TB, withGate bool) (*Plugin, fwk.PreEnqueuePlugin, *internalqueue.PriorityQueue, *int) {
	t.Helper()
	ctx, p, h, rt := runtimePlugin(t)
	p.AttachGate(ctx)

	calls := new(int)
	hints := internalqueue.QueueingHintMap{}
	register := func(plugin string, ext fwk.EnqueueExtensions) {
		events, err := ext.EventsToRegister(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			fn := func(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
				*calls++
				return e.QueueingHintFn(logger, pod, oldObj, newObj)
			}
			hints[e.Event] = append(hints[e.Event], &internalqueue.QueueingHintFunction{PluginName: plugin, QueueingHintFn: fn})
		}
	}
	register(Name, p)
	preEnqueue := map[string]fwk.PreEnqueuePlugin{Name: p}
	var gater fwk.PreEnqueuePlugin = p
	if withGate {
		gate, err := ganggate.New(rt)(ctx, nil, h)
		if err != nil {
			t.Fatal(err)
		}
		register(ganggate.Name, gate.(fwk.EnqueueExtensions))
		gater = gate.(fwk.PreEnqueuePlugin)
		preEnqueue[ganggate.Name] = gater
	}
	q := internalqueue.NewTestQueue(ctx, p.Less,
		internalqueue.WithPreEnqueuePluginMap(map[string]map[string]fwk.PreEnqueuePlugin{"": preEnqueue}),
		internalqueue.WithQueueingHintMapPerProfile(internalqueue.QueueingHintMapPerProfile{"": hints}))
	return p, gater, q, calls
}

// addGated queues n of the 3 members of gang g (minimum 3): they wait at PreEnqueue for the
// third.
func addGated(t testing.TB, p *Plugin, q *internalqueue.PriorityQueue, g string, n int) []*v1.Pod {
	t.Helper()
	p.Store().SetSpec(oneGroup(g, 3, time.Now().Add(-time.Minute)))
	var pods []*v1.Pod
	for i := 0; i < n; i++ {
		m := member(g, i)
		m.Spec.Priority = ptr.To[int32](0)
		p.Store().UpsertPod(m)
		q.Add(context.Background(), m)
		pods = append(pods, m)
	}
	return pods
}

func nodeAdded(q *internalqueue.PriorityQueue, name string) {
	q.MoveAllToActiveOrBackoffQueue(klog.Background(), fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}, nil,
		&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil)
}

// With GangGate in the profile, the queue passes a gated gang member by for a node added
// without running a hint (the gate registers no node event); gated by the PodGang plugin,
// each node added ran the plugin's hint for every gated member (at a scheduler's start: 5,000
// nodes times every member waiting for its gang). Either way the member is admitted when the
// member its gang waited for arrives.
func TestGatedMembersSkipNodeEvents(t *testing.T) {
	for _, withGate := range []bool{false, true} {
		t.Run(fmt.Sprintf("GangGate=%v", withGate), func(t *testing.T) {
			p, gater, q, calls := gatedQueue(t, withGate)
			gated := addGated(t, p, q, "g", 2)
			if n := len(q.PodsInActiveQ()); n != 0 {
				t.Fatalf("%d members in the active queue while their gang lacks one", n)
			}
			if st := gater.PreEnqueue(context.Background(), gated[0]); st == nil || !strings.Contains(st.Message(), "waits for members") {
				t.Errorf("%s's PreEnqueue: %v, want the gang's wait for its members", gater.Name(), st)
			}
			if withGate {
				if st := p.PreEnqueue(context.Background(), gated[0]); st != nil {
					t.Errorf("the PodGang plugin's own PreEnqueue held a member while GangGate admits: %v", st)
				}
			}
			for i := 0; i < 10; i++ {
				nodeAdded(q, fmt.Sprintf("n%d", i))
			}
			want := 0
			if !withGate {
				want = 10 * len(gated)
			}
			if *calls != want {
				t.Errorf("hints ran %d times for the gated members and 10 nodes added, want %d", *calls, want)
			}
			last := member("g", 2)
			last.Spec.Priority = ptr.To[int32](0)
			p.Store().UpsertPod(last)
			q.Add(context.Background(), last)
			q.MoveAllToActiveOrBackoffQueue(klog.Background(), fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add}, nil, last, nil)
			if n := len(q.PodsInActiveQ()); n != 3 {
				t.Errorf("%d of the gang's 3 members in the active queue once the last arrived, want 3", n)
			}
		})
	}
}

// BenchmarkNodeAddWithGatedMembers is one node added while 3,000 gang members wait at
// PreEnqueue for their gangs (a scheduler's start: nodes and pods arrive together).
func BenchmarkNodeAddWithGatedMembers(b *testing.B) {
	for _, withGate := range []bool{false, true} {
		b.Run(fmt.Sprintf("GangGate=%v", withGate), func(b *testing.B) {
			p, _, q, _ := gatedQueue(b, withGate)
			for g := 0; g < 1500; g++ {
				addGated(b, p, q, fmt.Sprintf("g%d", g), 2)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nodeAdded(q, "n")
			}
		})
	}
}
