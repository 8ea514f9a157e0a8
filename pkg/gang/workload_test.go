package gang

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// upstreamGroup is a scheduling.k8s.io PodGroup of minCount.
func upstreamGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}}}}
}

// groupPod is a pod that joins the upstream PodGroup group with spec.schedulingGroup.
func groupPod(group string, i int) *v1.Pod {
	p := pod(group, "x", i)
	p.Labels = map[string]string{}
	p.Name, p.UID = fmt.Sprintf("%s-%d", group, i), types.UID(fmt.Sprintf("%s-%d", group, i))
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	return p
}

// An upstream PodGroup reads as one podgroup of minCount (1 under the basic policy), its
// required topology as the required packing, the Phalanx annotation as the preferred one;
// PodGroupInitiallyScheduled=True as established before; priority, preemptionPolicy and
// disruptionMode as they are.
func TestSpecFromWorkloadPodGroup(t *testing.T) {
	pg := upstreamGroup("serve", 4)
	pg.Annotations = map[string]string{AnnotationPreferredTopology: "topology.phalanx.dev/block"}
	pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "topology.phalanx.dev/rack"}}}
	pg.Spec.Priority = ptr.To[int32](500)
	pg.Spec.PreemptionPolicy = ptr.To(schedulingv1beta1.PreemptNever)
	pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	pg.Status.Conditions = []metav1.Condition{{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled"}}
	s := SpecFromWorkloadPodGroup(pg)
	if s.Key != (Key{Kind: KindWorkloadPodGroup, Namespace: ns, Name: "serve"}) || len(s.PodGroups) != 1 || s.PodGroups[0].MinReplicas != 4 {
		t.Errorf("key %v, podgroups %+v; want one podgroup of min 4", s.Key, s.PodGroups)
	}
	if s.Pack != (Pack{Required: "topology.phalanx.dev/rack", Preferred: "topology.phalanx.dev/block"}) {
		t.Errorf("pack %+v", s.Pack)
	}
	if !s.Scheduled || s.Priority == nil || *s.Priority != 500 || !s.PreemptNever || s.DisruptionMode != DisruptionAll {
		t.Errorf("scheduled %v, priority %v, preemptNever %v, disruption %v", s.Scheduled, s.Priority, s.PreemptNever, s.DisruptionMode)
	}
	basic := upstreamGroup("b", 0)
	basic.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
	basic.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	if s := SpecFromWorkloadPodGroup(basic); s.PodGroups[0].MinReplicas != 1 || s.Scheduled || s.Priority != nil || s.PreemptNever || s.DisruptionMode != DisruptionSingle {
		t.Errorf("basic policy read as %+v; want min 1, nothing else set, disruption single", s)
	}
	if s := SpecFromWorkloadPodGroup(upstreamGroup("u", 2)); s.DisruptionMode != DisruptionGang {
		t.Errorf("unset disruptionMode read as %v; want Phalanx's gang rule", s.DisruptionMode)
	}
}

// Membership: spec.schedulingGroup makes a pod a member of the upstream PodGroup; a PodGang
// or scheduler-plugins label wins over it; the StatefulSet ordinal and Job completion index
// order the members.
func TestWorkloadMembership(t *testing.T) {
	m := DefaultMembership()
	p := groupPod("g", 0)
	if k, ok := m.KeyOf(p); !ok || k != (Key{Kind: KindWorkloadPodGroup, Namespace: ns, Name: "g"}) {
		t.Errorf("KeyOf = %v, %v", k, ok)
	}
	p.Labels["grove.io/podgang"] = "pg"
	if k, _ := m.KeyOf(p); k.Kind != KindPodGang {
		t.Errorf("a pod with a PodGang label and spec.schedulingGroup is in %v; want its PodGang", k)
	}
	p.Spec.SchedulingGroup.PodGroupName = ptr.To("")
	delete(p.Labels, "grove.io/podgang")
	if _, ok := m.KeyOf(p); ok {
		t.Error("an empty podGroupName makes a member")
	}
	for label, want := range map[string]int{"apps.kubernetes.io/pod-index": 3, "batch.kubernetes.io/job-completion-index": 5} {
		q := groupPod("g", 1)
		q.Labels[label] = fmt.Sprint(want)
		if got := MemberIndex(q); got != want {
			t.Errorf("MemberIndex with %s=%d: %d", label, want, got)
		}
	}
}

// A gang object's priority is its members' priority for the queue and for preemption; a pod
// of no gang, or of a gang without one, keeps its own.
func TestGroupPriority(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(SpecFromWorkloadPodGroup(upstreamGroup("plain", 1)))
	if s.GangPriorities() {
		t.Error("GangPriorities with no gang priority set")
	}
	hi := upstreamGroup("hi", 1)
	hi.Spec.Priority = ptr.To[int32](900)
	s.SetSpec(SpecFromWorkloadPodGroup(hi))
	if !s.GangPriorities() {
		t.Error("GangPriorities false with a gang of priority 900")
	}
	member, other := groupPod("hi", 0), groupPod("plain", 0)
	member.Spec.Priority, other.Spec.Priority = ptr.To[int32](10), ptr.To[int32](10)
	s.UpsertPod(member)
	s.UpsertPod(other)
	if got := s.PriorityOf(member); got != 900 {
		t.Errorf("PriorityOf(member of a group of priority 900) = %d", got)
	}
	if got := s.PriorityOf(other); got != 10 {
		t.Errorf("PriorityOf(member of a group without priority) = %d; want the pod's 10", got)
	}
	if q, _ := s.SortKey(member); q.Priority != 900 {
		t.Errorf("SortKey priority %d; want the group's 900", q.Priority)
	}
	member.Spec.NodeName, other.Spec.NodeName = "n1", "n2"
	s.UpsertPod(member)
	s.UpsertPod(other)
	cands := s.PreemptionCandidates([]*v1.Pod{member, other}, 500, Key{}, func(*v1.Pod) time.Time { return time.Time{} })
	if len(cands) != 1 || cands[0].Pod.Name != other.Name {
		t.Errorf("candidates for a preemptor of 500: %v; want only the member of the group without priority", cands)
	}
	s.DeleteSpec(SpecFromWorkloadPodGroup(hi).Key, true)
	if s.GangPriorities() {
		t.Error("GangPriorities still true once the gang of priority 900 is gone")
	}
}

// disruptionMode single makes every member a victim unit of its own (those the minimum needs
// marked as breaking the gang), all only the whole gang (the members above minCount
// included); unset keeps Phalanx's rule.
func TestVictimUnitsDisruptionMode(t *testing.T) {
	for _, tc := range []struct {
		mode *schedulingv1beta1.DisruptionMode
		want []string
	}{
		{nil, []string{"pod g-3", "pod g-2", "gang g"}},
		{&schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}, []string{"pod g-3", "pod g-2", "pod g-0 (breaks)", "pod g-1 (breaks)"}},
		{&schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}, []string{"gang g"}},
	} {
		s, _ := newTestStore()
		pg := upstreamGroup("g", 2)
		pg.Spec.DisruptionMode = tc.mode
		s.SetSpec(SpecFromWorkloadPodGroup(pg))
		var cands []Candidate
		for i := 0; i < 4; i++ {
			p := groupPod("g", i)
			p.Labels["apps.kubernetes.io/pod-index"] = fmt.Sprint(i)
			p.Spec.NodeName = fmt.Sprintf("n%d", i)
			s.UpsertPod(p)
			cands = append(cands, Candidate{Pod: p, Node: p.Spec.NodeName, GPUs: 4})
		}
		var got []string
		for _, u := range s.VictimUnits(cands) {
			d := describe([]Unit{u})[0]
			if u.BreaksGang {
				d += " (breaks)"
			}
			got = append(got, d)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("disruptionMode %+v: units %v, want %v", tc.mode, got, tc.want)
		}
		if tc.mode != nil && tc.mode.All != nil {
			if units := s.VictimUnits(cands[:3]); len(units) != 0 {
				t.Errorf("disruptionMode all with a member that may not go: units %v, want none", describe(units))
			}
		}
	}
}

// At one priority: a member a gang can spare, then a member its minimum needs (allowed alone
// by disruptionMode single), then a whole gang.
func TestPreferredVictimBreaksGang(t *testing.T) {
	c := func(name string) []Candidate { return []Candidate{{Pod: groupPod(name, 0), GPUs: 8}} }
	whole := newUnit(key("w"), true, c("w"))
	breaks := newUnit(key("b"), false, c("b"))
	breaks.BreaksGang = true
	spare := newUnit(key("s"), false, c("s"))
	got, ok := SelectVictims([]Unit{whole, breaks, spare}, func(u []Unit) bool { return len(u) >= 1 })
	if !ok || len(got) != 1 || got[0].Gang.Name != "s" {
		t.Errorf("one unit needed: chose %v, want the spare member", describe(got))
	}
	got, _ = SelectVictims([]Unit{whole, breaks}, func(u []Unit) bool { return len(u) >= 1 })
	if len(got) != 1 || got[0].Gang.Name != "b" {
		t.Errorf("one unit needed: chose %v, want the member of the single-mode gang before a whole gang", describe(got))
	}
}
