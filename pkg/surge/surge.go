// Package surge is the question the update controller asks before it creates a surge member:
// "may this member be created now?". It holds the request, the verdict and the interface only,
// so that the controller depends on none of the scheduling machinery that answers it (see
// pkg/scheduler/surgeadmission for the answer the scheduler gives from its own cache).
package surge

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// Request asks whether a surge member (one pod, a scaling-group replica or a whole
// PodCliqueSet replica) fits the cluster now.
type Request struct {
	// What names the surge member for messages ("surge prefill[3]").
	What string
	// Pods are the member's pods as they would be created (no node).
	Pods []*v1.Pod
	// PackDomain, when set, is the node label whose value all Pods must share.
	PackDomain string
	// AnchorNodes are nodes where members of the same gang already run; with PackDomain the
	// pods must go to the domain of those nodes.
	AnchorNodes []string
	// Levels, when set, are the packing levels of the pods' gang (gang.Spec.Levels; its
	// required gang-level key among them, so PackDomain is then not read): each pod must go to
	// the domains of its podgroup's levels, which the gang's Placed members fix.
	Levels []gang.Level
	// Groups are the podgroup indices of Pods, by pod name (with Levels).
	Groups map[string]int
	// Placed are the gang's members on nodes (with Levels).
	Placed []gang.TopoMember
}

// Verdict is the answer of an Admitter.
type Verdict struct {
	Fits bool
	// Message says what is missing when it does not fit, e.g. "needs 16 nvidia.com/gpu for 2
	// pods in one topology.phalanx.dev/rack; the largest free topology.phalanx.dev/rack has 8".
	Message string
}

// Admitter decides whether a surge member may be created. The controller asks before every
// surge create; a member that does not fit is not created. An error means no answer (the
// controller retries the pass), never "does not fit".
type Admitter interface {
	AdmitSurge(ctx context.Context, req Request) (Verdict, error)
}

// AsCreated copies pods that are not created yet with the defaulting the API server applies
// on create that matters for fitting: a container's request is its limit where only the limit
// is set.
func AsCreated(pods []*v1.Pod) []*v1.Pod {
	out := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		p = p.DeepCopy()
		DefaultRequests(p)
		out[i] = p
	}
	return out
}

// DefaultRequests sets, in place, each container's request to its limit where only the limit
// is set (what the API server does on create).
func DefaultRequests(p *v1.Pod) {
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for j := range cs {
			c := &cs[j]
			for r, q := range c.Resources.Limits {
				if _, ok := c.Resources.Requests[r]; !ok {
					if c.Resources.Requests == nil {
						c.Resources.Requests = v1.ResourceList{}
					}
					c.Resources.Requests[r] = q.DeepCopy()
				}
			}
		}
	}
}
