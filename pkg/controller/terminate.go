package controller

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// ReasonGangTerminated is the reason of the event that reports a unit recycled by gang
// termination.
const ReasonGangTerminated = "GangTerminated"

// updating reports whether pcs has an update in progress: the update planner owns its
// replicas then, and takes members down on purpose within its budgets. The creation is not
// one (firstRevision: the current template is the first of the set's history): it takes
// nothing down, and a pod lost before a pass saw every pod Ready once would keep gang
// termination off for good (Grove records no progress for a creation). A clique not yet
// available since it was made is left alone by its own rule (workload.PlanGangTermination).
func updating(pcs *grovev1.PodCliqueSet, revision string, firstRevision bool) bool {
	if pcs.Status.CurrentRevision != revision {
		return true
	}
	if p := pcs.Status.UpdateProgress; p != nil && p.UpdateEndedAt != nil {
		return false
	}
	return !firstRevision
}

// firstRevision reports whether revision is the first template of pcs's history: its
// ControllerRevision is number 1, which a later template (a rollback too) never gets.
func (c *Controller) firstRevision(pcs *grovev1.PodCliqueSet, revision string) bool {
	cr, err := c.revisions.ControllerRevisions(pcs.Namespace).Get(RevisionName(pcs.Name, revision))
	return err == nil && cr.Revision == 1
}

// terminateGangs applies Grove's gang termination (workload.PlanGangTermination) to pcs: it
// deletes every live pod of each unit whose gang stayed below its minimum for the set's
// terminationDelay, with an event on the PodCliqueSet, and returns how many pods it deleted
// and when to look again for a breach whose delay has not run out. It does nothing while an
// update is in progress (updating): a member the update takes down is not a regression.
func (c *Controller) terminateGangs(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed, revision string) (int, time.Duration, error) {
	if updating(pcs, revision, c.firstRevision(pcs, revision)) {
		return 0, 0, nil
	}
	pods := make([]*corev1.Pod, 0, len(obs.pods))
	for _, p := range obs.pods {
		pods = append(pods, p)
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	plan := workload.PlanGangTermination(pcs, obs.cliques, obs.groups, pods, c.now())
	deleted := 0
	for _, t := range plan.Terminate {
		n := 0
		for _, p := range pods {
			if p.DeletionTimestamp != nil || !t.Selects(pcs.Name, p) {
				continue
			}
			ok, err := c.deleteMember(ctx, pcs, obs, p)
			if err != nil {
				return deleted, 0, fmt.Errorf("gang termination of %s of %s/%s: deleting pod %s: %w", t, pcs.Namespace, pcs.Name, p.Name, err)
			}
			if ok {
				n++
			}
		}
		if n == 0 {
			continue
		}
		deleted += n
		scope := "Replica"
		if t.Group != "" {
			scope = "ScalingGroupReplica"
		}
		metrics.GangTerminations.WithLabelValues(scope).Inc()
		delay := workload.TerminationDelay(pcs)
		klog.FromContext(ctx).Info("Gang termination", "podCliqueSet", klog.KObj(pcs), "unit", t.String(), "breached", t.Breached,
			"breachedSince", t.Since, "terminationDelay", delay, "podsDeleted", n)
		if c.recorder != nil {
			c.recorder.Eventf(pcs, corev1.EventTypeWarning, ReasonGangTerminated,
				"%s recreated: %s below minAvailable since %s, longer than terminationDelay %s; %d pods deleted so that the gang is placed whole again",
				t, t.Breached, t.Since.UTC().Format(time.RFC3339), delay, n)
		}
	}
	return deleted, plan.RecheckIn, nil
}
