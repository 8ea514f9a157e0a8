// Command runcwrap is an OCI runtime for dockerd on machines whose capability bounding set
// lacks capabilities Docker grants a privileged container (seen here: a VM without
// CAP_SYS_RESOURCE; every `docker run --privileged`, so every kind node, fails with "unable to
// apply caps: operation not permitted"). It removes from a container's config.json the
// capabilities the machine cannot grant, then runs runc with the same arguments.
//
// hack/kind/docker.sh installs it as dockerd's default runtime only on such machines. Docker
// engines from 23.0 grant a privileged container the capabilities the daemon has, which makes it
// unnecessary.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// capNames are the Linux capabilities by number (linux/capability.h).
var capNames = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
	"CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
	"CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
}

func main() {
	runc, err := realRunc()
	if err != nil {
		fail(err)
	}
	if bundle, ok := bundleOf(os.Args[1:]); ok {
		if err := dropUngrantable(filepath.Join(bundle, "config.json"), true); err != nil {
			fail(err)
		}
	}
	if process, ok := processOf(os.Args[1:]); ok {
		if err := dropUngrantable(process, false); err != nil {
			fail(err)
		}
	}
	if err := syscall.Exec(runc, append([]string{runc}, os.Args[1:]...), os.Environ()); err != nil {
		fail(fmt.Errorf("exec %s: %w", runc, err))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "runcwrap:", err)
	os.Exit(1)
}

// realRunc is the runc on PATH that is not this program.
func realRunc() (string, error) {
	self, _ := os.Executable()
	for _, dir := range append(filepath.SplitList(os.Getenv("PATH")), "/usr/sbin", "/usr/bin", "/usr/local/sbin") {
		p := filepath.Join(dir, "runc")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && p != self {
			return p, nil
		}
	}
	return "", fmt.Errorf("no runc found on PATH")
}

// bundleOf returns the bundle directory of a create or run command.
func bundleOf(args []string) (string, bool) {
	cmd := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case cmd == "" && (a == "create" || a == "run"):
			cmd = a
		case cmd != "" && (a == "--bundle" || a == "-b") && i+1 < len(args):
			return args[i+1], true
		case cmd != "" && strings.HasPrefix(a, "--bundle="):
			return strings.TrimPrefix(a, "--bundle="), true
		}
	}
	if cmd != "" {
		wd, err := os.Getwd()
		return wd, err == nil
	}
	return "", false
}

// processOf returns the process file of an exec command (`docker exec --privileged`).
func processOf(args []string) (string, bool) {
	exec := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !exec && a == "exec":
			exec = true
		case exec && (a == "--process" || a == "-p") && i+1 < len(args):
			return args[i+1], true
		case exec && strings.HasPrefix(a, "--process="):
			return strings.TrimPrefix(a, "--process="), true
		}
	}
	return "", false
}

// dropUngrantable removes, from every capability set of a process, the capabilities outside
// this process's bounding set: of the process of a bundle's config.json (inBundle), or of a
// process file of runc exec.
func dropUngrantable(path string, inBundle bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	bound, err := boundingSet()
	if err != nil {
		return err
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	proc := spec
	if inBundle {
		proc, _ = spec["process"].(map[string]any)
	}
	caps, _ := proc["capabilities"].(map[string]any)
	if caps == nil {
		return nil
	}
	changed := false
	for set, v := range caps {
		list, _ := v.([]any)
		kept := list[:0]
		for _, c := range list {
			if name, _ := c.(string); name != "" && !bound[name] {
				changed = true
				continue
			}
			kept = append(kept, c)
		}
		caps[set] = kept
	}
	if !changed {
		return nil
	}
	out, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// boundingSet reads CapBnd of /proc/self/status as capability names.
func boundingSet() (map[string]bool, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("CapBnd %q: %w", v, err)
			}
			out := map[string]bool{}
			for i, n := range capNames {
				if mask&(1<<uint(i)) != 0 {
					out[n] = true
				}
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no CapBnd in /proc/self/status")
}
