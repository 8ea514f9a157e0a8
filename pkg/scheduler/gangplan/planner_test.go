package gangplan_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedulermetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/inspect"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/gangplan"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	"k8s.io/utils/ptr"
)

func gpuNode(name string, gpus int64) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("64"), v1.ResourceMemory: resource.MustParse("512Gi"), v1.ResourcePods: resource.MustParse("110"),
		"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}, Status: v1.NodeStatus{Allocatable: rl, Capacity: rl}}
}

func gpuPod(name string, gpus int64) *v1.Pod {
	q := *resource.NewQuantity(gpus, resource.DecimalSI)
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "x"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{"nvidia.com/gpu": q, v1.ResourceCPU: resource.MustParse("1")},
			Limits:   v1.ResourceList{"nvidia.com/gpu": q}}}}}}
}

func pods(n int, gpus int64) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range out {
		out[i] = gpuPod(fmt.Sprintf("m-%d", i), gpus)
	}
	return out
}

func nodes(n int, gpus int64) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range out {
		out[i] = gpuNode(fmt.Sprintf("n%04d", i), gpus)
	}
	return out
}

// planner builds a planner of Phalanx's default profile and the input for a pass over ns.
func planner(tb testing.TB, ns []*v1.Node, members []*v1.Pod, running ...*v1.Pod) (*gangplan.Planner, gangplugin.PlanInput) {
	tb.Helper()
	pl := newPlanner(tb)
	snap := internalcache.NewSnapshot(running, ns)
	infos, err := snap.NodeInfos().List()
	if err != nil {
		tb.Fatal(err)
	}
	return pl, gangplugin.PlanInput{Snapshot: snap, Pods: members, Nodes: infos}
}

// newPlanner builds a planner of Phalanx's default profile over a fake API holding objects.
func newPlanner(tb testing.TB, objects ...runtime.Object) *gangplan.Planner {
	return buildPlanner(tb, false, objects...)
}

// buildPlanner builds a planner of Phalanx's default profile over a fake API holding
// objects; withDRA gives it a DRA manager, as the scheduler builds it.
func buildPlanner(tb testing.TB, withDRA bool, objects ...runtime.Object) *gangplan.Planner {
	tb.Helper()
	pl, _, _ := buildPlannerOn(tb, withDRA, objects...)
	return pl
}

// buildPlannerOn is buildPlanner with the fake API it reads and its DRA manager (nil without
// DRA), for tests that change the cluster between passes.
func buildPlannerOn(tb testing.TB, withDRA bool, objects ...runtime.Object) (*gangplan.Planner, *kubefake.Clientset, fwk.SharedDRAManager) {
	tb.Helper()
	schedulermetrics.Register()
	profile, err := inspect.Profile()
	if err != nil {
		tb.Fatal(err)
	}
	kube := kubefake.NewSimpleClientset(objects...)
	factory := informers.NewSharedInformerFactory(kube, 0)
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	var dra fwk.SharedDRAManager
	if withDRA {
		claims := assumecache.NewAssumeCache(klog.FromContext(ctx), factory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
		slices, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{SliceInformer: factory.Resource().V1().ResourceSlices(), KubeClient: kube})
		if err != nil {
			tb.Fatal(err)
		}
		dra = dynamicresources.NewDRAManager(ctx, claims, slices, factory)
	}
	pl, err := gangplan.NewWithDRA(ctx, profile, nil, dra, frameworkruntime.WithInformerFactory(factory), frameworkruntime.WithClientSet(kube),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())))
	if err != nil {
		tb.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if dra != nil {
		// The claims' assume cache is fed by an informer handler, which the informers' sync
		// does not wait for: wait until it holds every claim given (a plan right after the
		// sync found no claim once).
		for _, o := range objects {
			c, ok := o.(*resourceapi.ResourceClaim)
			if !ok {
				continue
			}
			if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				_, err := dra.ResourceClaims().Get(c.Namespace, c.Name)
				return err == nil, nil
			}); err != nil {
				tb.Fatalf("the DRA manager never held claim %s/%s: %v", c.Namespace, c.Name, err)
			}
		}
	}
	return pl, kube, dra
}

func distinct(plan map[string]string) int {
	seen := map[string]bool{}
	for _, n := range plan {
		seen[n] = true
	}
	return len(seen)
}

func TestPlanPlacesWholeGang(t *testing.T) {
	pl, in := planner(t, nodes(4, 8), pods(4, 8))
	res, err := pl.Plan(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != nil || len(res.Nodes) != 4 || distinct(res.Nodes) != 4 {
		t.Fatalf("four whole-node members on four free nodes: failed=%v nodes=%v", res.Failed, res.Nodes)
	}
	// The snapshot is not written: a second pass finds the same room.
	if res, _ := pl.Plan(context.Background(), in); res.Failed != nil {
		t.Fatalf("the first pass wrote the snapshot: %s: %s", res.Failed.Name, res.Reason)
	}
}

func TestPlanNoPlacementNamesTheMemberAndTheCause(t *testing.T) {
	pl, in := planner(t, nodes(3, 8), pods(4, 8))
	res, err := pl.Plan(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed == nil || res.Failed.Name != "m-3" {
		t.Fatalf("the fourth whole-node member on three nodes should fail: %+v", res)
	}
	if !strings.Contains(res.Reason, "3× Insufficient nvidia.com/gpu") {
		t.Errorf("reason %q does not say every node is out of GPUs", res.Reason)
	}
}

// The gang plugin's score (GPU bin-packing) is added to the profile's: half-node members
// share nodes. Without it the profile's spreading score puts each on its own node.
func TestPlanUsesTheGangScore(t *testing.T) {
	pl, in := planner(t, nodes(4, 8), pods(4, 4))
	res, err := pl.Plan(context.Background(), in)
	if err != nil || res.Failed != nil {
		t.Fatalf("%+v %v", res, err)
	}
	if got := distinct(res.Nodes); got != 4 {
		t.Fatalf("without the gang score: %d nodes used, want 4 (the profile spreads)", got)
	}
	in.Score = func(*v1.Pod, []fwk.NodeInfo) func(fwk.NodeInfo) int64 {
		return func(n fwk.NodeInfo) int64 {
			used := n.GetRequested().GetScalarResources()["nvidia.com/gpu"] + 4
			return used * fwk.MaxNodeScore / n.GetAllocatable().GetScalarResources()["nvidia.com/gpu"]
		}
	}
	res, err = pl.Plan(context.Background(), in)
	if err != nil || res.Failed != nil {
		t.Fatalf("%+v %v", res, err)
	}
	if got := distinct(res.Nodes); got != 2 {
		t.Fatalf("with the gang's bin-packing score: %d nodes used, want 2: %v", got, res.Nodes)
	}
}

func TestPlanHonoursTheGangFilter(t *testing.T) {
	pl, in := planner(t, nodes(3, 8), pods(2, 8))
	in.Filter = func(_ *v1.Pod, n fwk.NodeInfo) *fwk.Status {
		if n.Node().Name == "n0000" {
			return fwk.NewStatus(fwk.Unschedulable, "capacity held for a replacement")
		}
		return nil
	}
	res, err := pl.Plan(context.Background(), in)
	if err != nil || res.Failed != nil {
		t.Fatalf("%+v %v", res, err)
	}
	for pod, n := range res.Nodes {
		if n == "n0000" {
			t.Fatalf("%s planned on the held node", pod)
		}
	}
	in.Pods = pods(3, 8)
	if res, _ := pl.Plan(context.Background(), in); res.Failed == nil || !strings.Contains(res.Reason, "capacity held for a replacement") {
		t.Fatalf("three members with one of three nodes held: %+v", res)
	}
}

// Members placed earlier in the pass count for the later ones' PreFilter state: required
// anti-affinity between members puts each on its own node though one node has room for all.
func TestPlanCountsEarlierMembersForAffinity(t *testing.T) {
	members := pods(3, 1)
	for _, p := range members {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname"}}}}
	}
	pl, in := planner(t, nodes(3, 8), members)
	res, err := pl.Plan(context.Background(), in)
	if err != nil || res.Failed != nil {
		t.Fatalf("%+v %v", res, err)
	}
	if got := distinct(res.Nodes); got != 3 {
		t.Fatalf("anti-affine members on %d nodes, want 3: %v", got, res.Nodes)
	}
	in.Pods = pods(4, 1)
	for _, p := range in.Pods {
		p.Spec.Affinity = members[0].Spec.Affinity
	}
	if res, _ := pl.Plan(context.Background(), in); res.Failed == nil || res.Failed.Name != "m-3" {
		t.Fatalf("a fourth anti-affine member on three nodes: %+v", res)
	}
}

// BenchmarkPlan is one pass for a gang on 5,000 eight-GPU nodes: a 16-member gang of 8-GPU
// members, and a 512-member one, with the Filter and Score memos and without them, and with
// nothing kept from earlier passes (the first gang of its template, or after a restart) or,
// "kept", everything (a gang alike on nodes no pass changed: the floor of a stream of gangs
// alike). Figures are per member (allocations included).
func BenchmarkPlan(b *testing.B) {
	for _, tc := range []struct {
		size            int
		memo, scoreMemo bool
		// warm: the planner keeps what the passes before kept (passMemo), and every pass is
		// of a gang alike on nodes that did not change; otherwise each pass starts with
		// nothing kept, as the first gang of its template does.
		warm bool
	}{{16, true, true, false}, {16, true, true, true}, {512, true, true, false}, {512, true, true, true}, {512, true, false, false}, {16, false, false, false}, {512, false, false, false}} {
		name := fmt.Sprintf("members=%d/nodes=5000", tc.size)
		switch {
		case !tc.memo && !tc.scoreMemo:
			name += "/no-memo"
		case !tc.scoreMemo:
			name += "/no-score-memo"
		case tc.warm:
			name += "/kept"
		}
		size := tc.size
		b.Run(name, func(b *testing.B) {
			pl, in := planner(b, nodes(5000, 8), pods(size, 8))
			pl.SetFilterMemo(tc.memo)
			pl.SetScoreMemo(tc.scoreMemo)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !tc.warm {
					b.StopTimer()
					pl.ForgetKept()
					b.StartTimer()
				}
				res, err := pl.Plan(context.Background(), in)
				if err != nil || res.Failed != nil {
					b.Fatalf("%+v %v", res, err)
				}
			}
			b.StopTimer()
			perMember := float64(b.Elapsed().Nanoseconds()) / float64(b.N*size)
			b.ReportMetric(perMember/1e3, "µs/member")
		})
	}
}

// Evicted pods are weighed as gone, on copies: the snapshot keeps them.
func TestPlanWithEvictedPods(t *testing.T) {
	ns := nodes(2, 8)
	var running []*v1.Pod
	for i, n := range ns {
		p := gpuPod(fmt.Sprintf("low-%d", i), 8)
		p.Spec.NodeName = n.Name
		running = append(running, p)
	}
	pl, in := planner(t, ns, pods(2, 8), running...)
	if res, _ := pl.Plan(context.Background(), in); res.Failed == nil {
		t.Fatal("two whole-node members planned on two full nodes")
	}
	in.Evicted = running[:1]
	if res, _ := pl.Plan(context.Background(), in); res.Failed == nil || res.Failed.Name != "m-1" {
		t.Fatalf("one node freed for two whole-node members: %+v", res)
	}
	in.Evicted = running
	res, err := pl.Plan(context.Background(), in)
	if err != nil || res.Failed != nil || distinct(res.Nodes) != 2 {
		t.Fatalf("both nodes freed: %+v %v", res, err)
	}
	in.Evicted = nil
	if res, _ := pl.Plan(context.Background(), in); res.Failed == nil {
		t.Fatal("a pass with evicted pods wrote the snapshot")
	}
}

// BenchmarkSelectVictims is gang-aware victim selection on 5,000 full eight-GPU nodes held by
// 1,000 gangs of 5 whole-node members: a gang of 2 whole-node members preempts, each fit check
// a planning pass with the victims removed.
func BenchmarkSelectVictims(b *testing.B) {
	ns := nodes(5000, 8)
	store := gang.NewStore(gang.DefaultMembership(), nil)
	var running []*v1.Pod
	var cands []gang.Candidate
	for g := 0; g < 1000; g++ {
		name := fmt.Sprintf("low-%d", g)
		store.SetSpec(gang.Spec{Key: gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: name}, PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 5}}})
		for i := 0; i < 5; i++ {
			p := gpuPod(fmt.Sprintf("%s-%d", name, i), 8)
			p.Labels = map[string]string{"grove.io/podgang": name, "grove.io/podclique": "w", "grove.io/podclique-pod-index": fmt.Sprint(i)}
			p.Spec.NodeName = ns[g*5+i].Name
			store.UpsertPod(p)
			running = append(running, p)
			cands = append(cands, gang.Candidate{Pod: p, Node: p.Spec.NodeName, GPUs: 8, Started: time.Unix(int64(g), 0)})
		}
	}
	pl, in := planner(b, ns, pods(2, 8), running...)
	fits := func(units []gang.Unit) bool {
		in.Evicted = in.Evicted[:0]
		for _, u := range units {
			for _, c := range u.Pods {
				in.Evicted = append(in.Evicted, c.Pod)
			}
		}
		res, err := pl.Plan(context.Background(), in)
		return err == nil && res.Failed == nil
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		victims, ok := gang.SelectVictims(store.VictimUnits(cands), fits)
		if !ok || len(victims) != 1 || !victims[0].Whole {
			b.Fatalf("victims %+v ok %v, want one whole gang", victims, ok)
		}
	}
}

// The gang plugin's score sees where the pass put the earlier members: a score that prefers
// the rack of the first member keeps the gang in one rack, against the profile's spreading.
func TestPlanScoreSeesEarlierMembers(t *testing.T) {
	ns := nodes(4, 8)
	for i, n := range ns {
		n.Labels["example.com/rack"] = fmt.Sprintf("r%d", i%2) // n0000, n0002 in r0; n0001, n0003 in r1
	}
	pl, in := planner(t, ns, pods(4, 4))
	in.Score = func(_ *v1.Pod, placed []fwk.NodeInfo) func(fwk.NodeInfo) int64 {
		return func(n fwk.NodeInfo) int64 {
			if len(placed) > 0 && n.Node().Labels["example.com/rack"] == placed[0].Node().Labels["example.com/rack"] {
				return fwk.MaxNodeScore
			}
			return 0
		}
	}
	res, err := pl.Plan(context.Background(), in)
	if err != nil || res.Failed != nil {
		t.Fatalf("%+v %v", res, err)
	}
	racks := map[string]bool{}
	for _, n := range res.Nodes {
		for _, node := range ns {
			if node.Name == n {
				racks[node.Labels["example.com/rack"]] = true
			}
		}
	}
	if len(racks) != 1 {
		t.Fatalf("members in racks %v, want one: %v", racks, res.Nodes)
	}
}

// filledNodes returns n nodes of 8 GPUs of every fill (0, 2, 4, 6 or 8 GPUs taken, by turns)
// and the running pods that fill them.
func filledNodes(n int) ([]*v1.Node, []*v1.Pod) {
	ns := nodes(n, 8)
	var running []*v1.Pod
	for i, node := range ns {
		if used := int64(i % 5 * 2); used > 0 {
			p := gpuPod(fmt.Sprintf("r-%d", i), used)
			p.Spec.NodeName = node.Name
			running = append(running, p)
		}
	}
	return ns, running
}

// The Filter memo changes what a pass costs, not what it decides: a gang of members alike on
// nodes of every fill (some full, some with room for one or two members) is placed on the
// same nodes with the memo as without it, and a gang that does not fit fails on the same
// member for the same reasons.
func TestFilterMemoKeepsThePlan(t *testing.T) {
	ns, running := filledNodes(60)
	for _, tc := range []struct {
		name    string
		members int
		gpus    int64
	}{{"fits", 24, 4}, {"fits, whole nodes", 10, 8}, {"does not fit", 80, 6}} {
		t.Run(tc.name, func(t *testing.T) {
			results := map[bool]gangplugin.PlanResult{}
			_, in := planner(t, ns, pods(tc.members, tc.gpus), running...) // one snapshot: its node order is its own
			for _, memo := range []bool{false, true} {
				pl, _ := planner(t, ns, nil)
				if !pl.FilterMemo() {
					t.Fatal("Phalanx's profile keeps no Filter memo: a Filter plugin not known to be stateless?")
				}
				pl.SetFilterMemo(memo)
				res, err := pl.Plan(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				results[memo] = res
			}
			without, with := results[false], results[true]
			if fmt.Sprint(without.Nodes) != fmt.Sprint(with.Nodes) {
				t.Errorf("placements differ:\nwithout the memo %v\nwith it          %v", without.Nodes, with.Nodes)
			}
			if (without.Failed == nil) != (with.Failed == nil) || (without.Failed != nil && (without.Failed.Name != with.Failed.Name || without.Reason != with.Reason)) {
				t.Errorf("outcomes differ: without the memo %v %q, with it %v %q", without.Failed, without.Reason, with.Failed, with.Reason)
			}
		})
	}
}

// scoreApart makes ns score apart for members that prefer zone a and run
// registry.example.com/llm:v1: every third node is in zone a, every fourth has the image, and
// with taints every seventh has a PreferNoSchedule taint.
func scoreApart(ns []*v1.Node, taints bool) {
	for i, n := range ns {
		if i%3 == 0 {
			n.Labels["zone"] = "a"
		}
		if taints && i%7 == 0 {
			n.Spec.Taints = []v1.Taint{{Key: "busy", Effect: v1.TaintEffectPreferNoSchedule}}
		}
		if i%4 == 0 {
			n.Status.Images = []v1.ContainerImage{{Names: []string{"registry.example.com/llm:v1"}, SizeBytes: 600 << 20}}
		}
	}
}

// The Score memo changes what a pass costs, not what it decides: on nodes that score apart
// (every fill, a preferred zone, PreferNoSchedule taints, the members' image on some), a gang
// of members alike is placed on the same nodes with it as without it, and each node is
// scored about once instead of once per member (the nodes the members before took, again).
// With the memo the pass totals the scores itself (normalizer), without it the framework does:
// the same placements also show the two normalize and weigh alike.
func TestScoreMemoKeepsThePlan(t *testing.T) {
	ns, running := filledNodes(60)
	scoreApart(ns, true)
	members := func(n int, gpus int64) []*v1.Pod {
		out := pods(n, gpus)
		for _, p := range out {
			p.Spec.Containers[0].Image = "registry.example.com/llm:v1"
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{
				Weight: 50, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		members int
		gpus    int64
		dra     bool // the planner runs DynamicResources (it scores the members 0 everywhere)
	}{{"fits", 24, 2, false}, {"fits, whole nodes", 10, 8, false}, {"does not fit", 80, 6, false}, {"fits, with DRA", 24, 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			results := map[bool]gangplugin.PlanResult{}
			scored := map[bool]int64{}
			_, in := planner(t, ns, members(tc.members, tc.gpus), running...)
			for _, memo := range []bool{false, true} {
				pl := buildPlanner(t, tc.dra)
				pl.SetScoreMemo(memo)
				if !pl.OwnNormalizer() {
					t.Fatal("the planner totals scores through the framework: its own normalizer is not compared")
				}
				res, err := pl.Plan(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				results[memo], scored[memo] = res, pl.ScoredNodes()
			}
			without, with := results[false], results[true]
			if fmt.Sprint(without.Nodes) != fmt.Sprint(with.Nodes) {
				t.Errorf("placements differ:\nwithout the memo %v\nwith it          %v", without.Nodes, with.Nodes)
			}
			if (without.Failed == nil) != (with.Failed == nil) || (without.Failed != nil && (without.Failed.Name != with.Failed.Name || without.Reason != with.Reason)) {
				t.Errorf("outcomes differ: without the memo %v %q, with it %v %q", without.Failed, without.Reason, with.Failed, with.Reason)
			}
			// Each node once, and each placed member's node once more.
			if limit := int64(len(ns) + len(with.Nodes)); scored[true] > limit || scored[true] >= scored[false] {
				t.Errorf("nodes scored: %d with the memo (at most %d), %d without", scored[true], limit, scored[false])
			}
		})
	}
}

// Members with bound volume claims are planned, each on a node its volume's node affinity
// allows (the pass runs the volume plugins); a member whose claim is still to be bound, or
// missing, is not planned (its own cycle binds it, and the pass assumes nothing).
func TestPlanMembersWithBoundVolumes(t *testing.T) {
	local := func(name, node string) (*v1.PersistentVolume, *v1.PersistentVolumeClaim) {
		pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name},
			Spec: v1.PersistentVolumeSpec{
				Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
				PersistentVolumeSource: v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{Path: "/models"}},
				ClaimRef:               &v1.ObjectReference{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
				NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}},
			},
			Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound}}
		pvc := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
			Spec: v1.PersistentVolumeClaimSpec{VolumeName: pv.Name, AccessModes: pv.Spec.AccessModes,
				Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}}},
			Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound}}
		return pv, pvc
	}
	pv0, pvc0 := local("cache-0", "n0002")
	pv1, pvc1 := local("cache-1", "n0000")
	// Pre-bound by its author (a volume named, not bound by the PV controller yet).
	pending := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cache-2"}, Spec: v1.PersistentVolumeClaimSpec{VolumeName: "pv-x"},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending}}
	pl := newPlanner(t, pv0, pvc0, pv1, pvc1, pending)
	ctx := context.Background()
	members := pods(3, 4)
	for i, m := range members {
		m.Spec.Volumes = []v1.Volume{{Name: "cache", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: fmt.Sprintf("cache-%d", i)}}}}
	}
	if !pl.Plans(members[0]) || !pl.Plans(members[1]) {
		t.Fatal("members whose claims are bound are not planned")
	}
	if !pl.Plans(members[2]) {
		t.Error("a member whose claim is pending is not planned (the pass assumes its volume)")
	}
	snap := internalcache.NewSnapshot(nil, nodes(4, 8))
	infos, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	res, err := pl.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: members[:2], Nodes: infos})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != nil {
		t.Fatalf("no plan: %s: %s", res.Failed.Name, res.Reason)
	}
	if res.Nodes["m-0"] != "n0002" || res.Nodes["m-1"] != "n0000" {
		t.Errorf("plan %v: want m-0 on n0002 and m-1 on n0000, where their volumes are", res.Nodes)
	}
}

// Members whose claims are still to be bound (WaitForFirstConsumer) are planned: the pass
// assumes each member's volume in its own view (VolumeBinding's Reserve in the planner's
// framework), so that the next member is not given the same one, and withdraws it at the end.
// Two members, two matching local volumes on n0001 and n0003, room for both members on either
// node, n0001 preferred: the plan puts one member on each. Without the pass's Reserve both
// went to n0001 (its volume looked free to the second); before, neither was planned (member
// by member).
func TestPlanMembersWithUnboundVolumes(t *testing.T) {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local"}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wffc}
	pv := func(name, node string) *v1.PersistentVolume {
		return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1.PersistentVolumeSpec{
				StorageClassName:       "local",
				Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
				PersistentVolumeSource: v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{Path: "/models"}},
				NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}},
			},
			Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable}}
	}
	pvc := func(name string) *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
			Spec: v1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("local"), AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
				Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}}},
			Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending}}
	}
	pl := newPlanner(t, class, pv("pv-a", "n0001"), pv("pv-b", "n0003"), pvc("cache-0"), pvc("cache-1"))
	members := pods(2, 4)
	for i, m := range members {
		m.Spec.Volumes = []v1.Volume{{Name: "cache", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: fmt.Sprintf("cache-%d", i)}}}}
		if !pl.Plans(m) {
			t.Fatalf("%s, whose claim is still to be bound, is not planned", m.Name)
		}
	}
	// n0003 is busier than n0001 (half its CPUs taken): the profile's scoring prefers n0001
	// for both members, and only the volume the first took there sends the second away.
	busy := gpuPod("busy", 0)
	busy.Spec.NodeName = "n0003"
	busy.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("32")
	snap := internalcache.NewSnapshot([]*v1.Pod{busy}, nodes(4, 8))
	infos, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for round := 0; round < 2; round++ { // the second pass finds both volumes free again
		res, err := pl.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: members, Nodes: infos})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != nil {
			t.Fatalf("pass %d: no plan: %s: %s", round, res.Failed.Name, res.Reason)
		}
		got := []string{res.Nodes["m-0"], res.Nodes["m-1"]}
		slices.Sort(got)
		if !slices.Equal(got, []string{"n0001", "n0003"}) {
			t.Errorf("pass %d: plan %v: want one member on each volume's node (n0001, n0003)", round, res.Nodes)
		}
	}
}

// Verdicts outlive their pass while their node's generation stands: the next gang alike is
// filtered again only on the nodes that changed since (the last gang's, one another pod took,
// one tainted), and is placed where a planner that keeps nothing places it, never on a
// changed node that no longer fits.
func TestFilterMemoAcrossPasses(t *testing.T) {
	ns := nodes(40, 8)
	snap, infos := listed(t, ns)
	ctx := context.Background()
	keeping, fresh := newPlanner(t), newPlanner(t)
	fresh.SetFilterMemo(false)
	first, err := keeping.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: gangOf3("a", 8), Nodes: infos})
	if err != nil || first.Failed != nil {
		t.Fatalf("first gang: %v %+v", err, first)
	}
	if _, err := fresh.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: gangOf3("a", 8), Nodes: infos}); err != nil {
		t.Fatal(err) // the same pass, so that both planners start the next search at the same node
	}
	// The cluster after it, as the scheduler's cache gives it: the first gang on its nodes, a
	// node taken by another scheduler's pod, a node tainted NoSchedule.
	changed := map[string]bool{}
	place := func(pod *v1.Pod, node string) { placeOn(t, snap, pod, node, changed) }
	for _, p := range gangOf3("a", 8) {
		place(p, first.Nodes[p.Name])
	}
	var other, tainted string
	for _, n := range ns {
		if !changed[n.Name] && other == "" {
			other = n.Name
			place(gpuPod("other", 8), other)
		} else if !changed[n.Name] && tainted == "" {
			tainted = n.Name
			info, _ := snap.NodeInfos().Get(tainted)
			node := n.DeepCopy()
			node.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
			info.(*framework.NodeInfo).SetNode(node)
			changed[tainted] = true
		}
	}
	before := keeping.FilterRuns()
	second, err := keeping.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: gangOf3("b", 8), Nodes: infos})
	if err != nil || second.Failed != nil {
		t.Fatalf("second gang: %v %+v", err, second)
	}
	want, err := fresh.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: gangOf3("b", 8), Nodes: infos})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(second.Nodes) != fmt.Sprint(want.Nodes) {
		t.Errorf("placements differ:\nwith verdicts kept  %v\nwith nothing kept   %v", second.Nodes, want.Nodes)
	}
	for pod, node := range second.Nodes {
		if changed[node] {
			t.Errorf("%s placed on %s, which changed since the first gang and no longer fits", pod, node)
		}
	}
	// The first member: the 5 changed nodes (every node is searched: fewer than 100); the next
	// two: the node the one before took.
	if runs := keeping.FilterRuns() - before; runs != 5+2 {
		t.Errorf("the second gang ran Filter %d times, want 7 (the 5 changed nodes, then one node per member)", runs)
	}
}

// Raw scores outlive their pass while their node's generation stands: a second gang alike
// is scored again only on the nodes that changed since the first (its placements, another
// scheduler's pod, a node given the label the members prefer) and on the node each member
// before it took, and is placed where a planner that keeps no score across passes places it:
// on the node that now carries the preferred label (a stale score there would miss it).
func TestScoreMemoAcrossPasses(t *testing.T) {
	ns, running := filledNodes(40)
	scoreApart(ns, false)
	snap, infos := listed(t, ns, running...)
	gang := func(prefix string) []*v1.Pod {
		out := gangOf3(prefix, 2)
		for _, p := range out {
			p.Spec.Containers[0].Image = "registry.example.com/llm:v1"
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{
				{Weight: 10, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}},
				{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "tier", Operator: v1.NodeSelectorOpIn, Values: []string{"gold"}}}}},
			}}}
		}
		return out
	}
	ctx := context.Background()
	keeping, passOnly := newPlanner(t), newPlanner(t)
	passOnly.SetFilterMemo(false) // nothing outlives a pass; raw scores are kept within it
	plan := func(pl *gangplan.Planner, pods []*v1.Pod) gangplugin.PlanResult {
		t.Helper()
		res, err := pl.Plan(ctx, gangplugin.PlanInput{Snapshot: snap, Pods: pods, Nodes: infos})
		if err != nil || res.Failed != nil {
			t.Fatalf("pass of %s: %v %+v", pods[0].Name, err, res)
		}
		return res
	}
	first := plan(keeping, gang("a"))
	if want := plan(passOnly, gang("a")); fmt.Sprint(first.Nodes) != fmt.Sprint(want.Nodes) {
		t.Fatalf("first gang: placements differ:\nkeeping scores  %v\npass only       %v", first.Nodes, want.Nodes)
	}
	changed := map[string]bool{}
	for _, p := range gang("a") {
		placeOn(t, snap, p, first.Nodes[p.Name], changed)
	}
	// Another scheduler's pod on one node; the label the members prefer most on another, a
	// node with room that scored low before (no zone a, no image).
	var other, gold string
	for i, n := range ns {
		if changed[n.Name] || i%5 == 4 {
			continue
		}
		switch {
		case other == "":
			other = n.Name
			placeOn(t, snap, gpuPod("other", 2), other, changed)
		case gold == "" && i%3 != 0 && i%4 != 0:
			gold = n.Name
			info, _ := snap.NodeInfos().Get(gold)
			node := n.DeepCopy()
			node.Labels["tier"] = "gold"
			info.(*framework.NodeInfo).SetNode(node)
			changed[gold] = true
		}
	}
	if gold == "" {
		t.Fatal("no node to label")
	}
	before := keeping.ScoredNodes()
	second := plan(keeping, gang("b"))
	want := plan(passOnly, gang("b"))
	if fmt.Sprint(second.Nodes) != fmt.Sprint(want.Nodes) {
		t.Errorf("second gang: placements differ:\nkeeping scores  %v\npass only       %v", second.Nodes, want.Nodes)
	}
	if second.Nodes["b-0"] != gold {
		t.Errorf("the first member of the second gang is on %s, want %s (the node now labelled tier=gold)", second.Nodes["b-0"], gold)
	}
	// The first member: at most the changed nodes; the next two: the node the one before took.
	if scored, limit := keeping.ScoredNodes()-before, int64(len(changed)+2); scored > limit || scored == 0 {
		t.Errorf("the second gang scored %d nodes, want 1 to %d (the %d changed nodes, then one node per member)", scored, limit, len(changed))
	}
}

// Passes of one pod of no gang (PlanInput.Alone) keep their verdicts too: each pod after the
// first of a stream alike is filtered again only on the node the one before it took, and is
// placed where a planner that keeps nothing places it. Their verdicts are kept apart from the
// gangs': plain pods of many templates (more than the kept templates) between two gangs alike
// leave the second gang its kept verdicts.
func TestAlonePassesKeepVerdictsApart(t *testing.T) {
	snap, infos := listed(t, nodes(40, 8))
	ctx := context.Background()
	keeping, fresh := newPlanner(t), newPlanner(t)
	fresh.SetFilterMemo(false)
	changed := map[string]bool{}
	// plan runs a pass on both planners (so that both start their next search at the same
	// node), checks that they agree, and places its pods on the snapshot.
	plan := func(pods []*v1.Pod, alone bool) {
		t.Helper()
		in := gangplugin.PlanInput{Snapshot: snap, Pods: pods, Nodes: infos, Alone: alone}
		got, err := keeping.Plan(ctx, in)
		if err != nil || got.Failed != nil {
			t.Fatalf("pass of %s: %v %+v", pods[0].Name, err, got)
		}
		want, err := fresh.Plan(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Nodes) != fmt.Sprint(want.Nodes) {
			t.Errorf("pass of %s: placements differ:\nwith verdicts kept  %v\nwith nothing kept   %v", pods[0].Name, got.Nodes, want.Nodes)
		}
		for _, p := range pods {
			placeOn(t, snap, p, got.Nodes[p.Name], changed)
		}
	}
	plan(gangOf3("a", 8), false)

	// A stream of plain pods alike, one pass each.
	before := keeping.FilterRuns()
	const stream = 10
	for i := 0; i < stream; i++ {
		plan([]*v1.Pod{gpuPod(fmt.Sprintf("plain-%d", i), 1)}, true)
	}
	if runs := keeping.FilterRuns() - before; runs > 40+stream-1 {
		t.Errorf("%d plain pods alike ran Filter %d times, want at most %d (every node for the first, then the node the one before took)", stream, runs, 40+stream-1)
	}

	// Plain pods of 20 templates (a CPU request each), more than the templates a memo keeps.
	for i := 0; i < 20; i++ {
		p := gpuPod(fmt.Sprintf("other-%d", i), 1)
		p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse(fmt.Sprintf("%dm", 100+i))
		plan([]*v1.Pod{p}, true)
	}
	before = keeping.FilterRuns()
	plan(gangOf3("b", 8), false)
	// The first member: the nodes that changed since the first gang's pass (every node is
	// searched: fewer than 100); the next two: the node the one before took.
	aChanged := len(changed) - 3 // the second gang's own nodes changed after its pass
	if runs := keeping.FilterRuns() - before; runs != int64(aChanged+2) {
		t.Errorf("the second gang ran Filter %d times, want %d (the %d nodes changed since the first gang, then one node per member): the plain pods' passes pushed its verdicts out", runs, aChanged+2, aChanged)
	}
}

// listed is a snapshot of ns with running on them, and its nodes as the scheduler lists them.
func listed(t *testing.T, ns []*v1.Node, running ...*v1.Pod) (*internalcache.Snapshot, []fwk.NodeInfo) {
	t.Helper()
	snap := internalcache.NewSnapshot(running, ns)
	infos, err := snap.NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	return snap, infos
}

// gangOf3 is a gang of 3 members prefix-0..2 asking for gpus each.
func gangOf3(prefix string, gpus int64) []*v1.Pod {
	out := make([]*v1.Pod, 3)
	for i := range out {
		out[i] = gpuPod(fmt.Sprintf("%s-%d", prefix, i), gpus)
	}
	return out
}

// placeOn binds pod to node in snap as the scheduler's cache would (the node gets a new
// generation) and records the node in changed.
func placeOn(t *testing.T, snap *internalcache.Snapshot, pod *v1.Pod, node string, changed map[string]bool) {
	t.Helper()
	info, err := snap.NodeInfos().Get(node)
	if err != nil {
		t.Fatal(err)
	}
	pod = pod.DeepCopy()
	pod.Spec.NodeName = node
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	info.AddPodInfo(pi)
	changed[node] = true
}
