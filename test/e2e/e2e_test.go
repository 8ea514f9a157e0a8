package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

var local *Local

func TestMain(m *testing.M) {
	framework.MainE2E(m, func(env *framework.Env) (func(), error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if env.External {
			// hack/kind-up.sh deployed manifests/ with the image it built.
			return func() {}, WaitDeploymentAvailable(ctx, env.Kube, 2*time.Minute)
		}
		start := time.Now()
		l, err := DeployLocal(ctx, env.Root, env.Config, env.Kube, env.Kubeconfig)
		if err != nil {
			return nil, err
		}
		local = l
		fmt.Fprintf(os.Stderr, "Phalanx deployed from manifests/ as 2 local processes in %s (logs: %s)\n", time.Since(start).Round(10*time.Millisecond), l.Dir)
		return l.Stop, nil
	})
}

func create(t *testing.T, env *framework.Env, pcs *grovev1.PodCliqueSet) {
	t.Helper()
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(pcs.Namespace).Create(context.Background(), pcs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PodCliqueSet %s: %v", pcs.Name, err)
	}
}

// noTwins watches a PodCliqueSet and records any moment two live pods claim the same clique
// index (a duplicate), which must never happen, whatever crashes.
type noTwins struct {
	mu    sync.Mutex
	twins []string
}

func (n *noTwins) observe(pods map[string]corev1.Pod, _ *corev1.Pod) {
	seen := map[string]string{}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		k := p.Labels[grovev1.LabelPodClique] + "/" + p.Labels[grovev1.LabelPodCliquePodIndex]
		if other, ok := seen[k]; ok {
			n.mu.Lock()
			n.twins = append(n.twins, other+" and "+p.Name)
			n.mu.Unlock()
		}
		seen[k] = p.Name
	}
}

func (n *noTwins) check(t *testing.T) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.twins) > 0 {
		t.Errorf("pods claimed the same index at once: %v", n.twins)
	}
}

// Everything in manifests/ applies cleanly (server-side dry run, after the real apply of the
// set-up), the renderer prints what kubectl kustomize prints, and the ClusterRole names every
// resource and verb (no wildcards).
func TestManifests(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	objs, err := framework.RenderManifests(env.Root)
	if err != nil {
		t.Fatal(err)
	}
	if local != nil {
		// Checked by the set-up, between the apply and the start of the replicas.
		if local.DryRun != nil {
			t.Errorf("server-side dry run of manifests/: %v", local.DryRun)
		}
		if local.KubectlDryRun != nil {
			t.Errorf("kubectl kustomize manifests/ | kubectl apply --dry-run=server -f -: %v", local.KubectlDryRun)
		}
		if !local.KubectlDryRunRan {
			t.Log("kubectl not installed: kubectl apply --dry-run=server was left out")
		}
	} else if err := framework.Apply(ctx, env.Config, objs, true); err != nil {
		t.Errorf("server-side dry run of manifests/: %v", err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+"/"+o.GetName())
	}
	sort.Strings(names)
	compareWithKubectl(t, filepath.Join(env.Root, "manifests"), names)
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
			continue
		}
		var role rbacv1.ClusterRole
		raw, _ := yaml.Marshal(o.Object)
		if err := yaml.Unmarshal(raw, &role); err != nil {
			t.Fatal(err)
		}
		for _, r := range role.Rules {
			for _, v := range append(append(append([]string{}, r.Verbs...), r.Resources...), r.APIGroups...) {
				if v == "*" {
					t.Errorf("%s %s has a wildcard rule: %+v", o.GetKind(), o.GetName(), r)
				}
			}
		}
	}
}

// manifests/scheduler-only/ (Phalanx beside Grove's operator) installs the scheduler alone: no
// CRD, no webhook configuration, no RBAC on grove.io, a Deployment that runs no controller
// and serves no webhook. It applies cleanly (server-side dry run) and renders as kubectl
// kustomize renders it.
func TestSchedulerOnlyManifests(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	dir := filepath.Join(env.Root, "manifests", "scheduler-only")
	objs, err := framework.RenderKustomization(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+"/"+o.GetName())
	}
	for _, v := range framework.SchedulerOnlyViolations(objs) {
		t.Errorf("the scheduler-only variant: %s", v)
	}
	sort.Strings(names)
	if err := framework.Apply(ctx, env.Config, objs, true); err != nil {
		t.Errorf("server-side dry run of manifests/scheduler-only: %v", err)
	}
	compareWithKubectl(t, dir, names)
}

// compareWithKubectl checks that kubectl kustomize renders dir as the objects names (sorted
// kind/name), when kubectl is installed.
func compareWithKubectl(t *testing.T, dir string, names []string) {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Log("kubectl not installed: the comparison with kubectl kustomize was left out")
		return
	}
	out, err := exec.CommandContext(framework.Context(t), kubectl, "kustomize", dir).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	var kinds []string
	for _, doc := range bytes.Split(out, []byte("\n---\n")) {
		var o struct {
			Kind     string
			Metadata struct{ Name string }
		}
		if err := yaml.Unmarshal(doc, &o); err == nil && o.Kind != "" {
			kinds = append(kinds, o.Kind+"/"+o.Metadata.Name)
		}
	}
	sort.Strings(kinds)
	if strings.Join(kinds, " ") != strings.Join(names, " ") {
		t.Errorf("kubectl kustomize %s renders\n%v\nthe suite applies\n%v", dir, kinds, names)
	}
}

// An invalid PodCliqueSet is refused by the deployed webhooks with the field and the reason.
func TestInvalidPodCliqueSetRefused(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	pcs := env.Sample(t, ns, "disaggregated.yaml")
	pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy = &grovev1.ComponentUpdateStrategy{
		MaxSurge: ptr.To(intstr.FromString("0%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}
	_, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(context.Background(), pcs, metav1.CreateOptions{})
	want := `spec.template.podCliqueScalingGroups[0].updateStrategy: Invalid value: "maxSurge=0%, maxUnavailable=25%": maxSurge and maxUnavailable must not both be 0`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("create: %v\nwant %q", err, want)
	}
}

// The seed's examples, each with its strategy, from creation to a completed update.
func TestSeedExamples(t *testing.T) {
	t.Run("disaggregated, RollingUpdate, scaling-group surge", func(t *testing.T) {
		env := framework.Shared(t)
		ns := env.NewNamespace(t)
		env.AddNodes(t, framework.GPUNodes("seed-pcsg", 16))
		create(t, env, env.Sample(t, ns, "disaggregated.yaml"))
		env.WaitAvailable(t, ns, "multinode-disaggregated-inference", 2, 30)
		env.SetImage(t, ns, "multinode-disaggregated-inference", "registry.example.com/llm/inference:v2")
		env.WaitUpdated(t, ns, "multinode-disaggregated-inference", "registry.example.com/llm/inference:v2", 30)
	})
	t.Run("disaggregated, RollingUpdate, PodClique surge", func(t *testing.T) {
		env := framework.Shared(t)
		ns := env.NewNamespace(t)
		env.AddNodes(t, framework.GPUNodes("seed-pclq", 16))
		pcs := env.Sample(t, ns, "disaggregated.yaml")
		pcs.Spec.Template.Cliques[0].UpdateStrategy = &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
		create(t, env, pcs)
		env.WaitAvailable(t, ns, pcs.Name, 2, 30)
		var mu sync.Mutex
		maxFrontend := 0
		stop := env.WatchPods(t, ns, pcs.Name, func(pods map[string]corev1.Pod, _ *corev1.Pod) {
			n := 0
			for _, p := range pods {
				if p.Labels[grovev1.LabelPodClique] == pcs.Name+"-0-frontend" {
					n++
				}
			}
			mu.Lock()
			maxFrontend = max(maxFrontend, n)
			mu.Unlock()
		})
		env.SetImage(t, ns, pcs.Name, "registry.example.com/llm/inference:v2")
		env.WaitUpdated(t, ns, pcs.Name, "registry.example.com/llm/inference:v2", 30)
		stop()
		if maxFrontend != 4 {
			t.Errorf("replica 0 had at most %d frontend pods; replicas 3 + maxSurge 1 is 4", maxFrontend)
		}
	})
	t.Run("aggregated, ReplicaRecreate with a surge replica", func(t *testing.T) {
		env := framework.Shared(t)
		ns := env.NewNamespace(t)
		env.AddNodes(t, framework.GPUNodes("seed-rr", 9))
		pcs := env.Sample(t, ns, "aggregated.yaml")
		create(t, env, pcs)
		env.WaitAvailable(t, ns, pcs.Name, 2, 6)
		var mu sync.Mutex
		sawSurge := false
		stop := env.WatchPods(t, ns, pcs.Name, func(_ map[string]corev1.Pod, p *corev1.Pod) {
			mu.Lock()
			sawSurge = sawSurge || p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == "2"
			mu.Unlock()
		})
		env.SetImage(t, ns, pcs.Name, "registry.example.com/llm/aggregated:v2")
		env.WaitUpdated(t, ns, pcs.Name, "registry.example.com/llm/aggregated:v2", 6)
		stop()
		if !sawSurge {
			t.Error("no surge replica (index 2) was created")
		}
	})
}

// The review's circular dependency: replicas 3 = minAvailable 3 (every group replica in the
// base gang), maxSurge 1, maxUnavailable 0. The surge replica is a scaled gang gated on a base
// that is being updated; Phalanx places it because the base stays established.
func TestSurgeCircularDependency(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("circular", 12))
	create(t, env, framework.GroupSet(ns, "circ", 3, 3, 1, 0))
	env.WaitAvailable(t, ns, "circ", 1, 9)
	var mu sync.Mutex
	sawSurge := false
	stop := env.WatchPods(t, ns, "circ", func(_ map[string]corev1.Pod, p *corev1.Pod) {
		mu.Lock()
		sawSurge = sawSurge || p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == "3"
		mu.Unlock()
	})
	env.SetImage(t, ns, "circ", "registry.example.com/llm/prefill:v2")
	env.WaitUpdated(t, ns, "circ", "registry.example.com/llm/prefill:v2", 9)
	stop()
	if !sawSurge {
		t.Error("the surge group replica (index 3) was never created")
	}
}

// killLeader stops the replica that holds the lease at once and returns a function that
// brings a replacement replica up again (for the next test).
func killLeader(t *testing.T, env *framework.Env) (restore func()) {
	t.Helper()
	ctx := framework.Context(t)
	if env.External {
		// Both replicas serving first: the other one must be there to take over (and to
		// answer the webhooks meanwhile).
		waitPhalanxAvailable(t, env)
		pod := leaderPod(t, env)
		if err := env.Kube.CoreV1().Pods(systemNamespace).Delete(ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatalf("deleting the leader pod %s: %v", pod, err)
		}
		return func() { waitPhalanxAvailable(t, env) }
	}
	leader, err := local.Leader(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	leader.Kill()
	t.Logf("killed the leader %s", leader.Name)
	return func() {
		if _, err := local.Start(leader.Name + "-again"); err != nil {
			t.Errorf("restarting a replica: %v", err)
		}
	}
}

// leaseHolder is the pod name in the scheduler lease's holder identity (kube-scheduler's
// identity is the host name, the pod's name, then "_" and a UUID); "" when none holds it.
func leaseHolder(ctx context.Context, env *framework.Env) (string, error) {
	l, err := env.Kube.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, scheduler.SchedulerName, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	pod, _, _ := strings.Cut(ptr.Deref(l.Spec.HolderIdentity, ""), "_")
	return pod, nil
}

// leaderPod waits until an existing phalanx-scheduler pod holds the lease and returns its name.
func leaderPod(t *testing.T, env *framework.Env) string {
	t.Helper()
	leader := ""
	framework.Eventually(t, 4*time.Minute, "a phalanx-scheduler pod holds the lease", func(ctx context.Context) (bool, error) {
		var err error
		if leader, err = leaseHolder(ctx, env); err != nil {
			return false, err
		}
		if leader == "" {
			return false, fmt.Errorf("no holder")
		}
		_, err = env.Kube.CoreV1().Pods(systemNamespace).Get(ctx, leader, metav1.GetOptions{})
		return err == nil, err
	})
	return leader
}

// waitPhalanxAvailable waits until every replica of the phalanx-scheduler Deployment of a
// cluster the tests did not start is updated and Ready, so that a test that disrupts Phalanx
// (or its nodes) leaves the next one a whole deployment.
func waitPhalanxAvailable(t *testing.T, env *framework.Env) {
	t.Helper()
	framework.Eventually(t, 5*time.Minute, "every phalanx-scheduler replica Ready", func(ctx context.Context) (bool, error) {
		d, err := env.Kube.AppsV1().Deployments(systemNamespace).Get(ctx, deployment, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		want := ptr.Deref(d.Spec.Replicas, 1)
		if d.Status.ObservedGeneration >= d.Generation && d.Status.ReadyReplicas == want && d.Status.UpdatedReplicas == want && d.Status.Replicas == want {
			return true, nil
		}
		return false, fmt.Errorf("%d of %d Ready, %d updated, %d in all", d.Status.ReadyReplicas, want, d.Status.UpdatedReplicas, d.Status.Replicas)
	})
}

// waitUpdateUnderWay waits until the update of PodCliqueSet name has visibly started: a pod on
// image exists.
func waitUpdateUnderWay(t *testing.T, env *framework.Env, ns, name, image string) {
	t.Helper()
	framework.Eventually(t, framework.UpdateTimeout, "the update under way", func(ctx context.Context) (bool, error) {
		pods, err := env.ListPods(ctx, ns, name)
		for _, p := range pods {
			if p.Spec.Containers[0].Image == image {
				return true, nil
			}
		}
		return false, err
	})
}

// The leader is killed in the middle of an update: the other replica takes the lease, the
// update completes, and no two pods ever claim one index.
func TestLeaderKilledMidUpdate(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("leader", 12))
	create(t, env, framework.GroupSet(ns, "lk", 3, 1, 1, 0))
	env.WaitAvailable(t, ns, "lk", 1, 9)
	twins := &noTwins{}
	stop := env.WatchPods(t, ns, "lk", twins.observe)
	env.SetImage(t, ns, "lk", "registry.example.com/llm/prefill:v2")
	// Kill once the update has visibly started (a pod on the new image exists).
	waitUpdateUnderWay(t, env, ns, "lk", "registry.example.com/llm/prefill:v2")
	restore := killLeader(t, env)
	defer restore()
	env.WaitUpdated(t, ns, "lk", "registry.example.com/llm/prefill:v2", 9)
	stop()
	twins.check(t)
	pods, _ := env.ListPods(framework.Context(t), ns, "lk")
	for _, c := range []string{"lk-0-sg-0-leader", "lk-0-sg-1-leader", "lk-0-sg-2-leader"} {
		if got := framework.IndicesOf(pods, c); fmt.Sprint(got) != "[0]" {
			t.Errorf("%s indices %v, want [0]", c, got)
		}
	}
}

// The leader is killed while a Coherent update has a slice in flight (a slice gang of one new
// prefill and one new decode pod, the surge of maxSurge 1): the other replica takes the lease,
// reads the slice from the pods' labels and the PodGang, lands it and finishes the update. At
// every pod event one revision keeps a Ready prefill and decode, no index is claimed twice, at
// most one surge slice is up, the frontend is never touched, and no slice gang or label is left.
func TestLeaderKilledMidCoherentUpdate(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("coh-leader", 7))
	create(t, env, framework.PrefillDecode(ns, "cl", ptr.To[int32](1), nil))
	env.WaitAvailable(t, ns, "cl", 1, 5)
	env.WaitRevisionComplete(t, ns, "cl")
	twins := &noTwins{}
	serving := framework.NewServingWatch()
	stop := env.WatchPods(t, ns, "cl", func(pods map[string]corev1.Pod, changed *corev1.Pod) {
		twins.observe(pods, changed)
		serving.Observe(pods, changed)
	})
	env.SetCliqueImage(t, ns, "cl", "registry.example.com/llm/next:v2", "prefill-worker", "decode-worker")
	framework.Eventually(t, framework.UpdateTimeout, "a coherent slice in flight", func(ctx context.Context) (bool, error) {
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelCoherentSlice})
		return err == nil && len(pods.Items) > 0, err
	})
	restore := killLeader(t, env)
	defer restore()
	env.WaitRevisionComplete(t, ns, "cl")
	framework.Eventually(t, framework.UpdateTimeout, "every changed pod on v2, no slice gang or label left", func(ctx context.Context) (bool, error) {
		gangs, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).List(ctx, metav1.ListOptions{LabelSelector: grovev1.LabelCoherentSlice})
		if err != nil {
			return false, err
		}
		pods, err := env.ListPods(ctx, ns, "cl")
		if err != nil {
			return false, err
		}
		var pending []string
		for _, p := range pods {
			v1 := strings.HasSuffix(p.Spec.Containers[0].Image, ":v1")
			if p.Labels[grovev1.LabelCoherentSlice] != "" || v1 != strings.HasPrefix(p.Name, "cl-0-frontend-") || !framework.ReadyPod(p) {
				pending = append(pending, p.Name)
			}
		}
		if len(gangs.Items) > 0 || len(pending) > 0 || len(pods) != 5 {
			return false, fmt.Errorf("%d slice gangs, %d pods, not done: %v", len(gangs.Items), len(pods), pending)
		}
		return true, nil
	})
	stop()
	twins.check(t)
	serving.Check(t, 7) // 5 pods and one surge slice of 2
}

// The API server is killed (SIGKILL) and started again in the middle of an update: every
// watch is cut and every client sees connection errors for the seconds it takes to come
// back. Replicas that lost their lease meanwhile are restarted as the kubelet would. The
// update completes with every pod at its index, none duplicated and none lost.
func TestAPIServerRestartedMidUpdate(t *testing.T) {
	env := framework.Shared(t)
	if env.External || local == nil {
		t.Skip("restarts the local control plane's API server")
	}
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("apirestart", 12))
	create(t, env, framework.GroupSet(ns, "ar", 3, 1, 1, 0))
	env.WaitAvailable(t, ns, "ar", 1, 9)
	twins := &noTwins{}
	stop := env.WatchPods(t, ns, "ar", twins.observe)
	env.SetImage(t, ns, "ar", "registry.example.com/llm/prefill:v2")
	waitUpdateUnderWay(t, env, ns, "ar", "registry.example.com/llm/prefill:v2")
	start := time.Now()
	if err := env.Cluster.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver killed and ready again in %s", time.Since(start).Round(10*time.Millisecond))
	framework.Eventually(t, 2*time.Minute, "a replica holds the lease", func(ctx context.Context) (bool, error) {
		restarted, err := local.RestartExited()
		if len(restarted) > 0 {
			t.Logf("replicas that exited while the API server was away, restarted: %v", restarted)
		}
		if err != nil {
			return false, err
		}
		_, err = local.Leader(ctx, 2*time.Second)
		return err == nil, nil
	})
	env.WaitUpdated(t, ns, "ar", "registry.example.com/llm/prefill:v2", 9)
	stop()
	twins.check(t)
	pods, err := env.ListPods(ctx, ns, "ar")
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 9 {
		t.Errorf("%d pods after the update, want 9", len(pods))
	}
	for _, c := range []string{"ar-0-sg-0-leader", "ar-0-sg-1-leader", "ar-0-sg-2-leader", "ar-0-sg-0-worker", "ar-0-sg-1-worker", "ar-0-sg-2-worker"} {
		want := "[0]"
		if strings.HasSuffix(c, "worker") {
			want = "[0 1]"
		}
		if got := framework.IndicesOf(pods, c); fmt.Sprint(got) != want {
			t.Errorf("%s indices %v, want %s", c, got, want)
		}
	}
}

// The leader is killed while gangs are half-permitted: some members are assumed on nodes only
// in the dying process's cache (binding from their gang's cycle, or waiting in Permit), some may
// be bound, others not yet placed. The
// other replica takes the lease and settles every gang: all members bound (the capacity is
// there), none left partially bound, no node given more GPUs than it has.
func TestLeaderKilledWhileGangHalfPermitted(t *testing.T) {
	if local == nil {
		t.Skip("watches the local leader's metrics to kill it at the right moment")
	}
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("halfpermit", 24))
	leader, err := local.Leader(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	waits := func() float64 {
		body, err := leader.Get(ctx, "/metrics")
		if err != nil {
			return -1
		}
		// Members sent to binding from their gang's cycle, or held in Permit: either way
		// assumed in the leader's cache with their binds not all done.
		return metricValue(body, `phalanx_gang_members_bound_from_pass_total{kind="PodGang"}`) +
			metricValue(body, `phalanx_permit_waits_total{kind="PodGang"}`)
	}
	before := waits()
	gangs := []framework.Gang{}
	for _, name := range []string{"ha", "hb", "hc"} {
		gangs = append(gangs, framework.Gang{Namespace: ns, Name: name, Groups: []framework.Group{{Name: "w", Pods: 8, MinReplicas: 8, GPUs: 8}}})
	}
	for _, g := range gangs {
		env.CreateGang(t, g)
	}
	// Kill at the first member assumed for its gang: the counters move in the planning
	// member's Permit, before the binds, so the metrics are read back to back (no interval)
	// to catch the moment.
	deadline := time.Now().Add(time.Minute)
	for waits() <= before {
		if time.Now().After(deadline) {
			t.Fatal("no gang member was assumed for its gang within a minute")
		}
	}
	leader.Kill()
	var atKill []string
	for _, g := range gangs {
		atKill = append(atKill, fmt.Sprintf("%s %d/8 bound", g.Name, boundOf(ctx, env, ns, g.Name)))
	}
	t.Logf("killed the leader %s with gang members assumed and binding; at the kill: %s", leader.Name, strings.Join(atKill, ", "))
	defer func() {
		if _, err := local.Start(leader.Name + "-again"); err != nil {
			t.Errorf("restarting a replica: %v", err)
		}
	}()
	framework.Eventually(t, framework.UpdateTimeout, "every gang bound whole by the new leader", func(ctx context.Context) (bool, error) {
		for _, g := range gangs {
			if boundOf(ctx, env, ns, g.Name) != 8 {
				return false, nil
			}
		}
		return true, nil
	})
	pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			perNode[p.Spec.NodeName]++
		}
	}
	for node, n := range perNode {
		if n > 1 {
			t.Errorf("node %s got %d whole-node (8-GPU) pods", node, n)
		}
	}
}

func boundOf(ctx context.Context, env *framework.Env, ns, gang string) int {
	pods, err := env.GangPods(ctx, ns, gang)
	if err != nil {
		return -1
	}
	return framework.CountBound(pods)
}

// metricValue is the value of the sample named exactly series (name and labels) in a
// Prometheus text exposition, 0 when absent.
// leaderMetrics is the local leader's /metrics page (local must be set).
func leaderMetrics(t *testing.T, ctx context.Context) string {
	t.Helper()
	leader, err := local.Leader(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	body, err := leader.Get(ctx, "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func metricValue(body, series string) float64 {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return 0
}

// A node is removed in the middle of an update, under a pod that was already updated: the pod
// garbage collector of kube-controller-manager removes the orphaned pod (after its 40 s
// quarantine), the controller replaces it within the update's budget, and the update
// completes with no pod on the lost node and no two pods on one index.
func TestNodeLostMidUpdate(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("lost", 8))
	create(t, env, framework.GroupSet(ns, "nl", 2, 1, 0, 1))
	env.WaitAvailable(t, ns, "nl", 1, 6)
	// The moment to take the node is found from the watch, not by polling: the window
	// between the first updated pod turning Ready and the last old one going is a few
	// milliseconds when nothing slows the controller, shorter than a poll.
	twins := &noTwins{}
	type member struct{ node, pod string }
	midUpdate := make(chan member, 1)
	stop := env.WatchPods(t, ns, "nl", func(pods map[string]corev1.Pod, changed *corev1.Pod) {
		twins.observe(pods, changed)
		old := 0
		for _, p := range pods {
			if p.Spec.Containers[0].Image == "registry.example.com/llm/prefill:v1" {
				old++
			}
		}
		for _, p := range pods {
			if old > 0 && p.Spec.Containers[0].Image == "registry.example.com/llm/prefill:v2" && framework.ReadyPod(p) {
				select {
				case midUpdate <- member{p.Spec.NodeName, p.Name}:
				default:
				}
				return
			}
		}
	})
	env.SetImage(t, ns, "nl", "registry.example.com/llm/prefill:v2")
	var victim, victimPod string
	select {
	case m := <-midUpdate:
		victim, victimPod = m.node, m.pod
	case <-time.After(framework.UpdateTimeout):
		t.Fatalf("no pod on the new image was Ready while old ones remained within %s", framework.UpdateTimeout)
	}
	if err := env.Kube.CoreV1().Nodes().Delete(ctx, victim, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("deleted node %s under the updated pod %s mid-update", victim, victimPod)
	start := time.Now()
	framework.Eventually(t, 3*time.Minute, "the pod on the lost node replaced on another node", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.CoreV1().Pods(ns).Get(ctx, victimPod, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.Spec.NodeName != "" && p.Spec.NodeName != victim && framework.ReadyPod(*p), nil
	})
	t.Logf("replaced after %s (pod garbage collection of orphaned pods)", time.Since(start).Round(time.Second))
	env.WaitUpdated(t, ns, "nl", "registry.example.com/llm/prefill:v2", 6)
	stop()
	twins.check(t)
	pods, _ := env.ListPods(ctx, ns, "nl")
	for _, p := range pods {
		if p.Spec.NodeName == victim {
			t.Errorf("pod %s still on the deleted node", p.Name)
		}
	}
}

// 200 fake GPU nodes, 20 PodCliqueSets of 4 whole-node pods (maxSurge 1) updated at once.
func TestManyPodCliqueSetsAtOnce(t *testing.T) {
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("many", 200))
	const sets = 20
	for i := 0; i < sets; i++ {
		pcs := framework.GroupSet(ns, fmt.Sprintf("m%02d", i), 1, 1, 0, 1)
		pcs.Spec.Template = grovev1.PodCliqueSetTemplateSpec{Cliques: []grovev1.PodCliqueTemplateSpec{pcs.Spec.Template.Cliques[1]}}
		pcs.Spec.Template.Cliques[0].Spec.Replicas = 4
		pcs.Spec.Template.Cliques[0].UpdateStrategy = &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
		create(t, env, pcs)
	}
	start := time.Now()
	for i := 0; i < sets; i++ {
		env.WaitAvailable(t, ns, fmt.Sprintf("m%02d", i), 1, 4)
	}
	t.Logf("%d PodCliqueSets (%d pods) available in %s", sets, 4*sets, time.Since(start).Round(10*time.Millisecond))
	start = time.Now()
	for i := 0; i < sets; i++ {
		env.SetImage(t, ns, fmt.Sprintf("m%02d", i), "registry.example.com/llm/prefill:v2")
	}
	for i := 0; i < sets; i++ {
		env.WaitUpdated(t, ns, fmt.Sprintf("m%02d", i), "registry.example.com/llm/prefill:v2", 4)
	}
	t.Logf("%d PodCliqueSets updated at once in %s", sets, time.Since(start).Round(10*time.Millisecond))
}

// The leader serves Phalanx's metrics on its /metrics endpoint (docs/metrics.md).
func TestMetricsServed(t *testing.T) {
	if local == nil {
		t.Skip("reads the local replicas' endpoints")
	}
	body := leaderMetrics(t, framework.Context(t))
	for _, name := range []string{"phalanx_gang_time_to_placed_seconds", "phalanx_surge_admissions_total", "phalanx_updates_in_progress", "phalanx_reservations_active", "scheduler_schedule_attempts_total"} {
		if !strings.Contains(body, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}
