package controller

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// ReasonLostMemberReleased is the reason of the event that reports a member on a lost node
// released (its pod object removed) so that it can be recreated elsewhere.
const ReasonLostMemberReleased = "LostMemberReleased"

// DefaultReleaseLostMembersAfter is how long after its deletion deadline a member on a lost
// node is released by default (--release-lost-members-after).
const DefaultReleaseLostMembersAfter = 30 * time.Second

// SetReleaseLostMembersAfter sets how long after a pod's deletion deadline (its
// deletionTimestamp: the request plus its grace period) the controller removes the object of a
// member whose node is lost; a negative d never does (the member then waits for its kubelet,
// the pod garbage collector or an administrator, as a StatefulSet's does). Call before Run.
func (c *Controller) SetReleaseLostMembersAfter(d time.Duration) { c.releaseLostAfter = d }

// nodeLost tells whether a pod's node can no longer finish its termination: the node object
// is gone, or lost says so.
func (c *Controller) nodeLost(name string) (bool, error) {
	n, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return lost(n), nil
}

// lost reports whether n's Ready condition is False or Unknown (kubelet reports NotReady, or
// stopped reporting and the node lifecycle controller marked it Unknown). A node that has not
// reported yet (just registered) is not lost: if its kubelet never reports, the node lifecycle
// controller marks it Unknown.
func lost(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionFalse || c.Status == corev1.ConditionUnknown
		}
	}
	return false
}

// enqueueTerminatingOn enqueues the PodCliqueSets with a member being deleted on node: a node
// that becomes lost (or goes away) makes such members releasable, and no pod event says so. Node transitions are rare; the scan covers the controller's own pods only.
func (c *Controller) enqueueTerminatingOn(node string) {
	pods, err := c.pods.List(labels.Everything())
	if err != nil {
		return // a cache list does not fail; the pods' own events still bring passes
	}
	for _, p := range pods {
		if p.Spec.NodeName == node && p.DeletionTimestamp != nil {
			c.enqueueOwner(p)
		}
	}
}

// releaseLost removes, with grace 0 and its UID as the precondition, the object of every
// member that is being deleted on a lost node past its deletion deadline plus
// releaseLostAfter. Such a pod (evicted by taint-based eviction, drained, or replaced by an
// update) stays Terminating for as long as its node is away: no kubelet confirms the end of
// its containers. Its name, and with it its index, stays taken, so the member is never
// recreated and an update waiting for it stalls until the node returns. Releasing it is what
// the node.kubernetes.io/out-of-service taint makes the pod garbage collector do, applied to
// members only, and only when the deletion was already decided: the container may still run
// on a partitioned node (its GPUs there are on a node nothing can be scheduled to), and the
// kubelet stops it when the node returns and finds the pod gone. The next pass recreates the
// member at its index on a node that serves. It returns how long until the next member is due
// to be released (0 when none waits).
func (c *Controller) releaseLost(ctx context.Context, pcs *grovev1.PodCliqueSet, obs *observed) (time.Duration, error) {
	if c.releaseLostAfter < 0 || c.nodes == nil {
		return 0, nil
	}
	now := c.now()
	var next time.Duration
	names := make([]string, 0, len(obs.pods))
	for name, p := range obs.pods {
		if p.DeletionTimestamp != nil && p.Spec.NodeName != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := obs.pods[name]
		lost, err := c.nodeLost(p.Spec.NodeName)
		if err != nil {
			return 0, fmt.Errorf("reading node %s of pod %s/%s: %w", p.Spec.NodeName, pcs.Namespace, name, err)
		}
		if !lost {
			continue
		}
		due := p.DeletionTimestamp.Add(c.releaseLostAfter)
		if wait := due.Sub(now); wait > 0 {
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		uid := p.UID
		err = c.kube.CoreV1().Pods(pcs.Namespace).Delete(ctx, name, metav1.DeleteOptions{
			GracePeriodSeconds: ptr.To[int64](0),
			Preconditions:      &metav1.Preconditions{UID: &uid},
		})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			continue // gone meanwhile, or a newer pod holds the name
		}
		if err != nil {
			return 0, fmt.Errorf("releasing pod %s/%s on lost node %s: %w", pcs.Namespace, name, p.Spec.NodeName, err)
		}
		metrics.MembersReplaced.WithLabelValues("NodeLost").Inc()
		overdue := now.Sub(p.DeletionTimestamp.Time).Round(time.Second)
		klog.FromContext(ctx).Info("Released a member on a lost node", "podCliqueSet", klog.KObj(pcs), "pod", name, "node", p.Spec.NodeName, "overdue", overdue)
		if c.recorder != nil {
			c.recorder.Eventf(pcs, corev1.EventTypeWarning, ReasonLostMemberReleased,
				"Pod %s was still terminating %s past its deadline on node %s, which is not Ready; its object was removed so that index %s is recreated on a node that serves",
				name, overdue, p.Spec.NodeName, p.Labels[grovev1.LabelPodCliquePodIndex])
		}
		// It stays in obs as terminating: this pass neither counts it nor reuses its name;
		// the pass its deletion event brings recreates the member.
	}
	return next, nil
}
