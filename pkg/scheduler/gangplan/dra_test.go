package gangplan_test

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Members with a ResourceClaim each take the Filter verdicts of the member before them on the
// nodes the pass has not changed, and the chosen node alone is filtered again for its
// allocation: a gang of 8 on 6 nodes of 2 GPUs places exactly as a planner that filters every
// node for every member, at most 2 members a node (the devices each member's Reserve took in
// the pass count for the next), with fewer than half its Filter runs. A claim whose Score
// depends on the devices chosen (a prioritized list) is filtered again on every node that
// fits.
func TestDRAMembersReuseVerdicts(t *testing.T) {
	const members, perNode = 8, 2
	ns := nodes(6, 0)
	snap := internalcache.NewSnapshot(nil, ns)
	infos, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		prioritized bool
	}{{name: "exact request"}, {name: "prioritized list", prioritized: true}} {
		t.Run(tc.name, func(t *testing.T) {
			objects := []runtime.Object{framework.GPUDeviceClass()}
			for _, n := range ns {
				objects = append(objects, framework.GPUSlice(n.Name, perNode, "h100"))
			}
			gang := pods(members, 0)
			for i, p := range gang {
				c := framework.GPUClaim("ns", fmt.Sprintf("c-%d", i), 1, "")
				c.UID = types.UID("uid-" + c.Name) // the fake API sets none; allocations in flight are by UID
				if tc.prioritized {
					exact := c.Spec.Devices.Requests[0].Exactly
					c.Spec.Devices.Requests[0].Exactly = nil
					c.Spec.Devices.Requests[0].FirstAvailable = []resourceapi.DeviceSubRequest{
						{Name: "one", DeviceClassName: exact.DeviceClassName, AllocationMode: exact.AllocationMode, Count: exact.Count}}
				}
				objects = append(objects, c)
				framework.UseClaim(p, c.Name)
			}
			reusing, fresh := buildPlanner(t, true, objects...), buildPlanner(t, true, objects...)
			fresh.SetFilterMemo(false)
			in := gangplugin.PlanInput{Snapshot: snap, Pods: gang, Nodes: infos}
			got, err := reusing.Plan(context.Background(), in)
			if err != nil || got.Failed != nil {
				t.Fatalf("no plan: %v %+v", err, got)
			}
			want, err := fresh.Plan(context.Background(), in)
			if err != nil || want.Failed != nil {
				t.Fatalf("no plan without the memo: %v %+v", err, want)
			}
			if fmt.Sprint(got.Nodes) != fmt.Sprint(want.Nodes) {
				t.Errorf("placements differ:\nreusing verdicts %v\nfiltering all    %v", got.Nodes, want.Nodes)
			}
			onNode := map[string]int{}
			for _, n := range got.Nodes {
				onNode[n]++
			}
			for n, c := range onNode {
				if c > perNode {
					t.Errorf("%d members on %s, which has %d GPUs", c, n, perNode)
				}
			}
			runs, all := reusing.FilterRuns(), fresh.FilterRuns()
			// The first member filters the 6 nodes; each next one the node the member before
			// it took, and its own chosen node again.
			if !tc.prioritized && runs > int64(len(ns)+2*(members-1)) {
				t.Errorf("%d Filter runs (%d without the memo): want at most %d", runs, all, len(ns)+2*(members-1))
			}
			// A prioritized list: every node that fits is filtered again for every member;
			// only full nodes' verdicts are taken.
			if tc.prioritized && runs <= int64(len(ns)+2*(members-1)) {
				t.Errorf("%d Filter runs with a prioritized list: the verdicts of nodes that fit were taken, so Score lacked their allocations", runs)
			}
			t.Logf("Filter runs: %d reusing verdicts, %d filtering all", runs, all)
		})
	}
}
