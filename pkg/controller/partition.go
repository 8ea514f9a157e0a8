package controller

import (
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// ReasonPartitioned is the reason of Progressing=True while rollingUpdate.partition holds the
// replicas below it at the last complete revision and every other replica is updated.
const ReasonPartitioned = "Partitioned"

// partitionHold reads what the update's rollingUpdate.partition holds back: the replicas below
// min(partition, replicas) keep the last complete revision's template, read from its
// ControllerRevision. Nothing is held when no update is under way (the template is the complete
// revision), when nothing has completed yet (the creation makes every replica from
// spec.template, as a StatefulSet does), under OnDelete, or when the revision is gone.
func (c *Controller) partitionHold(pcs *grovev1.PodCliqueSet) (partitionHold, error) {
	s := pcs.Spec.UpdateStrategy
	if s == nil || s.Type == grovev1.OnDeleteStrategyType || s.RollingUpdate == nil || s.RollingUpdate.Partition == nil {
		return partitionHold{}, nil
	}
	n := min(int(*s.RollingUpdate.Partition), int(pcs.Spec.Replicas))
	complete := pcs.Status.CompleteRevision
	if n <= 0 || complete == "" || complete == RevisionName(pcs.Name, revision(pcs, workload.TemplateHashes(pcs))) {
		return partitionHold{}, nil
	}
	_, t, err := c.revisionTemplate(pcs.Namespace, complete)
	if err != nil || t == nil {
		return partitionHold{}, err
	}
	return partitionHold{n: n, template: t, revision: complete}, nil
}
