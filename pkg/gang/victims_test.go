package gang

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// cluster is a toy of the fit check that preemption calls: nodes with free GPUs, the
// candidates on them, and a preemptor of whole-GPU members placed first fit, largest first.
type cluster struct {
	free  map[string]int64
	need  []int64
	calls int
}

func (c *cluster) fits(units []Unit) bool {
	c.calls++
	free := map[string]int64{}
	for n, f := range c.free {
		free[n] = f
	}
	for _, u := range units {
		for _, p := range u.Pods {
			free[p.Node] += p.GPUs
		}
	}
	need := append([]int64(nil), c.need...)
	sort.Slice(need, func(i, j int) bool { return need[i] > need[j] })
	nodes := make([]string, 0, len(free))
	for n := range free {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, g := range need {
		placed := false
		for _, n := range nodes {
			if free[n] >= g {
				free[n] -= g
				placed = true
				break
			}
		}
		if !placed {
			return false
		}
	}
	return true
}

// victimStore holds gangs given as name → (min, members on nodes); every member is bound and
// asks for gpus GPUs. It returns the store and every member as a candidate at priority prio.
func victimStore(t *testing.T, gpus int64, prio map[string]int32, gangs map[string][]string, mins map[string]int32) (*Store, []Candidate) {
	t.Helper()
	s, _ := newTestStore()
	var cands []Candidate
	names := make([]string, 0, len(gangs))
	for g := range gangs {
		names = append(names, g)
	}
	sort.Strings(names)
	for gi, g := range names {
		s.SetSpec(spec(g, fmt.Sprintf("w:%d", mins[g])))
		for i, node := range gangs[g] {
			p := pod(g, "w", i)
			p.Spec.NodeName = node
			s.UpsertPod(p)
			cands = append(cands, Candidate{Pod: p, Node: node, Priority: prio[g], GPUs: gpus, Started: time.Unix(int64(100*gi+i), 0)})
		}
	}
	return s, cands
}

func describe(units []Unit) []string {
	var out []string
	for _, u := range units {
		if u.Whole {
			out = append(out, "gang "+u.Gang.Name)
		} else {
			out = append(out, "pod "+u.Pods[0].Pod.Name)
		}
	}
	return out
}

func TestSelectVictims(t *testing.T) {
	cases := []struct {
		name  string
		gangs map[string][]string
		mins  map[string]int32
		prio  map[string]int32
		// only keeps just these pods as candidates (nil: every member).
		only []string
		need []int64
		want []string // nil: preempt nothing
	}{{
		name:  "2+2 -> 2: one low gang whole, the other untouched",
		gangs: map[string][]string{"a": {"n1", "n2"}, "b": {"n3", "n4"}},
		mins:  map[string]int32{"a": 2, "b": 2},
		need:  []int64{8, 8},
		want:  []string{"gang b"}, // the younger
	}, {
		name:  "fewest gangs: the gang of two nodes, not two gangs of one",
		gangs: map[string][]string{"b": {"n1"}, "c": {"n2"}, "a": {"n3", "n4"}},
		mins:  map[string]int32{"a": 2, "b": 1, "c": 1},
		need:  []int64{8, 8},
		want:  []string{"gang a"},
	}, {
		name:  "no room even with every victim: nothing",
		gangs: map[string][]string{"a": {"n1", "n2"}, "b": {"n3", "n4"}},
		mins:  map[string]int32{"a": 2, "b": 2},
		need:  []int64{8, 8, 8, 8, 8},
		want:  nil,
	}, {
		name:  "a member above its gang's minimum goes before a whole gang",
		gangs: map[string][]string{"x": {"n1", "n2", "n3"}, "y": {"n4"}},
		mins:  map[string]int32{"x": 2, "y": 1},
		need:  []int64{8},
		want:  []string{"pod x-w-2"},
	}, {
		name:  "lowest priority first, though it is a whole gang",
		gangs: map[string][]string{"low": {"n1"}, "mid": {"n2", "n3"}},
		mins:  map[string]int32{"low": 1, "mid": 1},
		prio:  map[string]int32{"low": 1, "mid": 5},
		need:  []int64{8},
		want:  []string{"gang low"},
	}, {
		name:  "a gang with a member that may not be evicted is not evicted whole",
		gangs: map[string][]string{"z": {"n1", "n2"}},
		mins:  map[string]int32{"z": 2},
		only:  []string{"z-w-0"},
		need:  []int64{8},
		want:  nil,
	}, {
		name:  "two gangs when one is not enough, and not a third",
		gangs: map[string][]string{"a": {"n1"}, "b": {"n2"}, "c": {"n3"}},
		mins:  map[string]int32{"a": 1, "b": 1, "c": 1},
		need:  []int64{8, 8},
		want:  []string{"gang c", "gang b"}, // the two youngest
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, cands := victimStore(t, 8, tc.prio, tc.gangs, tc.mins)
			if tc.only != nil {
				keep := map[string]bool{}
				for _, n := range tc.only {
					keep[n] = true
				}
				var kept []Candidate
				for _, c := range cands {
					if keep[c.Pod.Name] {
						kept = append(kept, c)
					}
				}
				cands = kept
			}
			c := &cluster{free: map[string]int64{}, need: tc.need}
			for _, nodes := range tc.gangs {
				for _, n := range nodes {
					c.free[n] = 0
				}
			}
			got, ok := SelectVictims(s.VictimUnits(cands), c.fits)
			if ok != (tc.want != nil) || fmt.Sprint(describe(got)) != fmt.Sprint(tc.want) {
				t.Fatalf("victims %v (ok %v), want %v", describe(got), ok, tc.want)
			}
		})
	}
}

// Surge members are units of their own whatever the podgroup's count.
func TestVictimUnitsSurge(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	var cands []Candidate
	for i := 0; i < 3; i++ {
		var opts []podOpt
		if i == 2 {
			opts = append(opts, surge)
		}
		p := pod("g", "w", i, opts...)
		p.Spec.NodeName = fmt.Sprintf("n%d", i)
		s.UpsertPod(p)
		cands = append(cands, Candidate{Pod: p, Node: p.Spec.NodeName, GPUs: 4})
	}
	got := describe(s.VictimUnits(cands))
	if fmt.Sprint(got) != "[pod g-w-2 gang g]" {
		t.Fatalf("units %v, want the surge member alone and the rest whole", got)
	}
}
