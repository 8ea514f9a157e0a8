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
// instead of exiting. On an older API server it also says which framework informers it turned
// off (make test-compat).
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
	// On an API server without resource.k8s.io/v1 DeviceTaintRules (1.34-1.36) the
	// framework's informer of them is turned off and said once; with it, nothing is said.
	taintRules := serves(env, "resource.k8s.io/v1", "devicetaintrules")
	said := strings.Count(log(), `"The API server does not serve an API a feature gate needs; the gate is off for this process" featureGate="DRADeviceTaintRules"`)
	if want := map[bool]int{true: 0, false: 1}[taintRules]; said != want {
		t.Errorf("server serves devicetaintrules: %v; the log says DRADeviceTaintRules is off %d times, want %d:\n%s", taintRules, said, want, log())
	}
	// The upstream Workload API (scheduling.k8s.io/v1beta1, off by default on 1.37, absent
	// before): its plugin says once that the kind is not served.
	workloadAPI := serves(env, "scheduling.k8s.io/v1beta1", "podgroups")
	said = strings.Count(log(), `"The API server does not serve this gang kind; its pods wait until it does" plugin="WorkloadPodGroup"`)
	if want := map[bool]int{true: 0, false: 1}[workloadAPI]; said != want {
		t.Errorf("server serves scheduling.k8s.io/v1beta1 podgroups: %v; the log says the kind is not served %d times, want %d", workloadAPI, said, want)
	}
	_ = ctx
}

// serves reports whether the API server's discovery lists resource in groupVersion.
func serves(env *framework.Env, groupVersion, resource string) bool {
	list, err := env.Kube.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		return false
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return true
		}
	}
	return false
}
