package perf

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
)

// The DRA gang workload: gangs whose members take their GPU from a ResourceClaim each, against
// the test driver's ResourceSlices (8 GPUs per node), with the same rules as the throughput
// table (all pods exist before the scheduler starts; median of *repeat runs).

const draHeading = "\n## DRA gangs\n"

// draWorkload is the DRA gang workload: 200 gangs of 4 on 250 nodes (800 of 2,000 GPUs).
func draWorkload() Workload {
	wl := Workload{Name: "DRA: 200 gangs x 4, a ResourceClaim per pod, 250 nodes", Nodes: 250, Gangs: 200, GangSize: 4, DRA: true}
	if *quick {
		wl.Nodes, wl.Gangs, wl.Name = wl.Nodes/10, wl.Gangs/10, wl.Name+" (/10)"
	}
	return wl
}

// draSection is the report's DRA section: each configuration's median run, its rate against
// the default profile's and the in-tree plugin's, and its API writes per bound pod (a claim's
// allocation and reservation are one status write of the claim's, besides the bind).
func draSection(rs []Result, note string) string {
	rate, cpu := map[string]float64{}, map[string]float64{}
	for _, r := range rs {
		rate[r.Config], cpu[r.Config] = r.PodsPerSecond, r.CPUSeconds
	}
	ratio := func(a, b float64) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2fx", a/b)
	}
	var b strings.Builder
	b.WriteString(draHeading)
	fmt.Fprintf(&b, "\nGang members whose GPU comes from a ResourceClaim of their own (`resource.k8s.io/v1`, a DeviceClass of the test driver, 8 GPUs per node published as one ResourceSlice per node; no kubelet: the scheduler allocates). Same rules as the throughput table: all pods and claims exist before the scheduler starts, %d runs per configuration in rotated turns, the median run (by pods/s) with the slowest and fastest. Phalanx plans each gang's devices in its pass (docs/architecture.md, \"DRA devices\"); the in-tree plugin is kube-scheduler's pod-group cycle (GenericWorkload) with the same gangs as scheduling.k8s.io PodGroups; the default profile places the same pods with no gang. `make perf-dra` rewrites this section alone. %s\n\n", max(*repeat, 1), note)
	b.WriteString("| workload | config | bound | pods/s (min–max) | × default | × in-tree | gang p50 | gang p99 | CPU s | × in-tree CPU | incomplete gangs | API writes / pod |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %.1f (%.1f–%.1f) | %s | %s | %v | %v | %.1f | %s | %d | %.2f |\n",
			r.Workload, r.Config, r.Bound, r.Pods, r.PodsPerSecond, r.MinRate, r.MaxRate,
			ratio(r.PodsPerSecond, rate["default"]), ratio(r.PodsPerSecond, rate["in-tree"]),
			r.GangP50.Round(time.Millisecond), r.GangP99.Round(time.Millisecond), r.CPUSeconds,
			ratio(r.CPUSeconds, cpu["in-tree"]), r.Incomplete, r.WritesPerPod)
	}
	return b.String()
}

// TestPerfDRA runs the DRA gang workload; with -perf.out it rewrites the report's DRA section.
func TestPerfDRA(t *testing.T) {
	if *outDir == "" && os.Getenv("PHALANX_PERF_DRA") == "" {
		t.Skip("set -perf.out (make perf) or PHALANX_PERF_DRA=1")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	rs := runWorkload(t, root, draWorkload())
	for _, r := range rs {
		if r.Bound != r.Pods {
			t.Errorf("%s: %d of %d pods bound", r.Config, r.Bound, r.Pods)
		}
	}
	if *outDir != "" {
		note := fmt.Sprintf("Measured on %s.", time.Now().UTC().Format("2006-01-02"))
		if err := replaceSection(*outDir, draHeading, draSection(rs, note)); err != nil {
			t.Fatal(err)
		}
	}
}
