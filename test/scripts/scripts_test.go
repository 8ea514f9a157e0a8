// Package scripts tests the shell scripts under hack/ that cannot run here for real:
// hack/kind-up.sh needs a Docker engine, so its dry run is checked step by step, and every
// script passes shellcheck when it is installed.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
)

func root(t *testing.T) string {
	t.Helper()
	r, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// kind-up.sh --dry-run prints, in order, every step of the real run.
func TestKindUpDryRun(t *testing.T) {
	r := root(t)
	out, err := exec.Command(filepath.Join(r, "hack", "kind-up.sh"), "--dry-run").CombinedOutput()
	if err != nil {
		t.Fatalf("kind-up.sh --dry-run: %v\n%s", err, out)
	}
	bin := filepath.Join(r, "bin")
	steps := []string{
		"+ " + filepath.Join(r, "hack", "kind", "docker.sh"),
		"+ " + filepath.Join(r, "hack", "kind", "node-image.sh"),
		"image IMAGE=phalanx.local/phalanx-scheduler:",
		"kind: Cluster",
		"phalanx.dev/kind-gpu",
		"+ " + filepath.Join(bin, "kind") + " create cluster --name phalanx --image phalanx.local/kind-node:",
		"+ " + filepath.Join(bin, "kind") + " load docker-image --name phalanx phalanx.local/phalanx-scheduler:",
		"apply --server-side --force-conflicts -k " + filepath.Join(r, ".run", "kind", "overlay"),
		"rollout status daemonset/fakegpu",
		"rollout status deployment/phalanx-scheduler",
		"+ env PHALANX_E2E_KUBECONFIG=" + filepath.Join(r, ".run", "kind", "kubeconfig") + " PHALANX_E2E_KIND=phalanx",
	}
	text := string(out)
	at := 0
	for _, s := range steps {
		i := strings.Index(text[at:], s)
		if i < 0 {
			t.Fatalf("step %q missing or out of order in:\n%s", s, text)
		}
		at += i + len(s)
	}
	noTest, err := exec.Command(filepath.Join(r, "hack", "kind-up.sh"), "--dry-run", "--no-test").CombinedOutput()
	if err != nil || strings.Contains(string(noTest), "go test") {
		t.Errorf("--no-test still runs the suite (err %v):\n%s", err, noTest)
	}
	if strings.Contains(text, "-run ") {
		t.Errorf("the full run selects tests:\n%s", text)
	}
	real, err := exec.Command(filepath.Join(r, "hack", "kind-up.sh"), "--dry-run", "--real-only").CombinedOutput()
	if err != nil || !strings.Contains(string(real), "-run ^TestKind "+filepath.Join(r, "test", "e2e")) {
		t.Errorf("--real-only does not run just the real-cluster tests (err %v):\n%s", err, real)
	}
	smoke, err := exec.Command(filepath.Join(r, "hack", "kind-up.sh"), "--dry-run", "--smoke").CombinedOutput()
	if err != nil || !strings.Contains(string(smoke), "-run ^TestKind(NodesAdvertiseGPUs|RollingUpdateProbesAndGrace)$ "+filepath.Join(r, "test", "e2e")) {
		t.Errorf("--smoke does not run just the smoke tests (err %v):\n%s", err, smoke)
	}
	ci, err := os.ReadFile(filepath.Join(r, ".ci", "run"))
	if err != nil || !strings.Contains(string(ci), "make test\n") || !strings.Contains(string(ci), "make test-kind ARGS=--smoke") {
		t.Errorf(".ci/run does not run make test and the kind smoke test (err %v):\n%s", err, ci)
	}
	bad, err := exec.Command(filepath.Join(r, "hack", "kind-up.sh"), "--frobnicate").CombinedOutput()
	if err == nil || !strings.Contains(string(bad), "unknown argument: --frobnicate") {
		t.Errorf("an unknown flag: err %v, %s", err, bad)
	}
}

// Every script passes shellcheck (skipped where shellcheck is not installed; make verify says so).
func TestShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck not installed")
	}
	r := root(t)
	scripts, _ := filepath.Glob(filepath.Join(r, "hack", "*.sh"))
	scripts = append(scripts, filepath.Join(r, ".ci", "run"))
	if out, err := exec.Command(sc, scripts...).CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// hack/kind is manifests/ with the kind cluster's parts: the fake GPU device plugin, KWOK for fake
// nodes only, and Phalanx allowed on the GPU workers (hack/kind-up.sh sets the images it built).
func TestKindOverlay(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		kubectl = filepath.Join(root(t), "bin", "node", "kubectl") // make kind-binaries
		if _, err := os.Stat(kubectl); err != nil {
			t.Skip("kubectl not installed (nor bin/node/kubectl)")
		}
	}
	out, err := exec.Command(kubectl, "kustomize", filepath.Join(root(t), "hack", "kind")).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize hack/kind: %v\n%s", err, out)
	}
	for _, want := range []string{"name: fakegpu", "key: phalanx.dev/kind-gpu", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake", "name: phalanx-scheduler",
		"- key: phalanx.dev/fake-node\n                operator: DoesNotExist"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("hack/kind renders without %q:\n%s", want, out)
		}
	}
}
