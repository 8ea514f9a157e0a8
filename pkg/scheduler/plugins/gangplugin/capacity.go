package gangplugin

import (
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

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
