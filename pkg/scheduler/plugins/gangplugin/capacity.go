package gangplugin

import (
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// schedulableNodes counts the nodes that take new pods (not cordoned): how the minimums-first
// hold tells that capacity arrived since a gang last failed (gang.Store.HeldExtra).
func schedulableNodes(nodes []fwk.NodeInfo) int {
	c := 0
	for _, n := range nodes {
		if node := n.Node(); node != nil && !node.Spec.Unschedulable {
			c++
		}
	}
	return c
}

func freeCapacity(nodes []fwk.NodeInfo) gang.Resources {
	var free gang.Resources
	for _, n := range nodes {
		free = free.Add(nodeFree(n))
	}
	return free
}

func nodeFree(n fwk.NodeInfo) gang.Resources {
	alloc, req := n.GetAllocatable(), n.GetRequested()
	return gang.Resources{
		MilliCPU: alloc.GetMilliCPU() - req.GetMilliCPU(),
		Memory:   alloc.GetMemory() - req.GetMemory(),
		GPU:      alloc.GetScalarResources()[gang.ResourceGPU] - req.GetScalarResources()[gang.ResourceGPU],
	}
}
