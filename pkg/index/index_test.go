package index

import (
	"reflect"
	"testing"
)

func TestTrack(t *testing.T) {
	cases := []struct {
		name    string
		members []Member
		desired int
		want    Plan
	}{
		{"empty", nil, 3, Plan{Missing: []int{0, 1, 2}}},
		{"dense", []Member{{"a", 0}, {"b", 1}, {"c", 2}}, 3, Plan{}},
		{"hole filled lowest first", []Member{{"a", 0}, {"c", 2}}, 4, Plan{Missing: []int{1, 3}}},
		{"surge above the count, highest first", []Member{{"a", 0}, {"b", 1}, {"s", 3}, {"t", 4}}, 2, Plan{Surplus: []Member{{"t", 4}, {"s", 3}}}},
		{"scale in", []Member{{"a", 0}, {"b", 1}, {"c", 2}}, 1, Plan{Surplus: []Member{{"c", 2}, {"b", 1}}}},
		{"duplicate reported, not surplus", []Member{{"a", 0}, {"b", 0}}, 2, Plan{Missing: []int{1}, Duplicates: []Member{{"b", 0}}}},
		{"no index", []Member{{"x", -1}}, 1, Plan{Missing: []int{0}, Invalid: []Member{{"x", -1}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Track(tc.members, tc.desired); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Track = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "12": 12, "": -1, "-1": -1, "x": -1} {
		if got := Parse(in); got != want {
			t.Errorf("Parse(%q) = %d, want %d", in, got, want)
		}
	}
}

func BenchmarkTrack(b *testing.B) {
	members := make([]Member, 1000)
	for i := range members {
		members[i] = Member{Name: "m", Index: (i * 7) % 1100}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Track(members, 1000)
	}
}
