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
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	timeout := flag.Duration("timeout", 3*time.Minute, "how long to wait for each phase")
	image := flag.String("update-image-tag", "v2", "after bring-up, roll every clique to this image tag (empty: no update)")
	flag.Parse()
	if err := run(*kubeconfig, *sample, *timeout, *image); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(kubeconfig, sample string, timeout time.Duration, tag string) error {
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
			if tag == "" {
				return nil
			}
			return rollout(ctx, kube, client, cur, tag)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not available after %s (see the PodGang conditions above)", pcs.Name, timeout)
		case <-tick.C:
		}
	}
}

// rollout sets every clique's image tag and prints the update as it happens: surge members,
// replacements, available replicas, until the PodCliqueSet reports UpdateComplete.
func rollout(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, pcs *grovev1.PodCliqueSet, tag string) error {
	upd := pcs.DeepCopy()
	for i := range upd.Spec.Template.Cliques {
		c := &upd.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0]
		if at := strings.LastIndex(c.Image, ":"); at > 0 {
			c.Image = c.Image[:at+1] + tag
		}
	}
	if _, err := client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating the image: %w", err)
	}
	fmt.Printf("\nrolling %s to image tag %s (scaling groups: maxSurge 1, maxUnavailable 0; frontend: maxUnavailable 1)\n", pcs.Name, tag)
	start := time.Now()
	desiredPods := podsOf(pcs)
	minAvail, minReady, maxPods, surgeSeen := pcs.Spec.Replicas, desiredPods, 0, 0
	last := ""
	seen := map[types.UID]string{}
	scheduled := map[types.UID]bool{}
	prefix := pcs.Name + "-"
	first := true
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		cur, err := client.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Get(ctx, pcs.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		pods, err := kube.CoreV1().Pods(pcs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelPodCliqueSet + "=" + pcs.Name})
		if err != nil {
			return err
		}
		gangs, err := client.SchedulerV1alpha1().PodGangs(pcs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelPodCliqueSet + "=" + pcs.Name})
		if err != nil {
			return err
		}
		// What changed since the last look: pods created and deleted, gangs placed.
		var created, deleted, placed []string
		now := map[types.UID]string{}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			name := strings.TrimPrefix(p.Name, prefix)
			if p.Labels[grovev1.LabelSurge] == "true" || isSurgeGroupReplica(p, cur) {
				name += "(surge)"
			}
			now[p.UID] = name
			if _, ok := seen[p.UID]; !ok && !first {
				created = append(created, name)
			}
		}
		for uid, name := range seen {
			if _, ok := now[uid]; !ok {
				deleted = append(deleted, name)
			}
		}
		seen = now
		for _, g := range gangs.Items {
			ok := meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionScheduled)
			if ok && !scheduled[g.UID] && !first {
				placed = append(placed, strings.TrimPrefix(g.Name, prefix))
			}
			scheduled[g.UID] = ok
		}
		first = false
		newPods, surge, terminating, ready := 0, 0, 0, 0
		for _, p := range pods.Items {
			if podReady(p) {
				ready++
			}
			if strings.HasSuffix(p.Spec.Containers[0].Image, ":"+tag) {
				newPods++
			}
			if p.DeletionTimestamp != nil {
				terminating++
			}
			if p.Labels[grovev1.LabelSurge] == "true" || isSurgeGroupReplica(p, cur) {
				surge++
			}
		}
		minAvail = min(minAvail, cur.Status.AvailableReplicas)
		minReady = min(minReady, ready)
		maxPods = max(maxPods, len(pods.Items))
		surgeSeen = max(surgeSeen, surge)
		reason := "waiting for the controller"
		if c := meta.FindStatusCondition(cur.Status.Conditions, grovev1.ConditionProgressing); c != nil &&
			cur.Status.ObservedGeneration != nil && *cur.Status.ObservedGeneration == cur.Generation {
			reason = c.Reason
		}
		state := fmt.Sprintf("available %d/%d, %d pods (%d Ready, %d on %s, %d surge), %s",
			cur.Status.AvailableReplicas, cur.Spec.Replicas, len(pods.Items), ready, newPods, tag, surge, reason)
		var step []string
		if len(created) > 0 {
			step = append(step, "created "+names(created))
		}
		if len(deleted) > 0 {
			step = append(step, "deleted "+names(deleted))
		}
		if len(placed) > 0 {
			step = append(step, "placed gang "+names(placed))
		}
		if len(step) > 0 || state != last {
			line := state
			if len(step) > 0 {
				line = strings.Join(step, "; ") + "  |  " + state
			}
			fmt.Printf("%6.2fs  %s\n", time.Since(start).Seconds(), line)
			last = state
		}
		line := state
		if reason == "UpdateComplete" && newPods == len(pods.Items) && cur.Status.AvailableReplicas == cur.Spec.Replicas {
			fmt.Printf("\nsummary: update to %s done in %.1fs; Ready pods never below %d of %d (capacity); at most %d pods, %d of them surge;\n"+
				"         replicas available (every clique and scaling group at its minAvailable, surge members serving): never below %d of %d\n",
				tag, time.Since(start).Seconds(), minReady, desiredPods, maxPods, surgeSeen, minAvail, cur.Spec.Replicas)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("update not complete: %s", line)
		case <-tick.C:
		}
	}
}

// names lists a few names, sorted, and how many more there are.
func names(l []string) string {
	sort.Strings(l)
	if len(l) > 4 {
		return fmt.Sprintf("%s +%d more", strings.Join(l[:4], " "), len(l)-4)
	}
	return strings.Join(l, " ")
}

// podsOf is the number of pods a PodCliqueSet has at rest.
func podsOf(pcs *grovev1.PodCliqueSet) int {
	perClique := map[string]int{}
	for _, c := range pcs.Spec.Template.Cliques {
		perClique[c.Name] = int(c.Spec.Replicas)
	}
	n := 0
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		replicas := 1
		if g.Replicas != nil {
			replicas = int(*g.Replicas)
		}
		for _, c := range g.CliqueNames {
			n += replicas * perClique[c]
			delete(perClique, c)
		}
	}
	for _, r := range perClique {
		n += r
	}
	return n * int(pcs.Spec.Replicas)
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil
		}
	}
	return false
}

// isSurgeGroupReplica reports whether the pod belongs to a scaling-group replica at or above
// the group's replicas.
func isSurgeGroupReplica(p corev1.Pod, pcs *grovev1.PodCliqueSet) bool {
	idx, err := strconv.Atoi(p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex])
	if err != nil {
		return false
	}
	for _, g := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		if strings.HasSuffix(p.Labels[grovev1.LabelPodCliqueScalingGroup], "-"+g.Name) && g.Replicas != nil && idx >= int(*g.Replicas) {
			return true
		}
	}
	return false
}
