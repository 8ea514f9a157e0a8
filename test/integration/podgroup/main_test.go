// Package podgroup tests the PodGroup plugin against a real control plane with a
// kube-controller-manager, so that Jobs and Deployments make their pods as in a cluster.
package podgroup

import (
	"testing"

	"github.com/phalanx-sched/phalanx/test/framework"
)

func TestMain(m *testing.M) { framework.MainWithControllers(m) }
