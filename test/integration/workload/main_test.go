// Package workload tests the WorkloadPodGroup plugin (upstream scheduling.k8s.io/v1beta1
// PodGroups) against a real API server that serves the Workload API, with a
// kube-controller-manager so that Jobs, Deployments and StatefulSets make their pods as in a
// cluster.
package workload

import (
	"testing"

	"github.com/phalanx-sched/phalanx/test/framework"
)

func TestMain(m *testing.M) { framework.MainWithWorkloadAPI(m) }
