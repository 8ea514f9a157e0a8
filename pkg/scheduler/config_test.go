package scheduler

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
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
	order := map[string]int{}
	for i, p := range prof.Plugins.MultiPoint.Enabled {
		order[p.Name] = i + 1
	}
	if order[gangdra.Name] == 0 || order[gangdra.Name] > order[podgang.Name] {
		t.Errorf("multiPoint %v: %s must come before %s (DynamicResources' PostFilter needs its PreFilter's state)", prof.Plugins.MultiPoint.Enabled, gangdra.Name, podgang.Name)
	}
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

// The configuration shipped in manifests/deploy/config.yaml loads with kube-scheduler's own
// loader, with both Phalanx plugins' args decoded.
func TestDeployedConfigLoads(t *testing.T) {
	cfg := loadShipped(t, "deploy")
	if !cfg.LeaderElection.LeaderElect || cfg.Profiles[0].SchedulerName != SchedulerName {
		t.Errorf("leader election %v, profile %q", cfg.LeaderElection.LeaderElect, cfg.Profiles[0].SchedulerName)
	}
	found := 0
	for _, pc := range cfg.Profiles[0].PluginConfig {
		switch pc.Args.(type) {
		case *config.PodGangArgs, *config.PodGroupArgs, *config.WorkloadPodGroupArgs:
			found++
		}
	}
	if found != 3 {
		t.Errorf("%d Phalanx plugin args decoded, want 3", found)
	}
}

// Every shipped profile turns off what the built-in profile turns off (DefaultPreemption
// would take gang members one by one; kube-scheduler's own gang plugins would handle the
// WorkloadPodGroup plugin's pods twice), and the full deployment enables every gang plugin
// the built-in profile enables. Checked on the configuration as kube-scheduler loads it.
func TestShippedConfigsMatchProfile(t *testing.T) {
	for _, variant := range []string{"deploy", "scheduler-only"} {
		for _, prof := range loadShipped(t, variant).Profiles {
			enabled := map[string]bool{}
			for _, p := range prof.Plugins.PostFilter.Enabled {
				enabled[p.Name] = true
			}
			at := map[string]int{}
			for i, p := range prof.Plugins.MultiPoint.Enabled {
				enabled[p.Name] = true
				at[p.Name] = i
			}
			// DynamicResources' PostFilter needs the state its PreFilter writes, and a gang
			// plugin's PreFilter that refuses a gang ends the phase: GangDynamicResources first
			// (DynamicResources' own place in kube-scheduler's order).
			if i, ok := at[gangdra.Name]; ok {
				for _, g := range []string{"PodGang", "PodGroup", "WorkloadPodGroup"} {
					if j, has := at[g]; has && j < i {
						t.Errorf("manifests/%s profile %s: %s comes before %s", variant, prof.SchedulerName, g, gangdra.Name)
					}
				}
			}
			for _, d := range disabledPlugins() {
				if enabled[d.Name] {
					t.Errorf("manifests/%s profile %s: %s is enabled; the Phalanx profile disables it", variant, prof.SchedulerName, d.Name)
				}
			}
			if variant != "deploy" {
				continue
			}
			for _, e := range enabledPlugins() {
				if !enabled[e.Name] {
					t.Errorf("manifests/%s profile %s: %s is not enabled", variant, prof.SchedulerName, e.Name)
				}
			}
		}
	}
}

// --scheduler-names: one identical Phalanx profile per name, refused with the flag's name and
// the reason for a name that is not a DNS subdomain, is default-scheduler, or is repeated.
func TestDefaultConfigSchedulerNames(t *testing.T) {
	raw, err := DefaultConfig(ConfigOptions{SchedulerNames: []string{"phalanx-scheduler", "lpx-scheduler"}, ReservationHold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var cfg configv1.KubeSchedulerConfiguration
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Profiles) != 2 || *cfg.Profiles[0].SchedulerName != "phalanx-scheduler" || *cfg.Profiles[1].SchedulerName != "lpx-scheduler" {
		t.Fatalf("profiles %+v", cfg.Profiles)
	}
	if !reflect.DeepEqual(cfg.Profiles[0].Plugins, cfg.Profiles[1].Plugins) || !reflect.DeepEqual(cfg.Profiles[0].PluginConfig, cfg.Profiles[1].PluginConfig) {
		t.Error("the profiles differ beyond their names")
	}
	for names, want := range map[string]string{
		"a,Bad_Name":                          `--scheduler-names[1] "Bad_Name": a lowercase RFC 1123 subdomain`,
		"phalanx-scheduler,default-scheduler": `--scheduler-names[1] "default-scheduler": the default scheduler's pods are not Phalanx's to schedule`,
		"x,x":                                 `--scheduler-names[1] "x": listed twice`,
	} {
		_, err := DefaultConfig(ConfigOptions{SchedulerNames: strings.Split(names, ",")})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", names, err, want)
		}
	}
}

// manifests/scheduler-only/config.yaml loads too: a phalanx-scheduler and an lpx-scheduler
// profile (Grove's lpx backend name), each with the PodGang plugin and its args.
func TestSchedulerOnlyConfigLoads(t *testing.T) {
	cfg := loadShipped(t, "scheduler-only")
	var names []string
	for _, p := range cfg.Profiles {
		names = append(names, p.SchedulerName)
		args := 0
		for _, pc := range p.PluginConfig {
			if _, ok := pc.Args.(*config.PodGangArgs); ok {
				args++
			}
		}
		if args != 1 {
			t.Errorf("profile %s: PodGang args decoded %d times, want 1", p.SchedulerName, args)
		}
	}
	if strings.Join(names, ",") != "phalanx-scheduler,lpx-scheduler" {
		t.Errorf("profiles %v, want phalanx-scheduler and lpx-scheduler", names)
	}
}

// loadShipped loads the KubeSchedulerConfiguration of manifests/<variant>/config.yaml's
// ConfigMap with kube-scheduler's own loader.
func loadShipped(t *testing.T, variant string) *schedconfig.KubeSchedulerConfiguration {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", variant, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cm.Data["config.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), path)
	if err != nil {
		t.Fatalf("the configuration of manifests/%s does not load: %v", variant, err)
	}
	return cfg
}
