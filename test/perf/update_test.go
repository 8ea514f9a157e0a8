package perf

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// UpdateResult is the cost of one update.
type UpdateResult struct {
	Name          string
	Pods          int
	Duration      time.Duration
	MinReady      int
	MinAvailable  int32
	PeakExtraGPUs int64
	Passes        int
	Timeline      []Sample
}

// Sample is the Ready count at a moment of the update.
type Sample struct {
	At    time.Duration
	Ready int
}

// runUpdates measures the seed design's strategies at 100 PodCliqueSet replicas on 800 nodes.
func runUpdates(t *testing.T, root string) []UpdateResult {
	replicas, nodes := int32(100), 800
	if *quick {
		replicas, nodes = 10, 80
	}
	ctx := context.Background()
	gpus := func(pcs *grovev1.PodCliqueSet, n int64) *grovev1.PodCliqueSet {
		for i := range pcs.Spec.Template.Cliques {
			pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Resources.Limits["nvidia.com/gpu"] = *resource.NewQuantity(n, resource.DecimalSI)
		}
		return pcs
	}
	cases := []struct {
		name string
		pcs  *grovev1.PodCliqueSet
		pods int
	}{
		{"RollingUpdate, PodClique of 3, maxSurge 1 / maxUnavailable 0", framework.Workers(ns, "pclq", 1, 0, 600), 3},
		{"RollingUpdate, scaling group 3 (minAvailable 3) of leader+2 workers, maxSurge 1 / maxUnavailable 0", gpus(framework.GroupSet(ns, "pcsg", 3, 3, 1, 0), 2), 9},
		{"ReplicaRecreate, replicas of 3 pods, maxSurge 1 / maxUnavailable 0", framework.Recreate(ns, "rr", replicas, 1, 0), 3},
	}
	var out []UpdateResult
	for _, c := range cases {
		c.pcs.Spec.Replicas = replicas
		env, cluster := startUpdateCluster(t, root, nodes)
		var mu sync.Mutex
		passes, armed := 0, false
		stop := env.StartPhalanx(t, framework.Phalanx{Controller: true, Configure: func(ctrl *controller.Controller) {
			ctrl.OnPlan = func(_ *grovev1.PodCliqueSet, p update.Plan) {
				mu.Lock()
				defer mu.Unlock()
				if armed && len(p.Actions) > 0 {
					passes++
				}
			}
		}})
		if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, c.pcs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		total := int(replicas) * c.pods
		waitLong(t, env, c.pcs.Name, func(pcs *grovev1.PodCliqueSet, ready int) bool {
			return pcs.Status.AvailableReplicas == replicas && ready == total
		})
		res := UpdateResult{Name: c.name, Pods: total, MinReady: total, MinAvailable: replicas}
		var startGPUs int64
		pods, _ := env.ListPods(ctx, ns, c.pcs.Name)
		for i := range pods {
			startGPUs += gang.RequestsOf(&pods[i]).GPU
		}
		begin := time.Now()
		stopWatch := env.WatchPods(t, ns, c.pcs.Name, func(pods map[string]corev1.Pod, _ *corev1.Pod) {
			ready := 0
			var g int64
			for _, p := range pods {
				if framework.ReadyPod(p) {
					ready++
				}
				g += gang.RequestsOf(&p).GPU
			}
			mu.Lock()
			defer mu.Unlock()
			res.MinReady = min(res.MinReady, ready)
			res.PeakExtraGPUs = max(res.PeakExtraGPUs, g-startGPUs)
			at := time.Since(begin)
			if n := len(res.Timeline); n == 0 || at-res.Timeline[n-1].At > 100*time.Millisecond || res.Timeline[n-1].Ready != ready {
				res.Timeline = append(res.Timeline, Sample{At: at, Ready: ready})
			}
		})
		mu.Lock()
		armed = true
		mu.Unlock()
		env.SetImage(t, ns, c.pcs.Name, "registry.example.com/llm/next:v2")
		waitLong(t, env, c.pcs.Name, func(pcs *grovev1.PodCliqueSet, ready int) bool {
			mu.Lock()
			res.MinAvailable = min(res.MinAvailable, pcs.Status.AvailableReplicas)
			mu.Unlock()
			p := pcs.Status.UpdateProgress
			return pcs.Status.ObservedGeneration != nil && *pcs.Status.ObservedGeneration == pcs.Generation && p != nil && p.UpdateEndedAt != nil && ready == total
		})
		res.Duration = time.Since(begin)
		stopWatch()
		stop()
		cluster.Stop()
		mu.Lock()
		res.Passes = passes
		mu.Unlock()
		t.Logf("%s: %d pods, %s, min Ready %d, min available %d, peak extra GPUs %d, %d passes", c.name, total, res.Duration.Round(100*time.Millisecond), res.MinReady, res.MinAvailable, res.PeakExtraGPUs, res.Passes)
		out = append(out, res)
	}
	return out
}

// waitLong polls the PodCliqueSet and its Ready pods every 250 ms until done says so (20 min at most).
// startUpdateCluster starts a local control plane with the CRDs, namespace ns and nodes
// fake GPU nodes, and an admin Env on it with a client fast enough not to slow the
// measurement. The caller stops the cluster.
func startUpdateCluster(t *testing.T, root string, nodes int) (*framework.Env, *localcluster.Cluster) {
	t.Helper()
	ctx := context.Background()
	crds := filepath.Join(root, "manifests", "helm", "phalanx", "files", "crds")
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: t.TempDir(), BinDir: binDir(root), KwokStages: filepath.Join(root, "hack", "kwok", "stages.yaml"), CRDDir: crds})
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.InstallCRDs(ctx, cluster.Config, crds); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	cfg := *cluster.Config
	cfg.QPS, cfg.Burst = 2000, 4000
	env := &framework.Env{Root: root, Cluster: cluster, Config: &cfg, Kube: kubernetes.NewForConfigOrDie(&cfg), Phalanx: versioned.NewForConfigOrDie(&cfg), Kubeconfig: cluster.Kubeconfig}
	if _, err := env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	if err := localcluster.CreateNodes(ctx, env.Kube, localcluster.DefaultNodeShape(nodes)); err != nil {
		cluster.Stop()
		t.Fatal(err)
	}
	return env, cluster
}

func waitLong(t *testing.T, env *framework.Env, name string, done func(*grovev1.PodCliqueSet, int) bool) {
	t.Helper()
	framework.Eventually(t, 20*time.Minute, fmt.Sprintf("PodCliqueSet %s", name), func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pods, err := env.ListPods(ctx, ns, name)
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range pods {
			if framework.ReadyPod(p) {
				ready++
			}
		}
		return done(pcs, ready), nil
	})
}
