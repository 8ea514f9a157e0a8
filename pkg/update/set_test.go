package update

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// setOf is a two-replica PodCliqueSet: each replica has a standalone clique of 2 pods and a
// scaling group of 2 replicas, all on the old revision, every budget maxSurge 1 / maxUnavailable 0.
func setOf(strategy Strategy) Set {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	s := Set{Strategy: strategy}
	for r := 0; r < 2; r++ {
		rep := Replica{Index: r, Scheduled: true}
		rep.Units = append(rep.Units,
			Unit{Name: name("frontend", r), Kind: Pods, Desired: 2, Target: "new", MaxSurge: one, MaxUnavailable: zero, Members: oldMembers(2)},
			Unit{Name: name("prefill", r), Kind: GroupReplicas, Desired: 2, Target: "new", MaxSurge: one, MaxUnavailable: zero, Members: oldMembers(2)})
		s.Replicas = append(s.Replicas, rep)
	}
	s.SetReplicas = Unit{Name: "replicas", Kind: SetReplicas, Desired: 2, Target: "new", MaxSurge: one, MaxUnavailable: zero, Members: oldMembers(2)}
	return s
}

func name(c string, r int) string { return "pcs-" + string(rune('0'+r)) + "-" + c }

// TestPlanSetComposesStrategies: one entry point plans every strategy; the strategies differ
// only in what PlanSet composes, and every action names its member with the unit's Kind.
func TestPlanSetComposesStrategies(t *testing.T) {
	tests := []struct {
		name     string
		set      func() Set
		actions  []MemberRef // the creates, in plan order
		deletes  []MemberRef
		updating []int
		waiting  int // SetPlan.WaitingDeletion
	}{{
		name: "RollingUpdate: the first replica surges one pod and one group replica, the other waits",
		set:  func() Set { return setOf(RollingUpdate) },
		actions: []MemberRef{
			{Kind: Pods, Unit: "pcs-0-frontend", Index: 2},
			{Kind: GroupReplicas, Unit: "pcs-0-prefill", Index: 2},
		},
		updating: []int{0},
	}, {
		name:    "OnDelete: nothing that exists is replaced; the outdated members are counted",
		set:     func() Set { return setOf(OnDelete) },
		waiting: 8,
	}, {
		name: "OnDelete fills a hole from the target",
		set: func() Set {
			s := setOf(OnDelete)
			s.Replicas[1].Units[0].Members = s.Replicas[1].Units[0].Members[:1]
			return s
		},
		actions:  []MemberRef{{Kind: Pods, Unit: "pcs-1-frontend", Index: 1}},
		updating: []int{1}, // the replica short of a member settles first
		waiting:  7,
	}, {
		name:     "ReplicaRecreate: a surge replica, component strategies bypassed",
		set:      func() Set { return setOf(ReplicaRecreate) },
		actions:  []MemberRef{{Kind: SetReplicas, Unit: "replicas", Index: 2}},
		updating: []int{2},
	}, {
		name: "ReplicaRecreate: a replica still going is not refilled pod by pod",
		set: func() Set {
			s := setOf(ReplicaRecreate)
			// The surge replica 2 is up; replica 0 is being recreated: one of its frontend
			// pods is gone, the other still terminating.
			s.SetReplicas.Members = append(s.SetReplicas.Members, Member{Index: 2, Revision: "new", Available: true})
			s.SetReplicas.Members[0].Terminating, s.SetReplicas.Members[0].Available = true, false
			s.Replicas[0].Units[0].Members = []Member{{Index: 1, Revision: "old", Terminating: true}}
			return s
		},
		updating: nil,
	}, {
		name: "Paused: no step",
		set: func() Set {
			s := setOf(RollingUpdate)
			s.Paused = true
			return s
		},
		updating: []int{0},
	}, {
		name: "Surge refused for the clique: it waits (maxUnavailable 0), the group still surges",
		set: func() Set {
			s := setOf(RollingUpdate)
			s.SurgeBlocked = map[string]bool{"pcs-0-frontend": true}
			return s
		},
		actions:  []MemberRef{{Kind: GroupReplicas, Unit: "pcs-0-prefill", Index: 2}},
		updating: []int{0},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.set()
			p, err := PlanSet(in)
			if err != nil {
				t.Fatal(err)
			}
			var creates, deletes []MemberRef
			for _, a := range p.Actions {
				if a.Type == Create {
					creates = append(creates, a.Ref())
				} else {
					deletes = append(deletes, a.Ref())
				}
			}
			if !reflect.DeepEqual(creates, tt.actions) {
				t.Errorf("creates %v, want %v", creates, tt.actions)
			}
			if !reflect.DeepEqual(deletes, tt.deletes) {
				t.Errorf("deletes %v, want %v", deletes, tt.deletes)
			}
			if !reflect.DeepEqual(p.Updating, tt.updating) {
				t.Errorf("updating %v, want %v", p.Updating, tt.updating)
			}
			if p.WaitingDeletion != tt.waiting {
				t.Errorf("waiting for deletion %d, want %d", p.WaitingDeletion, tt.waiting)
			}
			// Every surge create stays in the desired world.
			for _, a := range p.Actions {
				if a.Type == Create && a.Surge && !containsRef(p.Surge, a.Ref()) {
					t.Errorf("surge create %v not in SetPlan.Surge %v", a.Ref(), p.Surge)
				}
			}
			// PlanSet does not change its input.
			if !reflect.DeepEqual(in, tt.set()) {
				t.Error("PlanSet changed the Set it was given")
			}
		})
	}
}

// TestPlanSetSurgeBlockedReportsUnavailable: a refused surge is reported with what the unit
// may still do without it (its resolved maxUnavailable), for the SurgeBlocked condition.
func TestPlanSetSurgeBlockedReportsUnavailable(t *testing.T) {
	s := setOf(RollingUpdate)
	s.Replicas[0].Units[1].MaxUnavailable = intstr.FromString("50%")
	s.SurgeBlocked = map[string]bool{"pcs-0-prefill": true}
	p, err := PlanSet(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Unavailable["pcs-0-prefill"]; got != 1 {
		t.Errorf("unavailable of the refused unit %d, want 1 (50%% of 2)", got)
	}
	if !containsString(p.SurgeBlocked, "pcs-0-prefill") {
		t.Errorf("SurgeBlocked %v", p.SurgeBlocked)
	}
	// The refused group replaces one member within maxUnavailable instead of surging.
	var groupDeletes int
	for _, a := range p.Actions {
		if a.Unit == "pcs-0-prefill" {
			if a.Type != Delete || a.Surge {
				t.Errorf("refused unit planned %v", a)
			}
			groupDeletes++
		}
	}
	if groupDeletes != 1 {
		t.Errorf("refused unit deleted %d members, want 1", groupDeletes)
	}
}

// TestPlanSetKeepsSurgeMembers: members above the desired count that are not terminating stay
// in the desired world (until the plan removes them), of every kind.
func TestPlanSetKeepsSurgeMembers(t *testing.T) {
	s := setOf(ReplicaRecreate)
	s.SetReplicas.Members = append(s.SetReplicas.Members, Member{Index: 2, Revision: "new"})
	s.Replicas[1].Units[1].Members = append(s.Replicas[1].Units[1].Members, Member{Index: 2, Revision: "old", Available: true},
		Member{Index: 3, Revision: "old", Terminating: true})
	p, err := PlanSet(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []MemberRef{{Kind: GroupReplicas, Unit: "pcs-1-prefill", Index: 2}, {Kind: SetReplicas, Unit: "replicas", Index: 2}}
	if !reflect.DeepEqual(p.Surge, want) {
		t.Errorf("surge %v, want %v", p.Surge, want)
	}
}

func containsRef(refs []MemberRef, r MemberRef) bool {
	for _, x := range refs {
		if x == r {
			return true
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
