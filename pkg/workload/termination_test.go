package workload

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// gtSet is Grove's gang-termination workload: standalone clique a (2 pods), scaling group sg
// (replicas 2, minAvailable groupMin) of cliques b (1 pod) and c (3 pods), terminationDelay 10s.
func gtSet(groupMin int32) *grovev1.PodCliqueSet {
	clique := func(n string, pods int32) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: n, Spec: grovev1.PodCliqueSpec{Replicas: pods}}
	}
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "gt"},
		Spec: grovev1.PodCliqueSetSpec{Replicas: 1, Template: grovev1.PodCliqueSetTemplateSpec{
			TerminationDelay: &metav1.Duration{Duration: 10 * time.Second},
			Cliques:          []grovev1.PodCliqueTemplateSpec{clique("a", 2), clique("b", 1), clique("c", 3)},
			PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{{
				Name: "sg", CliqueNames: []string{"b", "c"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To(groupMin),
			}},
		}},
	}
}

// gtPods are the set's pods, all made at t0.
func gtPods(t0 time.Time) []*corev1.Pod {
	var pods []*corev1.Pod
	add := func(clique, group string, groupReplica, n int) {
		for i := 0; i < n; i++ {
			l := map[string]string{grovev1.LabelPodCliqueSetReplicaIndex: "0", grovev1.LabelPodClique: clique}
			if group != "" {
				l[grovev1.LabelPodCliqueScalingGroup] = group
				l[grovev1.LabelPodCliqueScalingGroupReplicaIndex] = strconv.Itoa(groupReplica)
			}
			pods = append(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: PodName(clique, i), Labels: l, CreationTimestamp: metav1.NewTime(t0)}})
		}
	}
	add("gt-0-a", "", 0, 2)
	for j := 0; j < 2; j++ {
		add(GroupCliqueName("gt", 0, "sg", j, "b"), "gt-0-sg", j, 1)
		add(GroupCliqueName("gt", 0, "sg", j, "c"), "gt-0-sg", j, 3)
	}
	return pods
}

func breachedClique(name, reason string, since time.Time) *grovev1.PodClique {
	return &grovev1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: grovev1.PodCliqueStatus{Conditions: []metav1.Condition{{
		Type: ConditionMinAvailableBreached, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(since)}}}}
}

func breachedGroup(name, reason string, since time.Time) *grovev1.PodCliqueScalingGroup {
	return &grovev1.PodCliqueScalingGroup{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: grovev1.PodCliqueScalingGroupStatus{Conditions: []metav1.Condition{{
		Type: ConditionMinAvailableBreached, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(since)}}}}
}

func TestPlanGangTermination(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)
	breach := t0.Add(time.Minute)
	sg0c, sg1c, sg1b := GroupCliqueName("gt", 0, "sg", 0, "c"), GroupCliqueName("gt", 0, "sg", 1, "c"), GroupCliqueName("gt", 0, "sg", 1, "b")
	cases := []struct {
		name     string
		groupMin int32
		breached map[string]string // clique -> reason
		groups   map[string]string // scaling group -> reason of its breach
		at       time.Duration     // now - breach
		recent   bool              // every pod made after the breach (the unit was just recycled)
		want     []string          // Termination.String()
		recheck  time.Duration
	}{
		{name: "nothing breached", groupMin: 1, at: time.Hour},
		{name: "standalone clique past the delay recycles the replica", groupMin: 1,
			breached: map[string]string{"gt-0-a": ReasonInsufficientReadyPods}, at: 10 * time.Second, want: []string{"replica 0"}},
		{name: "standalone clique within the delay waits", groupMin: 1,
			breached: map[string]string{"gt-0-a": ReasonInsufficientReadyPods}, at: 4 * time.Second, recheck: 6 * time.Second},
		{name: "a clique never available is starting, not regressing", groupMin: 1,
			breached: map[string]string{"gt-0-a": ReasonNotYetAvailable}, at: time.Hour},
		{name: "a breach of Grove's own reason arms it", groupMin: 1,
			breached: map[string]string{"gt-0-a": "InsufficientScheduledPods"}, at: time.Hour, want: []string{"replica 0"}},
		{name: "a unit made since its breach began is not recycled again", groupMin: 1,
			breached: map[string]string{"gt-0-a": ReasonInsufficientReadyPods}, at: time.Hour, recent: true},
		{name: "group above its minAvailable: the group replica alone", groupMin: 1,
			breached: map[string]string{sg1c: ReasonInsufficientReadyPods}, at: 11 * time.Second,
			want: []string{"replica 1 of scaling group sg in replica 0"}},
		{name: "two cliques of one group replica count once", groupMin: 1,
			breached: map[string]string{sg1c: ReasonInsufficientReadyPods, sg1b: ReasonInsufficientReadyPods}, at: 11 * time.Second,
			want: []string{"replica 1 of scaling group sg in replica 0"}},
		{name: "group below its minAvailable: the whole replica", groupMin: 2,
			breached: map[string]string{sg0c: ReasonInsufficientReadyPods}, groups: map[string]string{"gt-0-sg": "InsufficientAvailableReplicas"},
			at: 10 * time.Second, want: []string{"replica 0"}},
		{name: "group below its minAvailable within the delay: its replicas wait with it", groupMin: 1,
			breached: map[string]string{sg0c: ReasonInsufficientReadyPods, sg1c: ReasonInsufficientReadyPods},
			groups:   map[string]string{"gt-0-sg": "InsufficientAvailableReplicas"}, at: 3 * time.Second, recheck: 7 * time.Second},
		{name: "a group never available does not recycle the replica; its breached replicas go alone", groupMin: 1,
			breached: map[string]string{sg0c: ReasonInsufficientReadyPods, sg1c: ReasonInsufficientReadyPods},
			groups:   map[string]string{"gt-0-sg": ReasonNotYetAvailable}, at: 10 * time.Second,
			want: []string{"replica 0 of scaling group sg in replica 0", "replica 1 of scaling group sg in replica 0"}},
		{name: "whole replica wins over its group replicas", groupMin: 1,
			breached: map[string]string{"gt-0-a": ReasonInsufficientReadyPods, sg1c: ReasonInsufficientReadyPods}, at: 10 * time.Second,
			want: []string{"replica 0"}},
		{name: "group replica past the delay while the replica's own breach waits", groupMin: 1,
			breached: map[string]string{sg1c: ReasonInsufficientReadyPods}, at: 10 * time.Second,
			want: []string{"replica 1 of scaling group sg in replica 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pcs := gtSet(tc.groupMin)
			cliques := map[string]*grovev1.PodClique{}
			for name, reason := range tc.breached {
				cliques[name] = breachedClique(name, reason, breach)
			}
			groups := map[string]*grovev1.PodCliqueScalingGroup{}
			for name, reason := range tc.groups {
				groups[name] = breachedGroup(name, reason, breach)
			}
			made := t0
			if tc.recent {
				made = breach.Add(time.Second)
			}
			plan := PlanGangTermination(pcs, cliques, groups, gtPods(made), breach.Add(tc.at))
			var got []string
			for _, u := range plan.Terminate {
				got = append(got, u.String())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("terminate %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("terminate %q, want %q", got, tc.want)
				}
			}
			if plan.RecheckIn != tc.recheck {
				t.Errorf("recheck in %v, want %v", plan.RecheckIn, tc.recheck)
			}
		})
	}
}

// Grove's GT4: a group replica recycled before and still not back (its pods all newer than
// its breach) counts as unavailable for its group: when the other replica breaks too, the group
// is below minAvailable and the whole replica is recycled.
func TestRecycledGroupReplicaCountsForItsGroup(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)
	pcs := gtSet(1)
	first, second := t0.Add(time.Minute), t0.Add(2*time.Minute)
	sg0c, sg1c := GroupCliqueName("gt", 0, "sg", 0, "c"), GroupCliqueName("gt", 0, "sg", 1, "c")
	cliques := map[string]*grovev1.PodClique{
		sg0c: breachedClique(sg0c, ReasonInsufficientReadyPods, first),
		sg1c: breachedClique(sg1c, ReasonInsufficientReadyPods, second),
	}
	pods := gtPods(t0)
	for _, p := range pods {
		if p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == "0" {
			p.CreationTimestamp = metav1.NewTime(first.Add(15 * time.Second)) // recycled at first+10s
		}
	}
	groups := map[string]*grovev1.PodCliqueScalingGroup{"gt-0-sg": breachedGroup("gt-0-sg", "InsufficientAvailableReplicas", second)}
	plan := PlanGangTermination(pcs, cliques, groups, pods, second.Add(10*time.Second))
	if len(plan.Terminate) != 1 || plan.Terminate[0].String() != "replica 0" || plan.Terminate[0].Breached != "PodCliqueScalingGroup gt-0-sg" {
		t.Fatalf("terminate %+v; want replica 0 for its group", plan.Terminate)
	}
}

func TestTerminationSelects(t *testing.T) {
	pods := gtPods(time.Now())
	count := func(u Termination) int {
		n := 0
		for _, p := range pods {
			if u.Selects("gt", p) {
				n++
			}
		}
		return n
	}
	if n := count(Termination{Replica: 0}); n != 10 {
		t.Errorf("replica 0 selects %d pods, want 10", n)
	}
	if n := count(Termination{Replica: 0, Group: "sg", GroupReplica: 1}); n != 4 {
		t.Errorf("group replica 1 selects %d pods, want 4", n)
	}
	if n := count(Termination{Replica: 1}); n != 0 {
		t.Errorf("replica 1 selects %d pods, want 0", n)
	}
}

// A clique's breach arms gang termination only once the clique has been available.
func TestCliqueBreachReason(t *testing.T) {
	now := metav1.Now()
	pclq := &grovev1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: "gt-0-a"}, Spec: grovev1.PodCliqueSpec{Replicas: 2}}
	ready := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	}
	reason := func(st grovev1.PodCliqueStatus) string {
		for _, c := range st.Conditions {
			if c.Type == ConditionMinAvailableBreached {
				return string(c.Status) + "/" + c.Reason
			}
		}
		return ""
	}
	steps := []struct {
		pods []*corev1.Pod
		want string
	}{
		{nil, "True/" + ReasonNotYetAvailable},
		{[]*corev1.Pod{ready("a-0")}, "True/" + ReasonNotYetAvailable},
		{[]*corev1.Pod{ready("a-0"), ready("a-1")}, "False/" + ReasonSufficientReadyPods},
		{[]*corev1.Pod{ready("a-0")}, "True/" + ReasonInsufficientReadyPods},
		{[]*corev1.Pod{ready("a-0")}, "True/" + ReasonInsufficientReadyPods},
	}
	for i, s := range steps {
		pclq.Status = CliqueStatus(pclq, s.pods, "", now)
		if got := reason(pclq.Status); got != s.want {
			t.Fatalf("step %d: MinAvailableBreached %s, want %s", i, got, s.want)
		}
	}
}
