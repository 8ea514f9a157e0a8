package update

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func replica(i int, scheduled, breached bool, revs ...string) Replica {
	u := Unit{Name: "frontend", Desired: len(revs), Target: "new", MaxSurge: zero, MaxUnavailable: one}
	for j, r := range revs {
		u.Members = append(u.Members, Member{Index: j, Revision: r, Available: true})
	}
	return Replica{Index: i, Scheduled: scheduled, MinAvailableBreached: breached, Units: []Unit{u}}
}

func TestNextReplica(t *testing.T) {
	cases := []struct {
		name     string
		replicas []Replica
		want     int
	}{
		{"all updated", []Replica{replica(0, true, false, "new"), replica(1, true, false, "new")}, -1},
		{"lowest index", []Replica{replica(0, true, false, "old"), replica(1, true, false, "old")}, 0},
		{"an update in progress continues", []Replica{replica(0, true, false, "old", "old"), replica(1, true, false, "new", "old")}, 1},
		{"unscheduled first", []Replica{replica(0, true, false, "old"), replica(1, false, false, "old")}, 1},
		{"breached before healthy", []Replica{replica(0, true, false, "old"), replica(1, true, true, "old"), replica(2, true, false, "old")}, 1},
		{"unscheduled before breached", []Replica{replica(0, true, true, "old"), replica(1, false, false, "old")}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextReplica(tc.replicas); got != tc.want {
				t.Errorf("NextReplica = %d, want %d", got, tc.want)
			}
		})
	}
}

// One PodCliqueSet replica at a time: replica 1 is untouched until replica 0 (started) is
// done, but its missing members are created (from the newest template).
func TestRollingUpdateOneReplicaAtATime(t *testing.T) {
	r0 := replica(0, true, false, "new", "old")
	r1 := replica(1, true, false, "old")
	r1.Units[0].Name, r1.Units[0].Desired = "frontend-1", 2 // scaled up during the update: index 1 is missing
	p, err := PlanRollingUpdate([]Replica{r0, r1})
	if err != nil {
		t.Fatal(err)
	}
	if got := actionStrings(p); got != "delete frontend[1], create frontend-1[1]" || fmt.Sprint(p.Updating) != "[0]" {
		t.Errorf("actions %v updating %v: want replica 0 rolled and only the hole of replica 1 filled", got, p.Updating)
	}
	if p.Actions[1].Revision != "new" {
		t.Errorf("a member created during the update uses the newest template, got %q", p.Actions[1].Revision)
	}
}

// Between replicas not started yet, one that is short already (a member missing: replaced and
// not made again yet, evicted, scaled up) goes first, so that one replica at most is short
// because of the update; the whole replica 0 is untouched.
func TestRollingUpdateShortReplicaFirst(t *testing.T) {
	r0 := replica(0, true, false, "old", "old")
	r1 := replica(1, true, false, "old")
	r1.Units[0].Name, r1.Units[0].Desired = "frontend-1", 2
	p, err := PlanRollingUpdate([]Replica{r0, r1})
	if err != nil {
		t.Fatal(err)
	}
	if got := actionStrings(p); got != "create frontend-1[1]" || fmt.Sprint(p.Updating) != "[1]" {
		t.Errorf("actions %v updating %v: want replica 1 (short) first, replica 0 untouched", got, p.Updating)
	}
}

func actionStrings(p Plan) string {
	var got []string
	for _, a := range p.Actions {
		got = append(got, a.String())
	}
	return strings.Join(got, ", ")
}

func TestReplicaRecreatePlan(t *testing.T) {
	p, err := PlanReplicaRecreate(Unit{Name: "replicas", Desired: 2, Target: "new", MaxSurge: one, MaxUnavailable: zero, Members: oldMembers(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].String() != "create replicas[2] (surge)" || p.Updating[0] != 2 {
		t.Errorf("plan %+v: want the surge replica 2 first", p)
	}
}

func TestStalled(t *testing.T) {
	t0 := time.Unix(1000, 0)
	cases := []struct {
		done bool
		last time.Time
		now  time.Time
		want bool
	}{
		{false, t0, t0.Add(601 * time.Second), true},
		{false, t0, t0.Add(599 * time.Second), false},
		{true, t0, t0.Add(time.Hour), false},
		{false, time.Time{}, t0, false},
	}
	for _, tc := range cases {
		if got := Stalled(tc.done, tc.last, tc.now, 600*time.Second); got != tc.want {
			t.Errorf("Stalled(%v, %s, %s) = %v", tc.done, tc.last, tc.now, got)
		}
	}
}

// A 100-replica PodCliqueSet under RollingUpdate in the middle of its update: each replica has
// a standalone clique of 3 pods and a scaling group of 3 replicas; replica 40 is being updated.
func BenchmarkPlanRollingUpdate100Replicas(b *testing.B) {
	replicas := make([]Replica, 100)
	for r := range replicas {
		rev := "old"
		if r < 40 {
			rev = "new"
		}
		clique := Unit{Name: fmt.Sprintf("pcs-%d-frontend", r), Desired: 3, Target: "new", MaxSurge: intstr.FromInt32(1), MaxUnavailable: intstr.FromInt32(0)}
		group := Unit{Name: fmt.Sprintf("pcs-%d-prefill", r), Desired: 3, Target: "new", MaxSurge: intstr.FromInt32(1), MaxUnavailable: intstr.FromInt32(0)}
		for i := 0; i < 3; i++ {
			clique.Members = append(clique.Members, Member{Index: i, Revision: rev, Available: true})
			group.Members = append(group.Members, Member{Index: i, Revision: rev, Available: true})
		}
		if r == 40 {
			clique.Members[0].Revision = "new"
		}
		replicas[r] = Replica{Index: r, Scheduled: true, Units: []Unit{clique, group}}
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := PlanRollingUpdate(replicas)
		if err != nil || len(p.Updating) != 1 || p.Updating[0] != 40 {
			b.Fatalf("plan %+v, %v", p, err)
		}
	}
}

// ReplicaRecreate over 100 replicas, 30 of them done.
func BenchmarkPlanReplicaRecreate100Replicas(b *testing.B) {
	u := Unit{Name: "replicas", Desired: 100, Target: "new", MaxSurge: intstr.FromInt32(1), MaxUnavailable: intstr.FromInt32(0)}
	for i := 0; i < 100; i++ {
		rev := "old"
		if i < 30 {
			rev = "new"
		}
		u.Members = append(u.Members, Member{Index: i, Revision: rev, Available: true})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PlanReplicaRecreate(u); err != nil {
			b.Fatal(err)
		}
	}
}

// A replica whose members all run the target is still in flight until every unit is done by
// its own plan; the PodCliqueSet is done only when every unit of every replica is.
func TestRollingUpdateDoneAndNextReplica(t *testing.T) {
	notReady := func(r Replica, idx int) Replica {
		r.Units[0].Members[idx].Available = false
		return r
	}
	missing := func(r Replica, idx int) Replica {
		u := &r.Units[0]
		u.Members = append(u.Members[:idx:idx], u.Members[idx+1:]...)
		return r
	}
	withSurge := func(r Replica, terminating bool) Replica {
		u := &r.Units[0]
		u.Members = append(u.Members, Member{Index: u.Desired, Revision: u.Target, Available: true, Terminating: terminating})
		return r
	}
	cases := []struct {
		name        string
		replicas    []Replica
		wantDone    bool
		wantCurrent int
		// wantActions are the actions, in order; none of them may touch replica 1's members
		// while replica 0 is in flight (the replicas share the unit name: replica 1's old
		// member is the only "old" one).
		wantActions string
	}{
		{"last replacement exists, not Ready (maxSurge 0, maxUnavailable 1)",
			[]Replica{notReady(replica(0, true, false, "new", "new"), 1)}, false, 0, ""},
		{"surge member still terminating",
			[]Replica{withSurge(replica(0, true, false, "new", "new"), true)}, false, 0, ""},
		{"every member available at the target",
			[]Replica{replica(0, true, false, "new", "new"), replica(1, true, false, "new")}, true, -1, ""},
		{"replica 0 misses a replaced member: replica 1 waits",
			[]Replica{missing(replica(0, true, false, "new", "new"), 1), replica(1, true, false, "old")}, false, 0, "create frontend[1]"},
		{"replica 0's replacement is not Ready: replica 1 waits",
			[]Replica{notReady(replica(0, true, false, "new", "new"), 1), replica(1, true, false, "old")}, false, 0, ""},
		{"replica 0 settled: replica 1 starts",
			[]Replica{replica(0, true, false, "new", "new"), replica(1, true, false, "old")}, false, 1, "delete frontend[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanRollingUpdate(tc.replicas)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range p.Actions {
				got = append(got, a.String())
			}
			current := -1
			if len(p.Updating) == 1 {
				current = p.Updating[0]
			}
			if p.Done != tc.wantDone || current != tc.wantCurrent || strings.Join(got, ", ") != tc.wantActions {
				t.Errorf("done %v, updating %v, actions %q; want done %v, replica %d, actions %q", p.Done, p.Updating, got, tc.wantDone, tc.wantCurrent, tc.wantActions)
			}
		})
	}
}
