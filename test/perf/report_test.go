package perf

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
)

var (
	repeat      = flag.Int("perf.repeat", 3, "runs per configuration and workload; the median run is reported, with the slowest and fastest rates")
	oneConfig   = flag.String("perf.config", "", "TestPerfOne: the configuration")
	oneWorkload = flag.Int("perf.workload", 0, "TestPerfOne: the workload index (-1: the DRA gang workload)")
)

// TestPerf runs every workload under every configuration, then the update costs, and writes
// the report. It is the body of `make perf`.
func TestPerf(t *testing.T) {
	if *outDir == "" {
		t.Skip("set -perf.out (make perf)")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	var results []Result
	for _, wl := range workloads() {
		results = append(results, runWorkload(t, root, wl)...)
	}
	preempts := runPreemptions(t, root)
	topology := runStrandedAll(t, root)
	dra := runWorkload(t, root, draWorkload())
	updates := runUpdates(t, root)
	bringUp := []BringUpResult{measureBringUp(t, root)}
	if err := writeReport(*outDir, results, preempts, updates, bringUp, time.Since(began)); err != nil {
		t.Fatal(err)
	}
	if err := replaceTopologySection(*outDir, topologySection(topology, "")); err != nil {
		t.Fatal(err)
	}
	if err := replaceSection(*outDir, draHeading, draSection(dra, "")); err != nil {
		t.Fatal(err)
	}
}

// runWorkload runs wl with every configuration that takes it, *repeat times each, and returns
// each configuration's median run (by pods/s) with the spread. The machine is shared by etcd,
// the API server, the harness and the scheduler, and runs of one workload and configuration
// differ by up to 1.8x over a session: the configurations take turns, in a rotated order each
// round, so that a slow spell of the machine falls on every configuration rather than on one
// configuration's block of runs.
func runWorkload(t *testing.T, root string, wl Workload) []Result {
	var cfgs []Config
	for _, c := range configs {
		if (!c.GangsOnly || wl.Gangs > 0) && (!c.OneGangOnly || wl.Gangs == 1) {
			cfgs = append(cfgs, c)
		}
	}
	byConfig := make([][]Result, len(cfgs))
	for i := 0; i < max(*repeat, 1); i++ {
		for j := range cfgs {
			c := (i + j) % len(cfgs)
			byConfig[c] = append(byConfig[c], runScheduling(t, root, cfgs[c], wl))
		}
	}
	var results []Result
	for _, runs := range byConfig {
		sort.Slice(runs, func(i, j int) bool { return runs[i].PodsPerSecond < runs[j].PodsPerSecond })
		r := runs[len(runs)/2]
		r.MinRate, r.MaxRate = runs[0].PodsPerSecond, runs[len(runs)-1].PodsPerSecond
		t.Logf("%-8s %-60s %5d/%d bound  %7.1f pods/s  cpu %6.1fs  rss %6.0f MiB  gang p50 %v p99 %v  incomplete %d waste %.1f GPU-s  writes/pod %.2f %v",
			r.Config, r.Workload, r.Bound, r.Pods, r.PodsPerSecond, r.CPUSeconds, r.PeakRSSMiB, r.GangP50.Round(time.Millisecond), r.GangP99.Round(time.Millisecond), r.Incomplete, r.WasteGPUSeconds, r.WritesPerPod, r.Writes)
		results = append(results, r)
	}
	return results
}

// TestPerfOne runs one configuration on one workload (-perf.config, -perf.workload index), to
// look into a figure.
func TestPerfOne(t *testing.T) {
	if *oneConfig == "" {
		t.Skip("set -perf.config")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range append(append([]Config(nil), configs...), otherConfigs...) {
		if cfg.Name == *oneConfig {
			wl := draWorkload()
			if *oneWorkload >= 0 {
				wl = workloads()[*oneWorkload]
			}
			r := runScheduling(t, root, cfg, wl)
			t.Logf("%+v", r)
		}
	}
}

// writesBreakdown lists a run's API writes by resource, most first.
func writesBreakdown(r *Result) string {
	type kv struct {
		res string
		n   float64
	}
	var all []kv
	for res, n := range r.Writes {
		all = append(all, kv{res, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || (all[i].n == all[j].n && all[i].res < all[j].res) })
	var parts []string
	for _, e := range all {
		parts = append(parts, fmt.Sprintf("%s %.0f", e.res, e.n))
	}
	return strings.Join(parts, ", ")
}

func find(results []Result, config, workload string) *Result {
	for i := range results {
		if results[i].Config == config && results[i].Workload == workload {
			return &results[i]
		}
	}
	return nil
}

func writeReport(dir string, results []Result, preempts []PreemptionResult, updates []UpdateResult, bringUp []BringUpResult, took time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Performance\n\nWritten by `make perf` on %s (%d CPUs, %s/%s) in %s. Absolute figures depend on the machine; the ratios against the default profile measured in the same run are the headline.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, took.Round(time.Second))
	fmt.Fprintf(&b, "## Scheduling throughput\n\nReal kube-apiserver and etcd; nodes are Node objects (8 GPUs each, no kubelet); every pod asks for 1 GPU. All pods exist before the scheduler starts, but in the workload \"created while the scheduler runs\", whose pods are created (in parallel) once the scheduler has bound a probe pod; throughput is measured between the first and the last bind as the watch delivers them. Each configuration and workload runs %d times on a fresh control plane, the configurations taking turns in a rotated order; the median run (by pods/s) is reported, with the slowest and fastest rates (the machine is shared by etcd, the API server, the harness and the scheduler). Gang times are from the scheduler's start (in the workload created while the scheduler runs: from the last member's creation) to the gang's last bind. Waste: GPU-seconds held by bound members of gangs that were never complete. API writes: the API server's mutating requests (its apiserver_request_total) from the scheduler's start until 3 s after its last write (so that the gang statuses still queued at the last bind count; lease renewals aside), when it is the only writer (the creations of a workload created while it runs are taken out), per bound pod (1 is the bind alone). The default and in-tree configurations run with kube-scheduler's own feature defaults; Phalanx with its own (NominatedNodeNameForExpectation off, see docs/architecture.md, \"One pass per gang\"). In the workloads of one gang, client-binds is no scheduler: once the pods exist, a client binds each to a node it picks, 128 at once (as many as Phalanx's binder); its rate is the API server's, the most a scheduler binding a whole gang from one decision can show between its first and last bind on this machine, and its gang time is from its first bind call.\n\n", max(*repeat, 1))
	b.WriteString("| workload | config | bound | pods/s (min–max) | × default | gang p50 | gang p90 | gang p99 | CPU s | × in-tree CPU | peak RSS MiB | incomplete gangs | waste GPU·s | API writes / pod |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		ratio, cpuRatio := "", ""
		if d := find(results, "default", r.Workload); d != nil && d.PodsPerSecond > 0 {
			ratio = fmt.Sprintf("%.2f", r.PodsPerSecond/d.PodsPerSecond)
		}
		if it := find(results, "in-tree", r.Workload); it != nil && it.CPUSeconds > 0 && strings.Contains(r.Workload, "gang") {
			cpuRatio = fmt.Sprintf("%.2f", r.CPUSeconds/it.CPUSeconds)
		}
		gang := func(d time.Duration) string {
			if d == 0 {
				return "-"
			}
			return d.Round(10 * time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %.1f (%.0f–%.0f) | %s | %s | %s | %s | %.1f | %s | %.0f | %d | %.1f | %.2f |\n",
			r.Workload, r.Config, r.Bound, r.Pods, r.PodsPerSecond, r.MinRate, r.MaxRate, ratio, gang(r.GangP50), gang(r.GangP90), gang(r.GangP99), r.CPUSeconds, cpuRatio, r.PeakRSSMiB, r.Incomplete, r.WasteGPUSeconds, r.WritesPerPod)
	}
	b.WriteString("\n![throughput](throughput.png)\n\n## Targets\n\n")
	for _, wl := range workloads() {
		p, d := find(results, "phalanx", wl.Name), find(results, "default", wl.Name)
		if p == nil || d == nil || d.PodsPerSecond == 0 {
			continue
		}
		switch {
		case wl.Gangs == 0:
			fmt.Fprintf(&b, "- %s: Phalanx %.2f × default (target ≥ 1.0): %s\n", wl.Name, p.PodsPerSecond/d.PodsPerSecond, verdict(p.PodsPerSecond >= d.PodsPerSecond))
		default:
			it := find(results, "in-tree", wl.Name)
			var parts []string
			parts = append(parts, fmt.Sprintf("Phalanx %.2f × default on the same pods (target ≥ 1.3): %s", p.PodsPerSecond/d.PodsPerSecond, verdict(p.PodsPerSecond >= 1.3*d.PodsPerSecond)))
			if it != nil && it.PodsPerSecond > 0 && it.CPUSeconds > 0 {
				parts = append(parts,
					fmt.Sprintf("%.2f × in-tree (target ≥ 2.0): %s", p.PodsPerSecond/it.PodsPerSecond, verdict(p.PodsPerSecond >= 2*it.PodsPerSecond)),
					fmt.Sprintf("CPU %.2f × in-tree (target ≤ 0.5): %s", p.CPUSeconds/it.CPUSeconds, verdict(p.CPUSeconds <= 0.5*it.CPUSeconds)))
			}
			if d.GangP99 > 0 {
				parts = append(parts, fmt.Sprintf("gang p99 %s, %.2f × default's (target ≤ 1.0): %s", p.GangP99.Round(10*time.Millisecond), float64(p.GangP99)/float64(d.GangP99), verdict(p.GangP99 <= d.GangP99)))
			}
			if c := find(results, "client-binds", wl.Name); c != nil && c.PodsPerSecond > 0 && it != nil {
				parts = append(parts, fmt.Sprintf("the API server's bind rate for the same pods (client-binds) %.0f pods/s: Phalanx binds at %.2f of it, in-tree at %.2f (2.0 × in-tree needs in-tree below 0.5 of it)",
					c.PodsPerSecond, p.PodsPerSecond/c.PodsPerSecond, it.PodsPerSecond/c.PodsPerSecond))
			}
			if wl.Gangs == 1 && wl.Arrive {
				parts = append(parts, fmt.Sprintf("the %d-pod gang placed %s after its last member existed (target ≤ 1.5s): %s", wl.GangSize, p.GangP99.Round(10*time.Millisecond), verdict(p.GangP99 <= 1500*time.Millisecond)))
			}
			parts = append(parts,
				fmt.Sprintf("waste %.1f GPU·s (target 0): %s", p.WasteGPUSeconds, verdict(p.WasteGPUSeconds == 0)),
				fmt.Sprintf("API writes %.2f per bound pod (target ≤ 1.1): %s (%s)", p.WritesPerPod, verdict(p.WritesPerPod <= 1.1), writesBreakdown(p)))
			fmt.Fprintf(&b, "- %s: %s\n", wl.Name, strings.Join(parts, "; "))
			if w := find(results, "phalanx-wl", wl.Name); w != nil && it != nil && it.PodsPerSecond > 0 && it.CPUSeconds > 0 {
				fmt.Fprintf(&b, "  - the same PodGroups (scheduling.k8s.io) under Phalanx: %.2f × in-tree; CPU %.2f × in-tree; waste %.1f GPU·s; API writes %.2f per bound pod\n",
					w.PodsPerSecond/it.PodsPerSecond, w.CPUSeconds/it.CPUSeconds, w.WasteGPUSeconds, w.WritesPerPod)
			}
		}
	}
	writePreemption(&b, preempts)
	b.WriteString(updateSection(updates, bringUp, "", 1))
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := plotThroughput(filepath.Join(dir, "throughput.png"), results); err != nil {
		return err
	}
	return plotCapacity(filepath.Join(dir, "capacity.png"), updates)
}

// updatesHeading starts the report's last section, the update costs (updateSection).
const updatesHeading = "\n## Updates\n"

// updateSection is the report's update section. note, when not empty, says when and how the
// section was measured apart from the rest of the report (make perf-updates); runs is how many
// runs each row is the median of.
func updateSection(updates []UpdateResult, bringUp []BringUpResult, note string, runs int) string {
	var b strings.Builder
	b.WriteString(updatesHeading + "\nThe seed design's strategies on 800 fake nodes (KWOK makes pods Ready), 100 PodCliqueSet replicas, Phalanx scheduler and controller in one process. Capacity is Ready pods of the PodCliqueSet; passes are controller passes that changed something. Step latency: from the member event that enables the update's next step (a member created, bound, Ready or gone) to the first write of the controller pass that takes it (phalanx_controller_step_latency_seconds).")
	if runs > 1 {
		fmt.Fprintf(&b, " Each row is the median of %d runs by time to complete (the fastest and slowest runs beside it).", runs)
	}
	if note != "" {
		b.WriteString(" " + note)
	}
	b.WriteString("\n\n| strategy | pods | time to complete | min Ready pods | min available replicas | peak extra GPUs | passes with actions | step latency p50 | p99 | steps |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, u := range updates {
		took := u.Duration.Round(100 * time.Millisecond).String()
		if u.Slowest > 0 {
			took += fmt.Sprintf(" (%s–%s)", u.Fastest.Round(100*time.Millisecond), u.Slowest.Round(100*time.Millisecond))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d (%.0f%%) | %d | %d | %d | %s | %s | %d |\n", u.Name, u.Pods, took, u.MinReady, 100*float64(u.MinReady)/float64(u.Pods), u.MinAvailable, u.PeakExtraGPUs, u.Passes,
			u.StepP50.Round(time.Millisecond), u.StepP99.Round(time.Millisecond), u.Steps)
	}
	b.WriteString("\nWhere the time of each median run went: the update's wall clock split by what was pending at each instant (a member created and not bound: the scheduler; bound and not Ready: the kubelet, KWOK here; deleted and not gone: termination; none of these: the controller, from the event it reacts to until its writes show), and the API server's mutating requests during the update by every writer (KWOK's node leases included).\n\n| strategy | scheduler | kubelet | termination | controller | API writes | largest |\n|---|---|---|---|---|---|---|\n")
	for _, u := range updates {
		w := u.Waiting
		r := func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
		total, largest := 0.0, formatWrites(u.Writes)
		for _, n := range u.Writes {
			total += n
		}
		if _, rest, ok := strings.Cut(largest, ": "); ok {
			largest = strings.Join(strings.Fields(rest)[:min(len(strings.Fields(rest)), 10)], " ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.0f | %s |\n", u.Name, r(w.Scheduler), r(w.Kubelet), r(w.Termination), r(w.Controller), total, largest)
	}
	if len(bringUp) > 0 {
		r, lo, hi := medianBringUp(bringUp)
		spread := ""
		if len(bringUp) > 1 {
			spread = fmt.Sprintf(" (%.2fx–%.2fx; median of %d)", lo, hi, len(bringUp))
		}
		fmt.Fprintf(&b, "\nBring-up: %d pods (PodCliqueSet replicas of a clique of 8 whole-node pods) on %d nodes, created by the controller at the binary's client defaults, %.0f pods/s from the PodCliqueSet's create to the last bind; the same gangs and pods created by a client, %.0f pods/s: **%.2fx**%s (target >= 0.9x: %s); at most %d created pods waited for a bind.\n",
			r.Pods, r.Nodes, r.Controller, r.Client, r.Ratio(), spread, verdict(r.Ratio() >= 0.9), r.Backlog)
	}
	b.WriteString("\n![capacity](capacity.png)\n")
	return b.String()
}

// medianUpdates is, per strategy, the run with the median time to complete, with the fastest
// and slowest times of all runs.
func medianUpdates(runs [][]UpdateResult) []UpdateResult {
	if len(runs) == 0 {
		return nil
	}
	var out []UpdateResult
	for i := range runs[0] {
		var same []UpdateResult
		for _, r := range runs {
			if i < len(r) {
				same = append(same, r[i])
			}
		}
		sort.Slice(same, func(a, b int) bool { return same[a].Duration < same[b].Duration })
		m := same[len(same)/2]
		m.Fastest, m.Slowest = same[0].Duration, same[len(same)-1].Duration
		out = append(out, m)
	}
	return out
}

// replaceUpdateSection rewrites the update section of the report in dir (the last section)
// and its capacity plot, leaving the rest as make perf wrote it.
func replaceUpdateSection(dir string, updates []UpdateResult, bringUp []BringUpResult, note string, runs int) error {
	path := filepath.Join(dir, "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the report to update: %w", err)
	}
	i := strings.Index(string(raw), updatesHeading)
	if i < 0 {
		return fmt.Errorf("%s has no %q section to replace", path, strings.TrimSpace(updatesHeading))
	}
	out := string(raw[:i]) + updateSection(updates, bringUp, note, runs)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return err
	}
	return plotCapacity(filepath.Join(dir, "capacity.png"), updates)
}

// writePreemption is the report's preemption section: the default profile's DefaultPreemption
// and Phalanx's gang-aware preemption on the same pods.
func writePreemption(b *strings.Builder, preempts []PreemptionResult) {
	if len(preempts) == 0 {
		return
	}
	wl := preemptionWorkload()
	fmt.Fprintf(b, "\n## Preemption\n\n%s: every pod asks for a whole 8-GPU node and every gang needs all %d members. The low-priority gangs are bound before the scheduler starts; the high-priority gangs fit only by preemption. One run per configuration (the figures are counts, not rates). Broken: a low gang left with some but not all of its members (below its minimum, holding GPUs that serve nothing). Waste: GPU-seconds held by the members of broken low gangs from the moment their gang broke, and by bound members of incomplete high gangs, until the run ended (when every high pod was bound, or 20 s passed without a bind or an eviction).\n\n", wl.Name, wl.GangSize)
	b.WriteString("| config | high pods bound | high gangs complete | time to place | pods evicted | low gangs evicted whole | low gangs broken | waste GPU·s | CPU s |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range preempts {
		fmt.Fprintf(b, "| %s | %d/%d | %d/%d | %s | %d | %d | %d | %.1f | %.1f |\n", r.Config, r.HighBound, r.HighPods, r.HighComplete, wl.HighGangs,
			r.Placed.Round(10*time.Millisecond), r.Evicted, r.LowWhole, r.LowBroken, r.WasteGPUSeconds, r.CPUSeconds)
	}
	for _, r := range preempts {
		if r.Config == "phalanx" {
			fmt.Fprintf(b, "\n- Target: Phalanx leaves 0 broken gangs: %d broken, %s; every high gang placed: %s.\n", r.LowBroken, verdict(r.LowBroken == 0), verdict(r.HighComplete == wl.HighGangs))
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

func plotThroughput(path string, results []Result) error {
	p := plot.New()
	p.Title.Text = "scheduling throughput (pods/s)"
	p.Y.Label.Text = "pods/s"
	var names []string
	for range workloads() {
		names = append(names, fmt.Sprintf("W%d", len(names)+1))
	}
	w := vg.Points(12)
	for i, cfg := range configs {
		if cfg.ClientBinds > 0 {
			continue // not a scheduler
		}
		var vals plotter.Values
		for _, wl := range workloads() {
			v := 0.0
			if r := find(results, cfg.Name, wl.Name); r != nil {
				v = r.PodsPerSecond
			}
			vals = append(vals, v)
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		bars.Offset = w * vg.Length(i-1)
		p.Add(bars)
		p.Legend.Add(cfg.Name, bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Label.Text = "workload (W1..Wn in the table's order)"
	return p.Save(9*vg.Inch, 4*vg.Inch, path)
}

func plotCapacity(path string, updates []UpdateResult) error {
	p := plot.New()
	p.Title.Text = "Ready pods during the update (share of desired)"
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = "Ready / desired"
	for i, u := range updates {
		pts := make(plotter.XYs, len(u.Timeline))
		for j, s := range u.Timeline {
			pts[j] = plotter.XY{X: s.At.Seconds(), Y: float64(s.Ready) / float64(u.Pods)}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		p.Add(l)
		p.Legend.Add(u.Name, l)
	}
	p.Legend.Top = true
	return p.Save(9*vg.Inch, 4*vg.Inch, path)
}
