package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test run this binary's main in a child process (PHALANX_TEST_MAIN=1).
func TestMain(m *testing.M) {
	if os.Getenv("PHALANX_TEST_MAIN") == "1" {
		os.Args = append([]string{"phalanx-scheduler"}, strings.Fields(os.Getenv("PHALANX_TEST_ARGS"))...)
		main()
	}
	os.Exit(m.Run())
}

// runMain runs main with args in a child process whose temporary directory is tmp.
func runMain(t *testing.T, tmp string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PHALANX_TEST_MAIN=1", "PHALANX_TEST_ARGS="+strings.Join(args, " "), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The built-in configuration is written to a private temporary directory for --config; it
// must not outlive start-up, whether start-up succeeds or fails.
func TestDefaultConfigNotLeft(t *testing.T) {
	tmp := t.TempDir()
	kubeconfig := filepath.Join(tmp, "missing-kubeconfig")
	out, err := runMain(t, tmp, "--kubeconfig="+kubeconfig, "--leader-elect=false", "--webhook-port=0")
	if err == nil {
		t.Fatalf("phalanx-scheduler with a missing kubeconfig exited 0:\n%s", out)
	}
	if !strings.Contains(out, "missing-kubeconfig") {
		t.Fatalf("the start-up error does not name the kubeconfig:\n%s", out)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "phalanx-scheduler-*"))
	if len(left) > 0 {
		t.Fatalf("the default configuration was left behind: %v", left)
	}
}

func TestVersion(t *testing.T) {
	out, err := runMain(t, t.TempDir(), "--version")
	if err != nil || !strings.HasPrefix(out, "phalanx-scheduler ") {
		t.Fatalf("--version = %q, %v", out, err)
	}
}
