package controller

import (
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// ReasonPartitioned is the reason of Progressing=True while rollingUpdate.partition holds the
// replicas below it at the last complete revision and every other replica is updated.
const ReasonPartitioned = "Partitioned"

// heldByPartition is what the update's rollingUpdate.partition holds back: the replicas below
// min(partition, replicas) keep the last complete revision's template (complete, read from its
// ControllerRevision). Nothing is held when no update is under way (the template is the complete
// revision), when nothing has completed yet (the creation makes every replica from
// spec.template, as a StatefulSet does), under OnDelete, or when the revision is gone.
func heldByPartition(pcs *grovev1.PodCliqueSet, in rolloutInputs) partitionHold {
	s := pcs.Spec.UpdateStrategy
	if s == nil || s.Type == grovev1.OnDeleteStrategyType || s.RollingUpdate == nil || s.RollingUpdate.Partition == nil {
		return partitionHold{}
	}
	n := min(int(*s.RollingUpdate.Partition), int(pcs.Spec.Replicas))
	if n <= 0 || in.complete == nil || pcs.Status.CompleteRevision == RevisionName(pcs.Name, revision(pcs, in.hashes)) {
		return partitionHold{}
	}
	return partitionHold{n: n, template: in.complete, revision: pcs.Status.CompleteRevision}
}
