package gang

import (
	"fmt"
	"sort"
)

// Multi-level packing. A gang may pack at several levels at once (Grove writes them into a
// PodGang): the whole gang in one zone (its required key, which the gang plugin narrows the
// nodes to first), one scaling-group replica in one block (a group config), each podgroup in
// one NVLink domain. Each level is required (its members share one value of the key, or none
// is placed) or preferred (they do where a domain has room; a score, never a failure). Levels
// nest by the podgroups they cover: a level's domain is chosen among the nodes of the
// innermost level that contains it, so a podgroup's NVLink domain lies inside its group's
// block inside the gang's zone. See docs/architecture.md, "Topology".

// Level is one packing constraint of a gang.
type Level struct {
	// What names what the level packs, for messages: "the gang", "group prefill-0",
	// "podgroup prefill-0-worker".
	What string
	// Key is the node label whose value the level's members share.
	Key      string
	Required bool
	// PodGroups are the indices (into Spec.PodGroups) of the podgroups the level covers.
	PodGroups []int
	// Parent is the index of the innermost level that contains this one (covers every
	// podgroup it covers and comes before it), -1 for none.
	Parent int
}

// Levels are the gang's packing levels, outermost first: the gang's required and preferred
// keys, then each group config's (largest first) and each podgroup's, a required key before a
// preferred one over the same podgroups. Nil when the gang has none but a required gang-level
// key (which the gang plugin handles alone) or none at all.
func (s *Spec) Levels() []Level {
	if !s.packsInside() {
		return nil // most gangs: nothing to build on every PreFilter
	}
	var out []Level
	all := make([]int, len(s.PodGroups))
	for i := range all {
		all[i] = i
	}
	add := func(what string, pack Pack, groups []int) {
		if pack.Required != "" {
			out = append(out, Level{What: what, Key: pack.Required, Required: true, PodGroups: groups})
		}
		if pack.Preferred != "" {
			out = append(out, Level{What: what, Key: pack.Preferred, PodGroups: groups})
		}
	}
	add("the gang", Pack{Preferred: s.Pack.Preferred}, all)
	groups := append([]GroupPack(nil), s.GroupPacks...)
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].PodGroups) > len(groups[j].PodGroups) })
	for _, g := range groups {
		pgs := append([]int(nil), g.PodGroups...)
		sort.Ints(pgs)
		add("group "+g.Name, g.Pack, pgs)
	}
	for i, pg := range s.PodGroups {
		add("podgroup "+pg.Name, pg.Pack, []int{i})
	}
	if len(out) > 0 && s.Pack.Required != "" {
		// With levels inside it, the gang's own domain is chosen with them: the best fit for
		// the gang is no use if a level inside it has no room there.
		out = append([]Level{{What: "the gang", Key: s.Pack.Required, Required: true, PodGroups: all}}, out...)
	}
	for i := range out {
		out[i].Parent = -1
		for j := i - 1; j >= 0; j-- {
			// The latest containing level is the innermost: containers come before what they
			// contain, and a required key before the preferred one over the same podgroups.
			if containsAll(out[j].PodGroups, out[i].PodGroups) {
				out[i].Parent = j
				break
			}
		}
	}
	return out
}

// packsInside reports whether the gang has a packing level other than a required gang-level
// key alone.
func (s *Spec) packsInside() bool {
	if s.Pack.Preferred != "" || len(s.GroupPacks) > 0 {
		return true
	}
	for i := range s.PodGroups {
		if s.PodGroups[i].Pack != (Pack{}) {
			return true
		}
	}
	return false
}

// containsAll reports whether sorted set a holds every element of sorted set b.
func containsAll(a, b []int) bool {
	i := 0
	for _, x := range b {
		for i < len(a) && a[i] < x {
			i++
		}
		if i == len(a) || a[i] != x {
			return false
		}
	}
	return true
}

// TopoNode is a candidate node as ChooseDomains sees it.
type TopoNode struct {
	Name   string
	Labels map[string]string
	// Free is what the node has left (the pods assumed or bound on it counted).
	Free Resources
}

// TopoMember is a member of the gang as ChooseDomains sees it: placed on Node, or to be placed
// (Node empty).
type TopoMember struct {
	Name     string
	Group    int
	Requests Resources
	Node     string
}

// Domains is what ChooseDomains chose for each level.
type Domains struct {
	// Values[i] is the domain (a value of Key) of level i; "" for a preferred level that no
	// domain has room for (its members are then kept together where they can be).
	Values []string
	// FellBack says, for each preferred level without a domain, why.
	FellBack []string
}

// Admits reports whether a node with labels may take a member of podgroup g: it lies in the
// domain of every required level that covers g. When it does not, level is the first such
// level it lies outside of.
func (d Domains) Admits(levels []Level, g int, labels map[string]string) (ok bool, level int) {
	for i, l := range levels {
		if l.Required && d.Values[i] != "" && l.Covers(g) && labels[l.Key] != d.Values[i] {
			return false, i
		}
	}
	return true, -1
}

// Outside is Admits as the reason a node with labels is refused for podgroup g ("" when it is
// admitted): "outside the <key> chosen for <what>".
func (d Domains) Outside(levels []Level, g int, labels map[string]string) string {
	if ok, i := d.Admits(levels, g, labels); !ok {
		return fmt.Sprintf("outside the %s chosen for %s", levels[i].Key, levels[i].What)
	}
	return ""
}

// Preferred counts the preferred levels that cover podgroup g and have a domain (of), and
// how many of those a node with labels lies in (in).
func (d Domains) Preferred(levels []Level, g int, labels map[string]string) (in, of int) {
	for i, l := range levels {
		if !l.Required && d.Values[i] != "" && l.Covers(g) {
			of++
			if labels[l.Key] == d.Values[i] {
				in++
			}
		}
	}
	return in, of
}

// Covers reports whether the level covers podgroup g.
func (l Level) Covers(g int) bool {
	i := sort.SearchInts(l.PodGroups, g)
	return i < len(l.PodGroups) && l.PodGroups[i] == g
}

// ChooseDomains chooses a domain for every level, outermost first, each among the nodes of
// the level that contains it. A level with placed members keeps their domain. Otherwise the
// domain is the best fit: of the domains whose free capacity packs the level's unplaced
// members (first fit, largest first, after what earlier levels' members were packed into),
// the one with the fewest GPUs left over, so that roomy domains stay whole for big gangs and
// partly used ones fill up. Sibling levels are chosen largest demand first. A preferred level
// that fits nowhere gets no domain; one whose domain leaves a required level inside it no
// room is given up for that level's sake. The message, when not empty, names the required
// level that no domain has room for.
func ChooseDomains(levels []Level, nodes []TopoNode, members []TopoMember) (Domains, string) {
	c := &chooser{levels: levels, members: members, free: make(map[string]Resources, len(nodes)),
		labels: make(map[string]map[string]string, len(nodes)), children: make([][]int, len(levels)+1),
		out: Domains{Values: make([]string, len(levels))}}
	cand := make([]string, 0, len(nodes))
	for _, n := range nodes {
		c.free[n.Name], c.labels[n.Name] = n.Free, n.Labels
		cand = append(cand, n.Name)
	}
	for i, l := range levels {
		c.children[l.Parent+1] = append(c.children[l.Parent+1], i)
	}
	msg := c.visit(-1, cand)
	return c.out, msg
}

type chooser struct {
	levels   []Level
	members  []TopoMember
	free     map[string]Resources
	labels   map[string]map[string]string
	children [][]int // children[i+1] are the levels whose parent is i
	out      Domains
}

// in reports whether member m is covered by level i (-1: the gang, every member).
func (c *chooser) in(i int, m *TopoMember) bool { return i < 0 || c.levels[i].Covers(m.Group) }

// unplaced are the requests of level i's unplaced members, largest first.
func (c *chooser) unplaced(i int) []Resources {
	var out []Resources
	for j := range c.members {
		if m := &c.members[j]; m.Node == "" && c.in(i, m) {
			out = append(out, m.Requests)
		}
	}
	sortLargestFirst(out)
	return out
}

func sortLargestFirst(rs []Resources) {
	sort.SliceStable(rs, func(a, b int) bool {
		if rs[a].GPU != rs[b].GPU {
			return rs[a].GPU > rs[b].GPU
		}
		return rs[a].MilliCPU > rs[b].MilliCPU
	})
}

// visit chooses the domains of the levels inside level i (-1: the gang), among cand, then
// packs level i's own members (those of no level inside it) into cand.
func (c *chooser) visit(i int, cand []string) string {
	kids := append([]int(nil), c.children[i+1]...)
	need := make(map[int]int64, len(kids))
	for _, k := range kids {
		for _, r := range c.unplaced(k) {
			need[k] += r.GPU
		}
	}
	sort.SliceStable(kids, func(a, b int) bool { return need[kids[a]] > need[kids[b]] })
	for _, k := range kids {
		if msg := c.level(k, cand); msg != "" {
			return msg
		}
	}
	c.packOwn(i, cand)
	return ""
}

// maxDomainTries bounds how many domains of one level are tried for the levels inside it.
const maxDomainTries = 16

// level chooses level k's domain among cand and the domains of the levels inside it: the
// domain of its placed members, or else the domains that pack its members in best-fit order,
// the first in which every level inside it finds a domain too.
func (c *chooser) level(k int, cand []string) string {
	l := c.levels[k]
	byValue := map[string][]string{}
	for _, n := range cand {
		if v, ok := c.labels[n][l.Key]; ok {
			byValue[v] = append(byValue[v], n)
		}
	}
	if len(byValue) == 0 {
		msg := fmt.Sprintf("%s must be packed by node label %q, which no node%s carries", l.What, l.Key, c.within(k))
		return c.giveUp(k, cand, msg)
	}
	var order []string
	value, msg := c.placedDomain(k, byValue)
	switch {
	case value != "":
		order = []string{value}
	case msg == "":
		order, msg = c.bestFit(k, byValue)
	}
	if len(order) == 0 {
		return c.giveUp(k, cand, msg)
	}
	first := ""
	for i, v := range order {
		if i == maxDomainTries {
			break
		}
		saved := c.save()
		c.out.Values[k] = v
		inner := c.visit(k, byValue[v])
		if inner == "" {
			return ""
		}
		if first == "" {
			first = inner
		}
		c.restore(saved)
	}
	if n := min(len(order), maxDomainTries); n > 1 {
		first += fmt.Sprintf(" (and no other of the %d %s domains that take %s does better)", n-1, l.Key, l.What)
	}
	if l.Required {
		return first
	}
	return c.giveUp(k, cand, fmt.Sprintf("%s is spread: %s", l.What, first))
}

// giveUp ends level k without a domain: a required level fails with msg; a preferred one
// records msg and its levels inside are chosen among cand.
func (c *chooser) giveUp(k int, cand []string, msg string) string {
	if c.levels[k].Required {
		return msg
	}
	c.out.Values[k] = ""
	c.out.FellBack = append(c.out.FellBack, msg)
	return c.visit(k, cand)
}

// placedDomain is the domain of level k's placed members (the most common value among their
// nodes), when they have one among the candidates; a required level whose placed members'
// domain cannot take the rest fails there.
func (c *chooser) placedDomain(k int, byValue map[string][]string) (string, string) {
	counts := map[string]int{}
	best := ""
	for j := range c.members {
		m := &c.members[j]
		if m.Node == "" || !c.in(k, m) {
			continue
		}
		v, ok := c.labels[m.Node][c.levels[k].Key]
		if !ok {
			continue
		}
		counts[v]++
		if counts[v] > counts[best] || (counts[v] == counts[best] && v < best) {
			best = v
		}
	}
	if best == "" {
		return "", ""
	}
	nodes, ok := byValue[best]
	rest := c.unplaced(k)
	if ok && c.fits(nodes, rest) {
		return best, ""
	}
	l := c.levels[k]
	return "", fmt.Sprintf("%s has members placed in %s %s, which has no room for its other %d", l.What, l.Key, best, len(rest))
}

// bestFit orders the domains whose free capacity packs level k's unplaced members by what
// they leave over (fewest GPUs first, then by name); when none does, the message names the
// roomiest domain and how many of the members it takes.
func (c *chooser) bestFit(k int, byValue map[string][]string) ([]string, string) {
	rest := c.unplaced(k)
	var need Resources
	for _, r := range rest {
		need = need.Add(r)
	}
	type fit struct {
		value string
		left  int64
	}
	var fits []fit
	roomiest, roomiestFree := "", int64(-1)
	for v, nodes := range byValue {
		var free Resources
		for _, n := range nodes {
			free = free.Add(c.free[n])
		}
		if free.GPU > roomiestFree || (free.GPU == roomiestFree && v < roomiest) {
			roomiest, roomiestFree = v, free.GPU
		}
		if c.fits(nodes, rest) {
			fits = append(fits, fit{v, free.GPU - need.GPU})
		}
	}
	if len(fits) > 0 {
		sort.Slice(fits, func(i, j int) bool {
			if fits[i].left != fits[j].left {
				return fits[i].left < fits[j].left
			}
			return fits[i].value < fits[j].value
		})
		out := make([]string, len(fits))
		for i, f := range fits {
			out[i] = f.value
		}
		return out, ""
	}
	l := c.levels[k]
	what := fmt.Sprintf("%d members", len(rest))
	if need.GPU > 0 {
		what = fmt.Sprintf("%d members (%d %s)", len(rest), need.GPU, ResourceGPU)
	}
	return nil, fmt.Sprintf("%s needs %s in one %s%s; none has room: the roomiest, %s, takes %d of them (%d %s free)",
		l.What, what, l.Key, c.within(k), roomiest, c.takes(byValue[roomiest], rest), roomiestFree, ResourceGPU)
}

// within names the domain of the innermost required level around k (" within zone a"), or "".
func (c *chooser) within(k int) string {
	for p := c.levels[k].Parent; p >= 0; p = c.levels[p].Parent {
		if c.levels[p].Required && c.out.Values[p] != "" {
			return fmt.Sprintf(" within %s %s", c.levels[p].Key, c.out.Values[p])
		}
	}
	return ""
}

// fits reports whether the requests pack into the nodes' free capacity, first fit.
func (c *chooser) fits(nodes []string, reqs []Resources) bool {
	return c.takes(nodes, reqs) == len(reqs)
}

// takes is how many of the requests, in order, pack into the nodes first fit.
func (c *chooser) takes(nodes []string, reqs []Resources) int {
	free := make([]Resources, len(nodes))
	for i, n := range nodes {
		free[i] = c.free[n]
	}
	return FirstFit(free, reqs)
}

// FirstFit is how many of reqs, in order, pack into the free capacities first fit: a cheap
// stand-in for the Filter plugins that tells a fragmented domain from a roomy one. free is not
// changed.
func FirstFit(free []Resources, reqs []Resources) int {
	left := append([]Resources(nil), free...)
	for i, r := range reqs {
		placed := false
		for j := range left {
			if left[j].Fits(r) {
				left[j] = left[j].Sub(r)
				placed = true
				break
			}
		}
		if !placed {
			return i
		}
	}
	return len(reqs)
}

// packOwn packs the unplaced members of level i that no level inside it covers into cand
// (first fit, largest first), so that the levels chosen after it see the capacity taken.
func (c *chooser) packOwn(i int, cand []string) {
	var own []Resources
	for j := range c.members {
		m := &c.members[j]
		if m.Node != "" || !c.in(i, m) {
			continue
		}
		inner := false
		for _, k := range c.children[i+1] {
			if c.in(k, m) {
				inner = true
				break
			}
		}
		if !inner {
			own = append(own, m.Requests)
		}
	}
	sortLargestFirst(own)
	for _, r := range own {
		for _, n := range cand {
			if f := c.free[n]; f.Fits(r) {
				c.free[n] = f.Sub(r)
				break
			}
		}
	}
}

type chooserState struct {
	free     map[string]Resources
	values   []string
	fellBack int
}

func (c *chooser) save() chooserState {
	free := make(map[string]Resources, len(c.free))
	for n, r := range c.free {
		free[n] = r
	}
	return chooserState{free: free, values: append([]string(nil), c.out.Values...), fellBack: len(c.out.FellBack)}
}

func (c *chooser) restore(s chooserState) {
	c.free = s.free
	copy(c.out.Values, s.values)
	c.out.FellBack = c.out.FellBack[:s.fellBack]
}
