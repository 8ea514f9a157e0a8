package controller

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// An update has failed when every pod made from a clique template it changed is failing (a
// failed pod, an image that cannot be pulled, a crash loop); pods of unchanged cliques, old
// pods and terminating ones do not count, and an update with no new pod yet has not failed.
func TestUpdateFailed(t *testing.T) {
	current := map[string]string{"worker": "new", "router": "same"}
	complete := map[string]string{"worker": "old", "router": "same"}
	pod := func(name, clique, hash string, status corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{workload.LabelCliqueTemplate: clique, grovev1.LabelPodTemplateHash: hash}}, Status: status}
	}
	crash := corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "w", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}}
	pull := corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "w", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}}
	running := corev1.PodStatus{Phase: corev1.PodRunning}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want bool
	}{
		{"no new member yet", []*corev1.Pod{pod("w-0", "worker", "old", running), pod("r-0", "router", "same", crash)}, false},
		{"every new member failing", []*corev1.Pod{pod("w-0", "worker", "new", crash), pod("w-1", "worker", "new", pull), pod("w-2", "worker", "old", running),
			pod("r-0", "router", "same", running)}, true},
		{"one new member runs", []*corev1.Pod{pod("w-0", "worker", "new", crash), pod("w-1", "worker", "new", running)}, false},
		{"failed phase", []*corev1.Pod{pod("w-0", "worker", "new", corev1.PodStatus{Phase: corev1.PodFailed})}, true},
	} {
		failed, why := UpdateFailed(tc.pods, current, complete)
		if failed != tc.want {
			t.Errorf("%s: failed %v (%s), want %v", tc.name, failed, why, tc.want)
		}
		if failed && !strings.HasPrefix(why, "every new member of the update has failed") {
			t.Errorf("%s: reason %q", tc.name, why)
		}
	}
}
