package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
)

// UpdateTimeout bounds the waits for a PodCliqueSet to come up or finish an update.
const UpdateTimeout = 90 * time.Second

// GPUNodes is n fake nodes of 8 GPUs, 64 CPUs and 512Gi named <prefix>-<i>.
func GPUNodes(prefix string, n int) localcluster.NodeShape {
	return localcluster.NodeShape{Prefix: prefix, Count: n, GPUs: 8, CPU: "64", Memory: "512Gi"}
}

// PCSSelector selects the pods of a PodCliqueSet.
func PCSSelector(pcs string) string {
	return labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: pcs}).String()
}

// ListPods returns the PodCliqueSet's pods that are not terminating.
func (e *Env) ListPods(ctx context.Context, ns, pcs string) ([]corev1.Pod, error) {
	list, err := e.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: PCSSelector(pcs)})
	if err != nil {
		return nil, err
	}
	var live []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live, nil
}

// ReadyPod reports whether p is Ready and not terminating.
func ReadyPod(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil
		}
	}
	return false
}

// WaitAvailable waits until the PodCliqueSet reports replicas available replicas with exactly
// pods pods, all Running.
func (e *Env) WaitAvailable(t testing.TB, ns, name string, replicas int32, pods int) {
	t.Helper()
	Eventually(t, UpdateTimeout, fmt.Sprintf("%s: %d replicas available with %d pods Running", name, replicas, pods), func(ctx context.Context) (bool, error) {
		pcs, err := e.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		list, err := e.ListPods(ctx, ns, name)
		if err != nil {
			return false, err
		}
		running := 0
		var notRunning []string
		for _, p := range list {
			if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
				running++
			} else {
				notRunning = append(notRunning, fmt.Sprintf("%s(node %q, %s)", p.Name, p.Spec.NodeName, p.Status.Phase))
			}
		}
		if pcs.Status.AvailableReplicas == replicas && pcs.Status.Replicas == replicas && running == pods && len(list) == pods {
			return true, nil
		}
		return false, fmt.Errorf("status replicas %d available %d; %d pods, %d Running; not running: %v",
			pcs.Status.Replicas, pcs.Status.AvailableReplicas, len(list), running, notRunning)
	})
}

// WaitUpdated waits until the update is complete: Progressing reason UpdateComplete and
// exactly pods pods, all Ready on image.
func (e *Env) WaitUpdated(t testing.TB, ns, name, image string, pods int) {
	t.Helper()
	Eventually(t, UpdateTimeout, name+" updated to "+image, func(ctx context.Context) (bool, error) {
		pcs, err := e.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionProgressing)
		live, err := e.ListPods(ctx, ns, name)
		if err != nil {
			return false, err
		}
		n := 0
		for _, p := range live {
			if p.Spec.Containers[0].Image == image && ReadyPod(p) {
				n++
			}
		}
		if !UpdateComplete(pcs) || len(live) != pods || n != pods {
			return false, fmt.Errorf("progressing %v (generation %d); %d pods, %d Ready on %s", c, pcs.Generation, len(live), n, image)
		}
		return true, nil
	})
}

// UpdateComplete reports whether the PodCliqueSet's Progressing condition says UpdateComplete
// for its current generation: a condition written for the spec before the change says
// nothing about the change (statuses are written after passes, spaced, so a test that reads
// right after a spec change may see the last status of the old spec, and pods that happen to
// match mid-update).
func UpdateComplete(pcs *grovev1.PodCliqueSet) bool {
	c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionProgressing)
	return c != nil && c.Reason == "UpdateComplete" && c.ObservedGeneration == pcs.Generation
}

// UpdatePCS changes a PodCliqueSet's spec, retrying on conflicts with the controller's status
// writes.
func (e *Env) UpdatePCS(t testing.TB, ns, name string, change func(*grovev1.PodCliqueSet)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pcs, err := e.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(pcs)
		_, err = e.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Update(context.Background(), pcs, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("updating PodCliqueSet %s: %v", name, err)
	}
}

// SetImage sets the image of every container of every clique.
func (e *Env) SetImage(t testing.TB, ns, name, image string) {
	t.Helper()
	e.UpdatePCS(t, ns, name, func(pcs *grovev1.PodCliqueSet) {
		for i := range pcs.Spec.Template.Cliques {
			for j := range pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers {
				pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[j].Image = image
			}
		}
	})
}

// SetCliqueImage sets the image of every container of the named cliques (only those).
func (e *Env) SetCliqueImage(t testing.TB, ns, name, image string, cliques ...string) {
	t.Helper()
	e.UpdatePCS(t, ns, name, func(pcs *grovev1.PodCliqueSet) {
		for i := range pcs.Spec.Template.Cliques {
			if !slices.Contains(cliques, pcs.Spec.Template.Cliques[i].Name) {
				continue
			}
			for j := range pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers {
				pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[j].Image = image
			}
		}
	})
}

// IndicesOf returns the pod indices of a PodClique, sorted.
func IndicesOf(pods []corev1.Pod, clique string) []int {
	var out []int
	for _, p := range pods {
		if p.Labels[grovev1.LabelPodClique] == clique {
			i, _ := strconv.Atoi(p.Labels[grovev1.LabelPodCliquePodIndex])
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}

// WatchPods lists the PodCliqueSet's pods, then calls observe on every pod event with the
// current set of pods (name -> pod) and the pod that changed, until the returned stop is
// called. observe runs on one goroutine; stop waits for it.
func (e *Env) WatchPods(t testing.TB, ns, pcs string, observe func(pods map[string]corev1.Pod, changed *corev1.Pod)) (stop func()) {
	t.Helper()
	return e.WatchPodsSelected(t, ns, PCSSelector(pcs), observe)
}

// WatchTimeout, when set, asks the API server to end every watch of WatchPodsSelected after
// that long (tests of the watch itself use it to make the server close the stream).
var WatchTimeout time.Duration

// WatchResumes counts the times a WatchPodsSelected stream was resumed after the server ended it.
var WatchResumes atomic.Int64

// WatchRelists counts the times a WatchPodsSelected stream had to list again (410 Gone).
var WatchRelists atomic.Int64

// gone reports whether a watch error means its resourceVersion can no longer be served (410).
func gone(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// relist brings pods to the listed state, observing each difference as an event.
func relist(pods map[string]corev1.Pod, listed []corev1.Pod, observe func(map[string]corev1.Pod, *corev1.Pod)) {
	seen := map[string]bool{}
	for i := range listed {
		p := listed[i]
		seen[p.Name] = true
		if old, ok := pods[p.Name]; ok && old.ResourceVersion == p.ResourceVersion {
			continue
		}
		pods[p.Name] = p
		observe(pods, &p)
	}
	for name, p := range pods {
		if !seen[name] {
			gone := p
			delete(pods, name)
			observe(pods, &gone)
		}
	}
}

// WatchPodsSelected is WatchPods for any label selector. The stream is continuous: when the
// API server ends the watch (its timeout), it is resumed from the last resourceVersion seen,
// so no event is lost. When the version is gone (410: an API server that restarted serves
// watches only from its new cache), the pods are listed again and every difference is
// observed as an event; what happened in between is not seen (logged, counted in
// WatchRelists). Any other watch error fails the test.
func (e *Env) WatchPodsSelected(t testing.TB, ns, selector string, observe func(pods map[string]corev1.Pod, changed *corev1.Pod)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	initial, err := e.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	pods := map[string]corev1.Pod{}
	for _, p := range initial.Items {
		pods[p.Name] = p
	}
	start := func(rv string) (watch.Interface, error) {
		o := metav1.ListOptions{LabelSelector: selector, ResourceVersion: rv, AllowWatchBookmarks: true}
		if WatchTimeout > 0 {
			o.TimeoutSeconds = ptr.To(int64(WatchTimeout.Seconds()))
		}
		return e.Kube.CoreV1().Pods(ns).Watch(ctx, o)
	}
	rv := initial.ResourceVersion
	w, err := start(rv)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var mu sync.Mutex // guards w against stop
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			mu.Lock()
			cur := w
			mu.Unlock()
			for ev := range cur.ResultChan() {
				if ev.Type == watch.Error {
					err := apierrors.FromObject(ev.Object)
					if ctx.Err() == nil && !gone(err) {
						t.Errorf("pod watch (%s) failed at resourceVersion %s: %v; the invariants cannot be checked on a broken stream", selector, rv, err)
						cur.Stop()
						return
					}
					cur.Stop()
					break // resumed below, after a relist
				}
				p, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				rv = p.ResourceVersion
				if ev.Type == watch.Bookmark {
					continue
				}
				if ev.Type == watch.Deleted {
					delete(pods, p.Name)
				} else {
					pods[p.Name] = *p
				}
				observe(pods, p)
			}
			if ctx.Err() != nil {
				return
			}
			// The server ended the stream: resume where it stopped. While the API server is
			// away (a restart) keep trying; when the version is gone, list again first.
			var next watch.Interface
			var last error
			err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
				w, err := start(rv)
				if err == nil {
					next = w
					return true, nil
				}
				last = err
				if gone(err) {
					list, err := e.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
					if err != nil {
						last = err
						return false, nil
					}
					t.Logf("pod watch (%s): resourceVersion %s is gone; relisted at %s: changes in between are observed only as their result", selector, rv, list.ResourceVersion)
					WatchRelists.Add(1)
					relist(pods, list.Items, observe)
					rv = list.ResourceVersion
				}
				return false, nil
			})
			if err != nil {
				if ctx.Err() == nil {
					t.Errorf("pod watch (%s) could not be resumed at resourceVersion %s within a minute: %v", selector, rv, last)
				}
				return
			}
			WatchResumes.Add(1)
			mu.Lock()
			w = next
			mu.Unlock()
		}
	}()
	return func() {
		cancel()
		mu.Lock()
		w.Stop()
		mu.Unlock()
		<-done
	}
}

// Workers is a PodCliqueSet of one replica with one standalone clique "worker" of 3 whole-node
// (8-GPU) pods, rolled with the given budgets.
func Workers(ns, name string, surge, unavailable int32, deadline int32) *grovev1.PodCliqueSet {
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: grovev1.PodCliqueSetSpec{
			Replicas:       1,
			UpdateStrategy: &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingUpdateStrategyType, ProgressDeadlineSeconds: ptr.To(deadline)},
			Template: grovev1.PodCliqueSetTemplateSpec{Cliques: []grovev1.PodCliqueTemplateSpec{{
				Name:           "worker",
				UpdateStrategy: &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))},
				Spec: grovev1.PodCliqueSpec{RoleName: "worker", Replicas: 3, PodSpec: corev1.PodSpec{
					SchedulerName:                 scheduler.SchedulerName,
					TerminationGracePeriodSeconds: ptr.To[int64](0),
					Containers: []corev1.Container{{Name: "w", Image: "registry.example.com/llm/worker:v1",
						Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}},
				}},
			}}},
		},
	}
}

// GroupSet is a PodCliqueSet of one replica with one scaling group "sg" of replicas x (1
// leader + 2 workers), every pod a whole 8-GPU node; group replicas below minAvailable are in
// the base gang.
func GroupSet(ns, name string, replicas, minAvailable, surge, unavailable int32) *grovev1.PodCliqueSet {
	clique := func(n string, pods int32) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: n, Spec: grovev1.PodCliqueSpec{RoleName: n, Replicas: pods, PodSpec: corev1.PodSpec{
			SchedulerName:                 scheduler.SchedulerName,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: n, Image: "registry.example.com/llm/prefill:v1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}},
		}}}
	}
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: grovev1.PodCliqueSetSpec{
			Replicas:       1,
			UpdateStrategy: &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingUpdateStrategyType, ProgressDeadlineSeconds: ptr.To[int32](600)},
			Template: grovev1.PodCliqueSetTemplateSpec{
				Cliques: []grovev1.PodCliqueTemplateSpec{clique("leader", 1), clique("worker", 2)},
				PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{{
					Name: "sg", CliqueNames: []string{"leader", "worker"}, Replicas: ptr.To(replicas), MinAvailable: ptr.To(minAvailable),
					UpdateStrategy: &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))},
				}},
			},
		},
	}
}

// PrefillDecode is the design's disaggregated shape under updateStrategy Coherent: one replica
// of a standalone "frontend" (1 pod) and two scaling groups "prefill" and "decode" of 2
// replicas each (one pod of clique "prefill-worker" or "decode-worker" a replica,
// minAvailable 1), every pod a whole 8-GPU node (5 nodes);
// the PodCliqueSet-level budgets count coherent slices (one prefill and one decode replica).
// A nil budget is left unset.
func PrefillDecode(ns, name string, surge, unavailable *int32) *grovev1.PodCliqueSet {
	clique := func(n string) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: n, Spec: grovev1.PodCliqueSpec{RoleName: n, Replicas: 1, PodSpec: corev1.PodSpec{
			SchedulerName:                 scheduler.SchedulerName,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: n, Image: "registry.example.com/llm/" + n + ":v1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}},
		}}}
	}
	budget := &grovev1.RollingUpdateBudget{}
	if surge != nil {
		budget.MaxSurge = ptr.To(intstr.FromInt32(*surge))
	}
	if unavailable != nil {
		budget.MaxUnavailable = ptr.To(intstr.FromInt32(*unavailable))
	}
	group := func(n string) grovev1.PodCliqueScalingGroupConfig {
		return grovev1.PodCliqueScalingGroupConfig{Name: n, CliqueNames: []string{n + "-worker"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1)}
	}
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: grovev1.PodCliqueSetSpec{
			Replicas: 1,
			UpdateStrategy: &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.CoherentStrategyType, ProgressDeadlineSeconds: ptr.To[int32](600),
				RollingUpdate: budget},
			Template: grovev1.PodCliqueSetTemplateSpec{
				Cliques:                      []grovev1.PodCliqueTemplateSpec{clique("frontend"), clique("prefill-worker"), clique("decode-worker")},
				PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{group("prefill"), group("decode")},
			},
		},
	}
}

// Recreate is Workers with 2 pods under ReplicaRecreate with the given PodCliqueSet budgets.
func Recreate(ns, name string, replicas, surge, unavailable int32) *grovev1.PodCliqueSet {
	pcs := Workers(ns, name, 0, 0, 600)
	pcs.Spec.Replicas = replicas
	pcs.Spec.Template.Cliques[0].UpdateStrategy = nil
	pcs.Spec.UpdateStrategy.Type = grovev1.ReplicaRecreateStrategyType
	pcs.Spec.UpdateStrategy.RollingUpdate = &grovev1.RollingUpdateBudget{MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))}
	return pcs
}

// Sample reads manifests/samples/<file> as a PodCliqueSet in namespace ns.
func (e *Env) Sample(t testing.TB, ns, file string) *grovev1.PodCliqueSet {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.Root, "manifests", "samples", file))
	if err != nil {
		t.Fatal(err)
	}
	pcs := &grovev1.PodCliqueSet{}
	if err := yaml.UnmarshalStrict(raw, pcs); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	pcs.Namespace = ns
	return pcs
}

// WaitRevisionComplete waits until the PodCliqueSet's current template is its complete
// revision (status.completeRevision = status.updateRevision: the creation or the last update
// is done) and returns that revision's name.
func (e *Env) WaitRevisionComplete(t testing.TB, ns, name string) string {
	t.Helper()
	var rev string
	Eventually(t, UpdateTimeout, "PodCliqueSet "+name+": the current revision complete", func(ctx context.Context) (bool, error) {
		p, err := e.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		rev = p.Status.CompleteRevision
		return rev != "" && rev == p.Status.UpdateRevision, nil
	})
	return rev
}
