package controller

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// statusWorkers bounds the status writes of one pass that are in flight at once.
const statusWorkers = 8

// writeStatus updates the status of the PodCliques, scaling groups and the PodCliqueSet.
func (c *Controller) writeStatus(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed, want *workload.World, ro *rollout) error {
	key := cache.MetaObjectToName(pcs).String()
	now := metav1.NewTime(c.now())
	hashes := ro.hashes
	podsByClique := obs.podsBy(grovev1.LabelPodClique)
	var conflicts []string
	var changed []*grovev1.PodClique
	for _, pclq := range obs.cliques {
		members := make([]index.Member, 0, len(podsByClique[pclq.Name]))
		for _, p := range podsByClique[pclq.Name] {
			members = append(members, index.Member{Name: p.Name, Index: index.Parse(p.Labels[grovev1.LabelPodCliquePodIndex])})
		}
		if err := index.Track(members, int(pclq.Spec.Replicas)).Error(); err != nil {
			conflicts = append(conflicts, pclq.Name+": "+err.Error())
		}
		hash := hashes[pclq.Labels[workload.LabelCliqueTemplate]]
		st := workload.CliqueStatus(pclq, podsByClique[pclq.Name], hash, now)
		if ptr.Deref(st.CurrentPodTemplateHash, "") == hash {
			st.CurrentPodCliqueSetGenerationHash = ptr.To(ro.revision)
		}
		if !statusEqual(pclq.Status.Conditions, st.Conditions) || pclq.Status.Replicas != st.Replicas || pclq.Status.ReadyReplicas != st.ReadyReplicas ||
			pclq.Status.UpdatedReplicas != st.UpdatedReplicas || !ptr.Equal(pclq.Status.ObservedGeneration, st.ObservedGeneration) || !ptr.Equal(pclq.Status.Selector, st.Selector) ||
			!ptr.Equal(pclq.Status.ScheduledReplicas, st.ScheduledReplicas) || !ptr.Equal(pclq.Status.CurrentPodTemplateHash, st.CurrentPodTemplateHash) ||
			!ptr.Equal(pclq.Status.CurrentPodCliqueSetGenerationHash, st.CurrentPodCliqueSetGenerationHash) {
			upd := pclq.DeepCopy()
			upd.Status = st
			changed = append(changed, upd)
		}
	}
	// The changed statuses are written in parallel: an update step changes a few cliques, and
	// their writes in a row held the next step's pass back (a key is one pass at a time).
	var mu sync.Mutex
	if err := parallel(len(changed), statusWorkers, func(i int) error {
		got, err := c.client.GroveV1alpha1().PodCliques(pcs.Namespace).UpdateStatus(ctx, changed[i], metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return nil // deleted by this pass (no longer wanted): nothing to report
		}
		if err != nil {
			return fmt.Errorf("updating status of PodClique %s: %w", changed[i].Name, err)
		}
		c.own.note(key, "PodClique", got.Name, changed[i].ResourceVersion, got)
		mu.Lock()
		defer mu.Unlock()
		obs.cliques[got.Name] = got
		return nil
	}); err != nil {
		return err
	}
	cliquesOf := map[string][]*grovev1.PodClique{} // by scaling group, found once
	for _, pclq := range obs.cliques {
		if sg := pclq.Labels[grovev1.LabelPodCliqueScalingGroup]; sg != "" {
			cliquesOf[sg] = append(cliquesOf[sg], pclq)
		}
	}
	for _, sg := range obs.groups {
		st := workload.ScalingGroupStatus(sg, cliquesOf[sg.Name], now)
		// Grove's field: the PodCliqueSet template a group is at once its update is complete.
		if st.UpdatedReplicas == st.Replicas && st.Replicas >= sg.Spec.Replicas {
			st.CurrentPodCliqueSetGenerationHash = ptr.To(ro.revision)
		}
		if !statusEqual(sg.Status.Conditions, st.Conditions) || sg.Status.Replicas != st.Replicas || sg.Status.AvailableReplicas != st.AvailableReplicas ||
			sg.Status.UpdatedReplicas != st.UpdatedReplicas || !ptr.Equal(sg.Status.ObservedGeneration, st.ObservedGeneration) || !ptr.Equal(sg.Status.Selector, st.Selector) ||
			!ptr.Equal(sg.Status.CurrentPodCliqueSetGenerationHash, st.CurrentPodCliqueSetGenerationHash) {
			upd := sg.DeepCopy()
			upd.Status = st
			got, err := c.client.GroveV1alpha1().PodCliqueScalingGroups(pcs.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{})
			if ignoreNotFound(err) != nil {
				return fmt.Errorf("updating status of PodCliqueScalingGroup %s: %w", sg.Name, err)
			}
			if err == nil {
				c.own.note(key, "PodCliqueScalingGroup", got.Name, upd.ResourceVersion, got)
			}
		}
	}
	st := setStatus(pcs, obs, want, now, conflicts, ro.hold.n)
	setTopologyCondition(&st, obs.topologyCond, obs.keepTopologyCond, now)
	setProgress(&st, pcs, ro, now)
	// Grove's fields: the template revision, and the update counts while an update is recorded.
	st.CurrentGenerationHash = ptr.To(ro.revision)
	if p := st.UpdateProgress; p != nil {
		n := workload.CountUpdated(pcs, obs.pods, hashes)
		p.TotalPodCliquesCount, p.UpdatedPodCliquesCount = ptr.To(n.TotalPodCliques), ptr.To(n.UpdatedPodCliques)
		p.TotalPodCliqueScalingGroupsCount, p.UpdatedPodCliqueScalingGroupsCount = ptr.To(n.TotalPodCliqueScalingGroups), ptr.To(n.UpdatedPodCliqueScalingGroups)
	}
	c.reportSurge(pcs, &st)
	if apiequality.Semantic.DeepEqual(stripTimes(pcs.Status), stripTimes(st)) {
		return nil
	}
	upd := pcs.DeepCopy()
	upd.Status = st
	got, err := c.client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("updating status of PodCliqueSet %s: %w", pcs.Name, err)
	}
	c.own.note(key, "PodCliqueSet", got.Name, upd.ResourceVersion, got)
	c.observeUpdate(pcs, &st)
	if len(conflicts) > 0 && c.recorder != nil {
		c.recorder.Eventf(pcs, corev1.EventTypeWarning, "IndexConflict", "Pods claim the same index; they are left in place for you to resolve: %v", conflicts)
	}
	return nil
}

// setStatus computes the PodCliqueSet status: a replica is available when every standalone
// clique and every scaling group of it meets its minAvailable (workload.ReplicaAvailable),
// updated when every pod it should have exists with its template's revision (never one of the
// held replicas below the update's partition: they keep an older revision on purpose).
func setStatus(pcs *grovev1.PodCliqueSet, obs *observed, want *workload.World, now metav1.Time, conflicts []string, held int) grovev1.PodCliqueSetStatus {
	st := *pcs.Status.DeepCopy()
	st.LastErrors = nil // the status of a pass that applied everything: it failed nowhere
	st.ObservedGeneration = ptr.To(pcs.Generation)
	st.Selector = ptr.To(labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: pcs.Name}).String())
	replicas := map[string]bool{}
	for _, g := range obs.gangs {
		replicas[g.Labels[grovev1.LabelPodCliqueSetReplicaIndex]] = true
	}
	st.Replicas = int32(len(replicas))
	st.AvailableReplicas, st.UpdatedReplicas = 0, 0
	// The pods of each replica, found once: ReplicaAvailable reads only its replica's.
	byReplica := map[string]map[string]*corev1.Pod{}
	for name, p := range obs.pods {
		r := p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]
		if byReplica[r] == nil {
			byReplica[r] = map[string]*corev1.Pod{}
		}
		byReplica[r][name] = p
	}
	for r := range replicas {
		// As Grove counts it: every standalone clique and every scaling group meets its
		// minAvailable, surge members included (they serve while the member they replace goes).
		if i, err := strconv.Atoi(r); err == nil && workload.ReplicaAvailable(pcs, i, byReplica[r]) {
			st.AvailableReplicas++
		}
	}
	updated := map[string]bool{}
	for r := range replicas {
		i, err := strconv.Atoi(r)
		updated[r] = err != nil || i >= held
	}
	for _, p := range want.Pods {
		r := p.Labels[grovev1.LabelPodCliqueSetReplicaIndex]
		cur := obs.pods[p.Name]
		if cur == nil || cur.Labels[grovev1.LabelPodTemplateHash] != p.Labels[grovev1.LabelPodTemplateHash] {
			updated[r] = false
		}
	}
	for r, ok := range updated {
		if ok && replicas[r] {
			st.UpdatedReplicas++
		}
	}
	avail := metav1.Condition{Type: grovev1.ConditionAvailable, ObservedGeneration: pcs.Generation, LastTransitionTime: now}
	if st.AvailableReplicas >= pcs.Spec.Replicas {
		avail.Status, avail.Reason = metav1.ConditionTrue, "ReplicasAvailable"
		avail.Message = "every replica's cliques and scaling groups meet their minAvailable"
	} else {
		avail.Status, avail.Reason = metav1.ConditionFalse, "ReplicasUnavailable"
		avail.Message = strconv.Itoa(int(st.AvailableReplicas)) + " of " + strconv.Itoa(int(pcs.Spec.Replicas)) + " replicas are available"
	}
	meta.SetStatusCondition(&st.Conditions, avail)
	conflict := metav1.Condition{Type: "IndexConflict", ObservedGeneration: pcs.Generation, LastTransitionTime: now, Status: metav1.ConditionFalse, Reason: "NoConflict", Message: "every pod holds its own index"}
	if len(conflicts) > 0 {
		conflict.Status, conflict.Reason = metav1.ConditionTrue, "DuplicateIndex"
		conflict.Message = fmt.Sprintf("pods claim the same index and are left in place: %v", conflicts)
	}
	meta.SetStatusCondition(&st.Conditions, conflict)
	return st
}

// reportSurge records an event when a surge becomes blocked (or its reason changes) and when
// it is no longer blocked.
func (c *Controller) reportSurge(pcs *grovev1.PodCliqueSet, st *grovev1.PodCliqueSetStatus) {
	if c.recorder == nil {
		return
	}
	was := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionSurgeBlocked)
	now := meta.FindStatusCondition(st.Conditions, grovev1.ConditionSurgeBlocked)
	wasBlocked := was != nil && was.Status == metav1.ConditionTrue
	switch {
	case now != nil && now.Status == metav1.ConditionTrue && (!wasBlocked || was.Message != now.Message):
		c.recorder.Event(pcs, corev1.EventTypeWarning, grovev1.ConditionSurgeBlocked, "No surge member was created: "+now.Message)
	case wasBlocked && (now == nil || now.Status != metav1.ConditionTrue):
		c.recorder.Event(pcs, corev1.EventTypeNormal, "SurgeUnblocked", "No surge waits for capacity any more (it fits now, or the update no longer needs it)")
	}
}

func statusEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		cb := meta.FindStatusCondition(b, a[i].Type)
		if cb == nil || cb.Status != a[i].Status || cb.Reason != a[i].Reason || cb.Message != a[i].Message || cb.ObservedGeneration != a[i].ObservedGeneration {
			return false
		}
	}
	return true
}

func stripTimes(st grovev1.PodCliqueSetStatus) grovev1.PodCliqueSetStatus {
	out := *st.DeepCopy()
	for i := range out.Conditions {
		out.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return out
}
