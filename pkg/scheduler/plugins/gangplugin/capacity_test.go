package gangplugin

import (
	"fmt"
	"testing"

	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// The free capacity of a cluster, summed until it holds what is asked: the answer to "does it
// fit" is the whole sum's, and an overcommitted node takes nothing from the others' room.
func TestFreeCapacity(t *testing.T) {
	var nodes []fwk.NodeInfo
	for i := range 100 {
		nodes = append(nodes, node(fmt.Sprintf("n%d", i), "r", 2)) // 6 GPUs free each
	}
	if got := freeCapacity(nodes, nil).GPU; got != 600 {
		t.Errorf("whole cluster: %d GPUs free, want 600", got)
	}
	need := gang.Resources{GPU: 16}
	if got := freeCapacity(nodes, &need).GPU; got != 18 {
		t.Errorf("summed until 16 GPUs fit: %d, want 18 (three nodes)", got)
	}
	need = gang.Resources{GPU: 601}
	if got := freeCapacity(nodes, &need); got.GPU != 600 || got.Fits(need) {
		t.Errorf("asking more than there is: %d GPUs, want the whole cluster's 600", got.GPU)
	}
	// A node whose pods request more than it has (allocatable shrank) counts as full.
	over := node("over", "r", 12)
	if got := freeCapacity([]fwk.NodeInfo{over, node("n", "r", 2)}, nil).GPU; got != 6 {
		t.Errorf("with an overcommitted node: %d GPUs free, want 6", got)
	}
}
