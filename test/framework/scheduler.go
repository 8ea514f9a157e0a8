package framework

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/pkg/admission"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	"github.com/phalanx-sched/phalanx/pkg/server"
)

// Phalanx configures an in-process phalanx-scheduler.
type Phalanx struct {
	// Config is a KubeSchedulerConfiguration; nil renders the default one for this cluster.
	Config []byte
	// Controller also runs the PodCliqueSet controller under the scheduler's lease.
	Controller bool
	// Configure may set test hooks on the controller.
	Configure func(*controller.Controller)
	// Webhooks serves the PodCliqueSet webhooks on a free local port and registers them with
	// the API server for namespaces labelled WebhookNamespaceLabel=true (failurePolicy Fail:
	// while the process is stopped, PodCliqueSet writes there are refused). The
	// configurations are removed at the end of the test.
	Webhooks bool
	// ReservationHold overrides the PodGang plugin's reservationHoldSeconds (default config only).
	ReservationHold time.Duration
	// ExtraHold overrides the PodGang plugin's extraHoldSeconds (default config only).
	ExtraHold time.Duration
	// SchedulerNames are the profiles of the default config (one Phalanx profile each; empty:
	// phalanx-scheduler alone).
	SchedulerNames []string
	// KAIEventProfiles sets the PodGang plugin's kaiEventProfiles (default config only).
	KAIEventProfiles []string
	// ControllerOptions, when set, replace the tests' controller options (2 workers, QPS 100,
	// burst 200), e.g. with server.DefaultControllerOptions() to measure the binary's defaults.
	ControllerOptions *server.ControllerOptions
	// PluginArgs adds, to every profile of the default config, plugin name -> args (JSON).
	PluginArgs map[string]string
	// PlainPodSearch leaves pods of no gang to kube-scheduler's own search
	// (--plain-pod-plans=false).
	PlainPodSearch bool
	// Extenders adds scheduler extenders to the default config.
	Extenders []configv1.Extender
}

// WebhookNamespaceLabel marks the namespaces that the test webhooks serve.
const WebhookNamespaceLabel = "phalanx.dev/test-webhooks"

// StartScheduler runs phalanx-scheduler (the scheduler alone) in this process against the
// shared control plane, with the default configuration (or config, when given), until the end
// of the test.
func (e *Env) StartScheduler(t testing.TB, config []byte) {
	t.Helper()
	e.StartPhalanx(t, Phalanx{Config: config})
}

// StartPhalanx runs phalanx-scheduler in this process as the binary does (server.Run), as
// manifests/' ServiceAccount (with the default config), until the end of the test or until the
// returned stop function is called.
func (e *Env) StartPhalanx(t testing.TB, p Phalanx) (stop func()) {
	t.Helper()
	config := p.Config
	if config == nil {
		var err error
		if config, err = scheduler.DefaultConfig(scheduler.ConfigOptions{Kubeconfig: e.phalanxKubeconfig(), ReservationHold: p.ReservationHold, ExtraHold: p.ExtraHold,
			SchedulerNames: p.SchedulerNames, KAIEventProfiles: p.KAIEventProfiles}); err != nil {
			t.Fatal(err)
		}
		if config, err = withPluginArgs(config, p.PluginArgs); err != nil {
			t.Fatal(err)
		}
		if config, err = withExtenders(config, p.Extenders); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(path, config, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := scheduler.ApplyFeatureDefaults(); err != nil {
		t.Fatal(err)
	}
	opts := options.NewOptions()
	fs := pflag.NewFlagSet("phalanx-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	setVerbosity.Do(func() {
		var kfs flag.FlagSet
		klog.InitFlags(&kfs)
		_ = kfs.Set("v", schedulerVerbosity())
		// PHALANX_TEST_VMODULE raises the verbosity of some files only (for example
		// steps=4 for the controller's step log without the scheduler's V(4) lines).
		if vm := os.Getenv("PHALANX_TEST_VMODULE"); vm != "" {
			_ = kfs.Set("vmodule", vm)
		}
		// kube-scheduler code exits the process on states it cannot continue from (a corrupted
		// cache); in process that ends the whole test binary with no test marked failed.
		klog.OsExit = func(code int) {
			fmt.Fprintf(os.Stderr, "FATAL: klog.FlushAndExit(%d) called by the in-process phalanx-scheduler (a Deployment would restart it); the test binary stops here, see the log lines above\n", code)
			os.Exit(code)
		}
	})
	// No serving endpoints in tests: secure-port 0 disables them (and their authn/authz).
	if err := fs.Parse([]string{"--config=" + path, "--secure-port=0"}); err != nil {
		t.Fatal(err)
	}
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gangs := gangplugin.NewRuntime() // this instance's own: two instances in one test share nothing
	cc, sched, err := server.Setup(ctx, opts, server.SetupOptions{Runtime: gangs, PlainPodSearch: p.PlainPodSearch}, scheduler.RegistryOptions(gangs)...)
	if err != nil {
		cancel()
		t.Fatalf("setting up phalanx-scheduler: %v", err)
	}
	if p.Webhooks {
		port, err := localcluster.FreePort()
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		// The webhooks register their configurations (manifests/deploy/webhook.yaml creates
		// them in a cluster, and the ServiceAccount may only update those): admin client.
		if err := admission.RunWebhooks(ctx, e.Kube, admission.WebhookOptions{
			BindAddress: "127.0.0.1", Port: port, URL: fmt.Sprintf("https://127.0.0.1:%d", port),
			Secret: "kube-system/phalanx-webhook-tls", Configuration: "phalanx",
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{WebhookNamespaceLabel: "true"}},
		}); err != nil {
			cancel()
			t.Fatalf("starting the webhooks: %v", err)
		}
		t.Cleanup(func() {
			ctx := context.Background()
			_ = e.Kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, "phalanx", metav1.DeleteOptions{})
			_ = e.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, "phalanx", metav1.DeleteOptions{})
		})
	}
	var tasks []server.LeaderTask
	if p.Controller {
		opts := server.ControllerOptions{Workers: 2, QPS: 100, Burst: 200}
		if p.ControllerOptions != nil {
			opts = *p.ControllerOptions
		}
		task, err := server.ControllerTask(cc, sched, gangs, opts, p.Configure)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		switch err := server.Run(ctx, cc, sched, gangs, tasks...); {
		case errors.Is(err, server.ErrLostLease):
			t.Errorf("phalanx-scheduler lost its lease unexpectedly")
		case err != nil && ctx.Err() == nil:
			// A scheduler that stops on its own would leave every later wait to time out
			// without a word.
			t.Errorf("phalanx-scheduler stopped: %v", err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Errorf("phalanx-scheduler did not stop within 30s")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

var setVerbosity sync.Once

// schedulerVerbosity is the klog level of in-process schedulers: PHALANX_TEST_V, default 2.
func schedulerVerbosity() string {
	if v := os.Getenv("PHALANX_TEST_V"); v != "" {
		return v
	}
	return "2"
}

// withPluginArgs adds args (plugin name -> JSON) to every profile of config.
func withPluginArgs(config []byte, args map[string]string) ([]byte, error) {
	if len(args) == 0 {
		return config, nil
	}
	return editConfig(config, func(cfg *configv1.KubeSchedulerConfiguration) {
		for i := range cfg.Profiles {
			for _, name := range slices.Sorted(maps.Keys(args)) {
				cfg.Profiles[i].PluginConfig = append(cfg.Profiles[i].PluginConfig, configv1.PluginConfig{Name: name, Args: runtime.RawExtension{Raw: []byte(args[name])}})
			}
		}
	})
}

// withExtenders adds extenders to a rendered configuration.
func withExtenders(config []byte, extenders []configv1.Extender) ([]byte, error) {
	if len(extenders) == 0 {
		return config, nil
	}
	return editConfig(config, func(cfg *configv1.KubeSchedulerConfiguration) { cfg.Extenders = append(cfg.Extenders, extenders...) })
}

// editConfig reads a rendered configuration, lets edit change it and renders it again.
func editConfig(config []byte, edit func(*configv1.KubeSchedulerConfiguration)) ([]byte, error) {
	cfg := configv1.KubeSchedulerConfiguration{}
	if err := yaml.UnmarshalStrict(config, &cfg); err != nil {
		return nil, fmt.Errorf("reading the default config: %w", err)
	}
	edit(&cfg)
	return yaml.Marshal(&cfg)
}
