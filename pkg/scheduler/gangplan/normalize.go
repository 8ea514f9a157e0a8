package gangplan

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// normalizer turns a member's raw scores on its feasible nodes into each node's total, as the
// framework's NormalizeScores does (each Score plugin's NormalizeScore over the nodes, checked
// against [MinScore, MaxScore], times the plugin's weight, summed), into buffers the pass
// reuses for every member.
//
// The framework's NormalizeScores allocates, per member, a score list per plugin and a
// weighted score slice per node: a 512-member gang on 1,000 nodes allocated 75 MB per pass
// there (63% of the pass's allocations; BenchmarkPlan), and the collector's share of the pass
// grew with it. The plugins are the planner's framework's own instances, taken as its
// registry builds them (capturingRegistry), in its order and with its weights.
type normalizer struct {
	plugins []weightedScore
}

// weightedScore is a Score plugin of the planner's framework with its weight.
type weightedScore struct {
	name   string
	plugin fwk.ScorePlugin
	weight int64
}

// capturingRegistry wraps every factory of reg to record the plugin it builds in built, by
// name (a plugin built for several extension points is built once).
func capturingRegistry(reg frameworkruntime.Registry, built map[string]fwk.Plugin) frameworkruntime.Registry {
	out := make(frameworkruntime.Registry, len(reg))
	for name, factory := range reg {
		out[name] = func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			p, err := factory(ctx, args, h)
			if err == nil {
				built[name] = p
			}
			return p, err
		}
	}
	return out
}

// newNormalizer is the normalizer of the Score plugins enabled (in order, with weights) among
// built; nil when one of them was not built as a ScorePlugin (the planner then asks the
// framework).
func newNormalizer(enabled []config.Plugin, built map[string]fwk.Plugin) *normalizer {
	n := &normalizer{}
	for _, e := range enabled {
		sp, ok := built[e.Name].(fwk.ScorePlugin)
		if !ok {
			return nil
		}
		w := int64(e.Weight)
		if w == 0 {
			w = 1 // the framework's weight of a plugin given none
		}
		n.plugins = append(n.plugins, weightedScore{name: e.Name, plugin: sp, weight: w})
	}
	return n
}

// scoreBufs are a pass's buffers for its members' scores, reused member after member (a pass
// places its members one at a time).
type scoreBufs struct {
	rows   [][]fwk.PluginScore
	list   fwk.NodeScoreList
	totals []int64
	todo   []int
}

// sized returns s[:n], grown if needed; its contents are not cleared.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// totals returns the total score of each node of feasible from its raw scores (rows[i] for
// feasible[i]), in b.totals: valid until the next call with b.
func (n *normalizer) totals(ctx context.Context, state fwk.CycleState, pod *v1.Pod, feasible []fwk.NodeInfo, rows [][]fwk.PluginScore, b *scoreBufs) ([]int64, error) {
	b.totals = sized(b.totals, len(feasible))
	totals := b.totals
	clear(totals)
	skip := state.GetSkipScorePlugins()
	for j, p := range n.plugins {
		if skip.Has(p.name) {
			continue
		}
		b.list = sized(b.list, len(feasible))
		list := b.list
		for i, row := range rows {
			list[i] = fwk.NodeScore{}
			// Raw scores are in the order of the plugins that ran: usually at j, or before it
			// when some were skipped.
			for k := min(j, len(row)-1); k >= 0; k-- {
				if row[k].Name == p.name {
					list[i] = fwk.NodeScore{Name: feasible[i].Node().Name, Score: row[k].Score}
					break
				}
			}
		}
		if ext := p.plugin.ScoreExtensions(); ext != nil {
			if st := ext.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
				return nil, fmt.Errorf("NormalizeScore of plugin %q: %w", p.name, st.AsError())
			}
		}
		for i := range list {
			s := list[i].Score
			if s > fwk.MaxScore || s < fwk.MinScore {
				return nil, fmt.Errorf("plugin %q normalized the score of node %s to %d, outside [%d, %d]", p.name, feasible[i].Node().Name, s, fwk.MinScore, fwk.MaxScore)
			}
			totals[i] += s * p.weight
		}
	}
	return totals, nil
}
