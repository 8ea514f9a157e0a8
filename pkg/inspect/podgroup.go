package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// LoadPodGroup reads an upstream scheduling.k8s.io PodGroup and its members (the pods of the
// namespace whose spec.schedulingGroup names it). The members are returned, with a NotFound
// error, when the PodGroup does not exist.
func LoadPodGroup(ctx context.Context, kube kubernetes.Interface, namespace, name string) (*schedulingv1beta1.PodGroup, []corev1.Pod, error) {
	list, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("listing the pods of %s: %w", namespace, err)
	}
	var members []corev1.Pod
	for _, p := range list.Items {
		if k, ok := gang.DefaultMembership().KeyOf(&p); ok && k.Kind == gang.KindWorkloadPodGroup && k.Name == name {
			members = append(members, p)
		}
	}
	pg, err := kube.SchedulingV1beta1().PodGroups(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, members, fmt.Errorf("reading PodGroup %s/%s (scheduling.k8s.io/v1beta1; served only with the API server's GenericWorkload gate): %w", namespace, name, err)
	}
	return pg, members, nil
}

// GroupStatus is where an upstream PodGroup stands: its policy, whether its first placement
// happened, what it waits for, and its pods. It is also the JSON of `kubectl phalanx status
// podgroup/NAME -o json`.
type GroupStatus struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	// MinCount is schedulingPolicy.gang.minCount (1 under the basic policy).
	MinCount    int32  `json:"minCount"`
	Topology    string `json:"requiredTopology,omitempty"`
	Priority    *int32 `json:"priority,omitempty"`
	Disruption  string `json:"disruptionMode"`
	Established bool   `json:"established"`
	// InitiallyScheduled is upstream's terminal PodGroupInitiallyScheduled=True: the first
	// placement happened (the group may have finished or lost its members since).
	InitiallyScheduled bool `json:"initiallyScheduled"`
	// Quorum is "B bound, P present[, S succeeded], minCount M".
	Quorum string `json:"quorum"`
	// Waiting is the PodGroupInitiallyScheduled=False message, Preempted the DisruptionTarget
	// message of a preemption.
	Waiting   string `json:"waiting,omitempty"`
	Preempted string `json:"preempted,omitempty"`
	Pods      []Pod  `json:"pods"`
}

// BuildPodGroupStatus builds the status of an upstream PodGroup from the object and its pods.
func BuildPodGroupStatus(pg *schedulingv1beta1.PodGroup, members []corev1.Pod) GroupStatus {
	spec := gang.SpecFromWorkloadPodGroup(pg)
	f := workloadGroupFacts(pg.Name, pg, members)
	st := GroupStatus{Namespace: pg.Namespace, Name: pg.Name, Kind: gang.KindWorkloadPodGroup.String(), MinCount: spec.PodGroups[0].MinReplicas,
		Topology: spec.Pack.Required, Priority: spec.Priority, Disruption: disruptionName(spec.DisruptionMode),
		Established: f.established, Waiting: f.waiting, Preempted: f.preempted,
		InitiallyScheduled: meta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)}
	if len(f.quorum) > 0 {
		st.Quorum = f.quorum[0]
	}
	m := gang.DefaultMembership()
	for _, p := range members {
		st.Pods = append(st.Pods, Pod{Name: p.Name, Index: fmt.Sprint(gang.MemberIndex(&p)), Node: p.Spec.NodeName, Ready: workload.PodReady(&p),
			Phase: string(p.Status.Phase), Surge: m.IsSurge(&p), Deleting: p.DeletionTimestamp != nil})
	}
	sort.Slice(st.Pods, func(i, j int) bool { return st.Pods[i].Name < st.Pods[j].Name })
	return st
}

func disruptionName(d gang.DisruptionMode) string {
	switch d {
	case gang.DisruptionSingle:
		return "Single"
	case gang.DisruptionAll:
		return "All"
	}
	return "unset (Phalanx: members above minCount alone, the rest only whole)"
}

// workloadGroupFacts reads an upstream PodGroup (nil when missing) and its pods for Why.
func workloadGroupFacts(name string, pg *schedulingv1beta1.PodGroup, members []corev1.Pod) gangFacts {
	f := gangFacts{kind: gang.KindWorkloadPodGroup.String(), name: name, found: pg != nil}
	if pg == nil {
		return f
	}
	var bound, present, succeeded int
	for _, p := range members {
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			succeeded++
		case p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodFailed:
		default:
			present++
			if p.Spec.NodeName != "" {
				bound++
			}
		}
	}
	minCount := gang.SpecFromWorkloadPodGroup(pg).PodGroups[0].MinReplicas
	q := fmt.Sprintf("%d bound, %d present", bound, present)
	if succeeded > 0 {
		q += fmt.Sprintf(", %d succeeded", succeeded)
	}
	f.quorum = []string{fmt.Sprintf("%s, minCount %d", q, minCount)}
	// PodGroupInitiallyScheduled is terminal; the group is established while a member is bound.
	f.established = meta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled) && bound > 0
	if c := meta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled); c != nil && c.Status == metav1.ConditionFalse {
		f.waiting = c.Message
	}
	if c := meta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.DisruptionTarget); c != nil && c.Status == metav1.ConditionTrue &&
		c.Reason == schedulingv1beta1.PodGroupReasonPreemptionByScheduler {
		f.preempted = "its group was " + c.Message
	}
	return f
}

// RenderPodGroupStatus prints an upstream PodGroup's status.
func RenderPodGroupStatus(out io.Writer, st GroupStatus, pal Palette) {
	state := pal.paint(pal.Good, "established")
	switch {
	case !st.Established && st.InitiallyScheduled:
		state = pal.paint(pal.Warn, "placed once, no member bound now")
	case !st.Established:
		state = pal.paint(pal.Warn, "not established")
	}
	fmt.Fprintf(out, "%s %s/%s  %s  minCount %d  disruptionMode %s", st.Kind, st.Namespace, st.Name, state, st.MinCount, st.Disruption)
	if st.Topology != "" {
		fmt.Fprintf(out, "  required topology %s", st.Topology)
	}
	if st.Priority != nil {
		fmt.Fprintf(out, "  priority %d", *st.Priority)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "  quorum  %s\n", st.Quorum)
	if st.Waiting != "" {
		fmt.Fprintf(out, "  waiting %s\n", pal.paint(pal.Bad, st.Waiting))
	}
	if st.Preempted != "" {
		fmt.Fprintf(out, "  preempted %s\n", pal.paint(pal.Bad, st.Preempted))
	}
	for _, p := range st.Pods {
		var notes []string
		if p.Surge {
			notes = append(notes, "surge")
		}
		if p.Deleting {
			notes = append(notes, "deleting")
		}
		ready := "not ready"
		if p.Ready {
			ready = "ready"
		}
		fmt.Fprintf(out, "  pod %s  %s  %s  node %s", p.Name, orDash(p.Phase), ready, orDash(p.Node))
		if len(notes) > 0 {
			fmt.Fprintf(out, "  (%s)", strings.Join(notes, ", "))
		}
		fmt.Fprintln(out)
	}
}
