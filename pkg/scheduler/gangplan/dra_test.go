package gangplan_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
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

// A member's verdicts outlive its pass with the devices of the node they were given on: the
// next gang alike filters again only the node each member is given (for its allocation), and
// a node whose devices are taken or freed by a claim of someone else, with no change of the
// Node or its pods (its generation), is filtered again. A verdict kept by the generation alone
// would leave a node whose GPUs were freed "full" and the last gang without room.
func TestDRAVerdictsKeptAcrossPasses(t *testing.T) {
	const perNode = 2
	ns := nodes(6, 0)
	snap := internalcache.NewSnapshot(nil, ns)
	infos, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	objects := []runtime.Object{framework.GPUDeviceClass()}
	for _, n := range ns {
		objects = append(objects, framework.GPUSlice(n.Name, perNode, "h100"))
	}
	gangs := map[string][]*v1.Pod{}
	for _, g := range []struct {
		name string
		size int
	}{{"a", 4}, {"b", 4}, {"full", 10}, {"all", 12}} {
		for i := range g.size {
			p := gpuPod(fmt.Sprintf("%s-%d", g.name, i), 0)
			c := framework.GPUClaim("ns", p.Name, 1, "")
			c.UID = types.UID("uid-" + c.Name)
			objects = append(objects, c)
			framework.UseClaim(p, c.Name)
			gangs[g.name] = append(gangs[g.name], p)
		}
	}
	pl, kube, dra := buildPlannerOn(t, true, objects...)
	fresh := buildPlanner(t, true, objects...)
	fresh.SetFilterMemo(false)
	plan := func(gang string) gangplugin.PlanResult {
		t.Helper()
		in := gangplugin.PlanInput{Snapshot: snap, Pods: gangs[gang], Nodes: infos}
		res, err := pl.Plan(context.Background(), in)
		if err != nil {
			t.Fatalf("gang %s: %v", gang, err)
		}
		return res
	}
	allocated := func(want int) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			all, err := dra.ResourceClaims().ListAllAllocatedDevices()
			return err == nil && all.Len() == want, nil
		}); err != nil {
			t.Fatalf("the DRA manager never saw %d allocated devices: %v", want, err)
		}
	}

	if res := plan("a"); res.Failed != nil {
		t.Fatalf("gang a: %s: %s", res.Failed.Name, res.Reason)
	}
	before := pl.FilterRuns()
	res := plan("b")
	if res.Failed != nil {
		t.Fatalf("gang b: %s: %s", res.Failed.Name, res.Reason)
	}
	want, err := fresh.Plan(context.Background(), gangplugin.PlanInput{Snapshot: snap, Pods: gangs["b"], Nodes: infos})
	if err != nil || want.Failed != nil {
		t.Fatalf("gang b without the memo: %v %+v", err, want)
	}
	// Both planners start their search at the same node only on their first pass; compare
	// how the members spread instead: at most 2 a node, all 4 placed.
	onNode := map[string]int{}
	for _, n := range res.Nodes {
		if onNode[n]++; onNode[n] > perNode {
			t.Errorf("gang b: %d members on %s, which has %d GPUs: %v", onNode[n], n, perNode, res.Nodes)
		}
	}
	// Each member: the node it is given, filtered again for its allocation, and (after the
	// first) the node the member before it took.
	if runs := pl.FilterRuns() - before; runs > int64(2*len(gangs["b"])-1) {
		t.Errorf("gang b, alike gang a, ran Filter %d times: want at most %d (the verdicts of gang a's pass were not kept)", runs, 2*len(gangs["b"])-1)
	}

	// Someone else's claim takes both GPUs of n0000: the Node and its pods do not change.
	hog := framework.GPUClaim("other", "hog", perNode, "")
	hog.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: framework.GPUDriver, Pool: "n0000", Device: "gpu-0"},
		{Request: "gpu", Driver: framework.GPUDriver, Pool: "n0000", Device: "gpu-1"}}}}
	if _, err := kube.ResourceV1().ResourceClaims("other").Create(context.Background(), hog, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allocated(perNode)
	res = plan("full")
	if res.Failed != nil {
		t.Fatalf("gang full (10 members, 10 free GPUs): %s: %s", res.Failed.Name, res.Reason)
	}
	for p, n := range res.Nodes {
		if n == "n0000" {
			t.Errorf("gang full: %s placed on n0000, whose GPUs the claim hog holds", p)
		}
	}

	// The claim is gone: n0000's GPUs are free again, still with no change of its generation.
	if err := kube.ResourceV1().ResourceClaims("other").Delete(context.Background(), "hog", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	allocated(0)
	if res = plan("all"); res.Failed != nil {
		t.Fatalf("gang all (12 members, 12 free GPUs): %s: %s (a verdict on n0000 kept from while hog held it?)", res.Failed.Name, res.Reason)
	}
}
