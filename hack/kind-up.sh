#!/usr/bin/env bash
# hack/kind-up.sh: a kind cluster running Phalanx from manifests/, with fake GPU nodes (kwok
# inside the cluster), and the e2e suite run against it.
#
#   hack/kind-up.sh              create the cluster, build and load the image, deploy, run e2e
#   hack/kind-up.sh --no-test    the same without the e2e suite
#   hack/kind-up.sh --dry-run    print the commands instead of running them
#   hack/kind-up.sh --down       delete the cluster
#
# Needs docker, kind, kubectl and go. It cannot run where there is no Docker engine; --dry-run
# can (and is run by the tests).
set -euo pipefail

CLUSTER="${KIND_CLUSTER:-phalanx}"
IMAGE="phalanx-scheduler:dev"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
KWOK_URL="https://github.com/kubernetes-sigs/kwok/releases/download/${KWOK_VERSION}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kubeconfig="${root}/.run/kind/kubeconfig"

dry_run=false
run_tests=true
down=false
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    --no-test) run_tests=false ;;
    --down) down=true ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done

# run prints a command and runs it, unless --dry-run.
run() {
  echo "+ $*"
  if [ "$dry_run" = false ]; then
    "$@"
  fi
}

need() {
  if [ "$dry_run" = false ] && ! command -v "$1" >/dev/null 2>&1; then
    echo "hack/kind-up.sh needs $1 on PATH" >&2
    exit 1
  fi
}

if [ "$down" = true ]; then
  need kind
  run kind delete cluster --name "$CLUSTER"
  exit 0
fi

for tool in docker kind kubectl go; do need "$tool"; done
run mkdir -p "$(dirname "$kubeconfig")"
run kind create cluster --name "$CLUSTER" --kubeconfig "$kubeconfig" --wait 120s
run docker build -f "$root/hack/Dockerfile" -t "$IMAGE" --build-arg "VERSION=$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)" "$root"
run kind load docker-image "$IMAGE" --name "$CLUSTER"

# kwok in the cluster manages the fake GPU nodes the e2e suite creates (annotation
# kwok.x-k8s.io/node=fake), with the fast pod stages.
run kubectl --kubeconfig "$kubeconfig" apply -f "${KWOK_URL}/kwok.yaml"
run kubectl --kubeconfig "$kubeconfig" apply -f "${KWOK_URL}/stage-fast.yaml"

run kubectl --kubeconfig "$kubeconfig" apply --server-side -k "${root}/hack/kind"
run kubectl --kubeconfig "$kubeconfig" -n phalanx-system rollout status deployment/phalanx-scheduler --timeout 180s

if [ "$run_tests" = true ]; then
  run env PHALANX_E2E_KUBECONFIG="$kubeconfig" go test -mod=vendor -count=1 -timeout 40m "${root}/test/e2e/..."
fi
echo "kind cluster ${CLUSTER} is up: export KUBECONFIG=${kubeconfig}"
