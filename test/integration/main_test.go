// Package integration holds the tests that run Phalanx against a real kube-apiserver, etcd and
// KWOK fake GPU nodes, with the scheduler in-process.
package integration

import (
	"testing"

	"github.com/phalanx-sched/phalanx/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }
