package gangplugin

import (
	"context"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// cycleState carries what PreFilter learnt about the pod's gang to Score.
type cycleState struct {
	// gangRejected: PreFilter rejected the pod because its whole gang does not fit.
	gangRejected bool
	// extraHeld: PreFilter turned the pod away for another gang's minimum (holdExtra): not a
	// failure of its gang, nothing to release or preempt for.
	extraHeld bool
	gpus      int64
	// nodes are the cycle's nodes, counted (schedulableNodes) only when the attempt fails: a
	// walk over every node on each member's PreFilter for a figure only failures read.
	nodes []fwk.NodeInfo
	// prefs are the preferred packing domains of the member's levels: a node in more of them
	// scores higher (gangScore).
	prefs []prefDomain
	// pack is the gang's multi-level packing for this attempt (nil when it has no levels).
	pack *memberPack
	// placed are the other members this cycle's pass placed, in the pass's order: its Permit
	// hands them to the Runtime's Binder, which assumes and binds them from this cycle.
	placed []Placement
}

// prefDomain is a preferred packing domain: a value of a node label; "" for none.
type prefDomain struct{ key, value string }

func (c *cycleState) Clone() fwk.StateData { return c }

// chooseDomain returns the value of the required packing label that every member of the gang
// must share, and the nodes with that value. The domain is kept once chosen: it is where the
// gang's members already are, or, for a gang with none placed, the domain with the least room
// left after the gang's unplaced members are packed into it (best fit keeps big domains free
// for big gangs). An empty domain comes with a message that says what is missing.
func (p *Adapter) chooseDomain(k gang.Key, key string, pod *v1.Pod, nodes []fwk.NodeInfo) (string, sets.Set[string], string) {
	byDomain := map[string][]fwk.NodeInfo{}
	byName := make(map[string]string, len(nodes))
	for _, n := range nodes {
		if v, ok := n.Node().Labels[key]; ok {
			byDomain[v] = append(byDomain[v], n)
			byName[n.Node().Name] = v
		}
	}
	domain := p.store.Domain(k)
	if _, ok := byDomain[domain]; !ok {
		domain = ""
	}
	if domain == "" {
		for _, node := range p.store.PlacedNodes(k) {
			if v, ok := byName[node]; ok {
				domain = v
				break
			}
		}
	}
	if domain == "" {
		requests := p.store.PendingRequests(k)
		if len(requests) == 0 {
			requests = []gang.Resources{gang.RequestsOf(pod)}
		}
		var need gang.Resources
		for _, r := range requests {
			need = need.Add(r)
		}
		names := make([]string, 0, len(byDomain))
		for v := range byDomain {
			names = append(names, v)
		}
		sort.Strings(names)
		bestLeft, largest, largestName := int64(-1), int64(-1), ""
		for _, v := range names {
			free := gang.Resources{}
			for _, n := range byDomain[v] {
				free = free.Add(nodeFree(n))
			}
			if free.GPU > largest {
				largest, largestName = free.GPU, v
			}
			if !packs(byDomain[v], requests) {
				continue
			}
			if left := free.GPU - need.GPU; bestLeft < 0 || left < bestLeft {
				bestLeft, domain = left, v
			}
		}
		if domain == "" {
			if len(byDomain) == 0 {
				return "", nil, fmt.Sprintf("%s must be packed by node label %q, which no node carries", k, key)
			}
			return "", nil, fmt.Sprintf("%s needs %d %s for %d pods in one %s; no %s has room (largest free: %s with %d)",
				k, need.GPU, gang.ResourceGPU, len(requests), key, key, largestName, max(largest, 0))
		}
		p.setDomain(k, domain)
	}
	names := sets.New[string]()
	for _, n := range byDomain[domain] {
		names.Insert(n.Node().Name)
	}
	return domain, names, ""
}

// packs reports whether the requests (largest first) fit the nodes first fit (gang.FirstFit).
func packs(nodes []fwk.NodeInfo, requests []gang.Resources) bool {
	free := make([]gang.Resources, len(nodes))
	for i, n := range nodes {
		free[i] = nodeFree(n)
	}
	return gang.FirstFit(free, requests) == len(requests)
}

// preferredDomain is the value of the preferred packing label where most placed members are.
func (p *Adapter) preferredDomain(k gang.Key, key string, nodes []fwk.NodeInfo) string {
	placed := p.store.PlacedNodes(k)
	if len(placed) == 0 {
		return ""
	}
	onNode := sets.New(placed...)
	var on []fwk.NodeInfo
	for _, n := range nodes {
		if onNode.Has(n.Node().Name) {
			on = append(on, n)
		}
	}
	return mostCommon(on, key)
}

// mostCommon is the value of label key that most of nodes share (the smallest of equals); ""
// for none.
func mostCommon(nodes []fwk.NodeInfo, key string) string {
	counts := map[string]int{}
	best, bestN := "", 0
	for _, n := range nodes {
		v, ok := n.Node().Labels[key]
		if !ok {
			continue
		}
		counts[v]++
		if c := counts[v]; c > bestN || (c == bestN && v < best) {
			best, bestN = v, c
		}
	}
	return best
}

// PreScore skips Score for pods it has nothing to say about: pods of no gang of this kind
// (PreFilter left no state) and members that ask for no GPU and have no preferred domain.
func (p *Adapter) PreScore(_ context.Context, state fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	raw, err := state.Read(p.stateKey())
	if err != nil {
		return fwk.NewStatus(fwk.Skip)
	}
	if cs := raw.(*cycleState); cs.gpus == 0 && len(cs.prefs) == 0 {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// Score prefers nodes that are already partly used by GPU pods (bin-packing, so that whole
// nodes stay free for multi-GPU members) and nodes in the preferred packing domains of the
// member's levels (pack.go).
func (p *Adapter) Score(_ context.Context, state fwk.CycleState, _ *v1.Pod, n fwk.NodeInfo) (int64, *fwk.Status) {
	raw, err := state.Read(p.stateKey())
	if err != nil {
		return 0, nil
	}
	return gangScore(raw.(*cycleState), n), nil
}

// gangScore is Score for a member described by cs (the planner scores with it too).
func gangScore(cs *cycleState, n fwk.NodeInfo) int64 {
	var score int64
	if cs.gpus > 0 {
		if alloc := n.GetAllocatable().GetScalarResources()[gang.ResourceGPU]; alloc > 0 {
			used := n.GetRequested().GetScalarResources()[gang.ResourceGPU] + cs.gpus
			score = min(used*fwk.MaxNodeScore/alloc, fwk.MaxNodeScore)
		}
	}
	if len(cs.prefs) == 0 {
		return score
	}
	var in, of int64
	for _, d := range cs.prefs {
		if d.value == "" {
			continue
		}
		of++
		if n.Node().Labels[d.key] == d.value {
			in++
		}
	}
	var pref int64
	if of > 0 {
		pref = fwk.MaxNodeScore * in / of
	}
	return (score + pref) / 2
}

// ScoreExtensions: scores are already in [0, MaxNodeScore].
func (p *Adapter) ScoreExtensions() fwk.ScoreExtensions { return nil }
