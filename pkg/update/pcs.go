package update

import (
	"fmt"
	"sort"
	"time"
)

// Replica is a PodCliqueSet replica under RollingUpdate: its standalone cliques (pods) and
// scaling groups (group replicas) each form a unit with their own budget.
type Replica struct {
	Index int
	// Scheduled: every gang of the replica is established.
	Scheduled bool
	// MinAvailableBreached: some gang of the replica lacks minAvailable Ready pods.
	MinAvailableBreached bool
	Units                []Unit
}

// updated reports whether every member of every unit runs its target revision.
func (r Replica) updated() bool {
	for _, u := range r.Units {
		for _, m := range u.Members {
			if m.Revision != u.Target {
				return false
			}
		}
	}
	return true
}

// started reports whether the update of the replica is under way: a unit with a member of an
// older revision also has one at the target or one above its desired count (a replica only
// short of a member goes first among those not started: disrupted). Units whose members all
// run the target say nothing: a component the template change did not touch is at its target
// from the start (counting it made every replica look started, and the next replica began while
// the current one still settled: TestRandomizedRollingUpdates with unchanged components).
func (r Replica) started() bool {
	for _, u := range r.Units {
		if !outdated(u) {
			continue
		}
		for _, m := range u.Members {
			if m.Revision == u.Target || m.Index >= u.Desired {
				return true
			}
		}
	}
	return false
}

// disrupted reports whether a unit of the replica has a terminating member or fewer members
// below its desired count than it desires: it is short already (an old member deleted for
// replacement whose successor is not made yet, an eviction, a scale-up).
func (r Replica) disrupted() bool {
	for _, u := range r.Units {
		present := 0
		for _, m := range u.Members {
			if m.Terminating {
				return true
			}
			if m.Index < u.Desired {
				present++
			}
		}
		if present < u.Desired {
			return true
		}
	}
	return false
}

// Plan is the planner's answer for a PodCliqueSet.
type Plan struct {
	Actions []Action
	// Updating are the PodCliqueSet replica indices being updated.
	Updating []int
	// Done: every replica is at its target revision and every unit is done.
	Done bool
	// Waiting says what the update waits for when it has nothing to do.
	Waiting string
	// SurgeBlocked are the units that wanted a surge member the admission check refused.
	SurgeBlocked []string
	// Coherent is the state of the replica a Coherent update works on (nil otherwise).
	Coherent *CoherentProgress
}

// settled reports whether every unit of the replica is done by its own plan: every member
// there, at the target, available, none terminating, no surge left.
func (r Replica) settled() bool {
	for _, u := range r.Units {
		res, err := PlanUnit(u)
		if err != nil || !res.Done {
			return false
		}
	}
	return true
}

// NextReplica picks the replica that RollingUpdate works on: one already started; else one
// whose members all run the target but that has not settled (a replaced member not yet
// recreated, or not Ready, a surge member still there or terminating; a replica whose only
// member was deleted has no member left and is such a replica), so that the next replica
// starts only when the current one is done; else, among those not updated, an
// unscheduled one, then one with a breached minimum, then the lowest index (a broken replica
// gains from the update and costs nothing to replace). -1: none left.
func NextReplica(replicas []Replica) int {
	return nextReplica(replicas, func(i int) bool { return replicas[i].settled() })
}

// nextReplica is NextReplica with settled(i) answering for replicas[i] (PlanRollingUpdate
// passes the plans it has already made).
func nextReplica(replicas []Replica, settled func(i int) bool) int {
	var pending []Replica
	settling := -1
	for i, r := range replicas {
		if r.started() {
			return r.Index
		}
		if !r.updated() {
			pending = append(pending, r)
		} else if settling < 0 && !settled(i) {
			settling = r.Index
		}
	}
	if settling >= 0 {
		return settling
	}
	if len(pending) == 0 {
		return -1
	}
	sort.Slice(pending, func(i, j int) bool {
		a, b := pending[i], pending[j]
		if a.Scheduled != b.Scheduled {
			return !a.Scheduled
		}
		if a.MinAvailableBreached != b.MinAvailableBreached {
			return a.MinAvailableBreached
		}
		// A replica that is short already goes before a whole one, so that one replica at
		// most is short because of the update (a partition lowered, or the template changed,
		// while a higher replica waited for a replacement: TestRandomizedRollingUpdates).
		if da, db := a.disrupted(), b.disrupted(); da != db {
			return da
		}
		return a.Index < b.Index
	})
	return pending[0].Index
}

// PlanRollingUpdate updates PodCliqueSet replicas one at a time; inside the replica, each
// standalone clique and scaling group follows its own budget, all at once. Replicas that are
// not being updated only get their missing members (from the newest template) and lose
// their excess ones.
func PlanRollingUpdate(replicas []Replica) (Plan, error) {
	return planReplicas(replicas, func(i int, _ bool) (replicaPlan, error) {
		return planUnits(replicas[i], false)
	})
}

// replicaPlan is the plan of one PodCliqueSet replica's units.
type replicaPlan struct {
	actions      []Action
	done         bool
	waiting      []string
	surgeBlocked []string
}

// planUnits plans each unit of r by its own budget (frozen: only holes and excess change).
func planUnits(r Replica, freeze bool) (replicaPlan, error) {
	p := replicaPlan{done: true}
	for _, u := range r.Units {
		if freeze {
			u = frozen(u)
		}
		res, err := PlanUnit(u)
		if err != nil {
			return replicaPlan{}, fmt.Errorf("replica %d: %w", r.Index, err)
		}
		p.add(r.Index, u.Name, res)
	}
	return p, nil
}

func (p *replicaPlan) add(replica int, unit string, res Result) {
	p.actions = append(p.actions, res.Actions...)
	p.done = p.done && res.Done
	if res.SurgeBlocked {
		p.surgeBlocked = append(p.surgeBlocked, unit)
	}
	if res.Waiting != "" {
		p.waiting = append(p.waiting, fmt.Sprintf("replica %d %s: %s", replica, unit, res.Waiting))
	}
}

// planReplicas takes one PodCliqueSet replica at a time (NextReplica): plan plans the current
// one and those whose members all run the target (their plans also say whether they
// settled; current is false for those); the others are planned frozen (only holes and excess
// change).
func planReplicas(replicas []Replica, plan func(i int, current bool) (replicaPlan, error)) (Plan, error) {
	// A replica whose members all run the target is planned the same whether it is the
	// current one or not (freezing changes nothing there): plan it once, and let those plans
	// say whether it has settled.
	planned := make([]*replicaPlan, len(replicas))
	for i, r := range replicas {
		if !r.updated() {
			continue
		}
		rp, err := plan(i, false)
		if err != nil {
			return Plan{}, err
		}
		planned[i] = &rp
	}
	current := nextReplica(replicas, func(i int) bool { return planned[i].done })
	var p Plan
	var waiting []string
	settled := true
	for i, r := range replicas {
		var rp replicaPlan
		var err error
		switch {
		case planned[i] != nil:
			rp = *planned[i]
		case r.Index == current:
			rp, err = plan(i, true)
		default:
			rp, err = planUnits(r, true)
		}
		if err != nil {
			return Plan{}, err
		}
		p.Actions = append(p.Actions, rp.actions...)
		p.SurgeBlocked = append(p.SurgeBlocked, rp.surgeBlocked...)
		waiting = append(waiting, rp.waiting...)
		settled = settled && rp.done
	}
	if current >= 0 {
		p.Updating = []int{current}
	}
	// Done only when no replica is left and every unit of every replica is done by its own
	// plan: a replacement that exists but is not Ready, or a surge member still terminating,
	// keeps the update open (and its progress deadline running).
	p.Done = current < 0 && len(p.Actions) == 0 && settled
	if !p.Done && len(p.Actions) == 0 && len(waiting) > 0 {
		p.Waiting = waiting[0]
	}
	return p, nil
}

// Bypass is replicas with every member counted at its unit's target: their units then only
// fill holes (from the target) and remove members above their desired count, and replace
// nothing that exists. It is the plan inside the replicas under OnDelete (a member is updated
// when it is deleted: by a user, an eviction, a node loss) and under ReplicaRecreate (which
// replaces whole replicas above them). outdated counts the members, not terminating, that run
// an older revision. The replicas given are not changed.
func Bypass(replicas []Replica) (out []Replica, outdated int) {
	out = make([]Replica, len(replicas))
	for i, r := range replicas {
		out[i] = r
		out[i].Units = make([]Unit, len(r.Units))
		for j, u := range r.Units {
			for _, m := range u.Members {
				if !m.Terminating && m.Revision != u.Target {
					outdated++
				}
			}
			out[i].Units[j] = frozen(u)
		}
	}
	return out, outdated
}

// frozen is a unit whose existing members are kept as they are: only holes and excess change.
func frozen(u Unit) Unit {
	out := u
	out.Members = make([]Member, len(u.Members))
	for i, m := range u.Members {
		m.Revision = u.Target
		out.Members[i] = m
	}
	return out
}

// PlanReplicaRecreate recreates whole PodCliqueSet replicas under the PCS-level budgets: the
// unit's members are the replicas (available when every gang meets minAvailable), component
// strategies are bypassed, a surge replica takes an index >= replicas and goes last.
func PlanReplicaRecreate(replicas Unit) (Plan, error) {
	res, err := PlanUnit(replicas)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Actions: res.Actions, Done: res.Done, Waiting: res.Waiting}
	if res.SurgeBlocked {
		p.SurgeBlocked = []string{replicas.Name}
	}
	for _, a := range res.Actions {
		p.Updating = append(p.Updating, a.Index)
	}
	return p, nil
}

// Stalled reports whether an update that is not done made no progress for longer than the
// deadline (condition Progressing=False, reason ProgressDeadlineExceeded). The update keeps
// trying; the condition only makes the stall visible.
func Stalled(done bool, lastProgress, now time.Time, deadline time.Duration) bool {
	return !done && deadline > 0 && !lastProgress.IsZero() && now.Sub(lastProgress) > deadline
}
