package e2e

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/pkg/admission"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/scheduler"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// The real-cluster tests run only on the kind cluster of hack/kind-up.sh (make test-kind):
// real kubelets and containerd, nvidia.com/gpu from the fake device plugin, Phalanx as its
// Deployment. Their pods run the test server image (test/images/testserver) on the GPU workers
// (label and taint phalanx.dev/kind-gpu); the rest of the suite uses KWOK nodes.
const (
	kindGPULabel = "phalanx.dev/kind-gpu"
	// readyAfter and terminationDelay are the test server's: a pod becomes Ready through its
	// readiness probe readyAfter after its container started, and exits terminationDelay
	// after SIGTERM (holding its GPUs until then).
	readyAfter       = 4 * time.Second
	terminationDelay = 5 * time.Second
	kindTimeout      = 4 * time.Minute
)

// kindCluster skips the test unless the suite runs on hack/kind-up.sh's cluster, and returns
// the test server image repository (tags v1 and v2 are loaded into the nodes).
func kindCluster(t *testing.T) (cluster, image string) {
	t.Helper()
	cluster, image = os.Getenv("PHALANX_E2E_KIND"), os.Getenv("PHALANX_E2E_TESTSERVER_IMAGE")
	if cluster == "" || image == "" {
		t.Skip("real-cluster test: runs on the kind cluster of make test-kind (PHALANX_E2E_KIND, PHALANX_E2E_TESTSERVER_IMAGE)")
	}
	return cluster, image
}

// servingSet is a PodCliqueSet of one replica with one standalone clique "server" of pods
// test server pods, each asking for gpus nvidia.com/gpu, on the kind GPU workers, with a
// readiness probe, a termination grace period the server uses, and NoExecute tolerations of
// 5 s for a lost node (instead of the default 300 s).
func servingSet(ns, name, image string, pods int32, gpus int64, surge, unavailable int32) *grovev1.PodCliqueSet {
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: grovev1.PodCliqueSetSpec{
			Replicas:       1,
			UpdateStrategy: &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingUpdateStrategyType, ProgressDeadlineSeconds: ptr.To[int32](600)},
			Template: grovev1.PodCliqueSetTemplateSpec{Cliques: []grovev1.PodCliqueTemplateSpec{{
				Name:           "server",
				UpdateStrategy: &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))},
				Spec:           grovev1.PodCliqueSpec{RoleName: "server", Replicas: pods, PodSpec: servingPodSpec(image+":v1", gpus)},
			}}},
		},
	}
}

func servingPodSpec(image string, gpus int64) corev1.PodSpec {
	return corev1.PodSpec{
		SchedulerName:                 scheduler.SchedulerName,
		TerminationGracePeriodSeconds: ptr.To[int64](30),
		NodeSelector:                  map[string]string{kindGPULabel: "true"},
		Tolerations: []corev1.Toleration{
			{Key: kindGPULabel, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)},
			{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)},
		},
		Containers: []corev1.Container{{
			Name:            "server",
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Args:            []string{"--ready-after=" + readyAfter.String(), "--termination-delay=" + terminationDelay.String()},
			Env:             []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http")}},
				PeriodSeconds: 1, FailureThreshold: 1,
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
				Limits:   corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)},
			},
		}},
	}
}

// gpuLedger watches a PodCliqueSet's pods on the real nodes and records what only a real
// kubelet shows: the lowest count of Ready pods once the set was up, pods that kubelet refused
// (UnexpectedAdmissionError, OutOf…: devices still held), any moment a node's pods (the
// terminating ones included, whose containers still hold their GPUs) asked for more than its
// GPUs, how long terminating pods took to go and how long new pods took from start to Ready.
type gpuLedger struct {
	mu          sync.Mutex
	floorFrom   int
	minReady    int
	armed       bool
	refused     []string
	overbooked  []string
	terminating map[string]time.Time
	drained     map[string]time.Duration
	warmUp      map[string]time.Duration
}

func newGPULedger(floorFrom int) *gpuLedger {
	return &gpuLedger{floorFrom: floorFrom, minReady: 1 << 30, terminating: map[string]time.Time{},
		drained: map[string]time.Duration{}, warmUp: map[string]time.Duration{}}
}

func (l *gpuLedger) observe(pods map[string]corev1.Pod, changed *corev1.Pod) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if _, live := pods[changed.Name]; !live {
		if since, ok := l.terminating[changed.Name]; ok {
			l.drained[changed.Name] = now.Sub(since)
		}
	} else if changed.DeletionTimestamp != nil {
		if _, ok := l.terminating[changed.Name]; !ok {
			l.terminating[changed.Name] = now
		}
	}
	if changed.Status.Phase == corev1.PodFailed && (changed.Status.Reason == "UnexpectedAdmissionError" || strings.HasPrefix(changed.Status.Reason, "OutOf")) {
		l.refused = append(l.refused, fmt.Sprintf("%s: %s %s", changed.Name, changed.Status.Reason, changed.Status.Message))
	}
	if started, ready := startedAndReady(changed); !started.IsZero() && !ready.IsZero() {
		l.warmUp[changed.Name] = ready.Sub(started)
	}
	perNode := map[string]int64{}
	ready := 0
	for _, p := range pods {
		if framework.ReadyPod(p) {
			ready++
		}
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			g := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]
			perNode[p.Spec.NodeName] += g.Value()
		}
	}
	for node, gpus := range perNode {
		if gpus > 8 {
			l.overbooked = append(l.overbooked, fmt.Sprintf("%s: %d GPUs asked on node %s at %s", changed.Name, gpus, node, now.Format(time.RFC3339Nano)))
		}
	}
	if ready >= l.floorFrom {
		l.armed = true
	}
	if l.armed && ready < l.minReady {
		l.minReady = ready
	}
}

// startedAndReady returns when the pod's container started and when the pod became Ready
// (zero when it has not).
func startedAndReady(p *corev1.Pod) (started, ready time.Time) {
	if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].State.Running != nil {
		started = p.Status.ContainerStatuses[0].State.Running.StartedAt.Time
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			ready = c.LastTransitionTime.Time
		}
	}
	return started, ready
}

// check fails the test on anything a GPU serving set must never see: fewer than floor pods
// Ready during the change, a pod kubelet refused, a node asked for more GPUs than it has; and
// it checks the probe and grace period really acted: every new pod took about readyAfter to
// become Ready, every replaced pod about terminationDelay to go (at least one of each).
func (l *gpuLedger) check(t *testing.T, floor int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.armed {
		t.Fatalf("the set never had %d pods Ready", l.floorFrom)
	}
	if l.minReady < floor {
		t.Errorf("Ready pods fell to %d during the change; the budget allows no fewer than %d", l.minReady, floor)
	}
	if len(l.refused) > 0 {
		t.Errorf("kubelet refused pods (devices still held?): %v", l.refused)
	}
	if len(l.overbooked) > 0 {
		t.Errorf("a node's pods asked for more GPUs than it has: %v", l.overbooked)
	}
	const slack = time.Second // kubelet and API server times are in whole seconds
	if len(l.drained) == 0 {
		t.Error("no pod was seen terminating and gone")
	}
	for name, d := range l.drained {
		if d < terminationDelay-slack {
			t.Errorf("pod %s went %s after its deletion; its container takes %s to exit (GPUs released early?)", name, d.Round(time.Millisecond), terminationDelay)
		}
	}
	warm := 0
	for name, d := range l.warmUp {
		warm++
		if d < readyAfter-slack {
			t.Errorf("pod %s was Ready %s after its container started; its readiness probe passes only after %s", name, d, readyAfter)
		}
	}
	if warm == 0 {
		t.Error("no pod was seen becoming Ready")
	}
	t.Logf("lowest Ready count %d; terminating pods took %v; start-to-Ready %v", l.minReady, durations(l.drained), durations(l.warmUp))
}

func durations(m map[string]time.Duration) []string {
	out := make([]string, 0, len(m))
	for _, d := range m {
		out = append(out, d.Round(100*time.Millisecond).String())
	}
	sort.Strings(out)
	return out
}

// waitImageReady waits until the set has exactly pods live pods, all Ready on image.
// rollUnderWay creates servingSet name (3 pods of 4 GPUs, maxSurge 1), waits for it on
// image:v1, watches its pods for two on one index (until the end of the test) and starts its
// update to image:v2, returning once a pod on v2 exists. The caller checks the twins.
func rollUnderWay(t *testing.T, env *framework.Env, ns, name, image string) *noTwins {
	t.Helper()
	create(t, env, servingSet(ns, name, image, 3, 4, 1, 0))
	waitImageReady(t, env, ns, name, image+":v1", 3, kindTimeout)
	twins := &noTwins{}
	t.Cleanup(env.WatchPods(t, ns, name, twins.observe))
	env.SetImage(t, ns, name, image+":v2")
	waitUpdateUnderWay(t, env, ns, name, image+":v2")
	return twins
}

func waitImageReady(t *testing.T, env *framework.Env, ns, name, image string, pods int, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, fmt.Sprintf("%s: %d pods Ready on %s", name, pods, image), func(ctx context.Context) (bool, error) {
		live, err := env.ListPods(ctx, ns, name)
		if err != nil {
			return false, err
		}
		n := 0
		var others []string
		for _, p := range live {
			if p.Spec.Containers[0].Image == image && framework.ReadyPod(p) {
				n++
			} else {
				others = append(others, fmt.Sprintf("%s(%s on %q, %s)", p.Name, p.Spec.Containers[0].Image, p.Spec.NodeName, p.Status.Phase))
			}
		}
		if n == pods && len(live) == pods {
			return true, nil
		}
		return false, fmt.Errorf("%d of %d Ready on %s; others: %v", n, pods, image, others)
	})
}

func docker(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// waitNodeServing waits until the kind node is Ready and advertises its 8 GPUs again.
func waitNodeServing(t *testing.T, env *framework.Env, node string) {
	t.Helper()
	framework.Eventually(t, kindTimeout, "node "+node+" Ready with 8 allocatable GPUs", func(ctx context.Context) (bool, error) {
		n, err := env.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		gpus := n.Status.Allocatable["nvidia.com/gpu"]
		ready := localcluster.NodeReady(n)
		if ready && gpus.Value() == 8 && !n.Spec.Unschedulable {
			return true, nil
		}
		return false, fmt.Errorf("ready %v, allocatable GPUs %s, unschedulable %v", ready, gpus.String(), n.Spec.Unschedulable)
	})
}

// Every GPU worker of the kind cluster is a real kubelet that advertises 8 nvidia.com/gpu
// through the fake device plugin and carries its rack.
func TestKindNodesAdvertiseGPUs(t *testing.T) {
	kindCluster(t)
	env := framework.Shared(t)
	nodes, err := env.Kube.CoreV1().Nodes().List(framework.Context(t), metav1.ListOptions{LabelSelector: kindGPULabel + "=true"})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) < 3 {
		t.Fatalf("%d GPU workers; the real-cluster tests need 3", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		waitNodeServing(t, env, n.Name)
		if n.Status.NodeInfo.KubeletVersion == "" || strings.Contains(n.Status.NodeInfo.ContainerRuntimeVersion, "kwok") {
			t.Errorf("node %s: kubelet %q runtime %q: not a real kubelet", n.Name, n.Status.NodeInfo.KubeletVersion, n.Status.NodeInfo.ContainerRuntimeVersion)
		}
		if n.Labels["topology.phalanx.dev/rack"] == "" {
			t.Errorf("node %s has no rack label", n.Name)
		}
	}
}

// A rolling update with surge on real kubelets: the surge pod becomes Ready only through its
// readiness probe, old pods take their termination delay with their GPUs held, and the set
// never has fewer Ready pods than maxUnavailable 0 allows.
func TestKindRollingUpdateProbesAndGrace(t *testing.T) {
	_, image := kindCluster(t)
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	create(t, env, servingSet(ns, "roll", image, 2, 8, 1, 0))
	env.WaitAvailable(t, ns, "roll", 1, 2)
	waitImageReady(t, env, ns, "roll", image+":v1", 2, kindTimeout)

	ledger := newGPULedger(2)
	twins := &noTwins{}
	stop := env.WatchPods(t, ns, "roll", func(pods map[string]corev1.Pod, changed *corev1.Pod) {
		ledger.observe(pods, changed)
		twins.observe(pods, changed)
	})
	env.SetImage(t, ns, "roll", image+":v2")
	waitImageReady(t, env, ns, "roll", image+":v2", 2, kindTimeout)
	env.WaitUpdated(t, ns, "roll", image+":v2", 2)
	// the last old pod's termination ends after the update is complete
	framework.Eventually(t, time.Minute, "old pods gone", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: framework.PCSSelector("roll")})
		if err != nil {
			return false, err
		}
		if len(list.Items) == 2 {
			return true, nil
		}
		return false, fmt.Errorf("%d pods", len(list.Items))
	})
	stop()
	ledger.check(t, 2)
	twins.check(t)
}

// A node is lost for real in the middle of an update (its container stopped: kubelet gone,
// NotReady, taint-based eviction): the update finishes on the nodes that are left, no index is
// claimed twice, and nothing live stays on the lost node. The node comes back at the end.
func TestKindNodeLostMidUpdate(t *testing.T) {
	_, image := kindCluster(t)
	env := framework.Shared(t)
	ns := env.NewNamespace(t)
	twins := rollUnderWay(t, env, ns, "lost", image)
	pods, err := env.ListPods(framework.Context(t), ns, "lost")
	if err != nil {
		t.Fatal(err)
	}
	victim := ""
	for _, p := range pods {
		if p.Spec.Containers[0].Image == image+":v1" && p.Spec.NodeName != "" {
			victim = p.Spec.NodeName
			break
		}
	}
	if victim == "" {
		t.Fatal("no v1 pod left to lose a node under")
	}
	t.Logf("stopping node %s", victim)
	docker(t, "stop", victim)
	stopped := time.Now()
	t.Cleanup(func() {
		docker(t, "start", victim)
		waitNodeServing(t, env, victim)
		waitPhalanxAvailable(t, env) // a replica may have run on the lost node
	})
	framework.Eventually(t, kindTimeout, "node "+victim+" NotReady", func(ctx context.Context) (bool, error) {
		n, err := env.Kube.CoreV1().Nodes().Get(ctx, victim, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return !localcluster.NodeReady(n), nil
	})
	notReady := time.Now()
	waitImageReady(t, env, ns, "lost", image+":v2", 3, kindTimeout)
	t.Logf("node %s NotReady %s after it stopped; the update finished %s after that", victim, notReady.Sub(stopped).Round(time.Second), time.Since(notReady).Round(time.Second))
	// The members it had were released (their pods stay Terminating with no kubelet), not
	// waited for until the node came back.
	events, err := env.Kube.CoreV1().Events(ns).List(framework.Context(t), metav1.ListOptions{FieldSelector: "involvedObject.kind=PodCliqueSet,involvedObject.name=lost,reason=" + controller.ReasonLostMemberReleased})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) == 0 {
		t.Errorf("no %s event: the members on the lost node were not released", controller.ReasonLostMemberReleased)
	}
	for _, e := range events.Items {
		t.Logf("event %s: %s", e.Reason, e.Message)
	}
	live, err := env.ListPods(framework.Context(t), ns, "lost")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range live {
		if p.Spec.NodeName == victim {
			t.Errorf("pod %s is live on the lost node %s", p.Name, victim)
		}
	}
	twins.check(t)
}

// kubectl drain through the Eviction API with a PodDisruptionBudget: evictions that would break
// the budget are refused (429) and retried, Phalanx replaces every evicted member on the other
// nodes, and the set never has fewer Ready pods than the budget's minAvailable.
func TestKindDrainWithPDB(t *testing.T) {
	_, image := kindCluster(t)
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	create(t, env, servingSet(ns, "drain", image, 3, 4, 1, 0))
	waitImageReady(t, env, ns, "drain", image+":v1", 3, kindTimeout)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "drain"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(2)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{grovev1.LabelPodCliqueSet: "drain"}},
		},
	}
	if _, err := env.Kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, "the PDB counts 3 healthy pods", func(ctx context.Context) (bool, error) {
		p, err := env.Kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "drain", metav1.GetOptions{})
		return err == nil && p.Status.CurrentHealthy == 3 && p.Status.DisruptionsAllowed == 1, err
	})

	// the node with the most of the set's pods
	pods, err := env.ListPods(ctx, ns, "drain")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	node := ""
	for _, p := range pods {
		count[p.Spec.NodeName]++
		if node == "" || count[p.Spec.NodeName] > count[node] {
			node = p.Spec.NodeName
		}
	}
	ledger := newGPULedger(3)
	stop := env.WatchPods(t, ns, "drain", ledger.observe)
	defer stop()

	t.Logf("draining node %s (%d of the set's pods)", node, count[node])
	cordon := func(on bool) error {
		_, err := env.Kube.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType,
			[]byte(fmt.Sprintf(`{"spec":{"unschedulable":%v}}`, on)), metav1.PatchOptions{})
		return err
	}
	if err := cordon(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cordon(false); err != nil {
			t.Errorf("uncordoning %s: %v", node, err)
		}
	})
	refused := 0
	for _, p := range pods {
		if p.Spec.NodeName != node {
			continue
		}
		framework.Eventually(t, kindTimeout, "evicting "+p.Name, func(ctx context.Context) (bool, error) {
			err := env.Kube.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: p.Name}})
			switch {
			case err == nil, apierrors.IsNotFound(err):
				return true, nil
			case apierrors.IsTooManyRequests(err):
				refused++
				return false, nil
			}
			return false, err
		})
	}
	framework.Eventually(t, kindTimeout, "the set back to 3 Ready pods off "+node, func(ctx context.Context) (bool, error) {
		live, err := env.ListPods(ctx, ns, "drain")
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range live {
			if p.Spec.NodeName == node {
				return false, fmt.Errorf("pod %s still on %s", p.Name, node)
			}
			if framework.ReadyPod(p) {
				ready++
			}
		}
		if ready == 3 && len(live) == 3 {
			return true, nil
		}
		return false, fmt.Errorf("%d pods, %d Ready", len(live), ready)
	})
	stop()
	ledger.mu.Lock()
	minReady := ledger.minReady
	ledger.mu.Unlock()
	if minReady < 2 {
		t.Errorf("Ready pods fell to %d during the drain; the PodDisruptionBudget allows no fewer than 2", minReady)
	}
	if count[node] > 1 && refused == 0 {
		t.Errorf("%d pods evicted from one node and the budget never refused one", count[node])
	}
	t.Logf("evictions refused by the budget: %d; lowest Ready count %d", refused, minReady)
}

// kubelet restarted on a node with gang members: the members keep running (same pods, no
// container restart, no replacement), the device plugin registers again so the node advertises
// its GPUs, and an update afterwards places new members there.
func TestKindKubeletRestarted(t *testing.T) {
	_, image := kindCluster(t)
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	create(t, env, servingSet(ns, "kubelet", image, 2, 8, 0, 1))
	waitImageReady(t, env, ns, "kubelet", image+":v1", 2, kindTimeout)
	before, err := env.ListPods(ctx, ns, "kubelet")
	if err != nil {
		t.Fatal(err)
	}
	node := before[0].Spec.NodeName
	t.Logf("restarting kubelet on %s", node)
	docker(t, "exec", node, "systemctl", "restart", "kubelet")
	t.Cleanup(func() { waitPhalanxAvailable(t, env) }) // a replica may run on that node
	// kubelet's device manager starts empty; the plugin registers again within seconds
	waitNodeServing(t, env, node)
	framework.Eventually(t, time.Minute, "the same pods Ready", func(ctx context.Context) (bool, error) {
		after, err := env.ListPods(ctx, ns, "kubelet")
		if err != nil {
			return false, err
		}
		if len(after) != len(before) {
			return false, fmt.Errorf("%d pods, was %d", len(after), len(before))
		}
		uids := map[types.UID]int32{}
		for _, p := range before {
			uids[p.UID] = p.Status.ContainerStatuses[0].RestartCount
		}
		for _, p := range after {
			restarts, ok := uids[p.UID]
			if !ok {
				return false, framework.Terminal(fmt.Errorf("pod %s is new (was replaced)", p.Name))
			}
			if p.Status.ContainerStatuses[0].RestartCount != restarts {
				return false, framework.Terminal(fmt.Errorf("pod %s's container restarted", p.Name))
			}
			if !framework.ReadyPod(p) {
				return false, fmt.Errorf("pod %s not Ready", p.Name)
			}
		}
		return true, nil
	})
	env.SetImage(t, ns, "kubelet", image+":v2")
	waitImageReady(t, env, ns, "kubelet", image+":v2", 2, kindTimeout)
	env.WaitUpdated(t, ns, "kubelet", image+":v2", 2)
}

// The webhook certificate rotates while PodCliqueSets are created through the Service: the
// Secret is replaced with a certificate that expires within the renewal window (its CA added to
// the bundle, as a rotation keeps it); a replica renews it, every replica serves the new one
// once the configurations trust it, and no create fails meanwhile; invalid ones are still
// refused by the webhook.
func TestKindWebhookCertRotation(t *testing.T) {
	kindCluster(t)
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	secrets := env.Kube.CoreV1().Secrets(systemNamespace)
	sec, err := secrets.Get(ctx, "phalanx-webhook-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{"phalanx-webhook", "phalanx-webhook." + systemNamespace, "phalanx-webhook." + systemNamespace + ".svc",
		"phalanx-webhook." + systemNamespace + ".svc.cluster.local"}
	old, err := admission.GenerateServingCert(hosts, time.Now().Add(-350*24*time.Hour)) // 15 days left
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var mu sync.Mutex
	var failures []string
	created := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			pcs := framework.Workers(ns, fmt.Sprintf("rot-%d", i), 1, 0, 600)
			_, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(context.Background(), pcs, metav1.CreateOptions{})
			mu.Lock()
			if err != nil {
				failures = append(failures, err.Error())
			} else {
				created++
			}
			mu.Unlock()
			if err == nil {
				// The create through the webhooks is what is tested: its pods would only
				// wait for GPUs the other tests need.
				_ = env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Delete(context.Background(), pcs.Name, metav1.DeleteOptions{})
			}
		}
	}()
	sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey] = old.CertPEM, old.KeyPEM
	sec.Data[admission.SecretCAKey] = append(append([]byte{}, old.CAPEM...), sec.Data[admission.SecretCAKey]...)
	if _, err := secrets.Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
		close(done)
		wg.Wait()
		t.Fatal(err)
	}
	framework.Eventually(t, 2*time.Minute, "the expiring certificate renewed", func(ctx context.Context) (bool, error) {
		s, err := secrets.Get(ctx, "phalanx-webhook-tls", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		block, _ := pem.Decode(s.Data[corev1.TLSCertKey])
		if block == nil {
			return false, fmt.Errorf("no certificate in the Secret")
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return false, err
		}
		if time.Until(c.NotAfter) > 300*24*time.Hour {
			return true, nil
		}
		return false, fmt.Errorf("leaf expires %s", c.NotAfter)
	})
	// keep creating while both replicas move to the new certificate
	mu.Lock()
	atRenewal := created
	mu.Unlock()
	framework.Eventually(t, time.Minute, "30 creates after the renewal", func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if created >= atRenewal+30 && len(failures) == 0 {
			return true, nil
		}
		return false, fmt.Errorf("%d created since the renewal, failures %v", created-atRenewal, failures)
	})
	close(done)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d creates failed during the rotation: %v", len(failures), failures)
	}
	bad := framework.Workers(ns, "bad", 0, 0, 600)
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, bad, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "must not both be 0") {
		t.Errorf("an invalid PodCliqueSet after the rotation: %v; want the webhook's refusal (maxSurge and maxUnavailable must not both be 0)", err)
	}
}

// The leader pod deleted in the middle of an update: the other replica takes the lease and
// finishes the update (no twin, no member lost), and the Deployment brings the second replica
// back.
func TestKindLeaderDeletedMidUpdate(t *testing.T) {
	_, image := kindCluster(t)
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	create(t, env, servingSet(ns, "lead", image, 3, 4, 1, 0))
	waitImageReady(t, env, ns, "lead", image+":v1", 3, kindTimeout)
	twins := &noTwins{}
	stop := env.WatchPods(t, ns, "lead", twins.observe)
	defer stop()

	leader := leaderPod(t, env)
	env.SetImage(t, ns, "lead", image+":v2")
	waitUpdateUnderWay(t, env, ns, "lead", image+":v2")
	t.Logf("deleting the leader pod %s", leader)
	if err := env.Kube.CoreV1().Pods(systemNamespace).Delete(ctx, leader, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, kindTimeout, "another replica holds the lease", func(ctx context.Context) (bool, error) {
		holder, err := leaseHolder(ctx, env)
		if err != nil {
			return false, err
		}
		if holder != "" && holder != leader {
			return true, nil
		}
		return false, fmt.Errorf("holder %q", holder)
	})
	waitImageReady(t, env, ns, "lead", image+":v2", 3, kindTimeout)
	env.WaitUpdated(t, ns, "lead", image+":v2", 3)
	twins.check(t)
	waitPhalanxAvailable(t, env) // the Deployment brings the second replica back
}
