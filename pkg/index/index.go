// Package index assigns member indices (pod indices in a clique, replica indices of a scaling
// group or a PodCliqueSet): holes are filled lowest first, indices at or above the desired
// count are surplus (surge members during an update, or what a scale-in removes), and two
// members that claim one index are reported, never silently repaired.
package index

import (
	"fmt"
	"sort"
	"strconv"
)

// Member is something that holds an index.
type Member struct {
	Name string
	// Index is the claimed index; -1 when the member has none (or an unreadable one).
	Index int
}

// Plan is what the tracker says about a set of members against a desired count.
type Plan struct {
	// Missing are the indices below the desired count that no member holds, lowest first.
	Missing []int
	// Surplus are the members at or above the desired count, highest index first.
	Surplus []Member
	// Duplicates are the members that claim an index another member (the first by name)
	// also claims; they are reported, not removed.
	Duplicates []Member
	// Invalid are members without a readable index.
	Invalid []Member
}

// Track compares members with a desired count.
func Track(members []Member, desired int) Plan {
	sorted := append([]Member(nil), members...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Index != sorted[j].Index {
			return sorted[i].Index < sorted[j].Index
		}
		return sorted[i].Name < sorted[j].Name
	})
	var p Plan
	held := map[int]bool{}
	for _, m := range sorted {
		switch {
		case m.Index < 0:
			p.Invalid = append(p.Invalid, m)
		case held[m.Index]:
			p.Duplicates = append(p.Duplicates, m)
		default:
			held[m.Index] = true
			if m.Index >= desired {
				p.Surplus = append(p.Surplus, m)
			}
		}
	}
	for i := 0; i < desired; i++ {
		if !held[i] {
			p.Missing = append(p.Missing, i)
		}
	}
	sort.SliceStable(p.Surplus, func(i, j int) bool { return p.Surplus[i].Index > p.Surplus[j].Index })
	return p
}

// Parse reads an index label value; -1 when it is not a non-negative integer.
func Parse(v string) int {
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

// Error describes duplicates and invalid members, or returns nil.
func (p Plan) Error() error {
	if len(p.Duplicates) == 0 && len(p.Invalid) == 0 {
		return nil
	}
	return fmt.Errorf("index conflicts: duplicates %v, without index %v", names(p.Duplicates), names(p.Invalid))
}

func names(ms []Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s(%d)", m.Name, m.Index)
	}
	return out
}
