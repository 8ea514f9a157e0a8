package gangplugin

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestAlonePlannable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*v1.Pod)
		want   bool
	}{
		{"plain", func(*v1.Pod) {}, true},
		{"ungated", func(p *v1.Pod) {
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonSchedulingGated}}
		}, true},
		{"unschedulable at its last attempt", func(p *v1.Pod) {
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}}
		}, false},
		{"nominated", func(p *v1.Pod) { p.Status.NominatedNodeName = "n1" }, false},
		{"resource claim", func(p *v1.Pod) {
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("t")}}
		}, false},
		{"volume claim", func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}}}
		}, false},
		{"ephemeral volume", func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}}
		}, false},
		{"emptyDir", func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{}
			tc.change(pod)
			if got := alonePlannable(pod); got != tc.want {
				t.Errorf("alonePlannable = %v, want %v", got, tc.want)
			}
		})
	}
}
