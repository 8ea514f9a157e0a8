// Command phalanx-scheduler is a kube-scheduler with the Phalanx gang-scheduling plugins and,
// under the same leader lease, the PodCliqueSet controller.
//
// Without --config it runs the default configuration of pkg/scheduler: one profile named
// phalanx-scheduler with the Phalanx plugins enabled. --kubeconfig and --leader-elect are
// honoured in that case too (kube-scheduler ignores --kubeconfig once a config file is given).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version/verflag"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"github.com/phalanx-sched/phalanx/pkg/admission"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	phalanxserver "github.com/phalanx-sched/phalanx/pkg/server"
	"github.com/phalanx-sched/phalanx/pkg/version"
)

func main() {
	args := os.Args[1:]
	if v := flagValue(args, "version"); v != nil && *v != "false" {
		fmt.Println(version.String("phalanx-scheduler"))
		os.Exit(0)
	}
	if flagValue(args, "config") != nil && flagValue(args, "scheduler-names") != nil {
		fmt.Fprintln(os.Stderr, "phalanx-scheduler: --scheduler-names applies to the built-in configuration; with --config, give each name its own profile in that file (docs/operations.md)")
		os.Exit(1)
	}
	if flagValue(args, "config") == nil && flagValue(args, "help") == nil && flagValue(args, "h") == nil {
		path, err := writeDefaultConfig(args)
		if err != nil {
			fmt.Fprintf(os.Stderr, "phalanx-scheduler: %v\n", err)
			os.Exit(1)
		}
		args = append(args, "--config="+path)
	}
	if err := scheduler.ApplyFeatureDefaults(); err != nil {
		fmt.Fprintf(os.Stderr, "phalanx-scheduler: %v\n", err)
		os.Exit(1)
	}
	cmd := newCommand()
	cmd.SetArgs(args)
	code := cli.Run(cmd)
	removeDefaultConfig() // when start-up failed before run could remove it
	os.Exit(code)
}

// defaultConfigDir is the private directory writeDefaultConfig made, "" when none.
var defaultConfigDir string

// removeDefaultConfig removes what writeDefaultConfig wrote. The scheduler reads its
// configuration once, in app.Setup, so run removes it right after; nothing is left in the
// temporary directory even when the process is later killed.
func removeDefaultConfig() {
	if defaultConfigDir != "" {
		_ = os.RemoveAll(defaultConfigDir)
		defaultConfigDir = ""
	}
}

var (
	controllerOpts   = phalanxserver.DefaultControllerOptions()
	releaseLostAfter = controller.DefaultReleaseLostMembersAfter
	adoptFrom        []string
	setup            phalanxserver.SetupOptions
	plainPodPlans    = true // --plain-pod-plans; setup.PlainPodSearch is its negation
	webhooks         = admission.WebhookOptions{
		BindAddress:   "0.0.0.0",
		Port:          9443,
		Secret:        "phalanx-system/phalanx-webhook-tls",
		Service:       "phalanx-system/phalanx-webhook",
		Configuration: "phalanx",
	}
)

// newCommand is kube-scheduler's command with Phalanx's run: the scheduler and the
// controller under one leader lease.
func newCommand() *cobra.Command {
	opts := options.NewOptions()
	cmd := &cobra.Command{
		Use: "phalanx-scheduler",
		Long: `phalanx-scheduler is a kube-scheduler with gang-scheduling plugins for PodGangs
(scheduler.grove.io) and PodGroups (scheduling.x-k8s.io) that understand surge members and
base-versus-scaled gating, and the PodCliqueSet controller, which runs only while this process
holds the scheduler's leader lease. Pods opt in with schedulerName: phalanx-scheduler.

Without --config it runs a built-in configuration with one profile named phalanx-scheduler
(--scheduler-names adds others); --kubeconfig and --leader-elect apply to it.`,
		PersistentPreRunE: func(*cobra.Command, []string) error { return opts.ComponentGlobalsRegistry.Set() },
		RunE:              func(cmd *cobra.Command, _ []string) error { return run(cmd, opts) },
		Args:              cobra.NoArgs,
	}
	nfs := opts.Flags
	verflag.AddFlags(nfs.FlagSet("global"))
	globalflag.AddGlobalFlags(nfs.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	pfs := nfs.FlagSet("phalanx")
	pfs.StringSlice("scheduler-names", []string{scheduler.SchedulerName}, "built-in configuration only: the spec.schedulerName values Phalanx serves, one identical profile each (e.g. phalanx-scheduler,lpx-scheduler to stand in for Grove's lpx backend)")
	pfs.BoolVar(&setup.MemberScheduledEvents, "member-scheduled-events", false, "also write kube-scheduler's per-pod Scheduled event for gang members placed with their gang's quorum (by default the gang's own Scheduled event names them and their nodes: one API write less per member)")
	pfs.BoolVar(&setup.MemberCycles, "member-cycles", false, "place every gang member in a scheduling cycle of its own, as kube-scheduler does (by default the members a gang's one-pass plan placed are assumed and sent to binding from the cycle that planned them: the gang leaves the queue once)")
	pfs.BoolVar(&plainPodPlans, "plain-pod-plans", plainPodPlans, "place a pod of no gang with the profile's planner, which keeps the Filter verdicts of pods alike on nodes that did not change since (its cycle then checks the one node found); false: kube-scheduler's own search for every such pod")
	pfs.IntVar(&controllerOpts.Workers, "controller-workers", controllerOpts.Workers, "PodCliqueSets reconciled in parallel; 0 runs the scheduler alone (no PodCliqueSet controller, e.g. beside Grove's operator)")
	pfs.Float32Var(&controllerOpts.QPS, "controller-kube-api-qps", controllerOpts.QPS, "queries per second of the PodCliqueSet controller's own API client (separate from the scheduler's --kube-api-qps, so that a large bring-up does not slow binds)")
	pfs.IntVar(&controllerOpts.Burst, "controller-kube-api-burst", controllerOpts.Burst, "burst of the PodCliqueSet controller's own API client")
	pfs.DurationVar(&releaseLostAfter, "release-lost-members-after", releaseLostAfter, "how long after its deletion deadline a PodCliqueSet pod still terminating on a node that is not Ready (kubelet gone) is removed so that its index is recreated elsewhere; negative: never (it waits for the node, the pod garbage collector or an administrator)")
	pfs.StringSliceVar(&adoptFrom, "adopt-from", nil, "operators (values of app.kubernetes.io/managed-by, e.g. grove-operator) whose PodCliqueSets the controller takes over in place, every pod kept; only once that operator is stopped (docs/operations.md, \"Moving between Grove's operator and Phalanx\"). Without it such sets are left alone, with a ManagedByAnotherOperator event")
	pfs.IntVar(&webhooks.Port, "webhook-port", webhooks.Port, "HTTPS port of the PodCliqueSet defaulting and validating webhooks (served by every replica, leader or not); 0 disables them")
	pfs.StringVar(&webhooks.BindAddress, "webhook-bind-address", webhooks.BindAddress, "address the webhook server listens on")
	pfs.StringVar(&webhooks.CertDir, "webhook-cert-dir", webhooks.CertDir, "directory with tls.crt and tls.key for the webhook server (e.g. a cert-manager Secret); empty: a self-managed certificate kept in --webhook-secret")
	pfs.StringVar(&webhooks.Secret, "webhook-secret", webhooks.Secret, "namespace/name of the Secret that keeps the self-managed webhook certificate")
	pfs.StringVar(&webhooks.Service, "webhook-service", webhooks.Service, "namespace/name of the Service in front of the webhook server (names in the self-managed certificate)")
	pfs.StringVar(&webhooks.Configuration, "webhook-configuration", webhooks.Configuration, "name of the Mutating- and ValidatingWebhookConfiguration whose caBundle the self-managed certificate is written to")
	pfs.StringVar(&webhooks.URL, "webhook-url", webhooks.URL, "register the webhook configurations with this base URL instead of the Service (local control planes, e.g. https://127.0.0.1:9443)")
	for _, f := range nfs.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, *nfs, cols)
	return cmd
}

func run(cmd *cobra.Command, opts *options.Options) error {
	fg := opts.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(opts.Logs, fg); err != nil {
		return err
	}
	cliflag.PrintFlags(cmd.Flags())
	for _, m := range adoptFrom {
		if m == "" {
			return errors.New("--adopt-from: an empty operator name")
		}
		if errs := validation.IsValidLabelValue(m); len(errs) > 0 {
			return fmt.Errorf("--adopt-from %q: not a value of app.kubernetes.io/managed-by: %s", m, strings.Join(errs, "; "))
		}
	}
	if opts.InformerName == nil {
		name, err := cache.NewInformerName("phalanx-scheduler")
		if err != nil {
			return err
		}
		opts.InformerName = name
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-server.SetupSignalHandler()
		cancel()
	}()
	gangs := gangplugin.NewRuntime() // what this scheduler's gang plugins share
	setup.Runtime = gangs
	setup.PlainPodSearch = !plainPodPlans
	cc, sched, err := phalanxserver.Setup(ctx, opts, setup, scheduler.RegistryOptions(gangs)...)
	removeDefaultConfig()
	if err != nil {
		return err
	}
	if err := admission.RunWebhooksWhenReady(ctx, cc.Client, webhooks, 30*time.Second); err != nil {
		return fmt.Errorf("starting the webhooks: %w", err)
	}
	var tasks []phalanxserver.LeaderTask
	if controllerOpts.Workers > 0 {
		ctrl, err := phalanxserver.ControllerTask(cc, sched, gangs, controllerOpts, func(c *controller.Controller) {
			c.SetReleaseLostMembersAfter(releaseLostAfter)
			c.SetAdoptFrom(adoptFrom...)
		})
		if err != nil {
			return err
		}
		tasks = append(tasks, ctrl)
	}
	err = phalanxserver.Run(ctx, cc, sched, gangs, tasks...)
	if errors.Is(err, phalanxserver.ErrLostLease) {
		// Exit at once, as kube-scheduler does: a process without the lease must not act.
		return err
	}
	return err
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
	if v := flagValue(args, "scheduler-names"); v != nil {
		o.SchedulerNames = strings.Split(*v, ",")
	}
	raw, err := scheduler.DefaultConfig(o)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "phalanx-scheduler-")
	if err != nil {
		return "", fmt.Errorf("writing the default configuration: %w", err)
	}
	defaultConfigDir = dir
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
