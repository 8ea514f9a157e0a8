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
	minAvail := ptr.Deref(pclq.Spec.MinAvailable, pclq.Spec.Replicas)
	c := metav1.Condition{Type: "MinAvailableBreached", ObservedGeneration: pclq.Generation, LastTransitionTime: now}
	if st.ReadyReplicas < minAvail {
		c.Status, c.Reason = metav1.ConditionTrue, "InsufficientReadyPods"
		c.Message = strconv.Itoa(int(st.ReadyReplicas)) + " of minAvailable " + strconv.Itoa(int(minAvail)) + " pods are Ready"
	} else {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "SufficientReadyPods", "minAvailable pods are Ready"
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
	c := metav1.Condition{Type: "MinAvailableBreached", ObservedGeneration: sg.Generation, LastTransitionTime: now}
	if st.AvailableReplicas < minAvail {
		c.Status, c.Reason = metav1.ConditionTrue, "InsufficientAvailableReplicas"
		c.Message = strconv.Itoa(int(st.AvailableReplicas)) + " of minAvailable " + strconv.Itoa(int(minAvail)) + " replicas are available"
	} else {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "SufficientAvailableReplicas", "minAvailable replicas are available"
	}
	meta.SetStatusCondition(&st.Conditions, c)
	return st
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
		if g := p.Labels[grovev1.LabelPodCliqueScalingGroup]; g != "" {
			if j, err := strconv.Atoi(p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]); err == nil && j+1 > groupReplicas[g] {
				groupReplicas[g] = j + 1
			}
		}
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
