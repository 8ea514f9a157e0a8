//go:build tools

// Package tools pins the developer tools built from this module: the control plane of the
// local test cluster (kube-apiserver, kube-controller-manager) and the Kubernetes binaries of
// the offline kind node image (hack/kind/node-image.sh: kubelet, kubeadm, kubectl, kube-proxy,
// kube-scheduler), all at the one Kubernetes version of the root go.mod.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubeadm"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
