#!/usr/bin/env bash
# hack/kind-up.sh: a kind cluster with real kubelets and fake GPUs, Phalanx deployed in it from
# its own image and manifests/, and the e2e suite run against it (`make test-kind`).
#
#   hack/kind-up.sh              build what is missing, create the cluster, deploy, run e2e
#   hack/kind-up.sh --no-test    the same without the e2e suite (the cluster stays up)
#   hack/kind-up.sh --test-only  run the e2e suite against the cluster that is up
#   hack/kind-up.sh --real-only  run only the real-cluster tests (TestKind*: kubelets, probes,
#                                grace, node loss, drain, leader loss, cert rotation); the rest
#                                of the suite runs in `make test` on the local control plane
#   hack/kind-up.sh --smoke      run only the smoke tests (GPUs advertised through the device
#                                plugin; a rolling update through probes and grace): what CI runs
#   hack/kind-up.sh --scheduler-only
#                                deploy Phalanx as a gang scheduler alone (manifests/
#                                scheduler-only: no CRDs, controller or webhook), for a cluster
#                                where Grove's operator owns PodCliqueSets (hack/grove-suite/run.sh);
#                                implies --no-test (Phalanx's e2e suite needs its controller)
#   hack/kind-up.sh --down       delete the cluster
#   hack/kind-up.sh --dry-run    print the steps instead of running them
#
# The cluster: one control-plane node and KIND_WORKERS (3) workers, each a Docker container with
# systemd, containerd and a real kubelet; every worker advertises 8 nvidia.com/gpu through the
# fake device plugin (test/images/fakegpu), carries zone/block/rack labels and the taint
# phalanx.dev/kind-gpu=true:NoSchedule, so that only pods meant for a real kubelet (the
# real-cluster tests, Phalanx itself) land there. KWOK runs in the cluster for the e2e tests'
# fake nodes (annotation kwok.x-k8s.io/node=fake). The node image is the released kindest/node
# where it can be pulled, else the one hack/kind/node-image.sh builds here.
#
# Needs root (Docker), Go, and debootstrap for the offline node image (installed with Docker
# by hack/kind/docker.sh when missing).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/kind/lib.sh
source "${root}/hack/kind/lib.sh"
CLUSTER="${KIND_CLUSTER:-phalanx}"
WORKERS="${KIND_WORKERS:-3}"
dir="${root}/.run/kind"
# Another cluster name keeps its kubeconfig and overlay apart (.run/kind-NAME).
[ "$CLUSTER" = phalanx ] || dir="${root}/.run/kind-${CLUSTER}"
kubeconfig="${dir}/kubeconfig"
bin="${root}/bin"
kind="${bin}/kind"
kubectl="${bin}/node/kubectl"

dry_run=false
run_tests=true
create=true
only=""
down=false
base="hack/kind"
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    --no-test) run_tests=false ;;
    --test-only) create=false ;;
    --real-only) only="^TestKind" ;;
    --smoke) only="^TestKind(NodesAdvertiseGPUs|RollingUpdateProbesAndGrace)$" ;;
    --scheduler-only) base="hack/kind/scheduler-only"; run_tests=false ;;
    --down) down=true ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "hack/kind-up.sh: unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done
# The real-cluster tests need 3 workers; a cluster that runs none of them (--scheduler-only,
# Grove's suite on KWOK workers) needs one, for Phalanx and KWOK.
min_workers=3
[ "$base" = hack/kind/scheduler-only ] && min_workers=1
if ! [[ "$WORKERS" =~ ^[0-9]+$ ]] || [ "$WORKERS" -lt "$min_workers" ]; then
  echo "KIND_WORKERS=$WORKERS: the real-cluster tests need at least 3 workers (--scheduler-only: 1)" >&2
  exit 2
fi

# run prints a command and runs it, unless --dry-run.
run() {
  echo "+ $*"
  if [ "$dry_run" = false ]; then
    "$@"
  fi
}
step() { echo ">> [$(date +%T)] $*"; }
started=$(date +%s)

if [ "$down" = true ]; then
  run "$kind" delete cluster --name "$CLUSTER"
  exit 0
fi

if [ "$create" = true ]; then
  run "${root}/hack/kind/docker.sh"
  if [ "$dry_run" = true ]; then
    node_image="$NODE_IMAGE"
    echo "+ ${root}/hack/kind/node-image.sh"
  else
    step "node image (cached in Docker once built)"
    node_image="$("${root}/hack/kind/node-image.sh" | tail -1)"
  fi
  step "phalanx-scheduler image"
  phalanx_image="${IMAGE_REPO}/phalanx-scheduler:$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)"
  run make -C "$root" --no-print-directory image IMAGE="$phalanx_image"
  if [ "$dry_run" = false ]; then
    # A tag per build: two builds of a dirty tree share the describe tag, and the Deployment
    # would keep running the pods of the first (kubelet does not pull an image it has).
    id="$(docker image inspect --format '{{.Id}}' "$phalanx_image")" # sha256:<hex>
    docker tag "$phalanx_image" "${phalanx_image}-${id:7:12}"
    phalanx_image="${phalanx_image}-${id:7:12}"
  fi

  mkdir -p "$dir"
  # The cluster config. The offline node image names its own images (phalanx.local), builds
  # etcd at hack/tools/etcd's version and has no CoreDNS image (nothing here resolves names).
  # A cgroup v1 host needs kubelet's failCgroupV1 off (Kubernetes 1.35+ refuses v1 otherwise).
  {
    echo "kind: Cluster"
    echo "apiVersion: kind.x-k8s.io/v1alpha4"
    echo "kubeadmConfigPatches:"
    if [ "$node_image" = "$NODE_IMAGE" ]; then
      cat <<EOF
- |
  kind: ClusterConfiguration
  imageRepository: ${IMAGE_REPO}
  etcd:
    local:
      imageTag: ${ETCD_TAG}
- |
  kind: InitConfiguration
  skipPhases: [preflight, addon/coredns]
EOF
    fi
    if [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
      cat <<'EOF'
- |
  kind: KubeletConfiguration
  failCgroupV1: false
EOF
    fi
    # Without CAP_SYS_RESOURCE (seen: a VM that drops it; hack/kind/docker.sh) no process in
    # a node may lower an oom_score_adj, and runc fails every pod sandbox kubelet asks for at
    # -998; containerd then keeps scores at or above its own, as it does in user namespaces.
    if [ $(( 16#$(awk '/^CapBnd:/ { print $2 }' /proc/self/status) & (1 << 24) )) -eq 0 ]; then
      cat <<'EOF'
containerdConfigPatches:
- |
  [plugins."io.containerd.grpc.v1.cri"]
    restrict_oom_score_adj = true
EOF
    fi
    echo "nodes:"
    echo "- role: control-plane"
    for i in $(seq 0 $((WORKERS - 1))); do
      rack=$((i / 2)); block=$((rack / 2))
      cat <<EOF
- role: worker
  labels:
    topology.kubernetes.io/zone: zone-0
    topology.phalanx.dev/block: block-${block}
    topology.phalanx.dev/rack: rack-${rack}
    phalanx.dev/kind-gpu: "true"
  kubeadmConfigPatches:
  - |
    kind: JoinConfiguration
    nodeRegistration:
      taints:
      - {key: phalanx.dev/kind-gpu, value: "true", effect: NoSchedule}
EOF
    done
  } >"${dir}/config.yaml.new"
  [ "$dry_run" = true ] && cat "${dir}/config.yaml.new"
  mv "${dir}/config.yaml.new" "${dir}/config.yaml"

  if [ "$dry_run" = false ] && "$kind" get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
    step "cluster ${CLUSTER} exists: reusing it (hack/kind-up.sh --down removes it)"
  else
    step "creating cluster ${CLUSTER} (1 control plane, ${WORKERS} workers, ${node_image})"
    run "$kind" create cluster --name "$CLUSTER" --image "$node_image" --config "${dir}/config.yaml" \
      --kubeconfig "$kubeconfig" --wait 5m
  fi
  # A reused cluster may have been made from another checkout (or this one's .run/ was cleaned):
  # its kubeconfig is written here either way (CI failed on a leftover cluster without it).
  run "$kind" export kubeconfig --name "$CLUSTER" --kubeconfig "$kubeconfig"
  step "loading images into the nodes"
  run "$kind" load docker-image --name "$CLUSTER" "$phalanx_image" "$FAKEGPU_IMAGE" "$TESTSERVER_IMAGE" "${TESTSERVER_REPO}:v2" "$KWOK_IMAGE"

  step "fake GPU device plugin, KWOK, Phalanx"
  rm -rf "${dir}/overlay" && mkdir -p "${dir}/overlay"
  # The kind cluster's KWOK confirms pod deletions itself (no podreaper runs there).
  cat "${root}/hack/kwok/stages.yaml" "${root}/hack/kwok/pod-delete-stage.yaml" >"${dir}/overlay/kwok-stages.yaml"
  cat >"${dir}/overlay/kustomization.yaml" <<EOF
# Written by hack/kind-up.sh: ${base} (Phalanx's manifests and the kind cluster's own parts) with the
# images built for this run.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../../${base}
configMapGenerator:
- name: kwok-stages
  namespace: kube-system
  files: [stages.yaml=kwok-stages.yaml]
  options: {disableNameSuffixHash: true}
images:
- {name: ghcr.io/phalanx-sched/phalanx-scheduler, newName: ${phalanx_image%:*}, newTag: ${phalanx_image##*:}}
- {name: phalanx.local/fakegpu, newName: ${FAKEGPU_IMAGE%:*}, newTag: ${FAKEGPU_IMAGE##*:}}
- {name: phalanx.local/kwok, newName: ${KWOK_IMAGE%:*}, newTag: ${KWOK_IMAGE##*:}}
EOF
  run "$kubectl" --kubeconfig "$kubeconfig" apply --server-side --force-conflicts -k "${dir}/overlay"
  run "$kubectl" --kubeconfig "$kubeconfig" -n kube-system rollout status daemonset/fakegpu --timeout 180s
  run "$kubectl" --kubeconfig "$kubeconfig" -n kube-system rollout status deployment/kwok --timeout 180s
  run "$kubectl" --kubeconfig "$kubeconfig" -n phalanx-system rollout status deployment/phalanx-scheduler --timeout 300s
  if [ "$dry_run" = false ]; then
    step "nodes: $("$kubectl" --kubeconfig "$kubeconfig" get nodes -l phalanx.dev/kind-gpu=true \
      -o jsonpath='{range .items[*]}{.metadata.name}={.status.allocatable.nvidia\.com/gpu} {end}') (allocatable GPUs)"
  fi
  step "cluster up in $(( $(date +%s) - started )) s: export KUBECONFIG=${kubeconfig}"
fi

if [ "$run_tests" = true ]; then
  step "e2e suite on kind"
  run env PHALANX_E2E_KUBECONFIG="$kubeconfig" PHALANX_E2E_KIND="$CLUSTER" PHALANX_E2E_TESTSERVER_IMAGE="$TESTSERVER_REPO" \
    PATH="${bin}:${bin}/node:${PATH}" \
    "${root}/hack/test-summary.sh" go test -mod=vendor -trimpath -count=1 -v -timeout "${TEST_TIMEOUT:-60m}" ${only:+-run "$only"} "${root}/test/e2e/..."
  step "done in $(( $(date +%s) - started )) s"
fi
