// Package scripts tests the shell scripts under hack/ that cannot run here for real:
// hack/kind-up.sh needs a Docker engine, so its dry run is checked step by step, and every
// script passes shellcheck when it is installed.
package scripts

import (
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
	steps := []string{
		"+ kind create cluster --name phalanx",
		"+ docker build -f " + filepath.Join(r, "hack", "Dockerfile") + " -t phalanx-scheduler:dev",
		"+ kind load docker-image phalanx-scheduler:dev --name phalanx",
		"kwok/releases/download/v0.8.0/kwok.yaml",
		"kwok/releases/download/v0.8.0/stage-fast.yaml",
		"apply --server-side -k " + filepath.Join(r, "hack", "kind"),
		"rollout status deployment/phalanx-scheduler",
		"+ env PHALANX_E2E_KUBECONFIG=" + filepath.Join(r, ".run", "kind", "kubeconfig") + " go test",
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

// The kind overlay is manifests/ with the locally built image.
func TestKindOverlay(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	out, err := exec.Command(kubectl, "kustomize", filepath.Join(root(t), "hack", "kind")).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize hack/kind: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "image: phalanx-scheduler:dev") || strings.Contains(string(out), "ghcr.io/phalanx-sched") {
		t.Errorf("the overlay does not swap the image:\n%s", out)
	}
}
