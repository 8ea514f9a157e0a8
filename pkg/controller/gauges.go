package controller

import (
	"k8s.io/apimachinery/pkg/api/meta"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// updateState is what the update gauges count for one PodCliqueSet.
type updateState struct{ updating, stalled bool }

// trackUpdate records a PodCliqueSet's update state and sets the gauges.
func (c *Controller) trackUpdate(key string, s updateState) {
	c.updatesMu.Lock()
	defer c.updatesMu.Unlock()
	if s == (updateState{}) {
		delete(c.updates, key)
	} else {
		c.updates[key] = s
	}
	updating, stalled := 0, 0
	for _, u := range c.updates {
		if u.updating {
			updating++
		}
		if u.stalled {
			stalled++
		}
	}
	metrics.UpdatesInProgress.Set(float64(updating))
	metrics.UpdatesStalled.Set(float64(stalled))
}

// observeUpdate records, after a status write, the duration of an update that just ended
// and the update gauges.
func (c *Controller) observeUpdate(pcs *grovev1.PodCliqueSet, st *grovev1.PodCliqueSetStatus) {
	p := st.UpdateProgress
	if p == nil {
		return
	}
	old := pcs.Status.UpdateProgress
	if p.UpdateEndedAt != nil && old != nil && old.UpdateEndedAt == nil && pcs.Status.CurrentRevision == st.CurrentRevision {
		metrics.UpdateDuration.WithLabelValues(strategyOf(pcs)).Observe(p.UpdateEndedAt.Sub(p.UpdateStartedAt.Time).Seconds())
	}
	prog := meta.FindStatusCondition(st.Conditions, grovev1.ConditionProgressing)
	c.trackUpdate(pcs.Namespace+"/"+pcs.Name, updateState{
		updating: p.UpdateEndedAt == nil,
		stalled:  prog != nil && prog.Reason == grovev1.ReasonProgressDeadlineExceeded,
	})
}

func strategyOf(pcs *grovev1.PodCliqueSet) string {
	if pcs.Spec.UpdateStrategy != nil && pcs.Spec.UpdateStrategy.Type != "" {
		return string(pcs.Spec.UpdateStrategy.Type)
	}
	return string(grovev1.RollingUpdateStrategyType)
}
