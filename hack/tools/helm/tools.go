//go:build tools

// Package tools pins the Helm CLI that lints, renders and installs manifests/helm/phalanx.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
