package podgang

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	schedlisters "github.com/phalanx-sched/phalanx/pkg/client/listers/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// statusWriter writes PodGang status (phase, Scheduled and Unschedulable conditions) and
// events from the gang store, off the scheduling path: hooks only enqueue the gang's key.
type statusWriter struct {
	client   versioned.Interface
	lister   schedlisters.PodGangLister
	store    *gang.Store
	recorder events.EventRecorder
	*gangplugin.StatusQueue
}

func newStatusWriter(client versioned.Interface, lister schedlisters.PodGangLister, store *gang.Store, recorder events.EventRecorder) *statusWriter {
	w := &statusWriter{client: client, lister: lister, store: store, recorder: recorder}
	w.StatusQueue = gangplugin.NewStatusQueue("podgang-status", gang.KindPodGang, w.sync)
	return w
}

// Established records the event of a gang that just reached its quorum.
func (w *statusWriter) Established(k gang.Key) {
	if k.Kind != gang.KindPodGang {
		return
	}
	st := w.store.Status(k)
	w.event(k, v1.EventTypeNormal, "Scheduled", "Established",
		fmt.Sprintf("Quorum bound: %d pods on %d nodes", st.Bound, st.Nodes))
}

// sync writes the status the store implies, if it differs from the object's.
func (w *statusWriter) sync(ctx context.Context, k gang.Key) error {
	pg, err := w.lister.PodGangs(k.Namespace).Get(k.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	st := w.store.Status(k)
	if !st.Served {
		return nil // no member for this scheduler: another scheduler's gang, not ours to write
	}
	desired := pg.Status.DeepCopy()
	desired.Phase = schedv1.PodGangPhase(st.Phase)
	meta.SetStatusCondition(&desired.Conditions, gang.ScheduledCondition(st, pg.Generation))
	unsched := gang.UnschedulableCondition(st, pg.Generation)
	prevUnsched := meta.FindStatusCondition(pg.Status.Conditions, schedv1.ConditionUnschedulable)
	meta.SetStatusCondition(&desired.Conditions, unsched)
	if statusEqual(&pg.Status, desired) {
		return nil
	}
	// A merge patch without resourceVersion: the scheduler owns the status, and a stale
	// cache must not turn every write into a conflict and a back-off.
	patch, err := json.Marshal(map[string]any{"status": desired})
	if err != nil {
		return err
	}
	if _, err := w.client.SchedulerV1alpha1().PodGangs(k.Namespace).Patch(ctx, k.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("updating status of %s: %w", k, err)
	}
	if unsched.Status == metav1.ConditionTrue && (prevUnsched == nil || prevUnsched.Message != unsched.Message) {
		w.event(k, v1.EventTypeWarning, unsched.Reason, "Scheduling", unsched.Message)
	}
	return nil
}

func (w *statusWriter) event(k gang.Key, eventType, reason, action, note string) {
	if w.recorder == nil {
		return
	}
	ref := &v1.ObjectReference{APIVersion: schedv1.SchemeGroupVersion.String(), Kind: "PodGang", Namespace: k.Namespace, Name: k.Name}
	if spec, ok := w.store.Spec(k); ok {
		ref.UID = spec.UID
	}
	w.recorder.Eventf(ref, nil, eventType, reason, action, "%s", note)
}

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
