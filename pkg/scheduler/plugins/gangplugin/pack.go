package gangplugin

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// memberPack is a gang's multi-level packing for one attempt (gang.ChooseDomains): the domain
// of each level, and the podgroup of each member it was chosen for.
type memberPack struct {
	levels  []gang.Level
	domains gang.Domains
	groups  map[string]int // by pod name
	// podGroups is how many podgroups the gang has.
	podGroups int
}

// packLevels chooses the domains of the gang's packing levels among cand for pod's attempt. A message, when not empty, names the
// required level that no domain has room for. The preferred levels the choice could not keep
// are recorded for the gang's status (and logged, and counted, when that changes).
func (p *Adapter) packLevels(logger klog.Logger, k gang.Key, spec *gang.Spec, levels []gang.Level, pod *v1.Pod, cand []fwk.NodeInfo) (*memberPack, string) {
	pack, msg := p.choosePack(k, spec, levels, pod, topoNodes(cand, nil))
	if msg != "" {
		return nil, msg
	}
	note := strings.Join(pack.domains.FellBack, "; ")
	if p.setPackNote(k, note) && note != "" {
		logger.V(2).Info("Preferred packing not kept", "gang", k.String(), "why", note)
		metrics.PreferredPackingFallbacks.WithLabelValues(k.Kind.String()).Add(float64(len(pack.domains.FellBack)))
	}
	return pack, ""
}

// choosePack is packLevels without recording anything, on nodes as given: what a preemption
// weighs for each set of victims.
func (p *Adapter) choosePack(k gang.Key, spec *gang.Spec, levels []gang.Level, pod *v1.Pod, nodes []gang.TopoNode) (*memberPack, string) {
	members := p.store.PackMembers(k, pod)
	d, msg := gang.ChooseDomains(levels, nodes, members)
	if msg != "" {
		return nil, msg
	}
	groups := make(map[string]int, len(members))
	for _, m := range members {
		groups[m.Name] = m.Group
	}
	return &memberPack{levels: levels, domains: d, groups: groups, podGroups: len(spec.PodGroups)}, ""
}

// topoNodes are cand in the terms of gang.ChooseDomains, each node's free capacity with what
// freed holds there added (nil: nothing freed).
func topoNodes(cand []fwk.NodeInfo, freed map[string]gang.Resources) []gang.TopoNode {
	nodes := make([]gang.TopoNode, len(cand))
	for i, n := range cand {
		name := n.Node().Name
		nodes[i] = gang.TopoNode{Name: name, Labels: n.Node().Labels, Free: nodeFree(n).Add(freed[name])}
	}
	return nodes
}

// group is the podgroup of a member the pack was chosen for, -1 for another pod.
func (m *memberPack) group(pod *v1.Pod) int {
	if g, ok := m.groups[pod.Name]; ok {
		return g
	}
	return -1
}

// check is nil when node n lies in the domain of every required level of pod's podgroup, or
// a status that names the level it lies outside of.
func (m *memberPack) check(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
	if why := m.domains.Outside(m.levels, m.group(pod), n.Node().Labels); why != "" {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, why)
	}
	return nil
}

// narrow is the nodes of cand that pod's podgroup may use (its required levels' domains).
func (m *memberPack) narrow(pod *v1.Pod, cand []fwk.NodeInfo) *fwk.PreFilterResult {
	names := sets.New[string]()
	for _, n := range cand {
		if m.check(pod, n) == nil {
			names.Insert(n.Node().Name)
		}
	}
	return &fwk.PreFilterResult{NodeNames: names}
}

// gangNodes is the nodes of cand in the domain of every required level that covers the whole
// gang (the planner's candidates; each member is then kept to its own levels' domains).
func (m *memberPack) gangNodes(cand []fwk.NodeInfo) *fwk.PreFilterResult {
	var whole []int
	for i, l := range m.levels {
		if l.Required && m.domains.Values[i] != "" && l.Parent < 0 && len(l.PodGroups) == m.podGroups {
			whole = append(whole, i)
		}
	}
	if len(whole) == 0 {
		return nil
	}
	names := sets.New[string]()
	for _, n := range cand {
		in := true
		for _, i := range whole {
			if n.Node().Labels[m.levels[i].Key] != m.domains.Values[i] {
				in = false
				break
			}
		}
		if in {
			names.Insert(n.Node().Name)
		}
	}
	return &fwk.PreFilterResult{NodeNames: names}
}

// prefs are the preferred domains of pod's podgroup's preferred levels; a level that kept no
// domain prefers fallback(key), where the gang's members already are ("" for nowhere).
func (m *memberPack) prefs(pod *v1.Pod, fallback func(key string) string) []prefDomain {
	g := m.group(pod)
	var out []prefDomain
	for i, l := range m.levels {
		if l.Required || !l.Covers(g) {
			continue
		}
		v := m.domains.Values[i]
		if v == "" && fallback != nil {
			v = fallback(l.Key)
		}
		out = append(out, prefDomain{key: l.Key, value: v})
	}
	return out
}

// filter is the planner's check of a node for a pod: the pack's, then next's (nil for none).
func (m *memberPack) filter(next func(*v1.Pod, fwk.NodeInfo) *fwk.Status) func(*v1.Pod, fwk.NodeInfo) *fwk.Status {
	return func(pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
		if st := m.check(pod, n); st != nil {
			return st
		}
		if next != nil {
			return next(pod, n)
		}
		return nil
	}
}

// candidates are the nodes of nodes that result allows (all of them for a nil result).
func candidates(nodes []fwk.NodeInfo, result *fwk.PreFilterResult) []fwk.NodeInfo {
	if result == nil || result.AllNodes() {
		return nodes
	}
	out := make([]fwk.NodeInfo, 0, result.NodeNames.Len())
	for _, n := range nodes {
		if result.NodeNames.Has(n.Node().Name) {
			out = append(out, n)
		}
	}
	return out
}
