package update

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Strategy is a PodCliqueSet's updateStrategy.type as the planner reads it.
type Strategy string

const (
	// RollingUpdate takes one PodCliqueSet replica at a time; inside it each standalone clique
	// and scaling group rolls its members under its own budget.
	RollingUpdate Strategy = "RollingUpdate"
	// ReplicaRecreate replaces whole PodCliqueSet replicas under the set-level budgets.
	ReplicaRecreate Strategy = "ReplicaRecreate"
	// OnDelete replaces nothing: a member is made again at the target when it is deleted.
	OnDelete Strategy = "OnDelete"
	// Coherent replaces one replica at a time in slices that keep serving sets whole.
	Coherent Strategy = "Coherent"
)

// Kind says what the members of a unit are, and so what creating or deleting one means.
type Kind int

const (
	// Pods are the pods of a standalone clique: a member is one pod.
	Pods Kind = iota
	// GroupReplicas are the replicas of a scaling group: a member is the pods of its cliques.
	GroupReplicas
	// SetReplicas are the PodCliqueSet's replicas (ReplicaRecreate): a member is the pods and
	// gangs of one replica.
	SetReplicas
)

func (k Kind) String() string {
	switch k {
	case Pods:
		return "pod"
	case GroupReplicas:
		return "scaling-group replica"
	case SetReplicas:
		return "PodCliqueSet replica"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MemberRef names one member of one unit.
type MemberRef struct {
	Kind  Kind
	Unit  string
	Index int
}

func (r MemberRef) String() string { return fmt.Sprintf("%s %s[%d]", r.Kind, r.Unit, r.Index) }

// Set is a PodCliqueSet as the planner takes it: its strategy and its replicas' units, each
// unit with its own (already defaulted) budgets and its Kind.
type Set struct {
	Strategy Strategy
	// Paused is updateStrategy.paused: no unit takes an update step (see Unit.Paused).
	Paused bool
	// Replicas are the PodCliqueSet replicas with their standalone cliques (Kind Pods) and
	// scaling groups (Kind GroupReplicas).
	Replicas []Replica
	// SetReplicas is the PodCliqueSet replicas as one unit of Kind SetReplicas, read under
	// ReplicaRecreate only; its budgets are the set-level ones.
	SetReplicas Unit
	// Coherent is what the Coherent strategy adds; read under Coherent only.
	Coherent CoherentSet
	// SurgeBlocked are the units (or Coherent slice units) whose surge the admission check
	// refused: no surge member is planned for them.
	SurgeBlocked map[string]bool
}

// CoherentSet is the Coherent strategy's part of a Set.
type CoherentSet struct {
	// MaxSurge and MaxUnavailable are the set-level budgets, counted in slices.
	MaxSurge, MaxUnavailable intstr.IntOrString
	// Names are the slice units of each replica (by its position in Set.Replicas), the names
	// of SurgeBlocked and of the waits.
	Names []string
	// Changed are, by position in Set.Replicas, the units in the update's scope; nil: the
	// planner takes the units with a member off the target, above the desired count or missing.
	Changed []map[string]bool
}

// SetPlan is the whole plan of a PodCliqueSet: the actions of every strategy and unit, and
// what the desired world needs besides them.
type SetPlan struct {
	Plan
	// Surge are the members above their unit's desired count that stay: those that exist and
	// are not terminating, and those the plan creates. Sorted.
	Surge []MemberRef
	// WaitingDeletion counts, under OnDelete, the members (not terminating) on an older
	// revision, which OnDelete leaves until they are deleted.
	WaitingDeletion int
	// Unavailable are the resolved maxUnavailable of the units whose surge was refused (what
	// the update may still do without surge).
	Unavailable map[string]int
}

// PlanSet plans a PodCliqueSet's update as its strategy says:
//   - RollingUpdate: one replica at a time (PlanRollingUpdate);
//   - Coherent: one replica at a time, in slices (PlanCoherent);
//   - ReplicaRecreate: whole replicas under the set-level budgets (PlanReplicaRecreate);
//     inside the replicas only holes are filled and excess removed (Bypass);
//   - OnDelete: only holes and excess, nothing that exists is replaced (Bypass).
//
// Set.Paused pauses every unit. Every action carries its unit's Kind. The Set is not changed.
func PlanSet(s Set) (SetPlan, error) {
	out := SetPlan{Unavailable: map[string]int{}}
	replicas := make([]Replica, len(s.Replicas))
	kinds := map[string]Kind{}
	for i, r := range s.Replicas {
		replicas[i] = r
		replicas[i].Units = make([]Unit, len(r.Units))
		for j, u := range r.Units {
			u.Paused = s.Paused
			if s.SurgeBlocked[u.Name] {
				u.SurgeBlocked = true
				if _, un, err := Budgets(u); err == nil {
					out.Unavailable[u.Name] = un
				}
			}
			replicas[i].Units[j] = u
			kinds[u.Name] = u.Kind
		}
	}
	recreate := s.Strategy == ReplicaRecreate
	setUnit := s.SetReplicas
	if recreate {
		setUnit.Kind, setUnit.Paused = SetReplicas, s.Paused
		if s.SurgeBlocked[setUnit.Name] {
			setUnit.SurgeBlocked = true
			if _, un, err := Budgets(setUnit); err == nil {
				out.Unavailable[setUnit.Name] = un
			}
		}
		kinds[setUnit.Name] = SetReplicas
	}
	if recreate || s.Strategy == OnDelete {
		var outdated int
		replicas, outdated = Bypass(replicas)
		if s.Strategy == OnDelete {
			out.WaitingDeletion = outdated
		}
	}
	var err error
	if s.Strategy == Coherent {
		crs := make([]CoherentReplica, len(replicas))
		for i, r := range replicas {
			crs[i] = CoherentReplica{Replica: r, MaxSurge: s.Coherent.MaxSurge, MaxUnavailable: s.Coherent.MaxUnavailable, Paused: s.Paused}
			if i < len(s.Coherent.Names) {
				crs[i].Name = s.Coherent.Names[i]
				crs[i].SurgeBlocked = s.SurgeBlocked[crs[i].Name]
			}
			if i < len(s.Coherent.Changed) {
				crs[i].Changed = s.Coherent.Changed[i]
			}
		}
		out.Plan, err = PlanCoherent(crs)
		if cp := out.Plan.Coherent; cp != nil && cp.Replica >= 0 && cp.Replica < len(crs) && crs[cp.Replica].SurgeBlocked {
			// Only the replica under update surges; its budget resolves against its slices.
			out.Unavailable[crs[cp.Replica].Name] = cp.MaxUnavailable
		}
	} else {
		out.Plan, err = PlanRollingUpdate(replicas)
	}
	if err != nil {
		return SetPlan{}, err
	}
	if recreate {
		rp, err := PlanReplicaRecreate(setUnit)
		if err != nil {
			return SetPlan{}, err
		}
		out.Actions = append(out.Actions, rp.Actions...)
		out.Updating, out.Done = rp.Updating, out.Done && rp.Done
		if out.Waiting == "" {
			out.Waiting = rp.Waiting
		}
		out.SurgeBlocked = append(out.SurgeBlocked, rp.SurgeBlocked...)
	}
	if recreate {
		out.Actions = recreateWhole(out.Actions, s.Replicas, setUnit)
	}
	for i := range out.Actions {
		out.Actions[i].Kind = kinds[out.Actions[i].Unit]
	}
	out.Surge = surgeKept(replicas, setUnit, recreate, out.Actions)
	return out, nil
}

// surgeKept are the members above their unit's desired count that stay (SetPlan.Surge).
func surgeKept(replicas []Replica, setUnit Unit, recreate bool, actions []Action) []MemberRef {
	seen := map[MemberRef]bool{}
	var out []MemberRef
	add := func(r MemberRef) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	keep := func(u Unit) {
		for _, m := range u.Members {
			if m.Index >= u.Desired && !m.Terminating {
				add(MemberRef{Kind: u.Kind, Unit: u.Name, Index: m.Index})
			}
		}
	}
	for _, r := range replicas {
		for _, u := range r.Units {
			keep(u)
		}
	}
	if recreate {
		keep(setUnit)
	}
	for _, a := range actions {
		if a.Type == Create && a.Surge {
			add(a.Ref())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Unit != b.Unit {
			return a.Unit < b.Unit
		}
		return a.Index < b.Index
	})
	return out
}

// recreateWhole drops, under ReplicaRecreate, the creates inside a replica that is still
// going (a pod of it terminating): a recreated replica is made again whole once its old pods
// are gone, not pod by pod as each goes (its new pods would wait beside old ones that still
// hold their GPUs, and the plan would depend on the order the deletions are seen in).
func recreateWhole(actions []Action, replicas []Replica, set Unit) []Action {
	going := map[int]bool{}
	for _, m := range set.Members {
		if m.Terminating {
			going[m.Index] = true
		}
	}
	if len(going) == 0 {
		return actions
	}
	replicaOf := map[string]int{}
	for _, r := range replicas {
		for _, u := range r.Units {
			replicaOf[u.Name] = r.Index
		}
	}
	out := actions[:0:0]
	for _, a := range actions {
		if r, ok := replicaOf[a.Unit]; ok && a.Type == Create && going[r] {
			continue
		}
		out = append(out, a)
	}
	return out
}
