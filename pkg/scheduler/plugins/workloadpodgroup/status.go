package workloadpodgroup

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/events"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// Condition reasons Phalanx writes besides upstream's.
const (
	// ReasonScheduled is upstream's reason of PodGroupInitiallyScheduled=True.
	ReasonScheduled = "Scheduled"
	// ReasonRescheduled clears a DisruptionTarget Phalanx set once the group is placed again.
	ReasonRescheduled = "Rescheduled"
)

// fieldManager names Phalanx's writes in managedFields.
const fieldManager = "phalanx-scheduler"

// statusWriter writes the conditions upstream's scheduler writes on a PodGroup, from the gang
// store, off the scheduling path: PodGroupInitiallyScheduled (True once minCount members bound,
// never set back; False with reason Unschedulable and Phalanx's wait while the first placement
// waits) and DisruptionTarget (reason PreemptionByScheduler while Phalanx's preemption took the
// group whole, cleared when it is placed again). Every other condition is kept: a write starts
// from the live status and carries its resourceVersion.
type statusWriter struct {
	gangplugin.WriterBase
	client kubernetes.Interface
	lister schedulinglisters.PodGroupLister
}

func newStatusWriter(client kubernetes.Interface, lister schedulinglisters.PodGroupLister, store *gang.Store, recorder events.EventRecorder) *statusWriter {
	w := &statusWriter{client: client, lister: lister}
	w.WriterBase = gangplugin.NewWriterBase("workloadpodgroup-status", gang.KindWorkloadPodGroup, store, recorder,
		schedulingv1beta1.SchemeGroupVersion.String(), "PodGroup", w.sync)
	return w
}

// Established records the event of a group that just reached minCount bound pods.
func (w *statusWriter) Established(k gang.Key) {
	st := w.Store.Status(k)
	w.Event(k, v1.EventTypeNormal, "Scheduled", "Established",
		fmt.Sprintf("minCount reached: %d pods bound on %d nodes (%s); further members and replacements are placed one by one", st.Bound, st.Nodes, w.Store.PlacedSummary(k, gangplugin.EventMembers)))
}

// initiallyScheduled is the PodGroupInitiallyScheduled condition for st, and false when
// nothing is to be said yet: members are still coming, or placed members wait for the rest of
// the quorum (upstream writes False only when the group cannot be placed; a False on every
// placement's way would also cost a write per group).
func initiallyScheduled(st gang.Status, generation int64) (metav1.Condition, bool) {
	switch {
	case st.Established:
		c := metav1.Condition{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: ReasonScheduled,
			Message: fmt.Sprintf("minCount reached: %d pods bound on %d nodes", st.Bound, st.Nodes), ObservedGeneration: generation}
		if !st.EstablishedAt.IsZero() {
			c.LastTransitionTime = metav1.NewTime(st.EstablishedAt)
		}
		return c, true
	case gang.Unschedulable(st.Wait.Reason):
		return metav1.Condition{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse,
			Reason: schedulingv1beta1.PodGroupReasonUnschedulable, Message: st.Wait.Reason + ": " + st.Wait.Message, ObservedGeneration: generation}, true
	}
	return metav1.Condition{}, false
}

// desiredStatus is live with Phalanx's conditions set from st; nothing else changes. A True
// PodGroupInitiallyScheduled is terminal (upstream's contract): it is never set back to False,
// even when the group lost its members; a restarted Phalanx reads it as "established before".
func desiredStatus(live *schedulingv1beta1.PodGroupStatus, st gang.Status, generation int64) *schedulingv1beta1.PodGroupStatus {
	out := live.DeepCopy()
	if c, ok := initiallyScheduled(st, generation); ok && !meta.IsStatusConditionTrue(live.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled) {
		meta.SetStatusCondition(&out.Conditions, c)
	}
	switch {
	case st.Disruption != nil:
		meta.SetStatusCondition(&out.Conditions, metav1.Condition{Type: schedulingv1beta1.DisruptionTarget, Status: metav1.ConditionTrue,
			Reason: schedulingv1beta1.PodGroupReasonPreemptionByScheduler, Message: st.Disruption.Message, ObservedGeneration: generation,
			LastTransitionTime: metav1.NewTime(st.Disruption.At)})
	case st.Established:
		if c := meta.FindStatusCondition(live.Conditions, schedulingv1beta1.DisruptionTarget); c != nil && c.Status == metav1.ConditionTrue &&
			c.Reason == schedulingv1beta1.PodGroupReasonPreemptionByScheduler {
			meta.SetStatusCondition(&out.Conditions, metav1.Condition{Type: schedulingv1beta1.DisruptionTarget, Status: metav1.ConditionFalse,
				Reason: ReasonRescheduled, Message: "the group was placed again after its preemption", ObservedGeneration: generation})
		}
	}
	return out
}

// sync writes the status the store implies, if it differs from the object's.
func (w *statusWriter) sync(ctx context.Context, k gang.Key) error {
	pg, err := w.lister.PodGroups(k.Namespace).Get(k.Name)
	if apierrors.IsNotFound(err) {
		w.Warnings.Forget(k)
		w.Settler.Forget(k)
		return nil
	}
	if err != nil {
		return err
	}
	st, ok := w.Writable(k)
	if !ok {
		return nil
	}
	prev := meta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	var hold time.Duration
	_, res, err := gangplugin.WriteLive(k, pg, func(live *schedulingv1beta1.PodGroup) (bool, error) {
		desired := desiredStatus(&live.Status, st, live.Generation)
		if conditionsEqual(live.Status.Conditions, desired.Conditions) {
			return false, nil
		}
		if hold = w.Settler.Hold(k, gangplugin.Quiet(live.Status.Conditions, desired.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled, st, true)); hold > 0 {
			return false, nil
		}
		upd := live.DeepCopy()
		upd.Status = *desired
		_, err := w.client.SchedulingV1beta1().PodGroups(k.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{FieldManager: fieldManager})
		return true, err
	}, func() (*schedulingv1beta1.PodGroup, error) {
		return w.client.SchedulingV1beta1().PodGroups(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	})
	if hold > 0 {
		w.EnqueueAfter(k, hold)
	}
	if err != nil || res == gangplugin.Gone {
		return err
	}
	if res == gangplugin.Written {
		w.Settler.Wrote(k)
	}
	if r := st.Wait.Reason; r != "" && !st.Established && gang.NeedsAttention(r) &&
		(prev == nil || prev.Message != r+": "+st.Wait.Message) && w.Warnings.MayWarn(k, r) {
		w.Event(k, v1.EventTypeWarning, r, "Scheduling", st.Wait.Message)
	}
	return nil
}

// conditionsEqual compares what Phalanx writes of conditions (the transition times follow).
func conditionsEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		cb := meta.FindStatusCondition(b, a[i].Type)
		if cb == nil || a[i].Status != cb.Status || a[i].Reason != cb.Reason || a[i].Message != cb.Message || a[i].ObservedGeneration != cb.ObservedGeneration {
			return false
		}
	}
	return true
}
