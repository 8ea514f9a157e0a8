package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// phalanx-scheduler against a cluster where manifests/ were never applied (no phalanx-system
// namespace, no webhook configuration): it starts, schedules, and says what the webhooks lack
// instead of exiting.
func TestSchedulerStartsWithoutManifests(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("bare", 1, 8))
	bin := filepath.Join(env.Root, "bin", "phalanx-scheduler")
	if d := os.Getenv("PHALANX_BIN_DIR"); d != "" {
		bin = filepath.Join(d, "phalanx-scheduler")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: %v (make build; make test-integration builds it)", bin, err)
	}
	secure, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	webhook, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "phalanx-scheduler.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--kubeconfig="+env.Kubeconfig, "--leader-elect=false", "--v=2",
		fmt.Sprintf("--secure-port=%d", secure), "--bind-address=127.0.0.1",
		fmt.Sprintf("--webhook-port=%d", webhook), "--webhook-bind-address=127.0.0.1", "--controller-workers=0")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); _ = logFile.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	log := func() string { raw, _ := os.ReadFile(logPath); return string(raw) }

	env.CreatePods(t, gpuPod(ns, "bare", 8))
	framework.Eventually(t, wait, "the pod bound by the phalanx-scheduler process", func(ctx context.Context) (bool, error) {
		select {
		case err := <-exited:
			exited <- err
			return false, framework.Terminal(fmt.Errorf("phalanx-scheduler exited (%v); its log:\n%s", err, log()))
		default:
		}
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "bare", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	if l := log(); !strings.Contains(l, "PodCliqueSet webhooks are not served") || !strings.Contains(l, "apply manifests/") {
		t.Errorf("the log does not say what the webhooks lack:\n%s", l)
	}
	_ = ctx
}
