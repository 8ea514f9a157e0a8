package memberevents

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// sink records what reaches the wrapped recorder.
type sink struct{ got []string }

func (s *sink) StartRecordingToSink(<-chan struct{})                          {}
func (s *sink) NewRecorder(string) events.EventRecorderLogger                 { return &rec{s} }
func (s *sink) DeprecatedNewLegacyRecorder(string) record.EventRecorderLogger { return nil }
func (s *sink) Shutdown()                                                     {}

type rec struct{ s *sink }

func (r *rec) Eventf(regarding runtime.Object, _ runtime.Object, eventtype, reason, _, _ string, _ ...interface{}) {
	name := regarding.(metav1.Object).GetName()
	r.s.got = append(r.s.got, eventtype+" "+reason+" "+name)
}
func (r *rec) WithLogger(klog.Logger) events.EventRecorderLogger { return r }

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
