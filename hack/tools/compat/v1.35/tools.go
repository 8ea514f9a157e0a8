//go:build tools

// Package tools pins the control plane of Kubernetes 1.35.4 for make test-compat.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
