package gang

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// topoNodes are whole 8-GPU nodes: "rack/nvl:count" makes count nodes in NVLink domain nvl of
// rack.
func topoNodes(t *testing.T, spec ...string) []TopoNode {
	t.Helper()
	var out []TopoNode
	for _, s := range spec {
		var rack, nvl string
		var n int
		if _, err := fmt.Sscanf(strings.NewReplacer("/", " ", ":", " ").Replace(s), "%s %s %d", &rack, &nvl, &n); err != nil {
			t.Fatalf("node spec %q: %v", s, err)
		}
		for i := 0; i < n; i++ {
			out = append(out, TopoNode{Name: fmt.Sprintf("%s-%s-%d", rack, nvl, i),
				Labels: map[string]string{"rack": rack, "nvl": nvl}, Free: Resources{GPU: 8, MilliCPU: 64000}})
		}
	}
	return out
}

// prefillSpec is a gang of two prefill scaling-group replicas, each a leader and 3 workers
// (podgroups p0-leader, p0-worker, p1-leader, p1-worker), each replica required in one NVLink
// domain; the gang prefers one rack.
func prefillSpec(workers int) (Spec, []TopoMember) {
	s := Spec{Pack: Pack{Preferred: "rack"}}
	var members []TopoMember
	for r := 0; r < 2; r++ {
		lead, work := len(s.PodGroups), len(s.PodGroups)+1
		s.PodGroups = append(s.PodGroups, PodGroup{Name: fmt.Sprintf("p%d-leader", r), MinReplicas: 1},
			PodGroup{Name: fmt.Sprintf("p%d-worker", r), MinReplicas: int32(workers)})
		s.GroupPacks = append(s.GroupPacks, GroupPack{Name: fmt.Sprintf("p%d", r), PodGroups: []int{lead, work}, Pack: Pack{Required: "nvl"}})
		members = append(members, TopoMember{Name: fmt.Sprintf("p%d-leader-0", r), Group: lead, Requests: Resources{GPU: 8}})
		for i := 0; i < workers; i++ {
			members = append(members, TopoMember{Name: fmt.Sprintf("p%d-worker-%d", r, i), Group: work, Requests: Resources{GPU: 8}})
		}
	}
	return s, members
}

func TestLevels(t *testing.T) {
	s, _ := prefillSpec(3)
	s.PodGroups[1].Pack = Pack{Required: "host-block", Preferred: "host"}
	levels := s.Levels()
	type lv struct {
		What     string
		Key      string
		Required bool
		Parent   int
	}
	var got []lv
	for _, l := range levels {
		got = append(got, lv{l.What, l.Key, l.Required, l.Parent})
	}
	want := []lv{
		{"the gang", "rack", false, -1},
		{"group p0", "nvl", true, 0},
		{"group p1", "nvl", true, 0},
		{"podgroup p0-worker", "host-block", true, 1},
		{"podgroup p0-worker", "host", false, 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("levels:\n got %+v\nwant %+v", got, want)
	}
}

func TestChooseDomains(t *testing.T) {
	cases := []struct {
		name    string
		nodes   []string
		workers int
		placed  map[string]string // member -> node
		want    []string          // rack (preferred, gang), nvl of p0, nvl of p1
		msg     string            // the failure names this
		fell    string            // a fallback names this
	}{{
		name:  "each replica in its own NVLink domain, both in one rack, best fit",
		nodes: []string{"r1/a:2", "r1/b:4", "r1/c:4", "r2/d:8"},
		// r2 has 64 GPUs for the 64 needed (r1 80): the best fit; its one NVLink domain of 8
		// nodes takes both replicas.
		workers: 3,
		want:    []string{"r2", "d", "d"},
	}, {
		name:    "the smallest domain that fits, a roomy one kept whole",
		nodes:   []string{"r1/a:4", "r1/b:8", "r1/c:4"},
		workers: 3,
		want:    []string{"r1", "a", "c"},
	}, {
		name:    "no NVLink domain takes a replica: the message names the level and the roomiest domain",
		nodes:   []string{"r1/a:3", "r1/b:3", "r2/c:2"},
		workers: 3,
		msg:     "group p0 needs 4 members (32 nvidia.com/gpu) in one nvl; none has room: the roomiest, a, takes 3 of them (24 nvidia.com/gpu free)",
	}, {
		name:    "the preferred rack cannot hold both replicas: given up, each replica still in one NVLink domain",
		nodes:   []string{"r1/a:4", "r1/b:2", "r2/c:4"},
		workers: 3,
		want:    []string{"", "a", "c"},
		fell:    "the gang",
	}, {
		name:    "placed members keep their domain",
		nodes:   []string{"r1/a:4", "r1/b:4", "r2/c:4", "r2/d:4"},
		workers: 3,
		placed:  map[string]string{"p1-leader-0": "r2-d-0"},
		want:    []string{"r2", "c", "d"},
	}, {
		name:    "placed members' preferred domain has no room for the rest: given up",
		nodes:   []string{"r1/a:4", "r1/b:4", "r2/c:4"},
		workers: 3,
		placed:  map[string]string{"p1-leader-0": "r2-c-0"},
		want:    []string{"", "a", "c"},
		fell:    "has members placed in rack r2, which has no room for its other 7",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, members := prefillSpec(tc.workers)
			nodes := topoNodes(t, tc.nodes...)
			for i := range members {
				if n := tc.placed[members[i].Name]; n != "" {
					members[i].Node = n
					for j := range nodes {
						if nodes[j].Name == n {
							nodes[j].Free = nodes[j].Free.Sub(members[i].Requests)
						}
					}
				}
			}
			levels := s.Levels()
			d, msg := ChooseDomains(levels, nodes, members)
			if tc.msg != "" {
				if msg != tc.msg {
					t.Fatalf("message:\n got %q\nwant %q", msg, tc.msg)
				}
				return
			}
			if msg != "" {
				t.Fatalf("unexpected failure: %s", msg)
			}
			if !reflect.DeepEqual(d.Values, tc.want) {
				t.Errorf("domains %q, want %q (fell back: %q)", d.Values, tc.want, d.FellBack)
			}
			if fell := strings.Join(d.FellBack, "; "); (tc.fell == "") != (fell == "") || !strings.Contains(fell, tc.fell) {
				t.Errorf("fell back %q, want a message naming %q", fell, tc.fell)
			}
			// Every member is admitted only in its replica's NVLink domain.
			for _, m := range members {
				for _, n := range nodes {
					ok, _ := d.Admits(levels, m.Group, n.Labels)
					want := n.Labels["nvl"] == d.Values[1+m.Group/2]
					if ok != want {
						t.Errorf("member %s on node %s admitted %v, want %v", m.Name, n.Name, ok, want)
					}
				}
			}
		})
	}
}

// A preferred level tries its domains in best-fit order for a required level inside it, and
// is given up when none leaves that level room: the required level is chosen among the
// nodes around.
func TestChooseDomainsPreferredYieldsToRequired(t *testing.T) {
	members := func(group, n int) []TopoMember {
		var out []TopoMember
		for i := 0; i < n; i++ {
			out = append(out, TopoMember{Name: fmt.Sprintf("g%d-%d", group, i), Group: group, Requests: Resources{GPU: 8}})
		}
		return out
	}
	t.Run("the next rack", func(t *testing.T) {
		s := Spec{PodGroups: []PodGroup{{Name: "w", MinReplicas: 4, Pack: Pack{Required: "nvl"}}}, Pack: Pack{Preferred: "rack"}}
		// Rack r1 has 32 free GPUs, the best fit for the gang, but in two NVLink domains of 2.
		d, msg := ChooseDomains(s.Levels(), topoNodes(t, "r1/a:2", "r1/b:2", "r2/c:6"), members(0, 4))
		if msg != "" {
			t.Fatal(msg)
		}
		if want := []string{"r2", "c"}; !reflect.DeepEqual(d.Values, want) || len(d.FellBack) != 0 {
			t.Errorf("domains %q (fell back %q), want %q kept", d.Values, d.FellBack, want)
		}
	})
	t.Run("no rack", func(t *testing.T) {
		s := Spec{PodGroups: []PodGroup{{Name: "w", MinReplicas: 4, Pack: Pack{Required: "nvl"}}, {Name: "x", MinReplicas: 2}}, Pack: Pack{Preferred: "rack"}}
		// r1 takes w in one NVLink domain but not the whole gang; r2 takes the gang but not w.
		d, msg := ChooseDomains(s.Levels(), topoNodes(t, "r1/a:4", "r2/c:3", "r2/d:3"), append(members(0, 4), members(1, 2)...))
		if msg != "" {
			t.Fatal(msg)
		}
		if want := []string{"", "a"}; !reflect.DeepEqual(d.Values, want) {
			t.Errorf("domains %q, want %q", d.Values, want)
		}
		if len(d.FellBack) != 1 || !strings.Contains(d.FellBack[0], "the gang is spread") {
			t.Errorf("fell back %q, want the gang's preference given up", d.FellBack)
		}
	})
}

// A required gang domain is chosen with the levels inside it: the best fit for the gang's
// members (block b0, equal to b1 and first by name) has no rack for the second replica, so
// the gang goes to b1, where each replica has a rack of its own.
func TestChooseDomainsRequiredGangDomainForItsLevels(t *testing.T) {
	s := Spec{Pack: Pack{Required: "block"}}
	var members []TopoMember
	for r := 0; r < 2; r++ {
		s.PodGroups = append(s.PodGroups, PodGroup{Name: fmt.Sprintf("p%d", r), MinReplicas: 2})
		s.GroupPacks = append(s.GroupPacks, GroupPack{Name: fmt.Sprintf("p%d", r), PodGroups: []int{r}, Pack: Pack{Required: "rack"}})
		for i := 0; i < 2; i++ {
			members = append(members, TopoMember{Name: fmt.Sprintf("p%d-%d", r, i), Group: r, Requests: Resources{GPU: 8}})
		}
	}
	var nodes []TopoNode
	for _, n := range topoNodes(t, "b0/r0:3", "b0/r1:1", "b1/r2:2", "b1/r3:2") {
		n.Labels = map[string]string{"block": n.Labels["rack"], "rack": n.Labels["nvl"]}
		nodes = append(nodes, n)
	}
	levels := s.Levels()
	if len(levels) != 3 || levels[0].Key != "block" || levels[1].Parent != 0 {
		t.Fatalf("levels %+v: want the gang's block first, the racks inside it", levels)
	}
	d, msg := ChooseDomains(levels, nodes, members)
	if msg != "" {
		t.Fatal(msg)
	}
	if want := []string{"b1", "r2", "r3"}; !reflect.DeepEqual(d.Values, want) {
		t.Errorf("domains %q, want %q", d.Values, want)
	}
	// One rack of 3 and one of 1 in the only block: the message names the replica that has
	// no rack, inside the block.
	d, msg = ChooseDomains(levels, nodes[:4], members)
	if want := "group p1 needs 2 members (16 nvidia.com/gpu) in one rack within block b0; none has room: the roomiest, r0, takes 1 of them (8 nvidia.com/gpu free)"; msg != want {
		t.Errorf("message:\n got %q\nwant %q", msg, want)
	}
}
