package gangplan

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// scoreMemo keeps, within one pass, each node's raw Score (before NormalizeScore and the
// weights) for the members alike (scoreKey), so that the next such member scores again only
// the nodes it has not been scored on and those the pass changed since (a member placed
// there). The scores are normalized afresh over each member's own feasible nodes
// (NormalizeScores), so a member is given the node the full Score would give it: this is the
// scheduler's own rule for pods of one signature (its opportunistic batching rescores the
// node it chose and normalizes the cached raw scores again, KEP-5598).
//
// Without it each member of a gang of 512 on 1,000 nodes scored ~420 nodes
// (percentageOfNodesToScore), the largest share of the pass's CPU once Filter verdicts were
// kept (a CPU profile of `make perf`'s 512-member gang: Score 26 %, and the per-node counter
// of the instrumented plugins 11 %); with it the pass scores each node about once.
//
// A raw score is kept only from plugins whose Score reads the pod and the node alone
// (localScores), with what their PreScore computed over the snapshot (the same for every
// member of the pass). A member for which another score plugin runs keeps nothing, and
// neither does one whose score depends on where the pass put the members before it:
// preferred pod affinity, soft topology spreading, devices, volumes to be bound (their
// plugins score the members that have none alike on every node, or are skipped for them).
// Beyond the pass, raw scores are kept by node generation (keptScore).
type scoreMemo = alikeMemo[[]fwk.PluginScore]

// localScores are the Score plugins whose raw score of a node reads only the pod, the node,
// and what their PreScore computed from the pod over the snapshot: ImageLocality counts the
// nodes with an image in the snapshot, InterPodAffinity (for a pod with no pod affinity of its
// own) the preferred terms of pods already running that select the pod's labels.
// VolumeBinding scores (with storage capacity scoring on) the volumes of a pod's claims to be
// bound on the node; a member with a Filter key has no such claims (siblingKey), so it scores
// 0 on every node. DynamicResources scores the devices of a pod's claims: 0 on every node for
// a pod without claims (the planner asks only for members that take no devices at all).
var localScores = map[string]bool{
	names.NodeResourcesFit: true, names.NodeResourcesBalancedAllocation: true, names.ImageLocality: true,
	names.TaintToleration: true, names.NodeAffinity: true, names.InterPodAffinity: true, names.VolumeBinding: true,
	names.DynamicResources: true,
}

// scoreKey is what decides pod's raw scores beside the node, once PreScore ran: its Filter key
// (siblingKey: requests, affinity, tolerations), its images, the score plugins PreScore
// skipped, and its labels while InterPodAffinity scores it. "" when a raw score may depend on
// other nodes or on the pass: a Score plugin not in localScores runs for it, it has pod
// affinity or anti-affinity of its own, or it has no Filter key.
func scoreKey(pod *v1.Pod, filterKey string, scorePlugins []string, skip func(string) bool) string {
	if filterKey == "" {
		return ""
	}
	if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		return ""
	}
	var b strings.Builder
	b.WriteString(filterKey)
	var ran []string
	for _, p := range scorePlugins {
		if skip(p) {
			continue
		}
		if !localScores[p] || (p == names.DynamicResources && len(pod.Spec.ResourceClaims) > 0) {
			return ""
		}
		ran = append(ran, p)
	}
	sort.Strings(ran)
	b.WriteString("\x00scores:" + strings.Join(ran, ","))
	if slices.Contains(ran, names.ImageLocality) {
		for _, c := range pod.Spec.InitContainers {
			b.WriteString("\x00init:" + c.Image)
		}
		for _, c := range pod.Spec.Containers {
			b.WriteString("\x00image:" + c.Image)
		}
	}
	if slices.Contains(ran, names.InterPodAffinity) {
		keys := make([]string, 0, len(pod.Labels))
		for k := range pod.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString("\x00label:" + k + "=" + pod.Labels[k])
		}
	}
	return b.String()
}

// scoreKeyAcrossPasses is the key under which the raw scores of members of key (scoreKey)
// outlive their pass (keptScore), "" when they may not: while InterPodAffinity scores them
// (its PreScore reads the preferred terms of the pods on every node, which the nodes'
// generations do not cover). While ImageLocality scores them the key holds nodes, the
// snapshot's node count, by which it scales an image's spread; the spread itself is read from
// the node's own entry in the snapshot, renewed with its generation.
func scoreKeyAcrossPasses(key string, scorePlugins []string, skip func(string) bool, nodes int) string {
	if key == "" {
		return ""
	}
	images := false
	for _, p := range scorePlugins {
		if skip(p) {
			continue
		}
		switch p {
		case names.InterPodAffinity:
			return ""
		case names.ImageLocality:
			images = true
		}
	}
	if images {
		return fmt.Sprintf("%s\x00nodes:%d", key, nodes)
	}
	return key
}

// scoreKept scores pod on feasible as RunScorePlugins does and returns each node's total (in
// bufs: valid until its next use), taking the raw scores kept in raw (this pass's) and kept
// (earlier passes', by node generation; nil: none) and keeping in both those it computes (in
// kept only for nodes not copied by the pass, whose entries would replace the node's own);
// PreScore ran.
func (pl *Planner) scoreKept(ctx context.Context, state fwk.CycleState, pod *v1.Pod, feasible []fwk.NodeInfo, raw map[string][]fwk.PluginScore, kept map[string]keptScore, copied func(string) bool, bufs *scoreBufs) ([]int64, error) {
	bufs.rows = sized(bufs.rows, len(feasible))
	rows := bufs.rows
	todo := bufs.todo[:0]
	for i, n := range feasible {
		name := n.Node().Name
		r, ok := raw[name]
		if !ok && kept != nil {
			// (a copy the pass made of a node never matches: adding or removing a pod gives it a
			// generation of its own; not copied into raw: the members after it read kept too)
			if k, found := kept[name]; found && k.generation == n.GetGeneration() {
				r, ok = k.raw, true
			}
		}
		rows[i] = r
		if !ok {
			todo = append(todo, i)
		}
	}
	bufs.todo = todo
	errs := make([]*fwk.Status, len(todo))
	run := func(j int) {
		i := todo[j]
		rows[i], errs[j] = pl.fw.RunRawScorePlugins(ctx, state, pod, feasible[i])
	}
	if len(todo) == 1 {
		run(0)
	} else if len(todo) > 1 {
		pl.fw.Parallelizer().Until(ctx, len(todo), run, "GangPlanScore")
	}
	for j, st := range errs {
		if !st.IsSuccess() {
			return nil, fmt.Errorf("Score of %s on %s: %w", pod.Name, feasible[todo[j]].Node().Name, st.AsError())
		}
	}
	for _, i := range todo {
		name := feasible[i].Node().Name
		raw[name] = rows[i]
		if kept != nil && !copied(name) {
			kept[name] = keptScore{generation: feasible[i].GetGeneration(), raw: rows[i]}
		}
	}
	pl.scoredNodes.Add(int64(len(todo)))
	if pl.norm != nil {
		totals, err := pl.norm.totals(ctx, state, pod, feasible, rows, bufs)
		if err != nil {
			return nil, fmt.Errorf("NormalizeScore of %s: %w", pod.Name, err)
		}
		return totals, nil
	}
	scores := make([]fwk.NodePluginScores, len(feasible))
	for i, n := range feasible {
		scores[i] = fwk.NodePluginScores{Name: n.Node().Name, RawScores: rows[i]}
	}
	if st := pl.fw.NormalizeScores(ctx, state, pod, scores); !st.IsSuccess() {
		return nil, fmt.Errorf("NormalizeScore of %s: %w", pod.Name, st.AsError())
	}
	return totalsOf(scores), nil
}

// totalsOf is each node's TotalScore of scores.
func totalsOf(scores []fwk.NodePluginScores) []int64 {
	totals := make([]int64, len(scores))
	for i := range scores {
		totals[i] = scores[i].TotalScore
	}
	return totals
}
