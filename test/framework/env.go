// Package framework is the harness of the integration and e2e tests: one real control plane
// (etcd, kube-apiserver, KWOK) per test binary, a namespace and fake GPU nodes per test, and
// phalanx-scheduler running in-process.
//
// Set PHALANX_LOCAL_DIR to the run directory of `hack/local-up.sh up` to reuse a running
// control plane instead of starting one (faster when iterating). Tests of one binary run one
// after another: nodes are cluster-wide and every test brings its own.
package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	versioned "github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
)

// Env is the control plane shared by the tests of one test binary.
type Env struct {
	Root    string
	Cluster *localcluster.Cluster
	Config  *rest.Config
	Kube    kubernetes.Interface
	Phalanx versioned.Interface
	// Kubeconfig is the path of an admin kubeconfig for the cluster.
	Kubeconfig string
	// ServiceAccountKubeconfig, SAKube and SAPhalanx act as manifests/' ServiceAccount
	// (installServiceAccount): in-process Phalanx runs with them. Empty in the e2e suite, whose
	// Phalanx processes use the ServiceAccount's own token.
	ServiceAccountKubeconfig string
	SAKube                   kubernetes.Interface
	SAPhalanx                versioned.Interface
	// External: the cluster was not started by the tests (PHALANX_E2E_KUBECONFIG); Cluster is
	// nil and Phalanx runs in it already.
	External bool
}

var shared *Env

// Main starts (or attaches to) the control plane, runs the tests and stops what it started.
// Call it from TestMain.
func Main(m *testing.M) {
	os.Exit(run(m, false, nil, ""))
}

// MainWithWorkloadAPI is MainWithControllers on an API server that serves the upstream
// Workload API (scheduling.k8s.io/v1beta1, localcluster.WorkloadAPIArgs). It always starts its
// own control plane (PHALANX_LOCAL_DIR is ignored: a shared one may not serve the API).
func MainWithWorkloadAPI(m *testing.M) {
	_ = os.Unsetenv("PHALANX_LOCAL_DIR")
	workloadAPI = true
	os.Exit(run(m, true, nil, ""))
}

// workloadAPI: the control plane this binary starts serves the Workload API.
var workloadAPI bool

// MainWithControllers is Main with a kube-controller-manager in the control plane, for tests
// of Jobs and Deployments.
func MainWithControllers(m *testing.M) {
	os.Exit(run(m, true, nil, ""))
}

// MainE2E runs the end-to-end suite: against PHALANX_E2E_KUBECONFIG when it is set (any
// cluster, e.g. the one hack/kind-up.sh made), otherwise against a local control plane with a
// kube-controller-manager. setup runs once before the tests (it deploys Phalanx) and its
// cleanup after them.
func MainE2E(m *testing.M, setup func(*Env) (cleanup func(), err error)) {
	os.Exit(run(m, true, setup, ""))
}

// RunWithCRDs runs the tests as Main does, with the CRDs of dir installed instead of manifests/helm/phalanx/files/crds (for example
// the Grove-shaped ones of GroveShapedCRDs, to share a cluster as Grove's operator would). It
// always starts its own control plane (PHALANX_LOCAL_DIR is ignored) so that the CRDs of a
// shared one are not replaced. It returns the exit code, so that the caller can remove dir.
func RunWithCRDs(m *testing.M, dir string) int {
	_ = os.Unsetenv("PHALANX_LOCAL_DIR")
	return run(m, false, nil, dir)
}

// run starts (or attaches to) the control plane, installs the CRDs of crdDir (manifests/helm/phalanx/files/crds
// when empty) unless setup deploys Phalanx itself, and runs the tests.
func run(m *testing.M, controllers bool, setup func(*Env) (func(), error), crdDir string) (code int) {
	ctx := context.Background()
	root, err := localcluster.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if crdDir == "" {
		crdDir = filepath.Join(root, "manifests", "helm", "phalanx", "files", "crds")
	}
	var cluster *localcluster.Cluster
	external := os.Getenv("PHALANX_E2E_KUBECONFIG")
	if setup != nil && external != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", external)
		if err != nil {
			fmt.Fprintf(os.Stderr, "PHALANX_E2E_KUBECONFIG: %v\n", err)
			return 1
		}
		// client-go's default 5 QPS throttles the suite's waits and watches into their deadlines
		cfg.QPS, cfg.Burst = 100, 200
		cluster = &localcluster.Cluster{Kubeconfig: external, Config: cfg}
	} else if dir := os.Getenv("PHALANX_LOCAL_DIR"); dir != "" {
		if cluster, err = localcluster.Attach(ctx, dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	} else {
		binDir := os.Getenv("PHALANX_BIN_DIR")
		if binDir == "" {
			binDir = filepath.Join(root, "bin")
		}
		runDir, err := os.MkdirTemp("", "phalanx-it-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer func() {
			if code != 0 {
				// The control plane's logs (API server, KWOK, podreaper, controller manager) of a
				// failed run are what explains it.
				fmt.Fprintf(os.Stderr, "the local control plane's logs are kept in %s/logs; a namespace's history: go run -mod=vendor ./hack/etcdhistory -dir %s -namespace NS\n", runDir, runDir)
				return
			}
			_ = os.RemoveAll(runDir)
		}()
		start := time.Now()
		cluster, err = localcluster.Start(ctx, localcluster.Options{
			Dir:               runDir,
			BinDir:            binDir,
			KwokStages:        filepath.Join(root, "hack", "kwok", "stages.yaml"),
			ControllerManager: controllers,
			CRDDir:            crdDir,
			WorkloadAPI:       workloadAPI,
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "starting the local control plane: %v\n", err)
			return 1
		}
		defer cluster.Stop()
		fmt.Fprintf(os.Stderr, "local control plane up in %s (%s)\n", time.Since(start).Round(10*time.Millisecond), runDir)
	}
	if setup == nil {
		if err := localcluster.InstallCRDs(ctx, cluster.Config, crdDir); err != nil {
			fmt.Fprintf(os.Stderr, "installing CRDs: %v\n", err)
			return 1
		}
	}
	kube, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	phalanx, err := versioned.NewForConfig(cluster.Config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	shared = &Env{Root: root, Cluster: cluster, Config: cluster.Config, Kube: kube, Phalanx: phalanx,
		Kubeconfig: cluster.Kubeconfig, External: external != "" && setup != nil}
	if external != "" {
		// A cluster that outlives the test binary (kind) keeps what an interrupted run left:
		// its pods would compete with this run's for the nodes the tests add.
		if err := sweepLeftovers(ctx, kube, phalanx); err != nil {
			fmt.Fprintf(os.Stderr, "removing what an earlier run left: %v\n", err)
			return 1
		}
	}
	if setup == nil {
		dir, err := os.MkdirTemp("", "phalanx-harness-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer func() { _ = os.RemoveAll(dir) }()
		var as *rest.Config
		if shared.ServiceAccountKubeconfig, as, err = installServiceAccount(ctx, root, cluster.Config, cluster.Kubeconfig, dir); err != nil {
			fmt.Fprintf(os.Stderr, "installing the ServiceAccount of manifests/: %v\n", err)
			return 1
		}
		if shared.SAKube, err = kubernetes.NewForConfig(as); err == nil {
			shared.SAPhalanx, err = versioned.NewForConfig(as)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if setup != nil {
		cleanup, err := setup(shared)
		if err != nil {
			fmt.Fprintf(os.Stderr, "setting up: %v\n", err)
			return 1
		}
		defer cleanup()
	}
	return m.Run()
}

// Shared returns the control plane of this test binary; tests must run under Main.
func Shared(t testing.TB) *Env {
	t.Helper()
	if shared == nil {
		t.Fatal("framework.Main was not called from TestMain")
	}
	return shared
}

// Context returns a context that ends with the test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// LabelTestNamespace marks the namespaces NewNamespace makes (sweepLeftovers finds them).
const LabelTestNamespace = "phalanx.dev/test-namespace"

// sweepLeftovers deletes, on a cluster the tests did not start, the test namespaces (their
// pods at once) and the fake nodes that an earlier, interrupted run left behind.
func sweepLeftovers(ctx context.Context, kube kubernetes.Interface, phalanx versioned.Interface) error {
	nss, err := kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: LabelTestNamespace + "=true"})
	if err != nil {
		return err
	}
	for _, ns := range nss.Items {
		_ = phalanx.GroveV1alpha1().PodCliqueSets(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = kube.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})
		if err := kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting namespace %s: %w", ns.Name, err)
		}
	}
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: localcluster.LabelFakeNode + "=true"})
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if err := kube.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting node %s: %w", n.Name, err)
		}
	}
	if len(nss.Items)+len(nodes.Items) > 0 {
		fmt.Fprintf(os.Stderr, "removed %d test namespace(s) and %d fake node(s) an earlier run left\n", len(nss.Items), len(nodes.Items))
	}
	return nil
}

// NewNamespace creates a namespace for the test. At the end of the test its pods are deleted
// at once (there is no kube-controller-manager to empty a terminating namespace).
func (e *Env) NewNamespace(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t-%s", rand.String(6))
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelTestNamespace: "true"}}}
	if _, err := e.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			e.dumpNamespace(t, name)
		}
		_ = e.Kube.CoreV1().Pods(name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})
		_ = e.Phalanx.SchedulerV1alpha1().PodGangs(name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = e.Phalanx.SchedulingV1alpha1().PodGroups(name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = e.Phalanx.GroveV1alpha1().PodCliqueSets(name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = e.Kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	})
	return name
}

// AddNodes creates fake GPU nodes of the given shape, waits until they are Ready and deletes
// them at the end of the test. Use a distinct Prefix when a test adds nodes more than once.
func (e *Env) AddNodes(t testing.TB, shape localcluster.NodeShape) []string {
	t.Helper()
	ctx := context.Background()
	if err := localcluster.CreateNodes(ctx, e.Kube, shape); err != nil {
		t.Fatalf("creating nodes: %v", err)
	}
	names := make([]string, 0, shape.Count)
	for i := 0; i < shape.Count; i++ {
		n, _ := shape.Node(i)
		names = append(names, n.Name)
	}
	t.Cleanup(func() {
		for _, n := range names {
			_ = e.Kube.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{})
		}
	})
	return names
}

// Eventually polls cond every 50 ms until it returns true or timeout passes, and fails the
// test then, naming what it waited for and the last error cond returned (each new error is
// logged as it happens). An error that waiting cannot fix stops the wait at once: one marked
// with Terminal, or an API error that no retry answers differently (Forbidden, Unauthorized,
// BadRequest, Invalid, MethodNotSupported, NotAcceptable, UnsupportedMediaType).
func Eventually(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err == nil {
			return ok, nil
		}
		if ctx.Err() != nil {
			return false, nil // the wait's own deadline, not what cond reports: keep the last error
		}
		if isTerminal(err) {
			return false, err
		}
		if last == nil || last.Error() != err.Error() {
			t.Logf("waiting for %s: %v", what, err)
		}
		last = err
		return false, nil
	})
	switch {
	case err == nil:
	case isTerminal(err):
		t.Fatalf("gave up waiting for %s: %v", what, err)
	default:
		t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, last)
	}
}

// terminalError marks an error that Eventually must not wait out.
type terminalError struct{ err error }

func (e terminalError) Error() string { return e.err.Error() }
func (e terminalError) Unwrap() error { return e.err }

// Terminal marks err as one that waiting cannot fix: Eventually fails at once with it.
func Terminal(err error) error {
	if err == nil {
		return nil
	}
	return terminalError{err}
}

func isTerminal(err error) bool {
	var te terminalError
	return errors.As(err, &te) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsInvalid(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err)
}
