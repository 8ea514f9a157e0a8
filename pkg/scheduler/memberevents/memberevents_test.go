package memberevents

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// sink records what reaches the wrapped recorder.
type sink struct{ got []string }

func (s *sink) StartRecordingToSink(<-chan struct{})          {}
func (s *sink) NewRecorder(string) events.EventRecorderLogger { return &rec{s} }
func (s *sink) DeprecatedNewLegacyRecorder(name string) record.EventRecorderLogger {
	return &legacyRec{s: s, component: name}
}
func (s *sink) Shutdown() {}

type rec struct{ s *sink }

func (r *rec) Eventf(regarding runtime.Object, _ runtime.Object, eventtype, reason, _, _ string, _ ...interface{}) {
	name := regarding.(metav1.Object).GetName()
	r.s.got = append(r.s.got, eventtype+" "+reason+" "+name)
}
func (r *rec) WithLogger(klog.Logger) events.EventRecorderLogger { return r }

// legacyRec records what reaches the core/v1 recorder, with its component.
type legacyRec struct {
	s         *sink
	component string
}

func (r *legacyRec) Event(o runtime.Object, eventtype, reason, _ string) {
	r.s.got = append(r.s.got, "core/"+r.component+" "+eventtype+" "+reason+" "+o.(metav1.Object).GetName())
}
func (r *legacyRec) Eventf(o runtime.Object, eventtype, reason, note string, _ ...interface{}) {
	r.Event(o, eventtype, reason, note)
}
func (r *legacyRec) AnnotatedEventf(o runtime.Object, _ map[string]string, eventtype, reason, note string, _ ...interface{}) {
	r.Event(o, eventtype, reason, note)
}
func (r *legacyRec) WithLogger(klog.Logger) record.EventRecorderLogger { return r }

func member(name string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), Labels: map[string]string{"grove.io/podgang": "g", "grove.io/podclique": "w"}}}
}

func TestScheduledEventOfQuorumMembersLeftOut(t *testing.T) {
	store := gang.NewStore(gang.DefaultMembership(), nil)
	store.SetSpec(gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}, PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 1}}})
	first, later := member("g-w-0"), member("g-w-1")
	store.UpsertPod(first)
	store.UpsertPod(later)
	store.Assume(first, "n0")
	store.MarkBound(first, "n0") // establishes the gang
	store.Assume(later, "n1")    // placed on its own, after
	s := &sink{}
	b := &Broadcaster{EventBroadcasterAdapter: s, StoreOf: func(p string) *gang.Store {
		if p == "phalanx-scheduler" {
			return store
		}
		return nil
	}}
	r := b.NewRecorder("phalanx-scheduler").WithLogger(klog.Background())
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain"}}
	r.Eventf(first, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned")
	r.Eventf(later, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned")
	r.Eventf(plain, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned")
	r.Eventf(first, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "no fit")
	r.Eventf(&schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}}, nil, v1.EventTypeNormal, "Scheduled", "Established", "Quorum bound")
	other := b.NewRecorder("other-profile")
	other.Eventf(first, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned")
	want := []string{"Normal Scheduled g-w-1", "Normal Scheduled plain", "Warning FailedScheduling g-w-0", "Normal Scheduled g", "Normal Scheduled g-w-0"}
	if len(s.got) != len(want) {
		t.Fatalf("events written %v, want %v", s.got, want)
	}
	for i := range want {
		if s.got[i] != want[i] {
			t.Fatalf("events written %v, want %v", s.got, want)
		}
	}
}

// A profile that speaks KAI's words writes a pod's FailedScheduling as KAI's Unschedulable, a
// core/v1 event from the component named as the profile; other profiles, and events of other
// objects, are untouched.
func TestFailedSchedulingInKAIWords(t *testing.T) {
	s := &sink{}
	b := &Broadcaster{EventBroadcasterAdapter: s, StoreOf: func(string) *gang.Store { return nil },
		KAIEvents: func(p string) bool { return p == "kai-scheduler" }}
	kai := b.NewRecorder("kai-scheduler").WithLogger(klog.Background())
	plain := b.NewRecorder("phalanx-scheduler")
	pod := member("g-w-0")
	kai.Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "0/3 nodes are available")
	kai.Eventf(&schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}}, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "gang")
	kai.Eventf(pod, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned")
	plain.Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "0/3 nodes are available")
	want := []string{"core/kai-scheduler Warning Unschedulable g-w-0", "Warning FailedScheduling g", "Normal Scheduled g-w-0", "Warning FailedScheduling g-w-0"}
	if fmt.Sprint(s.got) != fmt.Sprint(want) {
		t.Fatalf("events written %v, want %v", s.got, want)
	}
}

// Through client-go's adapter, KAI's event is what Grove's e2e suite reads: a core/v1 Warning
// of reason Unschedulable, source component the profile, with a last timestamp.
func TestKAIEventAsWritten(t *testing.T) {
	client := fake.NewSimpleClientset()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	adapter := events.NewEventBroadcasterAdapterWithContext(ctx, client)
	adapter.StartRecordingToSink(ctx.Done())
	defer adapter.Shutdown()
	b := &Broadcaster{EventBroadcasterAdapter: adapter, StoreOf: func(string) *gang.Store { return nil },
		KAIEvents: func(string) bool { return true }}
	b.NewRecorder("kai-scheduler").Eventf(member("g-w-0"), nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "0/%d nodes are available", 3)
	var got []v1.Event
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Events("ns").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = list.Items
		return len(got) > 0, nil
	}); err != nil {
		t.Fatalf("no core/v1 event written: %v", err)
	}
	e := got[0]
	if e.Type != v1.EventTypeWarning || e.Reason != ReasonKAIUnschedulable || e.Source.Component != "kai-scheduler" ||
		e.LastTimestamp.IsZero() || e.InvolvedObject.Name != "g-w-0" || e.Message != "0/3 nodes are available" {
		t.Errorf("event %+v: want Warning Unschedulable from kai-scheduler about g-w-0 with a last timestamp and the note", e)
	}
}
