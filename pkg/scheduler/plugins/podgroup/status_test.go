package podgroup

import (
	"testing"

	schedulingv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduling/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
)

func TestPhase(t *testing.T) {
	waiting := gang.Status{Wait: gang.Wait{Reason: gang.ReasonWaitingForMembers}}
	cases := []struct {
		name                       string
		st                         gang.Status
		running, succeeded, failed int32
		want                       schedulingv1.PodGroupPhase
	}{
		{"nothing placed", gang.Status{}, 0, 0, 0, schedulingv1.PodGroupPending},
		{"too big for the cluster", gang.Status{Wait: gang.Wait{Reason: gang.ReasonInsufficient}}, 0, 0, 0, schedulingv1.PodGroupPending},
		{"members wait in Permit", waiting, 0, 0, 0, schedulingv1.PodGroupScheduling},
		{"some bound", gang.Status{Bound: 2}, 0, 0, 0, schedulingv1.PodGroupScheduling},
		{"established", gang.Status{Established: true, Bound: 4}, 2, 0, 0, schedulingv1.PodGroupScheduled},
		{"minMember running", gang.Status{Established: true, Bound: 4}, 4, 0, 0, schedulingv1.PodGroupRunning},
		{"all succeeded", gang.Status{}, 0, 4, 0, schedulingv1.PodGroupFinished},
		{"a member failed below minimum", gang.Status{Established: true, Bound: 3}, 3, 0, 1, schedulingv1.PodGroupFailed},
		{"a member failed beside a running minimum (scheduler-plugins: Failed)", gang.Status{Established: true, Bound: 4}, 4, 0, 1, schedulingv1.PodGroupFailed},
		{"a member failed, too few members to count", gang.Status{Established: true, Bound: 2}, 2, 0, 1, schedulingv1.PodGroupScheduled},
		{"running + succeeded reach minMember", gang.Status{Established: true, Bound: 3}, 2, 2, 0, schedulingv1.PodGroupRunning},
		{"minMember succeeded, one still running", gang.Status{Established: true, Bound: 1}, 1, 4, 0, schedulingv1.PodGroupFinished},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Phase(tc.st, 4, tc.running, tc.succeeded, tc.failed); got != tc.want {
				t.Errorf("Phase = %s, want %s", got, tc.want)
			}
		})
	}
}
