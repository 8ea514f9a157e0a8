package podgang

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	schedlisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// statusWriter writes the part of PodGang status that is Phalanx's (phase and the Scheduled
// and phalanx.dev/Unschedulable conditions) and events, from the gang store, off the
// scheduling path: hooks only enqueue the gang's key. Every other condition (Grove's
// Initialized, Ready, Unhealthy, DisruptionTarget) is kept as the API server has it: a write
// starts from the live status and carries its resourceVersion, so a concurrent write by the
// operator is never overwritten (a conflict re-reads and tries again).
type statusWriter struct {
	gangplugin.WriterBase
	client versioned.Interface
	lister schedlisters.PodGangLister
}

func newStatusWriter(client versioned.Interface, lister schedlisters.PodGangLister, store *gang.Store, recorder events.EventRecorder) *statusWriter {
	w := &statusWriter{client: client, lister: lister}
	w.WriterBase = gangplugin.NewWriterBase("podgang-status", gang.KindPodGang, store, recorder, schedv1.SchemeGroupVersion.String(), "PodGang", w.sync)
	return w
}

// Established records the event of a gang that just reached its quorum.
func (w *statusWriter) Established(k gang.Key) {
	st := w.Store.Status(k)
	w.Event(k, v1.EventTypeNormal, "Scheduled", "Established",
		fmt.Sprintf("Quorum bound: %d pods on %d nodes: %s", st.Bound, st.Nodes, w.Store.PlacedSummary(k, gangplugin.EventMembers)))
}

// desiredStatus is live with Phalanx's part set from st: the phase, Scheduled and
// phalanx.dev/Unschedulable (and the type older versions wrote removed), and DisruptionTarget
// on a gang Phalanx preempted (cleared when it is placed again; a DisruptionTarget of another
// reason is the operator's and is kept). Nothing else changes.
func desiredStatus(live *schedv1.PodGangStatus, st gang.Status, generation int64) *schedv1.PodGangStatus {
	out := live.DeepCopy()
	out.Phase = schedv1.PodGangPhase(st.Phase)
	meta.SetStatusCondition(&out.Conditions, gang.ScheduledCondition(st, generation))
	meta.SetStatusCondition(&out.Conditions, gang.UnschedulableCondition(st, generation))
	meta.RemoveStatusCondition(&out.Conditions, schedv1.LegacyConditionUnschedulable)
	if c, ok := gang.DisruptionTargetCondition(st, generation); ok {
		meta.SetStatusCondition(&out.Conditions, c)
	} else if c, ok := gang.ClearedDisruptionTarget(live.Conditions, generation); ok {
		meta.SetStatusCondition(&out.Conditions, c)
	}
	return out
}

// sync writes the status the store implies, if it differs from the object's.
func (w *statusWriter) sync(ctx context.Context, k gang.Key) error {
	pg, err := w.lister.PodGangs(k.Namespace).Get(k.Name)
	if apierrors.IsNotFound(err) {
		w.Warnings.Forget(k)
		w.Settler.Forget(k)
		return nil
	}
	if err != nil {
		return err
	}
	if err := w.recordReservation(ctx, k, pg); err != nil {
		return err
	}
	st, ok := w.Writable(k)
	if !ok {
		return nil
	}
	prevUnsched := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable)
	var hold time.Duration
	pg, res, err := gangplugin.WriteLive(k, pg, func(live *schedv1.PodGang) (bool, error) {
		desired := desiredStatus(&live.Status, st, live.Generation)
		if statusEqual(&live.Status, desired) {
			return false, nil
		}
		quiet := gangplugin.Quiet(live.Status.Conditions, desired.Conditions, schedv1.ConditionScheduled, st, live.Status.Phase == desired.Phase)
		if hold = w.Settler.Hold(k, quiet); hold > 0 {
			return false, nil
		}
		upd := live.DeepCopy()
		upd.Status = *desired
		_, err := w.client.SchedulerV1alpha1().PodGangs(k.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{FieldManager: fieldManager})
		return true, err
	}, func() (*schedv1.PodGang, error) {
		return w.client.SchedulerV1alpha1().PodGangs(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	})
	if hold > 0 {
		w.EnqueueAfter(k, hold)
	}
	if err != nil || res != gangplugin.Written {
		return err
	}
	w.Settler.Wrote(k)
	unsched := gang.UnschedulableCondition(st, pg.Generation)
	if unsched.Status == metav1.ConditionTrue && gang.NeedsAttention(unsched.Reason) && (prevUnsched == nil || prevUnsched.Reason != unsched.Reason || prevUnsched.Message != unsched.Message) && w.Warnings.MayWarn(k, unsched.Reason) {
		w.Event(k, v1.EventTypeWarning, unsched.Reason, "Scheduling", unsched.Message)
	}
	return nil
}

// recordReservation writes on a PodGang that names the gang it replaces in
// spec.reuseReservationRef (Grove's operator) the footprint the store took over from it, as
// the annotation Phalanx's own controller writes (phalanx.dev/reservation): the hold then
// survives a restart or a change of leader between the old members' deletion and the
// replacement's placement (the old gang and its pods are gone by then, so a new leader could
// not derive it again), and `kubectl phalanx why` shows it. A gang that has the annotation
// already is left as it is; the write is a merge patch of that one key.
func (w *statusWriter) recordReservation(ctx context.Context, k gang.Key, pg *schedv1.PodGang) error {
	if _, ok := pg.Annotations[schedv1.AnnotationReservation]; ok || pg.Spec.ReuseReservationRef == nil {
		return nil
	}
	r := w.Store.DerivedReservation(k)
	if r == nil {
		return nil
	}
	raw, err := r.Annotation()
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{schedv1.AnnotationReservation: raw}}})
	if err != nil {
		return err
	}
	_, err = w.client.SchedulerV1alpha1().PodGangs(k.Namespace).Patch(ctx, k.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recording the reservation taken over from %s on %s: %w", pg.Spec.ReuseReservationRef.Name, k, err)
	}
	klog.FromContext(ctx).V(2).Info("Recorded the reservation taken over from the replaced gang", "podGang", klog.KRef(k.Namespace, k.Name), "replaces", pg.Spec.ReuseReservationRef.Name, "nodes", len(r.Nodes))
	return nil
}

// fieldManager names Phalanx's writes in managedFields.
const fieldManager = "phalanx-scheduler"

func statusEqual(a, b *schedv1.PodGangStatus) bool {
	if a.Phase != b.Phase || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		ca, cb := a.Conditions[i], meta.FindStatusCondition(b.Conditions, a.Conditions[i].Type)
		if cb == nil || ca.Status != cb.Status || ca.Reason != cb.Reason || ca.Message != cb.Message || ca.ObservedGeneration != cb.ObservedGeneration {
			return false
		}
	}
	return true
}
