package podgroup

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"

	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	schedulinglisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// statusWriter keeps PodGroup status (phase, member counts, scheduleStartTime) and events
// current, off the scheduling path. A scheduler-plugins PodGroup has no conditions: a preemption is told by the Preempted event
// alone (gangplugin.WriterBase.Preempted).
type statusWriter struct {
	gangplugin.WriterBase
	client versioned.Interface
	groups schedulinglisters.PodGroupLister
	// pods reads members of every phase: the scheduler's own pod informer leaves out
	// succeeded and failed pods, which the counts need.
	pods kubernetes.Interface
	// lastWait is the wait message last reported by an event, per group (worker only).
	lastWait map[gang.Key]string
}

func newStatusWriter(client versioned.Interface, groups schedulinglisters.PodGroupLister, pods kubernetes.Interface, store *gang.Store, recorder events.EventRecorder) *statusWriter {
	w := &statusWriter{client: client, groups: groups, pods: pods, lastWait: map[gang.Key]string{}}
	w.WriterBase = gangplugin.NewWriterBase("podgroup-status", gang.KindPodGroup, store, recorder, schedulingv1.SchemeGroupVersion.String(), "PodGroup", w.sync)
	return w
}

// Established records the event of a group that just reached minMember bound pods.
func (w *statusWriter) Established(k gang.Key) {
	st := w.Store.Status(k)
	w.Event(k, v1.EventTypeNormal, "Scheduled", "Established",
		fmt.Sprintf("minMember reached: %d pods bound on %d nodes (%s); further members are placed one by one", st.Bound, st.Nodes, w.Store.PlacedSummary(k, gangplugin.EventMembers)))
}

// Counts are a group's members by state, as its status reports them.
type Counts struct {
	// Scheduled members are bound to a node and have not finished (pending or running).
	Scheduled, Running, Succeeded, Failed int32
}

// Phase derives the phase of a group from what the scheduler knows and the pods' phases, with
// scheduler-plugins' rules for its PodGroup kind (its PodGroup controller), applied in its
// order of precedence: Finished when succeeded >= minMember; Failed when some member failed
// and failed + running + succeeded >= minMember; Running when running + succeeded >=
// minMember; Scheduled once the group is established and minMember members are bound
// (status.scheduled >= minMember: never Scheduled beside a smaller count); Scheduling while
// members are bound or wait in Permit; else Pending. One deliberate difference: the phase is
// recomputed from the live pods on every change instead of sticking at Failed or Finished, so
// a group whose failed member is replaced (a Job's new pod) reads Running again.
func Phase(st gang.Status, minMember int32, c Counts) schedulingv1.PodGroupPhase {
	switch {
	case minMember > 0 && c.Succeeded >= minMember:
		return schedulingv1.PodGroupFinished
	case c.Failed > 0 && c.Failed+c.Running+c.Succeeded >= minMember:
		return schedulingv1.PodGroupFailed
	case minMember > 0 && c.Running+c.Succeeded >= minMember:
		return schedulingv1.PodGroupRunning
	case st.Established && c.Scheduled >= minMember:
		return schedulingv1.PodGroupScheduled
	case st.Bound > 0 || c.Scheduled > 0 || st.Wait.Reason == gang.ReasonWaitingForMembers:
		return schedulingv1.PodGroupScheduling
	}
	return schedulingv1.PodGroupPending
}

// countMembers counts pods by state. Running, Succeeded and Failed go by the pod's phase, as
// scheduler-plugins counts them; a pod being deleted is not Scheduled (it is on its way out).
func countMembers(pods []v1.Pod) Counts {
	var c Counts
	for i := range pods {
		p := &pods[i]
		switch p.Status.Phase {
		case v1.PodSucceeded:
			c.Succeeded++
			continue
		case v1.PodFailed:
			c.Failed++
			continue
		case v1.PodRunning:
			c.Running++
		}
		if p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			c.Scheduled++
		}
	}
	return c
}

func (w *statusWriter) sync(ctx context.Context, k gang.Key) error {
	pg, err := w.groups.PodGroups(k.Namespace).Get(k.Name)
	if apierrors.IsNotFound(err) {
		delete(w.lastWait, k)
		return nil
	}
	if err != nil {
		return err
	}
	st, ok := w.Writable(k)
	if !ok {
		return nil
	}
	pods, err := w.pods.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{schedulingv1.LabelPodGroup: k.Name}).String(), ResourceVersion: "0"})
	if err != nil {
		return err
	}
	counts := countMembers(pods.Items)
	desired := pg.Status
	desired.Phase = Phase(st, pg.Spec.MinMember, counts)
	desired.Scheduled, desired.Running, desired.Succeeded, desired.Failed = counts.Scheduled, counts.Running, counts.Succeeded, counts.Failed
	if desired.ScheduleStartTime.IsZero() && desired.Phase != schedulingv1.PodGroupPending {
		desired.ScheduleStartTime = metav1.Now()
	}
	if st.Wait.Message != w.lastWait[k] {
		w.lastWait[k] = st.Wait.Message
		if st.Wait.Reason != "" {
			w.Event(k, v1.EventTypeWarning, st.Wait.Reason, "Scheduling", st.Wait.Message)
		}
	}
	if desired == pg.Status {
		return nil
	}
	// Every count is written, zeros included: a merge patch of the status struct would drop
	// them (omitempty) and leave the last non-zero count in place.
	status := map[string]any{"phase": desired.Phase, "scheduled": desired.Scheduled, "running": desired.Running, "succeeded": desired.Succeeded, "failed": desired.Failed}
	if !desired.ScheduleStartTime.IsZero() {
		status["scheduleStartTime"] = desired.ScheduleStartTime
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	if _, err := w.client.SchedulingV1alpha1().PodGroups(k.Namespace).Patch(ctx, k.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("updating status of %s: %w", k, err)
	}
	return nil
}
