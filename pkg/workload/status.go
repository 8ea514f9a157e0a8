package workload

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// ConditionMinAvailableBreached is Grove's condition of PodCliques and PodCliqueScalingGroups:
// True while fewer than minAvailable pods (group replicas) are Ready (available).
const ConditionMinAvailableBreached = "MinAvailableBreached"

// PodReady reports whether a live pod has condition Ready=True.
func PodReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// GangAvailable reports whether every podgroup of the gang has minReplicas Ready pods.
func GangAvailable(g *schedv1.PodGang, pods map[string]*corev1.Pod) bool {
	for _, pg := range g.Spec.PodGroups {
		var ready int32
		for _, ref := range pg.PodReferences {
			if p := pods[ref.Name]; p != nil && PodReady(p) {
				ready++
			}
		}
		if ready < pg.MinReplicas {
			return false
		}
	}
	return true
}

// CliqueStatus is the status of a PodClique from its live pods.
func CliqueStatus(pclq *grovev1.PodClique, pods []*corev1.Pod, hash string, now metav1.Time) grovev1.PodCliqueStatus {
	st := *pclq.Status.DeepCopy()
	st.ObservedGeneration = ptr.To(pclq.Generation)
	st.Replicas, st.ReadyReplicas, st.UpdatedReplicas, st.ScheduleGatedReplicas = 0, 0, 0, 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		st.Replicas++
		if PodReady(p) {
			st.ReadyReplicas++
		}
		if p.Labels[grovev1.LabelPodTemplateHash] == hash {
			st.UpdatedReplicas++
		}
		if len(p.Spec.SchedulingGates) > 0 {
			st.ScheduleGatedReplicas++
		}
	}
	st.Selector = ptr.To(labels.SelectorFromSet(labels.Set{grovev1.LabelPodClique: pclq.Name}).String())
	// Grove's fields: how many pods are bound, and the template the clique's pods are at once
	// its update is complete (every live pod on it; kept at the older one until then).
	var scheduled int32
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			scheduled++
		}
	}
	st.ScheduledReplicas = ptr.To(scheduled)
	if st.UpdatedReplicas == st.Replicas && st.Replicas >= pclq.Spec.Replicas && hash != "" {
		st.CurrentPodTemplateHash = ptr.To(hash)
	}
	minAvail := ptr.Deref(pclq.Spec.MinAvailable, pclq.Spec.Replicas)
	c := metav1.Condition{Type: ConditionMinAvailableBreached, ObservedGeneration: pclq.Generation, LastTransitionTime: now}
	if st.ReadyReplicas < minAvail {
		// A breach is a regression (it arms gang termination, termination.go) only once the
		// clique has been available: until then it is the clique starting.
		c.Status, c.Reason = metav1.ConditionTrue, breachReason(pclq.Status.Conditions, ReasonInsufficientReadyPods)
		c.Message = strconv.Itoa(int(st.ReadyReplicas)) + " of minAvailable " + strconv.Itoa(int(minAvail)) + " pods are Ready"
	} else {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonSufficientReadyPods, "minAvailable pods are Ready"
	}
	meta.SetStatusCondition(&st.Conditions, c)
	return st
}

// ScalingGroupStatus is the status of a scaling group: a replica is available when each of its
// cliques has minAvailable Ready pods.
func ScalingGroupStatus(sg *grovev1.PodCliqueScalingGroup, cliques []*grovev1.PodClique, now metav1.Time) grovev1.PodCliqueScalingGroupStatus {
	st := *sg.Status.DeepCopy()
	st.ObservedGeneration = ptr.To(sg.Generation)
	byReplica := map[string][]*grovev1.PodClique{}
	for _, c := range cliques {
		r := c.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]
		byReplica[r] = append(byReplica[r], c)
	}
	st.Replicas, st.AvailableReplicas, st.UpdatedReplicas = int32(len(byReplica)), 0, 0
	for _, cs := range byReplica {
		available, updated := true, true
		for _, c := range cs {
			if c.Status.ReadyReplicas < ptr.Deref(c.Spec.MinAvailable, c.Spec.Replicas) {
				available = false
			}
			if c.Status.UpdatedReplicas < c.Spec.Replicas {
				updated = false
			}
		}
		if available {
			st.AvailableReplicas++
		}
		if updated {
			st.UpdatedReplicas++
		}
	}
	st.Selector = ptr.To(labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueScalingGroup: sg.Name}).String())
	minAvail := ptr.Deref(sg.Spec.MinAvailable, 1)
	c := metav1.Condition{Type: ConditionMinAvailableBreached, ObservedGeneration: sg.Generation, LastTransitionTime: now}
	if st.AvailableReplicas < minAvail {
		c.Status, c.Reason = metav1.ConditionTrue, breachReason(sg.Status.Conditions, "InsufficientAvailableReplicas")
		c.Message = strconv.Itoa(int(st.AvailableReplicas)) + " of minAvailable " + strconv.Itoa(int(minAvail)) + " replicas are available"
	} else {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "SufficientAvailableReplicas", "minAvailable replicas are available"
	}
	meta.SetStatusCondition(&st.Conditions, c)
	return st
}

// breachReason is the reason of a MinAvailableBreached condition turning or staying True:
// regression, a breach after the object was available (it arms gang termination,
// termination.go), or ReasonNotYetAvailable while it has not been available since it was
// made (starting, not regressing).
func breachReason(prev []metav1.Condition, regression string) string {
	if c := meta.FindStatusCondition(prev, ConditionMinAvailableBreached); c == nil ||
		(c.Status != metav1.ConditionFalse && c.Reason == ReasonNotYetAvailable) {
		return ReasonNotYetAvailable
	}
	return regression
}

// ReplicaAvailable reports whether PodCliqueSet replica r is available as Grove counts it:
// every standalone clique has at least its minAvailable Ready pods, and every scaling group at
// least its minAvailable available group replicas, where a group replica is available when
// each of its cliques has its minAvailable Ready pods. Surge pods and surge group replicas
// count like any other (they serve), so a maxUnavailable-0 update keeps the replica available
// while a member is replaced behind its surge. A replica with no pod at all is not available.
func ReplicaAvailable(pcs *grovev1.PodCliqueSet, r int, pods map[string]*corev1.Pod) bool {
	replica := strconv.Itoa(r)
	ready := map[string]int32{}       // Ready pods by PodClique name
	groupReplicas := map[string]int{} // highest group replica index seen + 1, by group name
	any := false
	for _, p := range pods {
		if p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] != replica {
			continue
		}
		any = true
		if PodReady(p) {
			ready[p.Labels[grovev1.LabelPodClique]]++
		}
		noteGroupReplica(groupReplicas, p)
	}
	if !any {
		return false
	}
	inGroup := map[string]bool{}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, c := range g.CliqueNames {
			inGroup[c] = true
		}
	}
	cliques := map[string]*grovev1.PodCliqueTemplateSpec{}
	for i := range pcs.Spec.Template.Cliques {
		c := &pcs.Spec.Template.Cliques[i]
		cliques[c.Name] = c
		if !inGroup[c.Name] && ready[PodCliqueName(pcs.Name, r, c.Name)] < CliqueMinAvailable(c) {
			return false
		}
	}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		name := ScalingGroupName(pcs.Name, r, g.Name)
		var available int32
		for j := 0; j < groupReplicas[name]; j++ {
			ok := true
			for _, c := range g.CliqueNames {
				if t := cliques[c]; t == nil || ready[GroupCliqueName(pcs.Name, r, g.Name, j, c)] < CliqueMinAvailable(t) {
					ok = false
					break
				}
			}
			if ok {
				available++
			}
		}
		if available < ptr.Deref(g.MinAvailable, 1) {
			return false
		}
	}
	return true
}

// UpdateCounts are the counts Grove writes in a PodCliqueSet's status.updateProgress, with
// Grove's meaning: the standalone PodCliques and the PodCliqueScalingGroups the spec asks for
// (every replica below spec.replicas), and how many of them have converged to the current
// template.
type UpdateCounts struct {
	TotalPodCliques, UpdatedPodCliques                         int32
	TotalPodCliqueScalingGroups, UpdatedPodCliqueScalingGroups int32
}

// CountUpdated computes UpdateCounts from the live pods and the template hashes of the
// cliques (TemplateHashes). A standalone PodClique is updated when every live pod of it runs
// its clique's template and at least minAvailable of them are, Ready (Grove: the clique's
// current template hash is the expected one and its ready and updated replicas reach
// minAvailable). A scaling group is updated when every live pod of every group replica runs
// its clique's template and at least the group's minAvailable group replicas are available
// (Grove: the group's update is complete and its available replicas reach minAvailable).
func CountUpdated(pcs *grovev1.PodCliqueSet, pods map[string]*corev1.Pod, hashes map[string]string) UpdateCounts {
	type tally struct{ live, stale, readyAtHash int32 }
	byClique := map[string]*tally{}
	groupReplicas := map[string]int{} // scaling group name -> highest group replica + 1
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		name := p.Labels[grovev1.LabelPodClique]
		t := byClique[name]
		if t == nil {
			t = &tally{}
			byClique[name] = t
		}
		t.live++
		if p.Labels[grovev1.LabelPodTemplateHash] != hashes[p.Labels[LabelCliqueTemplate]] {
			t.stale++
		} else if PodReady(p) {
			t.readyAtHash++
		}
		noteGroupReplica(groupReplicas, p)
	}
	inGroup := map[string]bool{}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		for _, c := range g.CliqueNames {
			inGroup[c] = true
		}
	}
	templates := map[string]*grovev1.PodCliqueTemplateSpec{}
	for i := range pcs.Spec.Template.Cliques {
		templates[pcs.Spec.Template.Cliques[i].Name] = &pcs.Spec.Template.Cliques[i]
	}
	var n UpdateCounts
	for r := 0; r < int(pcs.Spec.Replicas); r++ {
		for i := range pcs.Spec.Template.Cliques {
			c := &pcs.Spec.Template.Cliques[i]
			if inGroup[c.Name] {
				continue
			}
			n.TotalPodCliques++
			if t := byClique[PodCliqueName(pcs.Name, r, c.Name)]; t != nil && t.stale == 0 && t.readyAtHash >= CliqueMinAvailable(c) {
				n.UpdatedPodCliques++
			}
		}
		for gi := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
			g := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[gi]
			n.TotalPodCliqueScalingGroups++
			stale, available := false, int32(0)
			for j := 0; j < groupReplicas[ScalingGroupName(pcs.Name, r, g.Name)]; j++ {
				ok := true
				for _, cn := range g.CliqueNames {
					t, tmpl := byClique[GroupCliqueName(pcs.Name, r, g.Name, j, cn)], templates[cn]
					if t != nil && t.stale > 0 {
						stale = true
					}
					if t == nil || tmpl == nil || t.readyAtHash < CliqueMinAvailable(tmpl) {
						ok = false
					}
				}
				if ok {
					available++
				}
			}
			if !stale && available >= GroupMinAvailable(g) {
				n.UpdatedPodCliqueScalingGroups++
			}
		}
	}
	return n
}

// noteGroupReplica raises groupReplicas[group] to one above the scaling-group replica index of
// p, when p belongs to a scaling group.
func noteGroupReplica(groupReplicas map[string]int, p *corev1.Pod) {
	if g := p.Labels[grovev1.LabelPodCliqueScalingGroup]; g != "" {
		if j, err := strconv.Atoi(p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]); err == nil && j+1 > groupReplicas[g] {
			groupReplicas[g] = j + 1
		}
	}
}
