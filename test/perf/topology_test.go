package perf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// The stranded-GPU measure: a stream of gangs of 1, 2, 4 and 8 whole 8-GPU nodes arrives one
// gang at a time on a 3-level topology (racks of 4 nodes, blocks of 2 racks, zones of 4
// blocks); a gang of up to 4 nodes requires one rack, a gang of 8 one block. After the stream,
// GPUs left free in racks and blocks that are partly used are stranded for the next big gang.
// Phalanx places each gang by best fit; the in-tree plugin with its topology-aware placement;
// the default profile places the same pods with no gang and no topology (its spreading
// score); each gang waits at most gangWait to bind.

const (
	strandedNodes = 128
	nodesPerRack  = 4
	racksPerBlock = 2
	blocksPerZone = 4
	gangWait      = 10 * time.Second
)

// strandedSizes is the stream's gang sizes in nodes, in arrival order: 1, 2, 4, 8 again and
// again, 15 nodes a round, until 94 % of the nodes are asked for.
func strandedSizes() []int {
	var out []int
	total := 0
	for total+15 <= strandedNodes*94/100 {
		out = append(out, 1, 2, 4, 8)
		total += 15
	}
	return out
}

// StrandedResult is one configuration's run of the stream.
type StrandedResult struct {
	Config string
	// Gangs of the stream, Placed of them with every member bound, InDomain of those with all
	// members in the one rack (block) the gang asks for.
	Gangs, Placed, InDomain int
	// StrandedRack/Block are the free GPUs of racks/blocks that are partly used; FreeRacks and
	// FreeBlocks the racks and blocks left wholly free.
	StrandedRack, StrandedBlock int64
	FreeRacks, FreeBlocks       int
}

// createTopologyNodes makes n Ready 8-GPU nodes labelled with their rack, block and zone.
func createTopologyNodes(ctx context.Context, kube kubernetes.Interface, n int) error {
	return createNodesLabelled(ctx, kube, n, func(i int) map[string]string {
		rack := i / nodesPerRack
		block := rack / racksPerBlock
		return map[string]string{localcluster.LabelRack: fmt.Sprintf("rack-%d", rack),
			localcluster.LabelBlock: fmt.Sprintf("block-%d", block), localcluster.LabelZone: fmt.Sprintf("zone-%d", block/blocksPerZone)}
	})
}

// runStranded runs the stream under cfg on a fresh control plane.
func runStranded(t *testing.T, root string, cfg Config) StrandedResult {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	cluster, kube, client := startCluster(t, root, dir, localcluster.WorkloadAPIArgs...)
	defer cluster.Stop()
	if err := createTopologyNodes(ctx, kube, strandedNodes); err != nil {
		t.Fatal(err)
	}
	sched, _, err := startScheduler(root, dir, cluster.Kubeconfig, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stopScheduler(sched)
	sizes := strandedSizes()
	r := StrandedResult{Config: cfg.Name, Gangs: len(sizes)}
	for g, size := range sizes {
		name := fmt.Sprintf("gang-%d", g)
		key := localcluster.LabelRack
		if size > nodesPerRack {
			key = localcluster.LabelBlock
		}
		if cfg.Gangs == "workload" {
			pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: int32(size)}},
					SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: key}}}}}
			if _, err := kube.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if cfg.Gangs == "podgang" {
			grp := schedv1.PodGroup{Name: "members", MinReplicas: int32(size)}
			for i := 0; i < size; i++ {
				grp.PodReferences = append(grp.PodReferences, schedv1.NamespacedName{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i)})
			}
			pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: schedv1.PodGangSpec{PodGroups: []schedv1.PodGroup{grp},
				TopologyConstraint: &schedv1.TopologyConstraint{PackConstraint: &schedv1.TopologyPackConstraint{Required: ptr.To(key)}}}}
			if _, err := client.SchedulerV1alpha1().PodGangs(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < size; i++ {
			p := pod(fmt.Sprintf("%s-%d", name, i), cfg.SchedulerName, 8)
			p.Labels[grovev1.LabelPodGang] = name
			if cfg.Gangs == "workload" {
				p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(name)}
			}
			if _, err := kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(gangWait)
		for time.Now().Before(deadline) {
			pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelPodGang + "=" + name})
			if err != nil {
				t.Fatal(err)
			}
			bound, domains := 0, map[string]bool{}
			for _, p := range pods.Items {
				if p.Spec.NodeName != "" {
					bound++
					domains[domainOf(p.Spec.NodeName, key)] = true
				}
			}
			if bound == size {
				r.Placed++
				if len(domains) == 1 {
					r.InDomain++
				}
				break
			}
			time.Sleep(50 * time.Millisecond) // polling the API server, not a test's wait
		}
	}
	used := map[int]int{} // node index -> used
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		var i int
		if _, err := fmt.Sscanf(p.Spec.NodeName, "perf-node-%d", &i); err == nil {
			used[i]++
		}
	}
	r.StrandedRack, r.FreeRacks = stranded(used, nodesPerRack)
	r.StrandedBlock, r.FreeBlocks = stranded(used, nodesPerRack*racksPerBlock)
	return r
}

// domainOf is the rack or block of node perf-node-<i>.
func domainOf(node, key string) string {
	var i int
	if _, err := fmt.Sscanf(node, "perf-node-%d", &i); err != nil {
		return node
	}
	if key == localcluster.LabelBlock {
		return fmt.Sprint(i / (nodesPerRack * racksPerBlock))
	}
	return fmt.Sprint(i / nodesPerRack)
}

// stranded sums the free GPUs of domains of size nodes that are partly used, and counts the
// domains left wholly free.
func stranded(used map[int]int, size int) (int64, int) {
	var gpus int64
	free := 0
	for d := 0; d < strandedNodes/size; d++ {
		busy := 0
		for i := d * size; i < (d+1)*size; i++ {
			if used[i] > 0 {
				busy++
			}
		}
		switch {
		case busy == 0:
			free++
		case busy < size:
			gpus += int64(8 * (size - busy))
		}
	}
	return gpus, free
}

// strandedConfigs: the default profile, Phalanx, and the in-tree gang plugin with its
// topology-aware placement (scheduling.k8s.io PodGroups with schedulingConstraints.topology).
func strandedConfigs() []Config {
	intree := configs[2]
	intree.FeatureGates += ",TopologyAwareWorkloadScheduling=true"
	return []Config{configs[0], configs[1], intree}
}

// runStrandedAll runs the stream under each of strandedConfigs.
func runStrandedAll(t *testing.T, root string) []StrandedResult {
	var out []StrandedResult
	for _, cfg := range strandedConfigs() {
		r := runStranded(t, root, cfg)
		t.Logf("%-8s stranded: %d/%d gangs placed, %d in their domain; stranded GPUs in partly used racks %d, blocks %d; free racks %d, blocks %d",
			r.Config, r.Placed, r.Gangs, r.InDomain, r.StrandedRack, r.StrandedBlock, r.FreeRacks, r.FreeBlocks)
		out = append(out, r)
	}
	return out
}

const topologyHeading = "\n## Topology: stranded GPUs\n"

// topologySection is the report's stranded-GPU section.
func topologySection(rs []StrandedResult, note string) string {
	var b strings.Builder
	b.WriteString(topologyHeading)
	fmt.Fprintf(&b, "\nA stream of %d gangs of 1, 2, 4 and 8 whole 8-GPU nodes (94%% of %d nodes asked for) arrives one gang at a time on a 3-level topology: racks of %d nodes, blocks of %d racks, zones of %d blocks. A gang of up to %d nodes requires one rack, a gang of 8 one block (a PodGang's required packing for Phalanx, a PodGroup's schedulingConstraints.topology for the in-tree plugin; the default profile places the same pods with no gang and no topology). Each gang waits at most %s to bind. Stranded: GPUs left free in racks (blocks) that are partly used, which no whole-rack (whole-block) gang can use. The in-tree plugin runs with its topology-aware placement (TopologyAwareWorkloadScheduling), the same gangs as scheduling.k8s.io PodGroups with schedulingConstraints.topology. `make perf-topology` rewrites this section alone. %s\n\n",
		len(strandedSizes()), strandedNodes, nodesPerRack, racksPerBlock, blocksPerZone, nodesPerRack, gangWait, note)
	b.WriteString("| config | gangs placed | placed in their rack/block | stranded GPUs, racks | stranded GPUs, blocks | racks left free | blocks left free |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %d/%d | %d | %d | %d | %d | %d |\n", r.Config, r.Placed, r.Gangs, r.InDomain, r.StrandedRack, r.StrandedBlock, r.FreeRacks, r.FreeBlocks)
	}
	return b.String()
}

// replaceTopologySection puts the section in the report in place of its last one, or before
// the update section when it has none.
func replaceTopologySection(dir, section string) error {
	return replaceSection(dir, topologyHeading, section)
}

// replaceSection puts section, which starts with heading, in the report in place of the last
// section with that heading, or before the update section when there is none.
func replaceSection(dir, heading, section string) error {
	path := filepath.Join(dir, "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the report to update: %w", err)
	}
	s := string(raw)
	if i := strings.Index(s, heading); i >= 0 {
		end := strings.Index(s[i+len(heading):], "\n## ")
		if end < 0 {
			s = s[:i]
		} else {
			s = s[:i] + s[i+len(heading)+end:]
		}
	}
	i := strings.Index(s, updatesHeading)
	if i < 0 {
		return fmt.Errorf("%s has no %q section to put the %q section before", path, strings.TrimSpace(updatesHeading), strings.TrimSpace(heading))
	}
	return os.WriteFile(path, []byte(s[:i]+section+s[i:]), 0o644)
}

// TestPerfTopology runs the stranded-GPU stream; with -perf.out it rewrites the report's
// topology section.
func TestPerfTopology(t *testing.T) {
	if *outDir == "" && os.Getenv("PHALANX_PERF_TOPOLOGY") == "" {
		t.Skip("set -perf.out (make perf) or PHALANX_PERF_TOPOLOGY=1")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	rs := runStrandedAll(t, root)
	if *outDir != "" {
		note := fmt.Sprintf("Measured on %s.", time.Now().UTC().Format("2006-01-02"))
		if err := replaceTopologySection(*outDir, topologySection(rs, note)); err != nil {
			t.Fatal(err)
		}
	}
}
