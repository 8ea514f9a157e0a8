// Package workload computes, with pure functions, the objects that make up a PodCliqueSet:
// PodCliques, PodCliqueScalingGroups, PodGangs, headless Services and pods, with Grove's
// names, labels and environment. The controller compares this desired world with what it
// observes and applies the difference; nothing here talks to the API server.
package workload

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"k8s.io/apimachinery/pkg/util/json"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/update"
)

// Labels of the objects Phalanx makes, besides Grove's (pkg/apis/grove/v1alpha1).
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of LabelManagedBy on everything the controller makes.
	ManagedBy = "phalanx"
	// LabelCliqueTemplate, on PodCliques and pods, names the clique of the PodCliqueSet
	// template they are made from.
	LabelCliqueTemplate = "phalanx.dev/clique-template"
	// AnnotationTemplateReplicas records the template's replicas a scaling group was last set
	// from: while the template keeps that value, the group's own spec.replicas (its scale
	// subresource) is honoured; when the template changes, the template wins.
	AnnotationTemplateReplicas = "phalanx.dev/template-replicas"
)

// PodCliqueName is "<pcs>-<replica>-<clique>" for a standalone clique.
func PodCliqueName(pcs string, replica int, clique string) string {
	return fmt.Sprintf("%s-%d-%s", pcs, replica, clique)
}

// ScalingGroupName is "<pcs>-<replica>-<group>".
func ScalingGroupName(pcs string, replica int, group string) string {
	return fmt.Sprintf("%s-%d-%s", pcs, replica, group)
}

// GroupCliqueName is "<pcs>-<replica>-<group>-<groupReplica>-<clique>" for a clique of one
// replica of a scaling group.
func GroupCliqueName(pcs string, replica int, group string, groupReplica int, clique string) string {
	return fmt.Sprintf("%s-%d-%s-%d-%s", pcs, replica, group, groupReplica, clique)
}

// BasePodGangName is "<pcs>-<replica>".
func BasePodGangName(pcs string, replica int) string { return fmt.Sprintf("%s-%d", pcs, replica) }

// ScaledPodGangName is "<pcs>-<replica>-<group>-<scaledIndex>", the gang of a scaling-group
// replica at or above minAvailable, numbered as Grove's operator numbers them: scaledIndex is
// the replica's index less minAvailable (the first scaled replica's gang ends in -0). Tools and
// operators that compute a gang's name from the group replica (Grove's, on a hand-back) find it.
func ScaledPodGangName(pcs string, replica int, group string, scaledIndex int) string {
	return fmt.Sprintf("%s-%d-%s-%d", pcs, replica, group, scaledIndex)
}

// ServiceName is the headless Service of a PCS replica, "<pcs>-<replica>".
// MemberOf is the update member a pod belongs to, from its labels: its scaling-group replica
// when it is in a scaling group, else itself as a pod of its standalone clique.
func MemberOf(labels map[string]string) update.MemberRef {
	if sg := labels[grovev1.LabelPodCliqueScalingGroup]; sg != "" {
		return update.MemberRef{Kind: update.GroupReplicas, Unit: sg, Index: index.Parse(labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex])}
	}
	return update.MemberRef{Kind: update.Pods, Unit: labels[grovev1.LabelPodClique], Index: index.Parse(labels[grovev1.LabelPodCliquePodIndex])}
}

// GangOf is the PodGang a pod is a member of, from its labels: its coherent slice's while it
// has one (phalanx.dev/coherent-slice), else grove.io/podgang's (gang.Membership.KeyOf for
// PodGangs).
func GangOf(labels map[string]string) string {
	if g := labels[grovev1.LabelCoherentSlice]; g != "" {
		return g
	}
	return labels[grovev1.LabelPodGang]
}

// GangSelector selects the pods that are members of PodGang g (GangOf): those of its slice, or
// those naming it in grove.io/podgang and in no slice.
func GangSelector(g string, slice bool) string {
	if slice {
		return grovev1.LabelCoherentSlice + "=" + g
	}
	return grovev1.LabelPodGang + "=" + g + ",!" + grovev1.LabelCoherentSlice
}

// SliceGangName is the PodGang of coherent slice k of PodCliqueSet replica r (Coherent).
func SliceGangName(pcs string, replica, k int) string {
	return fmt.Sprintf("%s-%d-slice-%d", pcs, replica, k)
}

func ServiceName(pcs string, replica int) string { return fmt.Sprintf("%s-%d", pcs, replica) }

// PodName is "<podclique>-<index>"; it is also the pod's hostname. Deterministic names make
// creates idempotent: a controller acting on a stale cache gets AlreadyExists, not a twin.
func PodName(clique string, index int) string { return clique + "-" + strconv.Itoa(index) }

// TemplateHash is the revision of a clique template (label grove.io/pod-template-hash).
func TemplateHash(t *grovev1.PodCliqueTemplateSpec) string {
	// json.Marshal writes map keys in order, so equal templates hash equally.
	raw, _ := json.Marshal(struct {
		Name        string
		Labels      map[string]string
		Annotations map[string]string
		Pod         any
	}{t.Name, t.Labels, t.Annotations, t.Spec.PodSpec})
	h := fnv.New64a()
	_, _ = h.Write(raw)
	return strconv.FormatUint(h.Sum64()%(1<<40), 36)
}

// TemplateHashes is TemplateHash of every clique of the PodCliqueSet, by clique name.
func TemplateHashes(pcs *grovev1.PodCliqueSet) map[string]string {
	out := make(map[string]string, len(pcs.Spec.Template.Cliques))
	for i := range pcs.Spec.Template.Cliques {
		out[pcs.Spec.Template.Cliques[i].Name] = TemplateHash(&pcs.Spec.Template.Cliques[i])
	}
	return out
}
