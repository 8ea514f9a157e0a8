package gangplugin

import (
	"context"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
)

// PrioritySignerName is the signature fragment of a pod's priority.
const PrioritySignerName = "v1.Pod.Spec.Priority"

// SignPod lets kube-scheduler's opportunistic batching (KEP-5598) serve pods of no gang in a
// profile with the gang plugins: the framework batches a profile's pods only when every
// Filter and Score plugin signs them, and without this every pod of the profile was scheduled
// from scratch, where the default profile reuses one pod's filtering and scoring for the next
// pod alike. A gang member is not signed: its gang's pass places it (and PreFilter narrows its
// nodes, which a batch hint would bypass). Any other pod is signed with its priority, the one
// thing of it the gang plugins' Filter reads beyond what the in-tree signers cover (a
// preemptor's hold keeps out pods of its priority or lower; requests, claims and tolerations
// are signed by NodeResourcesFit, DynamicResources and TaintToleration). The node a batch hints
// still goes through every Filter, the hold Filter included.
func (p *Adapter) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if _, member := p.store.Membership().KeyOf(pod); member {
		return nil, fwk.NewStatus(fwk.Unschedulable, "gang members are placed by their gang's pass")
	}
	return []fwk.SignFragment{{Key: PrioritySignerName, Value: corev1helpers.PodPriority(pod)}}, nil
}
