package podgroup

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

func TestPhase(t *testing.T) {
	waiting := gang.Status{Wait: gang.Wait{Reason: gang.ReasonWaitingForMembers}}
	cases := []struct {
		name string
		st   gang.Status
		c    Counts
		want schedulingv1.PodGroupPhase
	}{
		{"nothing placed", gang.Status{}, Counts{Scheduled: 0, Running: 0, Succeeded: 0, Failed: 0}, schedulingv1.PodGroupPending},
		{"too big for the cluster", gang.Status{Wait: gang.Wait{Reason: gang.ReasonInsufficient}}, Counts{Scheduled: 0, Running: 0, Succeeded: 0, Failed: 0}, schedulingv1.PodGroupPending},
		{"members wait in Permit", waiting, Counts{Scheduled: 0, Running: 0, Succeeded: 0, Failed: 0}, schedulingv1.PodGroupScheduling},
		{"some bound", gang.Status{Bound: 2}, Counts{Scheduled: 2, Running: 0, Succeeded: 0, Failed: 0}, schedulingv1.PodGroupScheduling},
		{"established", gang.Status{Established: true, Bound: 4}, Counts{Scheduled: 4, Running: 2, Succeeded: 0, Failed: 0}, schedulingv1.PodGroupScheduled},
		{"minMember running", gang.Status{Established: true, Bound: 4}, Counts{Scheduled: 4, Running: 4, Succeeded: 0, Failed: 0}, schedulingv1.PodGroupRunning},
		{"all succeeded", gang.Status{}, Counts{Scheduled: 0, Running: 0, Succeeded: 4, Failed: 0}, schedulingv1.PodGroupFinished},
		{"a member failed below minimum", gang.Status{Established: true, Bound: 3}, Counts{Scheduled: 3, Running: 3, Succeeded: 0, Failed: 1}, schedulingv1.PodGroupFailed},
		{"a member failed beside a running minimum (scheduler-plugins: Failed)", gang.Status{Established: true, Bound: 4}, Counts{Scheduled: 4, Running: 4, Succeeded: 0, Failed: 1}, schedulingv1.PodGroupFailed},
		{"a member failed, too few members to count: 2 scheduled is not Scheduled", gang.Status{Established: true, Bound: 2}, Counts{Scheduled: 2, Running: 2, Succeeded: 0, Failed: 1}, schedulingv1.PodGroupScheduling},
		{"established, members bound but none running yet", gang.Status{Established: true, Bound: 4}, Counts{Scheduled: 4}, schedulingv1.PodGroupScheduled},
		{"established before, members since deleted: not Scheduled with 1 scheduled", gang.Status{Established: true, Bound: 1}, Counts{Scheduled: 1}, schedulingv1.PodGroupScheduling},
		{"running + succeeded reach minMember", gang.Status{Established: true, Bound: 3}, Counts{Scheduled: 3, Running: 2, Succeeded: 2, Failed: 0}, schedulingv1.PodGroupRunning},
		{"minMember succeeded, one still running", gang.Status{Established: true, Bound: 1}, Counts{Scheduled: 1, Running: 1, Succeeded: 4, Failed: 0}, schedulingv1.PodGroupFinished},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Phase(tc.st, 4, tc.c)
			if got == schedulingv1.PodGroupScheduled && tc.c.Scheduled < 4 {
				t.Errorf("Phase Scheduled with scheduled %d < minMember 4", tc.c.Scheduled)
			}
			if got != tc.want {
				t.Errorf("Phase = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCountMembers(t *testing.T) {
	now := metav1.Now()
	pod := func(node string, phase v1.PodPhase, deleting bool) v1.Pod {
		p := v1.Pod{Spec: v1.PodSpec{NodeName: node}, Status: v1.PodStatus{Phase: phase}}
		if deleting {
			p.DeletionTimestamp = &now
		}
		return p
	}
	got := countMembers([]v1.Pod{
		pod("", v1.PodPending, false),     // not bound
		pod("n1", v1.PodPending, false),   // bound, not started: scheduled
		pod("n1", v1.PodRunning, false),   // scheduled and running
		pod("n2", v1.PodRunning, true),    // running, on its way out: not scheduled
		pod("n2", v1.PodSucceeded, false), // finished
		pod("n3", v1.PodFailed, false),    // finished
	})
	if want := (Counts{Scheduled: 2, Running: 2, Succeeded: 1, Failed: 1}); got != want {
		t.Errorf("countMembers = %+v, want %+v", got, want)
	}
}
