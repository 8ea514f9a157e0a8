#!/usr/bin/env bash
# Regenerates everything derived from pkg/apis: deepcopy functions and CRDs (controller-gen),
# typed clientsets, listers and informers (code-generator). Tools come from bin/ (make generate).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bin="${PHALANX_BIN_DIR:-$root/bin}"
module=github.com/phalanx-sched/phalanx
export GOFLAGS=-mod=vendor

echo ">> controller-gen: deepcopy"
"$bin/controller-gen" object:headerFile=hack/boilerplate.go.txt paths=./pkg/apis/... paths=./pkg/scheduler/apis/...
echo ">> controller-gen: CRDs -> manifests/helm/phalanx/files/crds"
rm -f manifests/helm/phalanx/files/crds/*.yaml
# Descriptions are dropped: with the full PodSpec schema they make the PodCliqueSet CRD too
# large for client-side `kubectl apply` (262144-byte annotation limit). allowDangerousTypes: PodGang
# status.placementScore is a float in the Grove API, kept for compatibility.
"$bin/controller-gen" crd:maxDescLen=0,allowDangerousTypes=true paths=./pkg/apis/... output:crd:artifacts:config=manifests/helm/phalanx/files/crds
# Grove's ClusterTopologyBinding is read, never installed (+kubebuilder:skipversion): controller-gen
# still writes an empty CRD for it.
rm -f manifests/helm/phalanx/files/crds/_.yaml

groups=(grove/v1alpha1 scheduler/v1alpha1 scheduling/v1alpha1)
inputs=(); pkgs=()
for gv in "${groups[@]}"; do inputs+=(--input "$gv"); pkgs+=("$module/pkg/apis/$gv"); done

rm -rf pkg/client
echo ">> client-gen"
"$bin/client-gen" --go-header-file hack/boilerplate.go.txt \
  --output-dir pkg/client/clientset --output-pkg "$module/pkg/client/clientset" \
  --clientset-name versioned --input-base "$module/pkg/apis" "${inputs[@]}"
echo ">> lister-gen"
"$bin/lister-gen" --go-header-file hack/boilerplate.go.txt \
  --output-dir pkg/client/listers --output-pkg "$module/pkg/client/listers" "${pkgs[@]}"
echo ">> informer-gen"
"$bin/informer-gen" --go-header-file hack/boilerplate.go.txt \
  --output-dir pkg/client/informers --output-pkg "$module/pkg/client/informers" \
  --versioned-clientset-package "$module/pkg/client/clientset/versioned" \
  --listers-package "$module/pkg/client/listers" "${pkgs[@]}"
gofmt -s -w pkg/apis pkg/client
