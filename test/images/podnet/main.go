// Command podnet is the pod network of the offline kind cluster (hack/kind/node-image.sh): a
// DaemonSet pod on every node (host network, NET_ADMIN) that does what kind's kindnetd does on
// a flat Docker network. It writes a CNI configuration for its node (ptp interfaces,
// host-local addresses from the node's spec.podCIDR, portmap) and keeps one route per other
// node: that node's pod CIDR via its InternalIP. Nodes made by KWOK (annotation
// kwok.x-k8s.io/node) have no network and get no route.
//
// It shells out to ip(8) from iproute2 (the image is built on the node image's Debian rootfs).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

const kwokAnnotation = "kwok.x-k8s.io/node"

func main() {
	cniDir := flag.String("cni-conf-dir", "/etc/cni/net.d", "directory kubelet's CNI reads")
	clusterCIDR := flag.String("cluster-cidr", "10.244.0.0/16", "the cluster's pod network: routes inside it that podnet did not want are removed")
	mtu := flag.Int("mtu", 1500, "MTU of pod interfaces")
	klog.InitFlags(nil)
	flag.Parse()
	node := os.Getenv("NODE_NAME")
	if node == "" {
		klog.ErrorS(nil, "NODE_NAME is empty: set it from spec.nodeName with the downward API")
		os.Exit(2)
	}
	_, cluster, err := net.ParseCIDR(*clusterCIDR)
	if err != nil {
		klog.ErrorS(err, "--cluster-cidr", "value", *clusterCIDR)
		os.Exit(2)
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		klog.ErrorS(err, "in-cluster configuration")
		os.Exit(1)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		klog.ErrorS(err, "client")
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	factory := informers.NewSharedInformerFactory(cs, 10*time.Minute)
	nodes := factory.Core().V1().Nodes()
	kick := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, UpdateFunc: func(_, o any) { notify(o) }, DeleteFunc: notify,
	}); err != nil {
		klog.ErrorS(err, "node informer")
		os.Exit(1)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	r := &reconciler{node: node, cniDir: *cniDir, cluster: cluster, mtu: *mtu}
	resync := time.NewTicker(30 * time.Second)
	defer resync.Stop()
	for {
		list, err := nodes.Lister().List(labels.Everything())
		if err == nil {
			err = r.reconcile(list)
		}
		if err != nil {
			klog.ErrorS(err, "reconciling the pod network")
		}
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-resync.C:
		}
	}
}

type reconciler struct {
	node    string
	cniDir  string
	cluster *net.IPNet
	mtu     int
}

// reconcile writes this node's CNI configuration and makes the routes to other nodes' pod
// CIDRs exactly the wanted ones.
func (r *reconciler) reconcile(nodes []*corev1.Node) error {
	want := map[string]string{} // pod CIDR -> next hop
	var own string
	for _, n := range nodes {
		if n.Name == r.node {
			own = n.Spec.PodCIDR
			continue
		}
		if _, fake := n.Annotations[kwokAnnotation]; fake || n.Spec.PodCIDR == "" {
			continue
		}
		if ip := internalIP(n); ip != "" {
			want[n.Spec.PodCIDR] = ip
		}
	}
	if own == "" {
		return fmt.Errorf("node %s has no spec.podCIDR yet", r.node)
	}
	if err := r.writeConfig(own); err != nil {
		return err
	}
	have, err := r.routes()
	if err != nil {
		return err
	}
	for cidr, via := range want {
		if have[cidr] == via {
			continue
		}
		if out, err := exec.Command("ip", "route", "replace", cidr, "via", via).CombinedOutput(); err != nil {
			return fmt.Errorf("ip route replace %s via %s: %v: %s", cidr, via, err, out)
		}
		klog.InfoS("route set", "podCIDR", cidr, "via", via)
	}
	for cidr := range have {
		if _, ok := want[cidr]; ok || cidr == own {
			continue
		}
		if out, err := exec.Command("ip", "route", "del", cidr).CombinedOutput(); err != nil {
			return fmt.Errorf("ip route del %s: %v: %s", cidr, err, out)
		}
		klog.InfoS("route removed", "podCIDR", cidr)
	}
	return nil
}

// routes lists the gatewayed routes whose destination lies in the cluster's pod network (the
// per-pod host routes of ptp have no gateway and are left alone).
func (r *reconciler) routes() (map[string]string, error) {
	out, err := exec.Command("ip", "-4", "-o", "route", "show").Output()
	if err != nil {
		return nil, fmt.Errorf("ip route show: %w", err)
	}
	have := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] != "via" {
			continue
		}
		ip, _, err := net.ParseCIDR(f[0])
		if err != nil || !r.cluster.Contains(ip) {
			continue
		}
		have[f[0]] = f[2]
	}
	return have, nil
}

// writeConfig writes the node's CNI configuration list when it differs from what is there.
func (r *reconciler) writeConfig(podCIDR string) error {
	conf := map[string]any{
		"cniVersion": "0.4.0",
		"name":       "podnet",
		"plugins": []any{
			map[string]any{
				"type":   "ptp",
				"ipMasq": false,
				"mtu":    r.mtu,
				"ipam": map[string]any{
					"type":   "host-local",
					"ranges": [][]map[string]string{{{"subnet": podCIDR}}},
					"routes": []map[string]string{{"dst": "0.0.0.0/0"}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(r.cniDir, "10-podnet.conflist")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming %s: %w", tmp, err)
	}
	klog.InfoS("CNI configuration written", "path", path, "podCIDR", podCIDR)
	return nil
}

// internalIP is the node's first InternalIP address, "" when it has none.
func internalIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && net.ParseIP(a.Address).To4() != nil {
			return a.Address
		}
	}
	return ""
}
