package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestFinishedReason(t *testing.T) {
	for _, c := range []struct {
		phase  corev1.PodPhase
		reason string
		want   string
	}{
		{corev1.PodRunning, "", ""},
		{corev1.PodPending, "", ""},
		{corev1.PodFailed, "Evicted", "Evicted"},
		{corev1.PodFailed, "Terminated", "NodeShutdown"}, // graceful node shutdown
		{corev1.PodFailed, "Shutdown", "NodeShutdown"},
		{corev1.PodFailed, "OutOfnvidia.com/gpu", "Failed"}, // admission failure: bounded label
		{corev1.PodSucceeded, "", "Succeeded"},
	} {
		p := &corev1.Pod{Status: corev1.PodStatus{Phase: c.phase, Reason: c.reason}}
		if got := finishedReason(p); got != c.want {
			t.Errorf("phase %s reason %q: %q, want %q", c.phase, c.reason, got, c.want)
		}
	}
}
