package controller

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// rollout is the planner's step for the pods of the standalone cliques, and the surge pod
// indices the desired world must hold.
type rollout struct {
	plan  update.Plan
	surge map[string][]int
	// creates and deletes are the planned actions by pod name.
	creates, deletes map[string]bool
	// surgeGroups are, per scaling group, the replica indices above its replicas to keep or
	// create; deleteGroups the group replicas whose pods go (to be replaced, or at the end).
	surgeGroups, deleteGroups map[string][]int
	// surgeReplicas and deleteReplicas are the PodCliqueSet replicas (ReplicaRecreate) to keep
	// above spec.replicas, and to delete (pods and gangs) for recreation or at the end.
	surgeReplicas, deleteReplicas []int
	// hashes are the template hashes of the cliques, and revision the whole template's (see
	// revision), computed once per pass.
	hashes   map[string]string
	revision string
	// surgeBlocked are the units whose surge the admission check refused, with its message;
	// unavailable is the resolved maxUnavailable of those units.
	surgeBlocked map[string]string
	unavailable  map[string]int
	// replaced are the members deleted this pass to be replaced (not surge removals): their
	// gangs get a reservation of the capacity they free.
	replaced map[update.MemberRef]bool
	// onDelete is set under OnDelete; waitingDeletion counts the members on an older
	// revision, which OnDelete leaves until they are deleted.
	onDelete        bool
	waitingDeletion int
	// paused is set while updateStrategy.paused holds the update (its units plan no step).
	paused bool
	// hold is the partition of the update: the replicas below it and the template they keep.
	hold partitionHold
	// Coherent: scope are the template cliques the update changes (nil: unknown);
	// sliceGangs are, by member, the slice gangs of the members the desired world puts in
	// one; replacedSlices the members replaced with their slice, to the slice gang that holds
	// the capacity they free; drainingSlices the slice gangs whose members are being replaced
	// (their held capacity waits for them).
	scope                      map[string]bool
	sliceGangs, replacedSlices map[update.MemberRef]string
	drainingSlices             map[string]bool
	// createGroups are the scaling-group replicas the plan creates. Under Coherent a group
	// replica with no pod is made only when the plan says so (whole, in its slice); otherwise
	// the pods a group replica misses are made at once.
	createGroups map[update.MemberRef]bool
}

// rolloutInputs are what a pass reads besides the PodCliqueSet and its children, once: the
// template hashes of spec.template, the last complete revision's template (read only when a
// partition or Coherent needs it; nil when there is none or its ControllerRevision is gone),
// and from them the partition's hold and the cliques in a Coherent update's scope.
type rolloutInputs struct {
	hashes   map[string]string
	complete *grovev1.PodCliqueSetTemplateSpec
	hold     partitionHold
	scope    map[string]bool
}

// rolloutInputs reads the inputs of a pass (see rolloutInputs).
func (c *Controller) rolloutInputs(pcs *grovev1.PodCliqueSet, obs *observed) (rolloutInputs, error) {
	in := rolloutInputs{hashes: workload.TemplateHashes(pcs)}
	s := pcs.Spec.UpdateStrategy
	partitioned := s != nil && s.RollingUpdate != nil && s.RollingUpdate.Partition != nil
	if rev := pcs.Status.CompleteRevision; rev != "" && (partitioned || coherent(pcs)) {
		_, t, err := c.revisionTemplate(pcs.Namespace, rev)
		if err != nil {
			return rolloutInputs{}, err
		}
		in.complete = t
	}
	in.hold = heldByPartition(pcs, in)
	in.scope = coherentScope(pcs, obs, in)
	return in, nil
}

// observed is the input of the desired world for this pass's plan.
func (ro *rollout) observed(obs *observed) workload.Observed {
	return workload.Observed{ScalingGroups: obs.groups, Cliques: obs.cliques, SurgePods: ro.surge, SurgeGroupReplicas: ro.surgeGroups,
		SurgeReplicas: ro.surgeReplicas, ReplicaTemplates: ro.hold.templates(), SliceGangs: ro.sliceGangs, ExistingPods: obs.pods, PodNames: obs.podNames, TopologyKeys: obs.topology}
}

// partitionHold is what rollingUpdate.partition holds back: replicas 0..n-1 keep template (the
// last complete revision, named revision) while the others move to spec.template. n is 0 when
// nothing is held (no partition, no update under way, or no complete revision to hold to).
type partitionHold struct {
	n        int
	template *grovev1.PodCliqueSetTemplateSpec
	revision string
}

// templates are the held replicas' templates (workload.Observed.ReplicaTemplates).
func (h partitionHold) templates() map[int]*grovev1.PodCliqueSetTemplateSpec {
	if h.n == 0 {
		return nil
	}
	out := make(map[int]*grovev1.PodCliqueSetTemplateSpec, h.n)
	for r := 0; r < h.n; r++ {
		out[r] = h.template
	}
	return out
}

// replicasUnitName is the update unit of the PodCliqueSet replicas (ReplicaRecreate).
const replicasUnitName = "replicas"

// planRollout runs the update planner over every PodCliqueSet replica (RollingUpdate: one
// replica at a time): standalone cliques roll pods, scaling groups roll whole group replicas,
// each by its own budget. A group replica is replaced by deleting its pods; its missing pods
// are then created from the newest template.
//
// blocked names the units whose surge the admission check refused (with its message): their
// surge is not planned.
//
// in.hold keeps the replicas below the partition at the complete revision: their units target
// its hashes, so their members are at target, and a lost one is recreated from it.
//
// Coherent plans the same units in coherent slices (update.PlanCoherent) of the cliques in
// in.scope.
func planRollout(pcs *grovev1.PodCliqueSet, obs *observed, blocked map[string]string, in rolloutInputs) (*rollout, error) {
	hold, hashes := in.hold, in.hashes
	templates := hold.templates()
	var heldHashes map[string]string
	if hold.n > 0 {
		heldHashes = workload.TemplateHashes(workload.ReplicaPCS(pcs, templates, 0))
	}
	inGroup := map[string]bool{}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, c := range g.CliqueNames {
			inGroup[c] = true
		}
	}
	// Each unit reads only its own pods.
	byClique, byGroup := obs.podsBy(grovev1.LabelPodClique), obs.podsBy(grovev1.LabelPodCliqueScalingGroup)
	gangsOf := map[string][]*schedv1.PodGang{}
	for _, g := range obs.gangs {
		r := g.Labels[grovev1.LabelPodCliqueSetReplicaIndex]
		gangsOf[r] = append(gangsOf[r], g)
	}
	set := update.Set{Strategy: strategyType(pcs), Paused: pcs.Spec.UpdateStrategy != nil && pcs.Spec.UpdateStrategy.Paused}
	for r := 0; r < int(pcs.Spec.Replicas); r++ {
		rp, rh := pcs, hashes
		if r < hold.n {
			rp, rh = workload.ReplicaPCS(pcs, templates, r), heldHashes
		}
		rep := update.Replica{Index: r, Scheduled: len(gangsOf[strconv.Itoa(r)]) > 0}
		for _, g := range gangsOf[strconv.Itoa(r)] {
			if !meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionScheduled) {
				rep.Scheduled = false
			}
			if !workload.GangAvailable(g, obs.pods) {
				rep.MinAvailableBreached = true
			}
		}
		for i := range rp.Spec.Template.Cliques {
			c := &rp.Spec.Template.Cliques[i]
			if inGroup[c.Name] {
				continue
			}
			name := workload.PodCliqueName(pcs.Name, r, c.Name)
			u := update.Unit{Name: name, Kind: update.Pods, Desired: int(workload.CliqueReplicas(c, obs.cliques[name])), Target: rh[c.Name]}
			u.MaxSurge, u.MaxUnavailable = grovev1.ComponentBudgets(c.UpdateStrategy, c.RollingUpdate)
			u.MinAvailable = min(int(workload.CliqueMinAvailable(c)), u.Desired)
			for _, p := range byClique[name] {
				u.Members = append(u.Members, update.Member{
					Index:       index.Parse(p.Labels[grovev1.LabelPodCliquePodIndex]),
					Revision:    p.Labels[grovev1.LabelPodTemplateHash],
					Available:   workload.PodReady(p),
					Terminating: p.DeletionTimestamp != nil,
				})
			}
			rep.Units = append(rep.Units, u)
		}
		for gi := range rp.Spec.Template.PodCliqueScalingGroupConfigs {
			rep.Units = append(rep.Units, groupUnit(rp, r, &rp.Spec.Template.PodCliqueScalingGroupConfigs[gi], obs, byClique, byGroup, rh))
		}
		set.Replicas = append(set.Replicas, rep)
	}
	if set.Strategy == update.ReplicaRecreate {
		set.SetReplicas = replicasUnit(pcs, obs, hashes, hold.n, heldHashes)
	}
	if set.Strategy == update.Coherent {
		set.Coherent = coherentSet(pcs, set.Replicas, in.scope)
	}
	if len(blocked) > 0 {
		set.SurgeBlocked = make(map[string]bool, len(blocked))
		for u := range blocked {
			set.SurgeBlocked[u] = true
		}
	}
	plan, err := update.PlanSet(set)
	if err != nil {
		return nil, err
	}
	onDelete := set.Strategy == update.OnDelete
	ro := &rollout{plan: plan.Plan, surge: map[string][]int{}, creates: map[string]bool{}, deletes: map[string]bool{},
		surgeGroups: map[string][]int{}, deleteGroups: map[string][]int{}, hashes: hashes, revision: revision(pcs, hashes),
		surgeBlocked: map[string]string{}, unavailable: plan.Unavailable, replaced: map[update.MemberRef]bool{},
		onDelete: onDelete, waitingDeletion: plan.WaitingDeletion, paused: set.Paused && !onDelete, hold: hold,
		scope: in.scope, sliceGangs: map[update.MemberRef]string{}, replacedSlices: map[update.MemberRef]string{}, drainingSlices: map[string]bool{},
		createGroups: map[update.MemberRef]bool{}}
	for _, u := range plan.SurgeBlocked {
		ro.surgeBlocked[u] = blocked[u]
	}
	// Always, whatever the strategy: a slice in flight when the strategy changed still lands.
	ro.sliceMembers(pcs, obs)
	for _, m := range plan.Surge {
		switch m.Kind {
		case update.Pods:
			ro.surge[m.Unit] = append(ro.surge[m.Unit], m.Index)
		case update.GroupReplicas:
			ro.surgeGroups[m.Unit] = append(ro.surgeGroups[m.Unit], m.Index)
		case update.SetReplicas:
			ro.surgeReplicas = append(ro.surgeReplicas, m.Index)
		}
	}
	// The controller's part: each action as what it means for the desired world.
	for _, a := range plan.Actions {
		if a.Type == update.Delete && !a.Surge {
			ro.replaced[a.Ref()] = true
		}
		switch {
		case a.Kind == update.SetReplicas && a.Type == update.Delete:
			ro.deleteReplicas = append(ro.deleteReplicas, a.Index)
		case a.Kind == update.GroupReplicas && a.Type == update.Create:
			ro.createGroups[a.Ref()] = true
		case a.Kind == update.GroupReplicas && a.Type == update.Delete:
			ro.deleteGroups[a.Unit] = append(ro.deleteGroups[a.Unit], a.Index)
		case a.Kind == update.Pods && a.Type == update.Create:
			ro.creates[obs.podName(a.Unit, a.Index)] = true
		case a.Kind == update.Pods && a.Type == update.Delete:
			ro.deletes[obs.podName(a.Unit, a.Index)] = true
		}
	}
	return ro, nil
}

// strategyType is the PodCliqueSet's update strategy as the planner reads it (RollingUpdate
// when none is set).
func strategyType(pcs *grovev1.PodCliqueSet) update.Strategy {
	if s := pcs.Spec.UpdateStrategy; s != nil {
		switch s.Type {
		case grovev1.ReplicaRecreateStrategyType:
			return update.ReplicaRecreate
		case grovev1.OnDeleteStrategyType:
			return update.OnDelete
		case grovev1.CoherentStrategyType:
			return update.Coherent
		}
	}
	return update.RollingUpdate
}

// replicasUnit is the PodCliqueSet replicas as one update unit (ReplicaRecreate): a replica is
// at the target when every pod runs its clique's newest template, available when each of its
// gangs has minAvailable Ready pods; the budgets are the PCS-level ones (grovev1.SetBudgets).
//
// Replicas below the partition (held) are at the target when their pods run the held
// template.
func replicasUnit(pcs *grovev1.PodCliqueSet, obs *observed, hashes map[string]string, held int, heldHashes map[string]string) update.Unit {
	u := update.Unit{Name: replicasUnitName, Kind: update.SetReplicas, Desired: int(pcs.Spec.Replicas), Target: revision(pcs, hashes)}
	u.MaxSurge, u.MaxUnavailable = grovev1.SetBudgets(pcs.Spec.UpdateStrategy)
	members := map[int]*update.Member{}
	member := func(r int) *update.Member {
		if members[r] == nil {
			members[r] = &update.Member{Index: r, Revision: u.Target, Available: true}
		}
		return members[r]
	}
	for _, g := range obs.gangs {
		r := index.Parse(g.Labels[grovev1.LabelPodCliqueSetReplicaIndex])
		if r < 0 {
			continue
		}
		m := member(r)
		if !workload.GangAvailable(g, obs.pods) {
			m.Available = false
		}
	}
	for _, p := range obs.pods {
		r := index.Parse(p.Labels[grovev1.LabelPodCliqueSetReplicaIndex])
		if r < 0 {
			continue
		}
		m := member(r)
		want := hashes
		if r < held {
			want = heldHashes
		}
		if p.Labels[grovev1.LabelPodTemplateHash] != want[p.Labels[workload.LabelCliqueTemplate]] {
			m.Revision = "old"
		}
		if p.DeletionTimestamp != nil {
			m.Terminating = true
		}
	}
	for _, m := range members {
		u.Members = append(u.Members, *m)
	}
	sort.Slice(u.Members, func(a, b int) bool { return u.Members[a].Index < u.Members[b].Index })
	return u
}

// groupUnit is a scaling group of one PodCliqueSet replica as an update unit: its members are
// the group replicas that have pods; a replica is at the target when every pod runs its clique's
// newest template, available when each of its cliques has minAvailable Ready pods.
// byClique and byGroup are the observed pods by clique and by scaling group.
func groupUnit(pcs *grovev1.PodCliqueSet, r int, cfg *grovev1.PodCliqueScalingGroupConfig, obs *observed, byClique, byGroup map[string][]*corev1.Pod, hashes map[string]string) update.Unit {
	sgName := workload.ScalingGroupName(pcs.Name, r, cfg.Name)
	templates := map[string]*grovev1.PodCliqueTemplateSpec{}
	for i := range pcs.Spec.Template.Cliques {
		templates[pcs.Spec.Template.Cliques[i].Name] = &pcs.Spec.Template.Cliques[i]
	}
	target := ""
	for _, cn := range cfg.CliqueNames {
		if c := templates[cn]; c != nil {
			target += hashes[cn] + "/"
		}
	}
	u := update.Unit{Name: sgName, Kind: update.GroupReplicas, Desired: int(workload.GroupReplicas(cfg, obs.groups[sgName])), Target: target,
		MinAvailable: int(workload.GroupMinAvailable(cfg))}
	u.MaxSurge, u.MaxUnavailable = grovev1.ComponentBudgets(cfg.UpdateStrategy, cfg.RollingUpdate)
	seen := map[int]bool{}
	for _, p := range byGroup[sgName] {
		seen[index.Parse(p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex])] = true
	}
	for j := range seen {
		if j < 0 {
			continue
		}
		m := update.Member{Index: j, Revision: target, Available: true}
		for _, cn := range cfg.CliqueNames {
			c := templates[cn]
			if c == nil {
				continue
			}
			hash := hashes[cn]
			var ready int32
			pods := byClique[workload.GroupCliqueName(pcs.Name, r, cfg.Name, j, cn)]
			for _, p := range pods {
				if p.Labels[grovev1.LabelPodTemplateHash] != hash {
					m.Revision = "old"
				}
				if p.DeletionTimestamp != nil {
					m.Terminating = true
				}
				if workload.PodReady(p) {
					ready++
				}
			}
			if ready < workload.CliqueMinAvailable(c) {
				m.Available = false
			}
		}
		u.Members = append(u.Members, m)
	}
	sort.Slice(u.Members, func(a, b int) bool { return u.Members[a].Index < u.Members[b].Index })
	return u
}

// revision names the whole template: it changes when any clique's template does.
func revision(pcs *grovev1.PodCliqueSet, hashes map[string]string) string {
	h := fnv.New64a()
	for i := range pcs.Spec.Template.Cliques {
		_, _ = h.Write([]byte(hashes[pcs.Spec.Template.Cliques[i].Name] + "/"))
	}
	return strconv.FormatUint(h.Sum64()%(1<<40), 36)
}

// setProgress records the update in the status: when it started and ended, when it last made
// a step, which replicas it works on, and the Progressing condition (False with reason
// ProgressDeadlineExceeded when it made no step for progressDeadlineSeconds; it keeps trying).
func setProgress(st *grovev1.PodCliqueSetStatus, pcs *grovev1.PodCliqueSet, ro *rollout, now metav1.Time) {
	rev := ro.revision
	if st.CurrentRevision != rev || st.UpdateProgress == nil {
		first := st.CurrentRevision == "" // the first revision is a creation, not an update
		st.CurrentRevision = rev
		st.UpdateProgress = &grovev1.PodCliqueSetUpdateProgress{UpdateStartedAt: now, LastProgressAt: &now}
		if first && ro.plan.Done {
			st.UpdateProgress.UpdateEndedAt = &now
		}
	}
	p := st.UpdateProgress
	if len(ro.plan.Actions) > 0 {
		p.LastProgressAt = &now
	}
	started := map[int32]*metav1.Time{}
	for _, u := range p.CurrentlyUpdating {
		started[u.ReplicaIndex] = u.UpdateStartedAt
	}
	p.UpdatingReplicas, p.CurrentlyUpdating = nil, nil
	for _, r := range ro.plan.Updating {
		at := started[int32(r)]
		if at == nil {
			at = &now
		}
		p.UpdatingReplicas = append(p.UpdatingReplicas, int32(r))
		p.CurrentlyUpdating = append(p.CurrentlyUpdating, grovev1.ReplicaUpdateProgress{ReplicaIndex: int32(r), UpdateStartedAt: at})
	}
	coherentProgress(p, pcs, ro)
	c := metav1.Condition{Type: grovev1.ConditionProgressing, ObservedGeneration: pcs.Generation, LastTransitionTime: now}
	deadline := progressDeadline(pcs)
	switch {
	case ro.onDelete && ro.plan.Done:
		// OnDelete: the update has nothing to do itself; it ends at once and the condition
		// says what waits for a deletion. No progress deadline runs.
		if p.UpdateEndedAt == nil {
			p.UpdateEndedAt = &now
		}
		if ro.waitingDeletion == 0 {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, "UpdateComplete", "every replica runs revision "+rev
		} else {
			c.Status, c.Reason = metav1.ConditionUnknown, "WaitingForDeletion"
			c.Message = fmt.Sprintf("updateStrategy OnDelete: %d pods run an older revision than %s; each is recreated at it when deleted", ro.waitingDeletion, rev)
		}
	case ro.paused && !ro.plan.Done && p.UpdateEndedAt == nil:
		// Paused: no update step is taken, so no progress is due; the deadline runs again
		// from the moment the update resumes.
		p.LastProgressAt = &now
		c.Status, c.Reason = metav1.ConditionUnknown, grovev1.ReasonPaused
		c.Message = "updateStrategy.paused: the update to revision " + rev + " takes no step until paused is false"
		if ro.plan.Waiting != "" {
			c.Message += "; " + ro.plan.Waiting
		}
	case ro.hold.n > 0 && ro.plan.Done:
		// rollingUpdate.partition holds the replicas below it: the update is as far as it may
		// go; no deadline runs, and the complete revision stays the held one.
		p.LastProgressAt = &now
		c.Status, c.Reason = metav1.ConditionTrue, ReasonPartitioned
		c.Message = fmt.Sprintf("replicas %d and above run revision %s; the %d below rollingUpdate.partition keep %s; lower the partition to go on",
			ro.hold.n, rev, ro.hold.n, ro.hold.revision)
	case ro.plan.Done || p.UpdateEndedAt != nil:
		// Done: every unit of every replica is done by its own plan. Once the update of this
		// revision has ended, a member lost later (evicted, node gone) is self-healing, not an
		// update: the condition stays UpdateComplete while it is replaced.
		if p.UpdateEndedAt == nil {
			p.UpdateEndedAt = &now
		}
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, "UpdateComplete", "every replica runs revision "+rev
	case update.Stalled(false, p.LastProgressAt.Time, now.Time, deadline):
		c.Status, c.Reason = metav1.ConditionFalse, grovev1.ReasonProgressDeadlineExceeded
		c.Message = fmt.Sprintf("no update step for %s (progressDeadlineSeconds); the update keeps trying; waiting: %s", deadline, ro.plan.Waiting)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, "Updating"
		c.Message = "updating to revision " + rev
		if cp := ro.plan.Coherent; cp != nil {
			c.Message += fmt.Sprintf("; replica %d: %d of %d coherent slices updated, %d in flight; complete serving sets: %d updated, %d outdated",
				cp.Replica, cp.Updated, cp.Slices, len(cp.InFlight), cp.ServingUpdated, cp.ServingOutdated)
		}
		if ro.plan.Waiting != "" {
			c.Message += "; waiting: " + ro.plan.Waiting
		}
	}
	st.UpdateRevision = RevisionName(pcs.Name, rev)
	if p.UpdateEndedAt != nil {
		st.CompleteRevision = st.UpdateRevision
	}
	inProgress := updateInProgress(c, pcs.Generation, now)
	if rb, ok := rollbackCondition(pcs, now); ok {
		// A rolled-back update says so until the template changes again, while the rollback
		// rolls and after it (UpdateInProgress follows the rollback's own update).
		c = rb
	}
	meta.SetStatusCondition(&st.Conditions, c)
	meta.SetStatusCondition(&st.Conditions, inProgress)
	meta.SetStatusCondition(&st.Conditions, surgeCondition(pcs, ro, now))
}

// progressDeadline is the PodCliqueSet's progressDeadlineSeconds, bounded by the shortest
// rollingUpdate.progressDeadline of its components (Grove's per-component deadline, read at the
// PodCliqueSet's level: Phalanx reports progress for the whole update).
func progressDeadline(pcs *grovev1.PodCliqueSet) time.Duration {
	deadline := time.Duration(grovev1.DefaultProgressDeadlineSeconds) * time.Second
	if s := pcs.Spec.UpdateStrategy; s != nil && s.ProgressDeadlineSeconds != nil {
		deadline = time.Duration(*s.ProgressDeadlineSeconds) * time.Second
	}
	bound := func(ru *grovev1.RollingUpdateConfiguration) {
		if ru != nil && ru.ProgressDeadline != nil && ru.ProgressDeadline.Duration > 0 && ru.ProgressDeadline.Duration < deadline {
			deadline = ru.ProgressDeadline.Duration
		}
	}
	for i := range pcs.Spec.Template.Cliques {
		bound(pcs.Spec.Template.Cliques[i].RollingUpdate)
	}
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		bound(pcs.Spec.Template.PodCliqueScalingGroupConfigs[i].RollingUpdate)
	}
	return deadline
}

// updateInProgress is Grove's UpdateInProgress condition, from Progressing: True while an update
// is under way (stalled or not), False once it is complete.
func updateInProgress(progressing metav1.Condition, generation int64, now metav1.Time) metav1.Condition {
	c := metav1.Condition{Type: grovev1.ConditionUpdateInProgress, ObservedGeneration: generation, LastTransitionTime: now,
		Status: metav1.ConditionTrue, Reason: progressing.Reason, Message: progressing.Message}
	if progressing.Reason == "UpdateComplete" || progressing.Reason == "WaitingForDeletion" {
		// WaitingForDeletion (OnDelete): the controller has no update step to take.
		c.Status = metav1.ConditionFalse
	}
	return c
}
