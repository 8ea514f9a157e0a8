// Command localup starts and stops the local control plane (etcd, kube-apiserver, KWOK) with
// fake GPU nodes and the Phalanx CRDs. hack/local-up.sh is its front door.
//
//	localup up [--nodes 8 --gpus 8 --nodes-per-rack 4 ...]
//	localup down
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/client-go/kubernetes"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: local-up.sh up|down|status [flags]")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	dir := fs.String("dir", filepath.Join(root, ".run", "local"), "run directory (certificates, data, logs, kubeconfig)")
	shape := localcluster.DefaultNodeShape(8)
	fs.IntVar(&shape.Count, "nodes", shape.Count, "number of fake GPU nodes")
	fs.Int64Var(&shape.GPUs, "gpus", shape.GPUs, "nvidia.com/gpu per node")
	fs.StringVar(&shape.CPU, "cpu", shape.CPU, "cpu per node")
	fs.StringVar(&shape.Memory, "memory", shape.Memory, "memory per node")
	fs.IntVar(&shape.NodesPerRack, "nodes-per-rack", shape.NodesPerRack, "nodes per rack (label "+localcluster.LabelRack+")")
	fs.IntVar(&shape.RacksPerBlock, "racks-per-block", shape.RacksPerBlock, "racks per block (label "+localcluster.LabelBlock+")")
	fs.IntVar(&shape.BlocksPerZone, "blocks-per-zone", shape.BlocksPerZone, "blocks per zone (label "+localcluster.LabelZone+")")
	apiPort := fs.Int("apiserver-port", 6643, "kube-apiserver secure port on 127.0.0.1")
	etcdPort := fs.Int("etcd-port", 2479, "etcd client port on 127.0.0.1")
	controllers := fs.Bool("controller-manager", true, "also run kube-controller-manager (Deployments, Jobs, StatefulSets, garbage collection, namespace deletion)")
	workloadAPI := fs.Bool("workload-api", true, "serve the upstream Workload API (scheduling.k8s.io/v1beta1 PodGroups: kube-apiserver --feature-gates=GenericWorkload=true --runtime-config=scheduling.k8s.io/v1beta1=true)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	switch args[0] {
	case "down":
		if err := localcluster.StopDetached(*dir); err != nil {
			return err
		}
		fmt.Printf("local control plane in %s stopped\n", *dir)
		return nil
	case "status":
		c, err := localcluster.Attach(ctx, *dir)
		if err != nil {
			return err
		}
		fmt.Printf("running; export KUBECONFIG=%s\n", c.Kubeconfig)
		return nil
	case "up":
	default:
		return fmt.Errorf("unknown command %q: want up, down or status", args[0])
	}

	c, err := localcluster.Attach(ctx, *dir)
	if err != nil {
		fmt.Printf("starting etcd, kube-apiserver and kwok in %s\n", *dir)
		c, err = localcluster.Start(ctx, localcluster.Options{
			Dir:               *dir,
			BinDir:            filepath.Join(root, "bin"),
			KwokStages:        filepath.Join(root, "hack", "kwok", "stages.yaml"),
			EtcdPort:          *etcdPort,
			EtcdPeerPort:      *etcdPort + 1,
			APIServerPort:     *apiPort,
			Detach:            true,
			WorkloadAPI:       *workloadAPI,
			ControllerManager: *controllers,
		})
		if err != nil {
			return err
		}
	} else {
		fmt.Printf("reusing the control plane already running in %s\n", *dir)
	}
	if err := localcluster.InstallCRDs(ctx, c.Config, filepath.Join(root, "manifests", "helm", "phalanx", "files", "crds")); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	if err := localcluster.CreateNodes(ctx, cs, shape); err != nil {
		return fmt.Errorf("creating %d fake GPU nodes: %w", shape.Count, err)
	}
	fmt.Printf("%d fake GPU nodes Ready (%d x nvidia.com/gpu each), CRDs installed\n", shape.Count, shape.GPUs)
	fmt.Printf("export KUBECONFIG=%s\n", c.Kubeconfig)
	return nil
}
