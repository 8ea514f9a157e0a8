// Command demo is the show of `make run`: it applies a PodCliqueSet sample to the local control
// plane and prints, one line per change, how phalanx-scheduler and its controller bring it up
// (PodGangs scheduled, pods bound, replicas available), then a summary.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the local control plane")
	sample := flag.String("sample", filepath.Join("manifests", "samples", "disaggregated.yaml"), "PodCliqueSet to apply")
	timeout := flag.Duration("timeout", 3*time.Minute, "how long to wait for the PodCliqueSet to become available")
	flag.Parse()
	if err := run(*kubeconfig, *sample, *timeout); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(kubeconfig, sample string, timeout time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(sample)
	if err != nil {
		return err
	}
	pcs := &grovev1.PodCliqueSet{}
	if err := yaml.UnmarshalStrict(raw, pcs); err != nil {
		return fmt.Errorf("%s: %w", sample, err)
	}
	if pcs.Namespace == "" {
		pcs.Namespace = "default"
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	if _, err := client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Create(ctx, pcs, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		fmt.Printf("PodCliqueSet %s/%s exists already; watching it\n", pcs.Namespace, pcs.Name)
	} else if err != nil {
		return fmt.Errorf("applying %s: %w", sample, err)
	} else {
		fmt.Printf("applied PodCliqueSet %s/%s (%d replicas)\n", pcs.Namespace, pcs.Name, pcs.Spec.Replicas)
	}
	seen := map[string]string{}
	say := func(key, line string) {
		if seen[key] != line {
			seen[key] = line
			fmt.Printf("%6.2fs  %s\n", time.Since(start).Seconds(), line)
		}
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		gangs, err := client.SchedulerV1alpha1().PodGangs(pcs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelPodCliqueSet + "=" + pcs.Name})
		if err != nil {
			return err
		}
		sort.Slice(gangs.Items, func(i, j int) bool { return gangs.Items[i].Name < gangs.Items[j].Name })
		for _, g := range gangs.Items {
			kind := "base"
			if g.Labels[grovev1.LabelBasePodGang] != "" {
				kind = "scaled"
			}
			state := "created"
			if meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionScheduled) {
				state = "established (quorum bound)"
			} else if c := meta.FindStatusCondition(g.Status.Conditions, schedv1.ConditionUnschedulable); c != nil && c.Status == metav1.ConditionTrue {
				state = "waiting: " + c.Reason + ": " + c.Message
			}
			say("gang/"+g.Name, fmt.Sprintf("PodGang %-48s %-6s %s", g.Name, kind, state))
		}
		pods, err := kube.CoreV1().Pods(pcs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelPodCliqueSet + "=" + pcs.Name})
		if err != nil {
			return err
		}
		bound, running := 0, 0
		nodes := map[string]bool{}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				bound++
				nodes[p.Spec.NodeName] = true
			}
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		say("pods", fmt.Sprintf("pods: %d created, %d bound on %d nodes, %d Running", len(pods.Items), bound, len(nodes), running))
		cur, err := client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Get(ctx, pcs.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		say("pcs", fmt.Sprintf("PodCliqueSet %s: %d/%d replicas available", cur.Name, cur.Status.AvailableReplicas, cur.Spec.Replicas))
		if cur.Status.AvailableReplicas >= cur.Spec.Replicas && len(pods.Items) > 0 && running == len(pods.Items) {
			fmt.Printf("\nsummary: %s available in %.1fs: %d PodGangs, %d pods on %d fake GPU nodes\n",
				cur.Name, time.Since(start).Seconds(), len(gangs.Items), len(pods.Items), len(nodes))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not available after %s (see the PodGang conditions above)", pcs.Name, timeout)
		case <-tick.C:
		}
	}
}
