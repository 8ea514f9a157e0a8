package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// Why explains a pod: its gang, the gang's quorum, and what the gang or the pod waits for.
type Why struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Node      string `json:"node,omitempty"`
	Phase     string `json:"phase"`
	Scheduler string `json:"scheduler"`
	Surge     bool   `json:"surge"`
	// GangKind is "PodGang" or "PodGroup.scheduling.k8s.io" (the Workload API).
	GangKind string `json:"gangKind,omitempty"`
	// Gang is empty for a pod of no gang.
	Gang        string   `json:"gang,omitempty"`
	GangRole    string   `json:"gangRole,omitempty"`
	BaseGang    string   `json:"baseGang,omitempty"`
	Established bool     `json:"established"`
	Quorum      []string `json:"quorum,omitempty"`
	// Waiting is the gang's Unschedulable reason and message.
	Waiting string `json:"waiting,omitempty"`
	// LastEvent is the pod's latest FailedScheduling message.
	LastEvent string `json:"lastSchedulingEvent,omitempty"`
	// Reservation describes a hold the gang has (held capacity for its replacements).
	Reservation string `json:"reservation,omitempty"`
	// Preempted is the message of the DisruptionTarget condition that preemption put on the
	// pod, or on its gang (a gang preempted whole).
	Preempted string `json:"preempted,omitempty"`
	// Verdict is the answer in one sentence.
	Verdict string `json:"verdict"`
}

// LoadWhy reads what Why needs about a pod: its gang object (a PodGang, or an upstream
// scheduling.k8s.io PodGroup named by spec.schedulingGroup), the gang's pods and the pod's
// FailedScheduling events.
func LoadWhy(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, namespace, name string) (*Why, error) {
	pod, err := kube.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading pod %s/%s: %w", namespace, name, err)
	}
	events, err := kube.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.name", name), fields.OneTermEqualSelector("reason", "FailedScheduling")).String()})
	if err != nil {
		return nil, err
	}
	k, member := gang.DefaultMembership().KeyOf(pod)
	if member && k.Kind == gang.KindWorkloadPodGroup {
		pg, members, err := LoadPodGroup(ctx, kube, namespace, k.Name)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		return buildWhy(pod, workloadGroupFacts(k.Name, pg, members), events.Items), nil
	}
	var pg *schedv1.PodGang
	var members []corev1.Pod
	if g := workload.GangOf(pod.Labels); g != "" {
		pg, err = client.SchedulerV1alpha1().PodGangs(namespace).Get(ctx, g, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading PodGang %s: %w", g, err)
		}
		if apierrors.IsNotFound(err) {
			pg = nil
		}
		list, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: workload.GangSelector(g, pod.Labels[grovev1.LabelCoherentSlice] != "")})
		if err != nil {
			return nil, err
		}
		members = list.Items
	}
	return BuildWhy(pod, pg, members, events.Items), nil
}

// gangFacts is what Why reads from a pod's gang object, whatever its kind.
type gangFacts struct {
	kind, name, role, base string
	// found: the gang object exists.
	found                           bool
	established                     bool
	quorum                          []string
	waiting, reservation, preempted string
}

// podGangFacts reads a PodGang (nil when missing) and its pods.
func podGangFacts(pod *corev1.Pod, pg *schedv1.PodGang, members []corev1.Pod) gangFacts {
	f := gangFacts{kind: "PodGang", name: workload.GangOf(pod.Labels), base: pod.Labels[grovev1.LabelBasePodGang], role: "base", found: pg != nil}
	switch {
	case pod.Labels[grovev1.LabelCoherentSlice] != "":
		f.role, f.base = "coherent slice", "" // placed on its own, every member required
	case f.base != "":
		f.role = "scaled"
	}
	if pg == nil {
		return f
	}
	f.established = meta.IsStatusConditionTrue(pg.Status.Conditions, schedv1.ConditionScheduled)
	for _, q := range quorumOf(pg, members) {
		f.quorum = append(f.quorum, fmt.Sprintf("%s: %d bound, %d present, minReplicas %d", q.Name, q.Bound, q.Present, q.Min))
	}
	if c := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable); c != nil && c.Status == metav1.ConditionTrue {
		f.waiting = c.Reason + ": " + c.Message
	}
	if raw := pg.Annotations[schedv1.AnnotationReservation]; raw != "" {
		if r := gang.ReservationFromPodGang(pg); r != nil {
			var nodes []string
			var devices int64
			for n, res := range r.Nodes {
				nodes = append(nodes, n)
				devices += res.Devices
			}
			sort.Strings(nodes)
			what := "capacity"
			if devices > 0 {
				what = fmt.Sprintf("capacity (with %d DRA devices)", devices)
			}
			f.reservation = fmt.Sprintf("%s on %s held for its replacements since %s", what, strings.Join(nodes, ", "), r.Since.UTC().Format(time.RFC3339))
		}
	}
	if c := meta.FindStatusCondition(pg.Status.Conditions, gang.ConditionDisruptionTarget); c != nil && c.Status == metav1.ConditionTrue && c.Reason == gang.ReasonPreempted {
		f.preempted = "its gang was " + c.Message
	}
	return f
}

// BuildWhy answers from the pod, its PodGang (nil when missing), the gang's pods and the
// pod's FailedScheduling events.
func BuildWhy(pod *corev1.Pod, pg *schedv1.PodGang, members []corev1.Pod, events []corev1.Event) *Why {
	if workload.GangOf(pod.Labels) == "" {
		return buildWhy(pod, gangFacts{}, events)
	}
	return buildWhy(pod, podGangFacts(pod, pg, members), events)
}

func buildWhy(pod *corev1.Pod, f gangFacts, events []corev1.Event) *Why {
	w := &Why{Namespace: pod.Namespace, Pod: pod.Name, Node: pod.Spec.NodeName, Phase: string(pod.Status.Phase),
		Scheduler: pod.Spec.SchedulerName, Surge: gang.DefaultMembership().IsSurge(pod),
		GangKind: f.kind, Gang: f.name, GangRole: f.role, BaseGang: f.base,
		Established: f.established, Quorum: f.quorum, Waiting: f.waiting, Reservation: f.reservation}
	sort.Slice(events, func(i, j int) bool { return eventTime(events[i]).After(eventTime(events[j])) })
	if len(events) > 0 {
		w.LastEvent = events[0].Message
	}
	switch {
	case w.Gang == "":
		w.Verdict = "the pod belongs to no gang: it is scheduled on its own"
	case !f.found:
		w.Verdict = fmt.Sprintf("its %s %s does not exist: the scheduler keeps the pod out of the queue until it does", f.kind, w.Gang)
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler {
			w.Preempted = c.Message
		}
	}
	if w.Preempted == "" {
		w.Preempted = f.preempted
	}
	if w.Verdict == "" {
		switch {
		case w.Preempted != "":
			w.Verdict = "the pod was preempted: " + w.Preempted
		case pod.Spec.NodeName != "":
			w.Verdict = fmt.Sprintf("the pod is bound to %s", pod.Spec.NodeName)
		case w.Surge && !w.Established:
			w.Verdict = "a surge member waits until its gang is established"
		case w.Waiting != "":
			w.Verdict = "the gang waits: " + w.Waiting
		case w.LastEvent != "":
			w.Verdict = "the last scheduling attempt failed: " + w.LastEvent
		default:
			w.Verdict = "the pod waits in the scheduling queue"
		}
	}
	return w
}

func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// RenderWhy prints the explanation.
func RenderWhy(out io.Writer, w *Why, pal Palette) {
	fmt.Fprintf(out, "pod %s/%s  %s  node %s  scheduler %s", w.Namespace, w.Pod, w.Phase, orDash(w.Node), orDash(w.Scheduler))
	if w.Surge {
		fmt.Fprint(out, "  surge member")
	}
	fmt.Fprintln(out)
	if w.Gang != "" {
		state := pal.paint(pal.Good, "established")
		if !w.Established {
			state = pal.paint(pal.Warn, "not established")
		}
		fmt.Fprintf(out, "gang %s %s", w.GangKind, w.Gang)
		if w.GangRole != "" {
			fmt.Fprintf(out, " (%s)", w.GangRole)
		}
		fmt.Fprintf(out, "  %s", state)
		if w.BaseGang != "" {
			fmt.Fprintf(out, "  based on %s", w.BaseGang)
		}
		fmt.Fprintln(out)
		for _, q := range w.Quorum {
			fmt.Fprintf(out, "  quorum  %s\n", q)
		}
		if w.Waiting != "" {
			fmt.Fprintf(out, "  waiting %s\n", pal.paint(pal.Bad, w.Waiting))
		}
		if w.Reservation != "" {
			fmt.Fprintf(out, "  holds   %s\n", w.Reservation)
		}
		if w.Preempted != "" {
			fmt.Fprintf(out, "  preempted %s\n", pal.paint(pal.Bad, w.Preempted))
		}
	}
	if w.LastEvent != "" {
		fmt.Fprintf(out, "last FailedScheduling: %s\n", w.LastEvent)
	}
	fmt.Fprintf(out, "=> %s\n", w.Verdict)
}
