package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// Gang termination is off while an update is in progress, not while the creation is: a pod
// lost during the creation would otherwise keep it off for good (the creation ends only once
// a pass has seen every pod Ready).
func TestUpdatingLeavesTheCreationOut(t *testing.T) {
	ended := metav1.Now()
	set := func(current string, endedAt *metav1.Time) *grovev1.PodCliqueSet {
		pcs := &grovev1.PodCliqueSet{}
		pcs.Status.CurrentRevision = current
		pcs.Status.UpdateProgress = &grovev1.PodCliqueSetUpdateProgress{UpdateStartedAt: ended, UpdateEndedAt: endedAt}
		return pcs
	}
	for name, c := range map[string]struct {
		pcs   *grovev1.PodCliqueSet
		rev   string
		first bool
		want  bool
	}{
		"creation in progress":           {set("r1", nil), "r1", true, false},
		"creation ended":                 {set("r1", &ended), "r1", true, false},
		"update in progress":             {set("r2", nil), "r2", false, true},
		"update ended":                   {set("r2", &ended), "r2", false, false},
		"status not yet at the revision": {set("r1", &ended), "r2", false, true},
		"first pass (no status yet)":     {&grovev1.PodCliqueSet{}, "r1", true, true},
		"revision not in the cache yet":  {set("r1", nil), "r1", false, true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := updating(c.pcs, c.rev, c.first); got != c.want {
				t.Errorf("updating = %v, want %v", got, c.want)
			}
		})
	}
}
