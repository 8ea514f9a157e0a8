// Package inspect answers the operators' questions from the API alone: where a PodCliqueSet's
// rollout is and why it waits (Status), why a pod is not scheduled (Why), and what an update
// will do (Plan, in plan.go). Loading talks to the API server; building the answer and
// rendering it are pure functions, so the output is golden-tested. kubectl-phalanx is the
// thin command around it.
package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// State is what the API says about one PodCliqueSet.
type State struct {
	PCS   *grovev1.PodCliqueSet
	Gangs []schedv1.PodGang
	Pods  []corev1.Pod
}

// Load reads a PodCliqueSet, its PodGangs and its pods.
func Load(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, namespace, name string) (*State, error) {
	pcs, err := client.GroveV1alpha1().PodCliqueSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading PodCliqueSet %s/%s: %w", namespace, name, err)
	}
	sel := labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: name}).String()
	gangs, err := client.SchedulerV1alpha1().PodGangs(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("listing the PodGangs of %s: %w", name, err)
	}
	pods, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s: %w", name, err)
	}
	return &State{PCS: pcs, Gangs: gangs.Items, Pods: pods.Items}, nil
}

// Status is the tree PodCliqueSet -> replicas -> gangs -> pods, with the update's progress
// and what waits for what. It is also the JSON of `kubectl phalanx status -o json`.
type Status struct {
	Namespace  string      `json:"namespace"`
	Name       string      `json:"name"`
	Strategy   string      `json:"strategy"`
	Revision   string      `json:"revision"`
	Replicas   int32       `json:"replicas"`
	Available  int32       `json:"availableReplicas"`
	Updated    int32       `json:"updatedReplicas"`
	Conditions []Condition `json:"conditions"`
	Updating   []int32     `json:"updatingReplicas,omitempty"`
	Members    []Replica   `json:"replicas_,omitempty"`
}

// Condition is a condition in short.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// Replica is one PodCliqueSet replica.
type Replica struct {
	Index    int    `json:"index"`
	Updating bool   `json:"updating"`
	Surge    bool   `json:"surge"`
	Gangs    []Gang `json:"gangs"`
}

// Gang is one PodGang of a replica.
type Gang struct {
	Name        string `json:"name"`
	Role        string `json:"role"` // base or scaled
	Established bool   `json:"established"`
	Phase       string `json:"phase,omitempty"`
	Surge       bool   `json:"surge"`
	// Quorum is "podgroup bound/minReplicas", one per podgroup.
	Quorum []string `json:"quorum"`
	// Waiting is the reason and message of condition Unschedulable, when True.
	Waiting string `json:"waiting,omitempty"`
	// Reserved says that the gang holds freed capacity for its replacements.
	Reserved bool `json:"reserved,omitempty"`
	// Pods are named without the PodCliqueSet's name in front.
	Pods []Pod `json:"pods"`
}

// Pod is one pod of a gang.
type Pod struct {
	Name     string `json:"name"`
	Index    string `json:"index"`
	Revision string `json:"revision"`
	Current  bool   `json:"current"`
	Node     string `json:"node,omitempty"`
	Ready    bool   `json:"ready"`
	Phase    string `json:"phase"`
	Surge    bool   `json:"surge"`
	Deleting bool   `json:"deleting,omitempty"`
}

// BuildStatus builds the tree from a State. A gang shows a replacement hold when its
// reservation started less than hold before now (the scheduler's reservationHoldSeconds).
func BuildStatus(s *State, now time.Time, hold time.Duration) Status {
	pcs := s.PCS
	st := Status{Namespace: pcs.Namespace, Name: pcs.Name, Strategy: string(grovev1.RollingUpdateStrategyType),
		Revision: pcs.Status.CurrentRevision, Replicas: pcs.Spec.Replicas, Available: pcs.Status.AvailableReplicas,
		Updated: pcs.Status.UpdatedReplicas}
	if pcs.Spec.UpdateStrategy != nil && pcs.Spec.UpdateStrategy.Type != "" {
		st.Strategy = string(pcs.Spec.UpdateStrategy.Type)
	}
	for _, t := range []string{grovev1.ConditionAvailable, grovev1.ConditionProgressing, grovev1.ConditionSurgeBlocked} {
		if c := meta.FindStatusCondition(pcs.Status.Conditions, t); c != nil {
			st.Conditions = append(st.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
	}
	updating := map[int]bool{}
	if p := pcs.Status.UpdateProgress; p != nil && p.UpdateEndedAt == nil {
		st.Updating = p.UpdatingReplicas
		for _, r := range p.UpdatingReplicas {
			updating[int(r)] = true
		}
	}
	hashes := workload.TemplateHashes(pcs)
	podsByGang := map[string][]corev1.Pod{}
	for _, p := range s.Pods {
		g := workload.GangOf(p.Labels)
		podsByGang[g] = append(podsByGang[g], p)
	}
	replicas := map[int]*Replica{}
	for _, g := range s.Gangs {
		r, err := strconv.Atoi(g.Labels[grovev1.LabelPodCliqueSetReplicaIndex])
		if err != nil {
			continue
		}
		if replicas[r] == nil {
			replicas[r] = &Replica{Index: r, Updating: updating[r], Surge: r >= int(pcs.Spec.Replicas)}
		}
		gg := buildGang(&g, podsByGang[g.Name], hashes, pcs.Name+"-")
		if r := gang.ReservationFromPodGang(&g); r != nil && now.Before(r.Since.Add(hold)) && !r.TakenBack(boundRequests(podsByGang[g.Name])) {
			gg.Reserved = true // as the scheduler sees it: open window, replacements not all bound
		}
		if g.Name != workload.BasePodGangName(pcs.Name, r) {
			gg.Role = "scaled"
		}
		replicas[r].Gangs = append(replicas[r].Gangs, gg)
	}
	for _, r := range replicas {
		sort.Slice(r.Gangs, func(i, j int) bool {
			if (r.Gangs[i].Role == "base") != (r.Gangs[j].Role == "base") {
				return r.Gangs[i].Role == "base"
			}
			return r.Gangs[i].Name < r.Gangs[j].Name
		})
		st.Members = append(st.Members, *r)
	}
	sort.Slice(st.Members, func(i, j int) bool { return st.Members[i].Index < st.Members[j].Index })
	return st
}

func buildGang(g *schedv1.PodGang, pods []corev1.Pod, hashes map[string]string, prefix string) Gang {
	out := Gang{Name: g.Name, Role: "base", Phase: string(g.Status.Phase),
		Established: meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionScheduled),
		Surge:       g.Labels[grovev1.LabelSurge] == "true"}
	if c := meta.FindStatusCondition(g.Status.Conditions, schedv1.ConditionUnschedulable); c != nil && c.Status == metav1.ConditionTrue {
		out.Waiting = c.Reason + ": " + c.Message
	}
	for _, q := range quorumOf(g, pods) {
		out.Quorum = append(out.Quorum, fmt.Sprintf("%s %d/%d", strings.TrimPrefix(q.Name, prefix), q.Bound-q.SurgeBound, q.Min))
	}
	for _, p := range pods {
		rev := p.Labels[grovev1.LabelPodTemplateHash]
		out.Pods = append(out.Pods, Pod{
			Name: strings.TrimPrefix(p.Name, prefix), Index: p.Labels[grovev1.LabelPodCliquePodIndex], Revision: rev,
			Current: rev != "" && rev == hashes[p.Labels[workload.LabelCliqueTemplate]],
			Node:    p.Spec.NodeName, Ready: workload.PodReady(&p), Phase: string(p.Status.Phase),
			Surge: p.Labels[grovev1.LabelSurge] == "true", Deleting: p.DeletionTimestamp != nil,
		})
	}
	sort.Slice(out.Pods, func(i, j int) bool { return out.Pods[i].Name < out.Pods[j].Name })
	return out
}

// podgroupQuorum is where one podgroup of a gang stands: its live (not terminating) members
// that exist and that are bound, the bound ones that are surge members (they never count
// toward the quorum), and minReplicas.
type podgroupQuorum struct {
	Name                       string
	Bound, Present, SurgeBound int
	Min                        int32
}

func quorumOf(g *schedv1.PodGang, pods []corev1.Pod) []podgroupQuorum {
	byName := make(map[string]*corev1.Pod, len(pods))
	for i := range pods {
		byName[pods[i].Name] = &pods[i]
	}
	out := make([]podgroupQuorum, 0, len(g.Spec.PodGroups))
	for _, pg := range g.Spec.PodGroups {
		q := podgroupQuorum{Name: pg.Name, Min: pg.MinReplicas}
		for _, ref := range pg.PodReferences {
			p, ok := byName[ref.Name]
			if !ok || p.DeletionTimestamp != nil {
				continue
			}
			q.Present++
			if p.Spec.NodeName != "" {
				q.Bound++
				if p.Labels[grovev1.LabelSurge] == "true" {
					q.SurgeBound++
				}
			}
		}
		out = append(out, q)
	}
	return out
}

// Palette colours the output on a terminal; the zero value prints plain text.
type Palette struct{ Good, Warn, Bad, Dim, Reset string }

// Colors is the ANSI palette.
var Colors = Palette{Good: "\x1b[32m", Warn: "\x1b[33m", Bad: "\x1b[31m", Dim: "\x1b[2m", Reset: "\x1b[0m"}

func (p Palette) paint(color, s string) string {
	if color == "" {
		return s
	}
	return color + s + p.Reset
}

// RenderStatus prints the tree.
func RenderStatus(w io.Writer, st Status, pal Palette) {
	fmt.Fprintf(w, "PodCliqueSet %s/%s  %s  revision %s  (pods and podgroups named without %q)\n", st.Namespace, st.Name, st.Strategy, orDash(st.Revision), st.Name+"-")
	fmt.Fprintf(w, "  replicas %d, available %d, updated %d", st.Replicas, st.Available, st.Updated)
	if len(st.Updating) > 0 {
		fmt.Fprintf(w, ", updating %v", st.Updating)
	}
	fmt.Fprintln(w)
	for _, c := range st.Conditions {
		color := pal.Good
		switch {
		case c.Type == grovev1.ConditionSurgeBlocked && c.Status == "True",
			c.Type == grovev1.ConditionProgressing && c.Status == "False",
			c.Type == grovev1.ConditionAvailable && c.Status == "False":
			color = pal.Bad
		case c.Type == grovev1.ConditionProgressing && c.Reason != "UpdateComplete":
			color = pal.Warn
		}
		fmt.Fprintf(w, "  %-13s %s", c.Type, pal.paint(color, c.Status+" "+c.Reason))
		if c.Message != "" {
			fmt.Fprintf(w, "  %s", pal.paint(pal.Dim, c.Message))
		}
		fmt.Fprintln(w)
	}
	for _, r := range st.Members {
		tags := []string{}
		if r.Updating {
			tags = append(tags, pal.paint(pal.Warn, "updating"))
		}
		if r.Surge {
			tags = append(tags, pal.paint(pal.Warn, "surge"))
		}
		fmt.Fprintf(w, "replica %d %s\n", r.Index, strings.Join(tags, " "))
		for _, g := range r.Gangs {
			state := pal.paint(pal.Good, "established")
			if !g.Established {
				state = pal.paint(pal.Warn, "not placed")
			}
			extra := ""
			if g.Surge {
				extra += " surge"
			}
			if g.Reserved {
				extra += " holds freed capacity for replacements"
			}
			fmt.Fprintf(w, "  gang %s  %s  %s  quorum %s%s\n", g.Name, g.Role, state, strings.Join(g.Quorum, ", "), extra)
			if g.Waiting != "" {
				fmt.Fprintf(w, "    waiting: %s\n", pal.paint(pal.Bad, g.Waiting))
			}
			for _, p := range g.Pods {
				rev := p.Revision
				if p.Current {
					rev += " (current)"
				} else {
					rev = pal.paint(pal.Warn, rev+" (old)")
				}
				ready := pal.paint(pal.Good, "Ready")
				if !p.Ready {
					ready = pal.paint(pal.Warn, "NotReady "+p.Phase)
				}
				if p.Deleting {
					ready = pal.paint(pal.Dim, "Terminating")
				}
				flags := ""
				if p.Surge {
					flags = " surge"
				}
				fmt.Fprintf(w, "    pod %-30s idx %-2s rev %s  node %s  %s%s\n", p.Name, p.Index, rev, orDash(p.Node), ready, flags)
			}
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// boundRequests sums the requests of the bound, not terminating pods.
func boundRequests(pods []corev1.Pod) gang.Resources {
	var r gang.Resources
	for i := range pods {
		if pods[i].Spec.NodeName != "" && pods[i].DeletionTimestamp == nil {
			r = r.Add(gang.RequestsOf(&pods[i]))
		}
	}
	return r
}
