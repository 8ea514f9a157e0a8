package workload

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// Reasons of a PodClique's MinAvailableBreached condition. A breach arms gang termination only
// when the clique was available before (ReasonInsufficientReadyPods): a clique that has not yet
// been available since it was made (ReasonNotYetAvailable) is starting, not regressing, and
// recycling it would only churn pods that the cluster cannot place yet.
const (
	ReasonInsufficientReadyPods = "InsufficientReadyPods"
	ReasonNotYetAvailable       = "NotYetAvailable"
	ReasonSufficientReadyPods   = "SufficientReadyPods"
)

// DefaultTerminationDelay is Grove's default spec.template.terminationDelay (4h), used when a
// PodCliqueSet leaves it unset.
const DefaultTerminationDelay = 4 * time.Hour

// TerminationDelay is how long a gang of pcs may stay below its minimum before it is recycled.
func TerminationDelay(pcs *grovev1.PodCliqueSet) time.Duration {
	if d := pcs.Spec.Template.TerminationDelay; d != nil {
		return d.Duration
	}
	return DefaultTerminationDelay
}

// Termination is one unit that gang termination recycles: a whole PodCliqueSet replica, or,
// when Group is set, one replica of a scaling group whose group still has its minAvailable
// replicas without it.
type Termination struct {
	Replica int
	// Group is the scaling group's config name and GroupReplica the group replica; Group is ""
	// for the whole PodCliqueSet replica.
	Group        string
	GroupReplica int
	// Breached names what fired it ("PodClique <name>", or "PodCliqueScalingGroup <name>"
	// for a group below its minAvailable), and Since when that breach began.
	Breached string
	Since    time.Time
}

// String names the unit as events and logs show it.
func (t Termination) String() string {
	if t.Group == "" {
		return "replica " + strconv.Itoa(t.Replica)
	}
	return fmt.Sprintf("replica %d of scaling group %s in replica %d", t.GroupReplica, t.Group, t.Replica)
}

// Selects reports whether a pod belongs to the unit (by Grove's labels).
func (t Termination) Selects(pcs string, p *corev1.Pod) bool {
	if p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] != strconv.Itoa(t.Replica) {
		return false
	}
	if t.Group == "" {
		return true
	}
	return p.Labels[grovev1.LabelPodCliqueScalingGroup] == ScalingGroupName(pcs, t.Replica, t.Group) &&
		p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == strconv.Itoa(t.GroupReplica)
}

// TerminationPlan is what PlanGangTermination decides.
type TerminationPlan struct {
	// Terminate are the units whose every live pod goes now, so that each gang is placed
	// whole again (the controller recreates the pods at their indices).
	Terminate []Termination
	// RecheckIn, when positive, is when the next armed breach runs out its delay.
	RecheckIn time.Duration
}

// PlanGangTermination decides, as Grove's operator does, which units of pcs to recycle: a gang
// that fell below its minimum and stayed so for terminationDelay holds capacity that serves
// nothing (its members wait for each other), so its members are deleted and recreated, and
// the scheduler places the gang whole again, wherever it fits now.
//
//   - A standalone PodClique of replica r breached longer than the delay recycles replica r.
//   - A scaling group with fewer than minAvailable available replicas (its own
//     MinAvailableBreached condition, which counts a group replica recycled before and not
//     yet back as unavailable) past the delay recycles replica r.
//   - Otherwise a replica of a scaling group breaches when one of its cliques does, and past
//     the delay it is recycled alone.
//
// Only armed breaches count: condition MinAvailableBreached True on the PodClique or scaling
// group (keyed by name, as the cache holds them), with a reason other than
// ReasonNotYetAvailable. And
// a unit is recycled only if it still has a live pod made before its breach began: a unit whose
// every pod was made since (it was just recycled, or lost every pod) holds nothing from before,
// and recycling it again would gain nothing.
func PlanGangTermination(pcs *grovev1.PodCliqueSet, cliques map[string]*grovev1.PodClique, groups map[string]*grovev1.PodCliqueScalingGroup, pods []*corev1.Pod, now time.Time) TerminationPlan {
	var plan TerminationPlan
	delay := TerminationDelay(pcs)
	recheck := func(since time.Time) {
		if in := since.Add(delay).Sub(now); in > 0 && (plan.RecheckIn == 0 || in < plan.RecheckIn) {
			plan.RecheckIn = in
		}
	}
	inGroup := map[string]bool{}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, c := range g.CliqueNames {
			inGroup[c] = true
		}
	}
	for r := 0; r < int(pcs.Spec.Replicas); r++ {
		replica := Termination{Replica: r}
		var whole []Termination   // candidates for the whole replica
		var partial []Termination // candidates for single group replicas
		for i := range pcs.Spec.Template.Cliques {
			c := &pcs.Spec.Template.Cliques[i]
			if inGroup[c.Name] {
				continue
			}
			name := PodCliqueName(pcs.Name, r, c.Name)
			if since, ok := armedBreach(cliques[name]); ok && hasPodBefore(pcs.Name, replica, pods, since) {
				whole = append(whole, Termination{Replica: r, Breached: "PodClique " + name, Since: since})
			}
		}
		for gi := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
			g := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[gi]
			sgName := ScalingGroupName(pcs.Name, r, g.Name)
			// The group below its minAvailable recycles the replica (its own condition, so
			// that a group replica recycled before and not yet back counts as unavailable).
			if since, ok := armedBreach(groups[sgName]); ok {
				if hasPodBefore(pcs.Name, replica, pods, since) {
					whole = append(whole, Termination{Replica: r, Breached: "PodCliqueScalingGroup " + sgName, Since: since})
				}
				continue // its replicas go with the whole replica
			}
			n := int(GroupReplicas(g, groups[sgName]))
			for j := 0; j < n; j++ {
				unit := Termination{Replica: r, Group: g.Name, GroupReplica: j}
				for _, cn := range g.CliqueNames {
					name := GroupCliqueName(pcs.Name, r, g.Name, j, cn)
					since, ok := armedBreach(cliques[name])
					if ok && (unit.Breached == "" || since.Before(unit.Since)) {
						unit.Breached, unit.Since = "PodClique "+name, since
					}
				}
				if unit.Breached != "" && hasPodBefore(pcs.Name, unit, pods, unit.Since) {
					partial = append(partial, unit)
				}
			}
		}
		fired := false
		for _, t := range whole {
			if !now.Before(t.Since.Add(delay)) {
				plan.Terminate = append(plan.Terminate, t)
				fired = true
				break
			}
			recheck(t.Since)
		}
		if fired {
			continue // the whole replica goes, its group replicas with it
		}
		for _, t := range partial {
			if !now.Before(t.Since.Add(delay)) {
				plan.Terminate = append(plan.Terminate, t)
				continue
			}
			recheck(t.Since)
		}
	}
	return plan
}

// armedBreach returns when the armed breach of a PodClique or scaling group began (see
// PlanGangTermination).
func armedBreach[T *grovev1.PodClique | *grovev1.PodCliqueScalingGroup](obj T) (time.Time, bool) {
	var conds []metav1.Condition
	switch o := any(obj).(type) {
	case *grovev1.PodClique:
		if o == nil || o.DeletionTimestamp != nil {
			return time.Time{}, false
		}
		conds = o.Status.Conditions
	case *grovev1.PodCliqueScalingGroup:
		if o == nil || o.DeletionTimestamp != nil {
			return time.Time{}, false
		}
		conds = o.Status.Conditions
	}
	c := meta.FindStatusCondition(conds, ConditionMinAvailableBreached)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason == ReasonNotYetAvailable {
		return time.Time{}, false
	}
	return c.LastTransitionTime.Time, true
}

// hasPodBefore reports whether unit has a live pod made before since.
func hasPodBefore(pcs string, unit Termination, pods []*corev1.Pod, since time.Time) bool {
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.CreationTimestamp.Time.Before(since) && unit.Selects(pcs, p) {
			return true
		}
	}
	return false
}
