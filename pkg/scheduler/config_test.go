package scheduler

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/podgang"
)

// The default configuration goes through kube-scheduler's own loader: PodGang args are
// decoded and defaulted, PodGang is the only queue-sort plugin, leader election follows the
// options.
func TestDefaultConfigLoads(t *testing.T) {
	raw, err := DefaultConfig(ConfigOptions{Kubeconfig: "/tmp/kc", LeaderElect: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), path)
	if err != nil {
		t.Fatalf("kube-scheduler refuses the default configuration: %v", err)
	}
	if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != SchedulerName {
		t.Fatalf("profiles = %+v", cfg.Profiles)
	}
	if !cfg.LeaderElection.LeaderElect || cfg.LeaderElection.ResourceName != SchedulerName || cfg.ClientConnection.Kubeconfig != "/tmp/kc" {
		t.Errorf("leader election %+v, kubeconfig %q", cfg.LeaderElection, cfg.ClientConnection.Kubeconfig)
	}
	prof := cfg.Profiles[0]
	if qs := prof.Plugins.QueueSort.Enabled; len(qs) != 1 || qs[0].Name != podgang.Name {
		t.Errorf("queueSort = %+v, want only %s", qs, podgang.Name)
	}
	var args *config.PodGangArgs
	for _, pc := range prof.PluginConfig {
		if pc.Name == podgang.Name {
			args, _ = pc.Args.(*config.PodGangArgs)
		}
	}
	if args == nil || args.PermitWaitingTimeSeconds == nil || *args.PermitWaitingTimeSeconds != config.DefaultPermitWaitingTimeSeconds {
		t.Fatalf("PodGang args not decoded and defaulted: %+v", args)
	}
	found := false
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		found = found || (p.Name == podgang.Name && p.Weight == 3)
	}
	if !found {
		t.Errorf("PodGang not enabled at every extension point (multiPoint): %+v", prof.Plugins.MultiPoint.Enabled)
	}
}
