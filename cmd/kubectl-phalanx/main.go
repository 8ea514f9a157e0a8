// Command kubectl-phalanx is a kubectl plugin (kubectl phalanx ...) that answers three
// questions from the API: where a PodCliqueSet's rollout is and why it waits (status), what
// an update will do before it is applied (plan), and why a pod is not scheduled (why).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/handoff"
	"github.com/phalanx-sched/phalanx/pkg/inspect"
	"github.com/phalanx-sched/phalanx/pkg/version"
)

func main() {
	// The in-memory controller and scheduler framework of `plan` log through klog; a CLI
	// reports through its output and its error instead.
	klog.SetLogger(logr.Discard())
	if err := newRoot(os.Stdout).Execute(); err != nil {
		os.Exit(1)
	}
}

type options struct {
	loading   *clientcmd.ClientConfigLoadingRules
	overrides *clientcmd.ConfigOverrides
	output    string
	color     string
	out       io.Writer
}

func newRoot(out io.Writer) *cobra.Command {
	o := &options{loading: clientcmd.NewDefaultClientConfigLoadingRules(), overrides: &clientcmd.ConfigOverrides{}, out: out}
	root := &cobra.Command{
		Use:           "kubectl-phalanx",
		Short:         "Gangs, rollouts and update plans of Phalanx PodCliqueSets",
		SilenceUsage:  true,
		Version:       version.String("kubectl-phalanx"),
		SilenceErrors: false,
	}
	root.SetOut(out)
	fs := root.PersistentFlags()
	fs.StringVar(&o.loading.ExplicitPath, "kubeconfig", "", "path to the kubeconfig file")
	clientcmd.BindOverrideFlags(o.overrides, fs, clientcmd.RecommendedConfigOverrideFlags(""))
	fs.StringVarP(&o.output, "output", "o", "", "output format: json (default: a tree)")
	fs.StringVar(&o.color, "color", "auto", "colour: auto (on a terminal), always or never")
	root.AddCommand(o.statusCmd(), o.whyCmd(), o.planCmd(), o.rolloutCmd(), o.handbackCmd())
	return root
}

// podCliqueSet resolves arg (pcs/NAME) and the clients and namespace of the current context.
func (o *options) podCliqueSet(arg string) (string, kubernetes.Interface, versioned.Interface, string, error) {
	name, err := target(arg, "pcs", "podcliqueset", "podcliquesets")
	if err != nil {
		return "", nil, nil, "", err
	}
	kube, client, ns, err := o.clients()
	return name, kube, client, ns, err
}

func (o *options) clients() (kubernetes.Interface, versioned.Interface, string, error) {
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(o.loading, o.overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, nil, "", err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, "", err
	}
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, nil, "", err
	}
	return kube, client, ns, nil
}

func (o *options) palette() inspect.Palette {
	switch o.color {
	case "always":
		return inspect.Colors
	case "never":
		return inspect.Palette{}
	}
	if f, ok := o.out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return inspect.Colors
	}
	return inspect.Palette{}
}

// target reads "kind/name" (or a bare name) for the kinds a command accepts.
func target(arg string, kinds ...string) (string, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		return arg, nil
	}
	for _, k := range kinds {
		if strings.EqualFold(kind, k) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%q: expected %s/NAME", arg, kinds[0])
}

func (o *options) printJSON(v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(o.out, string(raw))
	return err
}

func (o *options) checkOutput() error {
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("--output %q: only json is supported", o.output)
	}
	return nil
}

func (o *options) statusCmd() *cobra.Command {
	var hold time.Duration
	cmd := &cobra.Command{
		Use:   "status {pcs/NAME | podgroup/NAME}",
		Short: "The tree PodCliqueSet -> replicas -> gangs -> pods, the update's progress and what waits; or where an upstream scheduling.k8s.io PodGroup stands",
		Example: "  kubectl phalanx status pcs/multinode-disaggregated-inference\n  kubectl phalanx status pcs/NAME -o json\n" +
			"  kubectl phalanx status podgroup/NAME   (a scheduling.k8s.io/v1beta1 PodGroup of the Workload API)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput(); err != nil {
				return err
			}
			if group, err := target(args[0], "podgroup", "podgroups", "podgroups.scheduling.k8s.io"); err == nil && strings.Contains(args[0], "/") {
				return o.podGroupStatus(cmd.Context(), group)
			}
			name, err := target(args[0], "pcs", "podcliqueset", "podcliquesets")
			if err != nil {
				return fmt.Errorf("%q: expected pcs/NAME or podgroup/NAME", args[0])
			}
			kube, client, ns, err := o.clients()
			if err != nil {
				return err
			}
			st, err := inspect.Load(cmd.Context(), kube, client, ns, name)
			if err != nil {
				return err
			}
			tree := inspect.BuildStatus(st, time.Now(), hold)
			if o.output == "json" {
				return o.printJSON(tree)
			}
			inspect.RenderStatus(o.out, tree, o.palette())
			return nil
		},
	}
	cmd.Flags().DurationVar(&hold, "reservation-hold", 120*time.Second, "the scheduler's reservationHoldSeconds: a replacement hold younger than this is shown")
	return cmd
}

func (o *options) rolloutCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout {history|undo} pcs/NAME",
		Short: "The template history of a PodCliqueSet (ControllerRevisions), and rolling back to an earlier template",
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "history pcs/NAME",
		Short:   "The revisions of the PodCliqueSet's template, oldest first: which one it moves to, the last complete one",
		Example: "  kubectl phalanx rollout history pcs/multinode-disaggregated-inference",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput(); err != nil {
				return err
			}
			name, kube, client, ns, err := o.podCliqueSet(args[0])
			if err != nil {
				return err
			}
			pcs, revs, _, err := inspect.LoadHistory(cmd.Context(), kube, client, ns, name)
			if err != nil {
				return err
			}
			if o.output == "json" {
				return o.printJSON(revs)
			}
			inspect.RenderHistory(o.out, pcs, revs)
			return nil
		},
	})
	var to int64
	undo := &cobra.Command{
		Use:   "undo pcs/NAME [--to-revision N]",
		Short: "Set the template back to an earlier revision (default: the one before the current); the controller rolls to it with the PodCliqueSet's own strategy and budgets",
		Example: "  kubectl phalanx rollout undo pcs/multinode-disaggregated-inference\n" +
			"  kubectl phalanx rollout undo pcs/multinode-disaggregated-inference --to-revision 2",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, kube, client, ns, err := o.podCliqueSet(args[0])
			if err != nil {
				return err
			}
			rev, err := inspect.Undo(cmd.Context(), kube, client, ns, name, to)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.out, "podcliqueset/%s rolled back to revision %d\n", name, rev)
			return nil
		},
	}
	undo.Flags().Int64Var(&to, "to-revision", 0, "the revision to roll back to (0: the one before the current)")
	cmd.AddCommand(undo)
	return cmd
}

func (o *options) handbackCmd() *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "handback pcs/NAME [--to OPERATOR]",
		Short: "Hand a PodCliqueSet that Phalanx's controller adopted (--adopt-from) back to the operator it came from, every pod kept; run Phalanx without --adopt-from first",
		Example: "  kubectl phalanx handback pcs/multinode-disaggregated-inference\n" +
			"  kubectl phalanx handback pcs/multinode-disaggregated-inference --to grove-operator",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, kube, client, ns, err := o.podCliqueSet(args[0])
			if err != nil {
				return err
			}
			r, err := handoff.Handback(cmd.Context(), kube, client, ns, name, to)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.out, "podcliqueset/%s %s\n", name, r)
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the operator (its app.kubernetes.io/managed-by value) to hand the set to; default: the one it was adopted from")
	return cmd
}

// podGroupStatus prints where an upstream PodGroup stands.
func (o *options) podGroupStatus(ctx context.Context, name string) error {
	kube, _, ns, err := o.clients()
	if err != nil {
		return err
	}
	pg, members, err := inspect.LoadPodGroup(ctx, kube, ns, name)
	if err != nil {
		return err
	}
	st := inspect.BuildPodGroupStatus(pg, members)
	if o.output == "json" {
		return o.printJSON(st)
	}
	inspect.RenderPodGroupStatus(o.out, st, o.palette())
	return nil
}

func (o *options) whyCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "why pod/NAME",
		Short:   "The pod's gang, its quorum, and what it waits for",
		Example: "  kubectl phalanx why pod/multinode-disaggregated-inference-0-prefill-2-prefill-worker-1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput(); err != nil {
				return err
			}
			name, err := target(args[0], "pod", "pods", "po")
			if err != nil {
				return err
			}
			kube, client, ns, err := o.clients()
			if err != nil {
				return err
			}
			w, err := inspect.LoadWhy(cmd.Context(), kube, client, ns, name)
			if err != nil {
				return err
			}
			if o.output == "json" {
				return o.printJSON(w)
			}
			inspect.RenderWhy(o.out, w, o.palette())
			return nil
		},
	}
}

func (o *options) planCmd() *cobra.Command {
	var file, image, png string
	var passes int
	cmd := &cobra.Command{
		Use:   "plan {-f new.yaml | pcs/NAME --image IMAGE}",
		Short: "The steps an update would take on the live cluster, without changing anything",
		Long: `plan runs the PodCliqueSet controller itself against an in-memory copy of the live
PodCliqueSet, its pods and gangs, and the cluster's nodes and other pods, with the new spec
applied. Pods that fit are bound and Ready at once in the copy (the same surge admission check
the scheduler runs decides whether each surge fits). It prints each step, the lowest capacity
during the update and the surge used, or where the update would stop.`,
		Example: "  kubectl phalanx plan -f new.yaml\n  kubectl phalanx plan pcs/NAME --image registry.example.com/llm/inference:v2 --png capacity.png",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.checkOutput(); err != nil {
				return err
			}
			kube, client, ns, err := o.clients()
			if err != nil {
				return err
			}
			var spec *grovev1.PodCliqueSetSpec
			var name string
			switch {
			case file != "" && len(args) == 0:
				raw, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				pcs := &grovev1.PodCliqueSet{}
				if err := yaml.UnmarshalStrict(raw, pcs); err != nil {
					return fmt.Errorf("%s: %w", file, err)
				}
				name, spec = pcs.Name, &pcs.Spec
				if pcs.Namespace != "" {
					ns = pcs.Namespace
				}
			case file == "" && len(args) == 1 && image != "":
				if name, err = target(args[0], "pcs", "podcliqueset", "podcliquesets"); err != nil {
					return err
				}
			default:
				return fmt.Errorf("give -f new.yaml, or pcs/NAME with --image")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Minute)
			defer cancel()
			world, err := inspect.LoadWorld(ctx, kube, client, ns, name)
			if err != nil {
				return err
			}
			if spec == nil {
				s := world.PCS.Spec.DeepCopy()
				for i := range s.Template.Cliques {
					for j := range s.Template.Cliques[i].Spec.PodSpec.Containers {
						s.Template.Cliques[i].Spec.PodSpec.Containers[j].Image = image
					}
				}
				spec = s
			}
			profile, err := inspect.Profile()
			if err != nil {
				return err
			}
			pv, err := inspect.PlanUpdate(ctx, kube, profile, world, *spec, passes)
			if err != nil {
				return err
			}
			if png != "" {
				if err := inspect.PlotCapacity(pv, png); err != nil {
					return err
				}
			}
			if o.output == "json" {
				return o.printJSON(pv)
			}
			inspect.RenderPlan(o.out, pv, o.palette())
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "the PodCliqueSet as it would be applied")
	cmd.Flags().StringVar(&image, "image", "", "set every container of every clique to this image")
	cmd.Flags().StringVar(&png, "png", "", "also draw capacity over the steps into this PNG file")
	cmd.Flags().IntVar(&passes, "max-passes", 500, "give up after this many controller passes")
	return cmd
}
