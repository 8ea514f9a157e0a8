package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// RollbackRecord is what grovev1.AnnotationRolledBack holds.
type RollbackRecord struct {
	// From and To are the ControllerRevision names of the failed template and of the one
	// rolled back to.
	From   string      `json:"from"`
	To     string      `json:"to"`
	Reason string      `json:"reason"`
	At     metav1.Time `json:"at"`
}

// RolledBack reads the PodCliqueSet's rollback record, if any.
func RolledBack(pcs *grovev1.PodCliqueSet) (RollbackRecord, bool) {
	var r RollbackRecord
	raw := pcs.Annotations[grovev1.AnnotationRolledBack]
	if raw == "" || json.Unmarshal([]byte(raw), &r) != nil {
		return RollbackRecord{}, false
	}
	return r, true
}

// failingContainer says why a container of pod cannot run (an image that cannot be pulled,
// a crash loop, a configuration the kubelet refuses), or "".
func failingContainer(pod *corev1.Pod) string {
	if pod.Status.Phase == corev1.PodFailed {
		return "pod failed"
	}
	for _, cs := range append(append([]corev1.ContainerStatus(nil), pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "CreateContainerConfigError", "CreateContainerError":
				return cs.Name + ": " + w.Reason
			}
		}
	}
	return ""
}

// UpdateFailed reports whether every new member of an update has failed: the pods made from
// a clique template the update changed (their template hash is the current one, and the
// complete revision had another), at least one of them, all failing. It is pure: pods, the
// current hashes and the complete revision's hashes, by clique template name.
func UpdateFailed(pods []*corev1.Pod, current, complete map[string]string) (bool, string) {
	var fresh, failed int
	var why string
	for _, p := range pods {
		name := p.Labels[workload.LabelCliqueTemplate]
		if p.DeletionTimestamp != nil || current[name] == complete[name] || p.Labels[grovev1.LabelPodTemplateHash] != current[name] {
			continue
		}
		fresh++
		if w := failingContainer(p); w != "" {
			failed++
			if why == "" {
				why = p.Name + " (" + w + ")"
			}
		}
	}
	if fresh == 0 || failed < fresh {
		return false, ""
	}
	return true, fmt.Sprintf("every new member of the update has failed (%d of %d; first: %s)", failed, fresh, why)
}

// maybeRollBack rolls a failed update back when updateStrategy.rollbackOnFailure asks for it:
// the update moves away from the last complete revision, is not paused, and either made no step
// for the progress deadline or every one of its new members failed. It sets the complete
// revision's template back into spec.template (guarded by the resourceVersion), with the
// rollback record and a change cause, and records a RolledBack event. It returns true when it
// rolled back (the pass ends there: the next one rolls to the old template).
func (c *Controller) maybeRollBack(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed, ro *rollout) (bool, error) {
	s := pcs.Spec.UpdateStrategy
	st := pcs.Status
	rev := RevisionName(pcs.Name, ro.revision)
	if s == nil || !s.RollbackOnFailure || s.Paused || ro.onDelete || ro.plan.Done || st.CompleteRevision == "" || rev == st.CompleteRevision {
		return false, nil
	}
	cr, tmpl, err := c.revisionTemplate(pcs.Namespace, st.CompleteRevision)
	if err != nil || cr == nil {
		return false, err // gone (deleted by hand): nothing to roll back to, the update goes on
	}
	old := pcs.DeepCopy()
	old.Spec.Template = *tmpl
	pods := make([]*corev1.Pod, 0, len(obs.pods))
	for _, p := range obs.pods {
		pods = append(pods, p)
	}
	reason := ""
	if failed, why := UpdateFailed(pods, ro.hashes, workload.TemplateHashes(old)); failed {
		reason = why
	} else if p := st.UpdateProgress; p != nil && p.LastProgressAt != nil && st.UpdateRevision == rev &&
		update.Stalled(false, p.LastProgressAt.Time, c.now(), progressDeadline(pcs)) {
		reason = fmt.Sprintf("no update step for %s (progressDeadlineSeconds)", progressDeadline(pcs))
		if ro.plan.Waiting != "" {
			reason += "; it waited for: " + ro.plan.Waiting
		}
	}
	if reason == "" {
		return false, nil
	}
	rec, err := json.Marshal(RollbackRecord{From: rev, To: cr.Name, Reason: reason, At: metav1.NewTime(c.now())})
	if err != nil {
		return false, err
	}
	patch, err := TemplatePatch(pcs, tmpl, map[string]string{
		grovev1.AnnotationRolledBack: string(rec),
		AnnotationChangeCause:        fmt.Sprintf("rollbackOnFailure: rolled back from %s to %s", rev, cr.Name),
	})
	if err != nil {
		return false, err
	}
	if _, err := c.client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Patch(ctx, pcs.Name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return false, fmt.Errorf("rolling %s back to %s: %w", pcs.Name, cr.Name, err)
	}
	metrics.Rollbacks.Inc()
	klog.FromContext(ctx).Info("Rolled a failed update back", "podCliqueSet", klog.KObj(pcs), "from", rev, "to", cr.Name, "reason", reason)
	if c.recorder != nil {
		c.recorder.Eventf(pcs, corev1.EventTypeWarning, grovev1.ReasonRolledBack, "Rolled back from revision %s to %s (revision %d): %s", rev, cr.Name, cr.Revision, reason)
	}
	return true, nil
}

// clearRollback removes the rollback record once the template moved on from the revision it
// rolled back to (a new change by the user).
func (c *Controller) clearRollback(ctx context.Context, pcs *grovev1.PodCliqueSet, rev string) (*grovev1.PodCliqueSet, error) {
	r, ok := RolledBack(pcs)
	if !ok || r.To == RevisionName(pcs.Name, rev) {
		return pcs, nil
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": pcs.ResourceVersion},
		{"op": "remove", "path": "/metadata/annotations/" + strings.ReplaceAll(grovev1.AnnotationRolledBack, "/", "~1")},
	})
	if err != nil {
		return nil, err
	}
	got, err := c.client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Patch(ctx, pcs.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("clearing the rollback record of %s: %w", pcs.Name, err)
	}
	return got, nil
}

// TemplatePatch is a JSON patch that sets pcs's template to tmpl and adds annotations to
// its own, guarded by pcs's resourceVersion: a change written meanwhile makes it fail rather
// than be overwritten. A controller may patch PodCliqueSets, not update them
// (manifests/deploy/rbac.yaml).
func TemplatePatch(pcs *grovev1.PodCliqueSet, tmpl *grovev1.PodCliqueSetTemplateSpec, annotations map[string]string) ([]byte, error) {
	all := make(map[string]string, len(pcs.Annotations)+len(annotations))
	maps.Copy(all, pcs.Annotations)
	maps.Copy(all, annotations)
	return json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": pcs.ResourceVersion},
		{"op": "replace", "path": "/spec/template", "value": tmpl},
		{"op": "add", "path": "/metadata/annotations", "value": all},
	})
}

// rollbackCondition is Progressing=False/RolledBack while the rollback record stands.
func rollbackCondition(pcs *grovev1.PodCliqueSet, now metav1.Time) (metav1.Condition, bool) {
	r, ok := RolledBack(pcs)
	if !ok {
		return metav1.Condition{}, false
	}
	return metav1.Condition{Type: grovev1.ConditionProgressing, Status: metav1.ConditionFalse, Reason: grovev1.ReasonRolledBack,
		ObservedGeneration: pcs.Generation, LastTransitionTime: now,
		Message: fmt.Sprintf("rolled back from %s to %s at %s: %s", r.From, r.To, r.At.UTC().Format(time.RFC3339), r.Reason)}, true
}
