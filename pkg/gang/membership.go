package gang

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
)

// Membership reads gang membership from pod labels.
type Membership struct {
	// SurgeLabel is the label key whose value "true" marks a surge member.
	SurgeLabel string
}

// DefaultMembership uses the phalanx.dev/surge label.
func DefaultMembership() Membership { return Membership{SurgeLabel: grovev1.LabelSurge} }

// KeyOf returns the gang a pod belongs to: the PodGang of its coherent slice
// (phalanx.dev/coherent-slice) while it has one, else a PodGang by grove.io/podgang, else a PodGroup by
// scheduling.x-k8s.io/pod-group, else an upstream PodGroup by spec.schedulingGroup.podGroupName.
// A pod that names more than one belongs to the first: an operator that writes both a PodGang
// and the upstream field (Grove moving to the Workload API) keeps its PodGang's richer rules.
func (m Membership) KeyOf(pod *v1.Pod) (Key, bool) {
	if name := pod.Labels[grovev1.LabelCoherentSlice]; name != "" {
		return Key{Kind: KindPodGang, Namespace: pod.Namespace, Name: name}, true
	}
	if name := pod.Labels[grovev1.LabelPodGang]; name != "" {
		return Key{Kind: KindPodGang, Namespace: pod.Namespace, Name: name}, true
	}
	if name := pod.Labels[schedulingv1.LabelPodGroup]; name != "" {
		return Key{Kind: KindPodGroup, Namespace: pod.Namespace, Name: name}, true
	}
	if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil && *g.PodGroupName != "" {
		return Key{Kind: KindWorkloadPodGroup, Namespace: pod.Namespace, Name: *g.PodGroupName}, true
	}
	return Key{}, false
}

// BaseOf returns the base gang of a pod of a scaled PodGang (label grove.io/base-podgang). A
// member of a coherent slice has none: its slice gang is placed on its own (its replica's base
// gang may have lost every member to the update).
func (m Membership) BaseOf(pod *v1.Pod) (Key, bool) {
	if pod.Labels[grovev1.LabelCoherentSlice] != "" {
		return Key{}, false
	}
	if name := pod.Labels[grovev1.LabelBasePodGang]; name != "" {
		return Key{Kind: KindPodGang, Namespace: pod.Namespace, Name: name}, true
	}
	return Key{}, false
}

// IsSurge reports whether the pod is a surge member. A member of a coherent slice is not: the
// slice (a surge slice too) is placed all-or-nothing.
func (m Membership) IsSurge(pod *v1.Pod) bool {
	return m.SurgeLabel != "" && pod.Labels[m.SurgeLabel] == "true" && pod.Labels[grovev1.LabelCoherentSlice] == ""
}

// MemberIndex is the pod's index in its clique (grove.io/podclique-pod-index), else its
// StatefulSet ordinal (apps.kubernetes.io/pod-index) or Job completion index
// (batch.kubernetes.io/job-completion-index), or 0.
func MemberIndex(pod *v1.Pod) int {
	for _, key := range indexLabels {
		if v, ok := pod.Labels[key]; ok {
			if i, err := strconv.Atoi(v); err == nil {
				return i
			}
		}
	}
	return 0
}

var indexLabels = []string{grovev1.LabelPodCliquePodIndex, appsv1.PodIndexLabel, batchv1.JobCompletionIndexAnnotation}

// StateOf derives a member state from the pod object. Assumed is never derived: only the
// scheduler knows it (Store.Assume).
func StateOf(pod *v1.Pod) State {
	switch {
	case pod.Spec.NodeName != "":
		return Bound
	case len(pod.Spec.SchedulingGates) > 0:
		return Gated
	default:
		return Pending
	}
}

// RequestsOf returns the pod's effective requests (containers, init containers and overhead).
func RequestsOf(pod *v1.Pod) Resources {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	r := Resources{MilliCPU: req.Cpu().MilliValue(), Memory: req.Memory().Value()}
	if q, ok := req[v1.ResourceName(ResourceGPU)]; ok {
		r.GPU = q.Value()
	}
	return r
}

func podRunning(pod *v1.Pod) bool { return pod.Status.Phase == v1.PodRunning }

func podReady(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}
