package framework

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/component-base/configz"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"github.com/phalanx-sched/phalanx/pkg/scheduler"
)

// StartScheduler runs phalanx-scheduler in this process against the shared control plane, with
// the default configuration (or config, when given), until the end of the test.
func (e *Env) StartScheduler(t testing.TB, config []byte) {
	t.Helper()
	if config == nil {
		var err error
		if config, err = scheduler.DefaultConfig(scheduler.ConfigOptions{Kubeconfig: e.Cluster.Kubeconfig}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(path, config, 0o600); err != nil {
		t.Fatal(err)
	}
	opts := options.NewOptions()
	fs := pflag.NewFlagSet("phalanx-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	// No serving endpoints in tests: secure-port 0 disables them (and their authn/authz).
	setVerbosity.Do(func() {
		var kfs flag.FlagSet
		klog.InitFlags(&kfs)
		_ = kfs.Set("v", schedulerVerbosity())
	})
	if err := fs.Parse([]string{"--config=" + path, "--secure-port=0"}); err != nil {
		t.Fatal(err)
	}
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cc, sched, err := app.Setup(ctx, opts, scheduler.RegistryOptions()...)
	if err != nil {
		cancel()
		t.Fatalf("setting up phalanx-scheduler: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = app.Run(ctx, cc, sched)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("phalanx-scheduler did not stop within 30s")
		}
		// app.Run registers the configz endpoint once per process; the next scheduler of
		// this test binary registers it again.
		configz.Delete("componentconfig")
	})
}

var setVerbosity sync.Once

// schedulerVerbosity is the klog level of in-process schedulers: PHALANX_TEST_V, default 2.
func schedulerVerbosity() string {
	if v := os.Getenv("PHALANX_TEST_V"); v != "" {
		return v
	}
	return "2"
}
