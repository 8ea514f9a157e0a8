package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// Topology label keys of the fake GPU nodes.
const (
	LabelZone  = "topology.kubernetes.io/zone"
	LabelBlock = "topology.phalanx.dev/block"
	LabelRack  = "topology.phalanx.dev/rack"
	// LabelFakeNode marks nodes made by this package so that they can be found and removed.
	LabelFakeNode = "phalanx.dev/fake-node"
	// ResourceGPU is the extended resource of a fake GPU node.
	ResourceGPU corev1.ResourceName = "nvidia.com/gpu"
)

// NodeShape describes a set of fake GPU nodes laid out in zones, blocks and racks.
type NodeShape struct {
	// Prefix of the node names, "gpu-node" by default.
	Prefix string
	// Count of nodes.
	Count int
	// GPUs, CPU and Memory per node ("64", "512Gi").
	GPUs   int64
	CPU    string
	Memory string
	// NodesPerRack, RacksPerBlock and BlocksPerZone lay the nodes out; 0 means 4, 2, 2.
	NodesPerRack, RacksPerBlock, BlocksPerZone int
}

// DefaultNodeShape is an 8-GPU node (cpu 64, memory 512Gi), 4 per rack, 2 racks per block,
// 2 blocks per zone.
func DefaultNodeShape(count int) NodeShape {
	return NodeShape{Prefix: "gpu-node", Count: count, GPUs: 8, CPU: "64", Memory: "512Gi",
		NodesPerRack: 4, RacksPerBlock: 2, BlocksPerZone: 2}
}

// Node returns the i-th node of the shape. Its capacity is set in status, as a kubelet would
// report it; KWOK then keeps it Ready.
func (s NodeShape) Node(i int) (*corev1.Node, error) {
	cpu, err := resource.ParseQuantity(s.CPU)
	if err != nil {
		return nil, fmt.Errorf("node shape cpu %q: %w", s.CPU, err)
	}
	mem, err := resource.ParseQuantity(s.Memory)
	if err != nil {
		return nil, fmt.Errorf("node shape memory %q: %w", s.Memory, err)
	}
	perRack, racksPerBlock, blocksPerZone := orDefault(s.NodesPerRack, 4), orDefault(s.RacksPerBlock, 2), orDefault(s.BlocksPerZone, 2)
	rack := i / perRack
	block := rack / racksPerBlock
	zone := block / blocksPerZone
	prefix := s.Prefix
	if prefix == "" {
		prefix = "gpu-node"
	}
	name := fmt.Sprintf("%s-%04d", prefix, i)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    cpu,
		corev1.ResourceMemory: mem,
		corev1.ResourcePods:   resource.MustParse("110"),
		ResourceGPU:           *resource.NewQuantity(s.GPUs, resource.DecimalSI),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
				LabelZone:                fmt.Sprintf("zone-%d", zone),
				LabelBlock:               fmt.Sprintf("block-%d", block),
				LabelRack:                fmt.Sprintf("rack-%d", rack),
				LabelFakeNode:            "true",
			},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity.DeepCopy(),
			Phase:       corev1.NodeRunning,
		},
	}, nil
}

// CreateNodes creates the nodes of the shape (existing ones are left as they are) and waits
// until KWOK reports all of them Ready.
func CreateNodes(ctx context.Context, cs kubernetes.Interface, s NodeShape) error {
	names := make(map[string]bool, s.Count)
	for i := 0; i < s.Count; i++ {
		n, err := s.Node(i)
		if err != nil {
			return err
		}
		names[n.Name] = true
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", n.Name, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: LabelFakeNode + "=true"})
		if err != nil {
			return false, nil
		}
		ready := 0
		for i := range list.Items {
			if names[list.Items[i].Name] && NodeReady(&list.Items[i]) {
				ready++
			}
		}
		return ready == len(names), nil
	})
}

// NodeReady reports whether the node has condition Ready=True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// InstallCRDs creates or updates every CustomResourceDefinition in dir and waits until each is
// Established.
func InstallCRDs(ctx context.Context, cfg *rest.Config, dir string) error {
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no CRDs in %s: run `make generate`", dir)
	}
	sort.Strings(files)
	var names []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		names = append(names, crd.Name)
		existing, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
		case err == nil:
			crd.ResourceVersion = existing.ResourceVersion
			_, err = cs.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil || !crdEstablished(crd) {
				return false, nil
			}
		}
		return true, nil
	})
}

func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// RepoRoot finds the repository root (the directory with go.mod) from the working directory,
// so that tests in any package find bin/, manifests/ and hack/.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if raw, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(raw), "module github.com/phalanx-sched/phalanx\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("repository root not found above the working directory")
		}
		dir = parent
	}
}
