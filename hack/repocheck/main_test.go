package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root, name string, data []byte) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	root := t.TempDir()
	write(t, root, "pkg/a.go", []byte("package a\n"))
	write(t, root, "docs/MZ.md", []byte("MZ is text here, not a program\n"))
	write(t, root, "phalanx-scheduler", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...))
	write(t, root, "hack/tool", []byte{0xcf, 0xfa, 0xed, 0xfe, 0, 0})
	write(t, root, "test/big.json", make([]byte, MaxFileBytes+1))
	write(t, root, "test/limit.json", make([]byte, MaxFileBytes))
	files := []string{"pkg/a.go", "docs/MZ.md", "phalanx-scheduler", "hack/tool", "test/big.json", "test/limit.json", "pkg/deleted.go"}

	got, err := check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"phalanx-scheduler: a compiled ELF binary is tracked",
		"hack/tool: a compiled Mach-O binary is tracked",
		"test/big.json: 5242881 bytes, over the 5242880-byte limit",
		"phalanx-scheduler: outside the repository layout",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

func TestCheckCleanTree(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", []byte("module x\n"))
	write(t, root, ".ci/run", []byte("#!/bin/sh\nmake test\n"))
	got, err := check(root, []string{"go.mod", ".ci/run"})
	if err != nil || len(got) != 0 {
		t.Fatalf("check on a clean tree = %v, %v; want no problems", got, err)
	}
}
