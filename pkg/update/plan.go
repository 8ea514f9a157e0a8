// Package update is the pure planner of PodCliqueSet updates: observed state and budgets in,
// actions out. It has no client and no clock (time comes in as a value); the controller
// applies the actions and calls it again on the next event, so each call is one step of a
// level-triggered state machine.
//
// One Unit is a set of indexed members rolled under one budget: the pods of a standalone
// clique, the replicas of a scaling group (RollingUpdate), or the PodCliqueSet replicas
// (ReplicaRecreate). The rules, as Deployments and the update-strategy design have them:
//
//   - budgets are absolute or percentages of the desired count; surge rounds up, unavailable
//     rounds down; both zero would never progress and is read as maxUnavailable 1;
//   - never more than desired + maxSurge members exist, terminating ones included (they still
//     hold GPUs);
//   - the update never takes available members below desired - maxUnavailable; an old member
//     that is already unavailable is replaced first without spending budget;
//   - surge members take indices >= desired; a replaced member takes back its own index; surge
//     members are removed at the end, leaving exactly 0..desired-1.
package update

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Member is one indexed member of a unit as observed.
type Member struct {
	Index    int
	Revision string
	// Available: Ready (for a replica: every gang meets minAvailable with Ready pods).
	Available bool
	// Terminating: being deleted; it still holds its resources and its index.
	Terminating bool
}

// Unit is a set of members updated under one budget.
type Unit struct {
	// Name identifies the unit in actions ("clique frontend", "group prefill", "replicas").
	Name string
	// Kind is what the members are; actions carry it (PlanSet).
	Kind           Kind
	Desired        int
	Target         string
	MaxSurge       intstr.IntOrString
	MaxUnavailable intstr.IntOrString
	Members        []Member
	// SurgeBlocked: the surge admission check found no room for a new surge member. No surge
	// member is created (those that exist are kept); the update goes on within maxUnavailable
	// where that is > 0 and waits otherwise.
	SurgeBlocked bool
	// MinAvailable is the component's minAvailable (Coherent: the size of its part of a
	// slice); the other strategies do not read it.
	MinAvailable int
	// Paused (updateStrategy.paused): the update takes no step. Holes below the desired count
	// are still filled (self-healing, scale-out) and members above it removed (scale-in), but
	// no member of an older revision is replaced, no surge member is created, and the surge
	// members of an update in flight are kept until it resumes.
	Paused bool
}

// ActionType says what an action does.
type ActionType string

const (
	// Create makes the member at Index from Revision.
	Create ActionType = "Create"
	// Delete removes the member at Index.
	Delete ActionType = "Delete"
)

// Action is one step the controller applies.
type Action struct {
	Unit string
	// Kind is the unit's Kind (set by PlanSet).
	Kind     Kind
	Type     ActionType
	Index    int
	Revision string
	// Surge is true for a member created or removed above the desired count.
	Surge bool
	// Reason says why, for events and the plan printout.
	Reason string
	// Slice is the coherent slice the member is created or removed with (Coherent only).
	Slice *SliceRef
}

// Ref is the member the action creates or deletes.
func (a Action) Ref() MemberRef { return MemberRef{Kind: a.Kind, Unit: a.Unit, Index: a.Index} }

func (a Action) String() string {
	s := fmt.Sprintf("%s %s[%d]", strings.ToLower(string(a.Type)), a.Unit, a.Index)
	if a.Surge {
		s += " (surge)"
	}
	return s
}

// Result is the planner's answer for one unit.
type Result struct {
	Actions []Action
	// Done: exactly the indices 0..Desired-1 exist, all at Target, all available, none
	// terminating.
	Done bool
	// Waiting says what the unit waits for when it is not done and has nothing to do.
	Waiting string
	// SurgeBlocked: the unit wanted a surge member and Unit.SurgeBlocked forbade it.
	SurgeBlocked bool
}

// Budgets resolves the unit's budgets against its desired count: surge rounds up,
// unavailable down; both zero becomes maxUnavailable 1.
func Budgets(u Unit) (maxSurge, maxUnavailable int, err error) {
	maxSurge, err = resolve(u.MaxSurge, u.Desired, true)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: maxSurge: %w", u.Name, err)
	}
	maxUnavailable, err = resolve(u.MaxUnavailable, u.Desired, false)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: maxUnavailable: %w", u.Name, err)
	}
	if maxSurge == 0 && maxUnavailable == 0 {
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable, nil
}

func resolve(v intstr.IntOrString, total int, roundUp bool) (int, error) {
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return 0, fmt.Errorf("must not be negative, got %d", v.IntVal)
		}
		return int(v.IntVal), nil
	}
	s := strings.TrimSuffix(v.StrVal, "%")
	if s == v.StrVal {
		return 0, fmt.Errorf("%q is neither an integer nor a percentage", v.StrVal)
	}
	p, err := strconv.Atoi(s)
	if err != nil || p < 0 {
		return 0, fmt.Errorf("%q is not a non-negative percentage", v.StrVal)
	}
	f := float64(p) * float64(total) / 100
	if roundUp {
		return int(math.Ceil(f)), nil
	}
	return int(math.Floor(f)), nil
}

// PlanUnit computes the next actions for a unit.
func PlanUnit(u Unit) (Result, error) {
	maxSurge, maxUnavailable, err := Budgets(u)
	if err != nil {
		return Result{}, err
	}
	if u.Paused {
		return planPaused(u, maxSurge, maxUnavailable), nil
	}
	byIndex := map[int]Member{}
	total, available := 0, 0
	for _, m := range u.Members {
		byIndex[m.Index] = m
		total++
		if m.Available && !m.Terminating {
			available++
		}
	}
	var res Result
	add := func(a Action) { a.Unit = u.Name; res.Actions = append(res.Actions, a) }
	minAvailable := u.Desired - maxUnavailable
	maxTotal := u.Desired + maxSurge

	// Old members that are already unavailable go first, without spending the unavailable
	// budget, but not all at once: members that turn unready together (a probe flap) may come
	// back, and deleting them all would turn a blip into an outage. As the Deployment
	// controller caps cleanupUnhealthyReplicas, at most present - minAvailable - (new members
	// not yet available) go in one pass; unlike it, one may always go when nothing else is in
	// flight (no new member unavailable, none terminating), so that an update on a full cluster
	// with maxUnavailable 0 still gets past a broken member.
	present, newUnavailable, terminating := 0, 0, 0
	for _, m := range u.Members {
		switch {
		case m.Terminating:
			terminating++
		default:
			present++
			if m.Revision == u.Target && !m.Available {
				newUnavailable++
			}
		}
	}
	unhealthyCap := present - minAvailable - newUnavailable
	if unhealthyCap < 1 && newUnavailable == 0 && terminating == 0 {
		unhealthyCap = 1
	}
	var oldRegular, oldAvailableRegular []Member
	newRegularAvailable := 0
	for i := 0; i < u.Desired; i++ {
		m, ok := byIndex[i]
		if !ok || m.Terminating {
			continue
		}
		if m.Revision == u.Target {
			if m.Available {
				newRegularAvailable++
			}
			continue
		}
		oldRegular = append(oldRegular, m)
		switch {
		case m.Available:
			oldAvailableRegular = append(oldAvailableRegular, m)
		case unhealthyCap > 0:
			add(Action{Type: Delete, Index: i, Revision: m.Revision, Reason: "old member is unavailable: replaced without spending the unavailable budget"})
			unhealthyCap--
		}
	}

	// Holes below the desired count are filled from the target revision, lowest first.
	fills, blockedHoles := fillHoles(u, byIndex, total, maxTotal, "fill index below the desired count")
	res.Actions = append(res.Actions, fills...)
	created := len(fills)

	// Excess members: indices >= desired (surge members, or what a scale-in left).
	var excess []Member
	surgeNew, surgeCount := 0, 0
	for _, m := range u.Members {
		if m.Index < u.Desired {
			continue
		}
		surgeCount++
		if !m.Terminating {
			excess = append(excess, m)
			if m.Revision == u.Target {
				surgeNew++
			}
		}
	}
	sort.Slice(excess, func(i, j int) bool { return excess[i].Index > excess[j].Index })

	canDelete := available - minAvailable
	if len(oldRegular) > 0 {
		// Surge: create new members above the desired count while old ones remain.
		want := min(maxSurge, len(oldAvailableRegular)) - surgeNew
		if want > 0 && total+created < maxTotal && u.SurgeBlocked {
			res.SurgeBlocked, want = true, 0
		}
		for next := u.Desired; want > 0 && total+created < maxTotal; next++ {
			if _, ok := byIndex[next]; ok {
				continue
			}
			add(Action{Type: Create, Index: next, Revision: u.Target, Surge: true, Reason: "surge: new member above the desired count before an old one goes"})
			created++
			want--
		}
		// Replace old available members within the unavailable budget, lowest index first.
		for _, m := range oldAvailableRegular {
			if canDelete <= 0 {
				break
			}
			add(Action{Type: Delete, Index: m.Index, Revision: m.Revision, Reason: "replace an old member within the unavailable budget"})
			canDelete--
		}
	}
	regularDone := len(oldRegular) == 0 && newRegularAvailable == u.Desired
	for _, m := range excess {
		remove := false
		switch {
		case regularDone:
			remove = true // the update is complete: surge members have done their job
		case m.Revision != u.Target:
			remove = true // an old surge (rollover) or what a scale-in left
		case blockedHoles > 0:
			remove = true // it takes the room that an index below the desired count needs
			blockedHoles--
		}
		if !remove {
			continue
		}
		if m.Available && !regularDone {
			if canDelete <= 0 {
				continue
			}
			canDelete--
		}
		add(Action{Type: Delete, Index: m.Index, Revision: m.Revision, Surge: true, Reason: "remove a member above the desired count"})
	}
	if blockedHoles > 0 && len(res.Actions) == 0 {
		res.Waiting = fmt.Sprintf("%d members exist (terminating ones included) and desired + maxSurge is %d", total, maxTotal)
	}

	res.Done = len(res.Actions) == 0 && surgeCount == 0 && newRegularAvailable == u.Desired && total == u.Desired
	if !res.Done && len(res.Actions) == 0 && res.Waiting == "" {
		res.Waiting = waitingFor(u, available, minAvailable, total, maxTotal)
		if res.SurgeBlocked {
			res.Waiting = fmt.Sprintf("no room for a surge member and maxUnavailable allows no old member to go (%d available, minimum %d)", available, minAvailable)
		}
	}
	return res, nil
}

// fillHoles creates the missing indices below the desired count from the target revision,
// lowest first, while total plus those created stays below maxTotal; blocked counts the holes
// left for want of room.
func fillHoles(u Unit, byIndex map[int]Member, total, maxTotal int, reason string) (creates []Action, blocked int) {
	for i := 0; i < u.Desired; i++ {
		if _, ok := byIndex[i]; ok {
			continue
		}
		if total+len(creates) >= maxTotal {
			blocked++
			continue
		}
		creates = append(creates, Action{Unit: u.Name, Type: Create, Index: i, Revision: u.Target, Reason: reason})
	}
	return creates, blocked
}

func waitingFor(u Unit, available, minAvailable, total, maxTotal int) string {
	terminating, notReady := 0, 0
	for _, m := range u.Members {
		switch {
		case m.Terminating:
			terminating++
		case !m.Available:
			notReady++
		}
	}
	switch {
	case terminating > 0:
		return fmt.Sprintf("%d member(s) terminating", terminating)
	case notReady > 0:
		return fmt.Sprintf("%d member(s) not available yet; %d available, at least %d must stay available", notReady, available, minAvailable)
	case total >= maxTotal:
		return fmt.Sprintf("at desired + maxSurge (%d) and no member can be made unavailable (%d available, minimum %d)", maxTotal, available, minAvailable)
	}
	return "no step possible within the budgets"
}

// planPaused is PlanUnit for a paused unit: holes below the desired count are filled from the
// target revision (lowest first, within desired + maxSurge), members above it go (highest
// first) unless they are the surge members of an update in flight (members at the target
// revision while members of an older revision remain below the desired count). Nothing else.
func planPaused(u Unit, maxSurge, maxUnavailable int) Result {
	var res Result
	byIndex := map[int]Member{}
	outdated, total, available, regularReady := 0, len(u.Members), 0, 0
	for _, m := range u.Members {
		byIndex[m.Index] = m
		if m.Terminating {
			continue
		}
		if m.Available {
			available++
		}
		if m.Index < u.Desired && m.Revision != u.Target {
			outdated++
		}
		if m.Index < u.Desired && m.Revision == u.Target && m.Available {
			regularReady++
		}
	}
	// An available member above the desired count goes only within the unavailable budget,
	// unless every member below it is available (as PlanUnit removes surge members).
	canDelete := available - (u.Desired - maxUnavailable)
	regularDone := outdated == 0 && regularReady == u.Desired
	fills, _ := fillHoles(u, byIndex, total, u.Desired+maxSurge, "fill index below the desired count (paused: self-healing and scale-out only)")
	res.Actions = append(res.Actions, fills...)
	var excess []Member
	for _, m := range u.Members {
		if m.Index >= u.Desired && !m.Terminating && !(outdated > 0 && m.Revision == u.Target) {
			excess = append(excess, m)
		}
	}
	sort.Slice(excess, func(i, j int) bool { return excess[i].Index > excess[j].Index })
	for _, m := range excess {
		if m.Available && !regularDone {
			if canDelete <= 0 {
				continue
			}
			canDelete--
		}
		res.Actions = append(res.Actions, Action{Unit: u.Name, Type: Delete, Index: m.Index, Revision: m.Revision, Surge: true, Reason: "remove a member above the desired count (paused: scale-in)"})
	}
	if outdated > 0 {
		res.Waiting = fmt.Sprintf("paused: %d members run an older revision than %s", outdated, u.Target)
		return res
	}
	done := len(res.Actions) == 0 && total == u.Desired
	for _, m := range u.Members {
		done = done && m.Index < u.Desired && !m.Terminating && m.Available
	}
	res.Done = done
	return res
}
