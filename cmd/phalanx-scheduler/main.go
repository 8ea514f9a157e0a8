// Command phalanx-scheduler is a kube-scheduler with the Phalanx gang-scheduling plugins.
//
// Without --config it runs the default configuration of pkg/scheduler: one profile named
// phalanx-scheduler with the Phalanx plugins enabled. --kubeconfig and --leader-elect are
// honoured in that case too (kube-scheduler ignores --kubeconfig once a config file is given).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/version"
)

func main() {
	args := os.Args[1:]
	if v := flagValue(args, "version"); v != nil && *v != "false" {
		fmt.Println(version.String("phalanx-scheduler"))
		os.Exit(0)
	}
	if flagValue(args, "config") == nil && flagValue(args, "help") == nil && flagValue(args, "h") == nil {
		path, err := writeDefaultConfig(args)
		if err != nil {
			fmt.Fprintf(os.Stderr, "phalanx-scheduler: %v\n", err)
			os.Exit(1)
		}
		args = append(args, "--config="+path)
	}
	cmd := app.NewSchedulerCommand(scheduler.RegistryOptions()...)
	cmd.Use = "phalanx-scheduler"
	cmd.Long = `phalanx-scheduler is a kube-scheduler with gang-scheduling plugins for PodGangs
(scheduler.grove.io) and PodGroups (scheduling.x-k8s.io) that understand surge members and
base-versus-scaled gating. Pods opt in with schedulerName: phalanx-scheduler.

Without --config it runs a built-in configuration with one profile named phalanx-scheduler;
--kubeconfig and --leader-elect apply to it.`
	cmd.SetArgs(args)
	os.Exit(cli.Run(cmd))
}

// writeDefaultConfig renders the built-in configuration, with --kubeconfig and --leader-elect
// from the command line, into a private file that --config can read.
func writeDefaultConfig(args []string) (string, error) {
	o := scheduler.ConfigOptions{}
	if v := flagValue(args, "kubeconfig"); v != nil {
		o.Kubeconfig = *v
	}
	if v := flagValue(args, "leader-elect"); v != nil {
		o.LeaderElect = *v == "" || *v == "true"
	}
	raw, err := scheduler.DefaultConfig(o)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "phalanx-scheduler-")
	if err != nil {
		return "", fmt.Errorf("writing the default configuration: %w", err)
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return "", fmt.Errorf("writing the default configuration: %w", err)
	}
	return path, nil
}

// flagValue returns the value of --name or -name ("" for a bare flag), or nil when absent.
func flagValue(args []string, name string) *string {
	for i, a := range args {
		if a == "--" {
			return nil
		}
		for _, prefix := range []string{"--", "-"} {
			if a == prefix+name {
				v := ""
				if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && name != "version" && name != "help" && name != "h" && name != "leader-elect" {
					v = args[i+1]
				}
				return &v
			}
			if strings.HasPrefix(a, prefix+name+"=") {
				v := strings.TrimPrefix(a, prefix+name+"=")
				return &v
			}
		}
	}
	return nil
}
