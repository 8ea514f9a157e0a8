package controller

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// ReasonMemberReplaced is the reason of the event that reports a finished member replaced.
const ReasonMemberReplaced = "MemberReplaced"

// finishedReason is why a pod no longer runs, as the bounded label of the replacement metric:
// Evicted (kubelet node pressure, API eviction of a terminal pod), NodeShutdown (graceful node
// shutdown), Succeeded (the server exited 0) or Failed (anything else); "" while it runs.
func finishedReason(p *corev1.Pod) string {
	switch p.Status.Phase {
	case corev1.PodSucceeded:
		return "Succeeded"
	case corev1.PodFailed:
		switch p.Status.Reason {
		case "Evicted":
			return "Evicted"
		case "Shutdown", "Terminated", "NodeShutdown":
			return "NodeShutdown"
		}
		return "Failed"
	}
	return ""
}

// replaceFinished deletes the PodCliqueSet's pods that have finished (phase Failed or
// Succeeded: evicted by the kubelet, stopped by a node shutdown, exited). A finished pod runs
// nothing, but its object keeps its name and index for ever, so the member would never come
// back: it is a hole, in an update or not, and this pass deletes it (with its UID as the
// precondition, so that a newer pod of the same name is never touched) with an event on the
// PodCliqueSet. The deleted pod stays in obs as terminating, so this pass neither counts it as
// available nor creates its replacement (its name is still taken); the pass that sees it gone
// recreates the member at the same index, and the scheduler places it as the deficit of its
// established gang.
func (c *Controller) replaceFinished(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed) error {
	reasons := map[string]string{}
	names := make([]string, 0, len(obs.pods))
	for name, p := range obs.pods {
		if r := finishedReason(p); p.DeletionTimestamp == nil && r != "" {
			reasons[name] = r
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p, reason := obs.pods[name], reasons[name]
		if deleted, err := c.deleteMember(ctx, pcs, obs, p); err != nil || !deleted {
			if err != nil {
				return fmt.Errorf("deleting finished pod %s/%s: %w", pcs.Namespace, name, err)
			}
			continue // already gone, or already replaced by a newer pod of that name
		}
		metrics.MembersReplaced.WithLabelValues(reason).Inc()
		detail := p.Status.Reason
		if p.Status.Message != "" {
			detail += ": " + p.Status.Message
		}
		if detail == "" {
			detail = "no reason given"
		}
		klog.FromContext(ctx).Info("Replacing a finished member", "podCliqueSet", klog.KObj(pcs), "pod", name, "phase", p.Status.Phase, "reason", p.Status.Reason)
		if c.recorder != nil {
			c.recorder.Eventf(pcs, corev1.EventTypeWarning, ReasonMemberReplaced, "Pod %s is %s (%s); deleted to be recreated at index %s",
				name, p.Status.Phase, detail, p.Labels[grovev1.LabelPodCliquePodIndex])
		}
	}
	return nil
}

// deleteMember deletes pod p of pcs with its UID as the precondition (a newer pod of the same
// name is never touched), telling the expectations first. It reports false when the pod was
// already gone or replaced. A deleted pod stays in obs as terminating: the pass neither counts
// it as available nor reuses its name; the pass that sees it gone recreates the member.
func (c *Controller) deleteMember(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed, p *corev1.Pod) (bool, error) {
	uid := p.UID
	key := cache.MetaObjectToName(pcs).String()
	c.expect.deleted(key, pcs.UID, p)
	err := c.kube.CoreV1().Pods(pcs.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return false, nil
	}
	if err != nil {
		c.expect.undo(key, pcs.UID, p.Name)
		return false, err
	}
	gone := p.DeepCopy()
	now := metav1.Now()
	gone.DeletionTimestamp = &now
	obs.setPod(p.Name, gone)
	return true, nil
}
