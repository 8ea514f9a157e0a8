package localcluster

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestFreePortBelowEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	for range 20 {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if low-10000 >= 1000 && port >= low {
			t.Fatalf("FreePort() = %d, in the ephemeral range (from %d)", port, low)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("FreePort() = %d, not bindable: %v", port, err)
		}
		_ = l.Close()
	}
}

func TestFailureNamesATakenPort(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &process{name: "kube-apiserver", pidFile: filepath.Join(dir, "kube-apiserver.pid")}
	write := func(log string) {
		if err := os.WriteFile(p.logPath(), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`E1205 run.go:72] "command failed" err="failed to create listener: listen tcp 127.0.0.1:38157: bind: address already in use"` + "\n")
	if err := p.failure(); !errors.Is(err, errPortTaken) {
		t.Errorf("failure() = %v, want errPortTaken", err)
	}
	write(`E1205 run.go:72] "command failed" err="bad flag"` + "\n")
	if err := p.failure(); errors.Is(err, errPortTaken) {
		t.Errorf("failure() = %v, want no errPortTaken for another failure", err)
	}
}
