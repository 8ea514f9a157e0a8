#!/usr/bin/env bash
# hack/grove-suite/run.sh: Grove's own end-to-end suite (operator/e2e of a Grove checkout) with
# Phalanx as Grove's gang scheduler, on the kind cluster of
#
#   KIND_CLUSTER=grove hack/kind-up.sh --scheduler-only
#
# Two modes (GROVE_MODE):
#   grove    (default) Grove's operator owns the PodCliqueSets and writes PodGangs (and,
#            through its KAI backend, KAI PodGroups that nothing here reads but the suite's own
#            checks); Phalanx, scheduler-only, places the pods, answering to the schedulerName
#            the suite's workloads carry (kai-scheduler).
#   phalanx  Phalanx's own controller in place of Grove's operator (manifests/: its CRDs, which
#            keep every field of Grove's, its controller and webhook); Grove's operator is not
#            installed (only its ClusterTopologyBinding CRD, which the topology tests write).
# Results and the cause of every failure: docs/grove-suite.md.
#
# Nothing here builds Grove. Inputs:
#   GROVE_DIR             a Grove checkout: its charts, CRDs, e2e workloads and tests (run with
#                         `go test -tags=e2e` there; GROVE_GOFLAGS is passed as its GOFLAGS)
#   GROVE_OPERATOR_IMAGE  the operator image built from that checkout, in the local Docker
#                         (this and the next two: GROVE_MODE=grove only)
#   GROVE_INITC_IMAGE     its init-container image (GROVE_INIT_CONTAINER_IMAGE of the operator)
#   GROVE_INSTALL_CRDS_IMAGE
#                         its CRD installer image (the chart's crdInstaller, which the suite's
#                         CRD-installer tests turn on)
# Optional:
#   GROVE_PACKAGES        packages under operator/e2e to run ("tests tests/update")
#   GROVE_RUN             a -run regexp; GROVE_TIMEOUT (90m) the go test timeout
#   GROVE_SKIP            a -skip regexp (Test_CM1_CertManagementRoundTrip: it installs
#                         cert-manager's chart from the internet, which these machines cannot reach)
#   GROVE_AGENTS          fake worker nodes (30, as Grove's own cluster script): KWOK nodes
#                         agent-NN with Grove's worker label, taint, 150Mi of memory and its
#                         zone/block/rack layout (28/14/7 nodes)
#   GROVE_POD_START_SECONDS
#                         (6) seconds from a pod's bind to its Ready on the KWOK workers, as a
#                         busybox container starts on Grove's own k3d agents
#   E2E_REGISTRY_PORT     (5001) a registry on localhost that the suite pushes busybox:latest
#                         to; bin/registry is started there when nothing answers
#   GROVE_SUITE_OUT       where logs and the summary go (.run/grove-suite, .run/grove-suite-phalanx)
#
#   hack/grove-suite/run.sh --setup-only   install Grove and the nodes, run no test
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLUSTER="${KIND_CLUSTER:-grove}"
dir="${root}/.run/kind-${CLUSTER}"
[ "$CLUSTER" = phalanx ] && dir="${root}/.run/kind"
kubeconfig="${dir}/kubeconfig"
bin="${root}/bin"
kubectl=("${bin}/node/kubectl" --kubeconfig "$kubeconfig")
k() { "${kubectl[@]}" "$@"; }
# shellcheck source=hack/grove-suite/lib.sh
source "${root}/hack/grove-suite/lib.sh"
helm=("${bin}/helm" --kubeconfig "$kubeconfig")
mode="${GROVE_MODE:-grove}"
case "$mode" in
  grove) out="${GROVE_SUITE_OUT:-${root}/.run/grove-suite}" ;;
  phalanx) out="${GROVE_SUITE_OUT:-${root}/.run/grove-suite-phalanx}" ;;
  *) echo "hack/grove-suite/run.sh: GROVE_MODE=${mode}: grove or phalanx" >&2; exit 2 ;;
esac
agents="${GROVE_AGENTS:-30}"
pod_start="${GROVE_POD_START_SECONDS:-6}"
registry_port="${E2E_REGISTRY_PORT:-5001}"
packages="${GROVE_PACKAGES:-tests tests/update}"
setup_only=false
for arg in "$@"; do
  case "$arg" in
    --setup-only) setup_only=true ;;
    -h|--help) sed -n '2,41p' "$0"; exit 0 ;;
    *) echo "hack/grove-suite/run.sh: unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "hack/grove-suite/run.sh: $*" >&2; exit 1; }
step() { echo ">> [$(date +%T)] $*"; }
: "${GROVE_DIR:?set GROVE_DIR to a Grove checkout}"
[ -d "${GROVE_DIR}/operator/e2e" ] || fail "GROVE_DIR=${GROVE_DIR}: no operator/e2e (not a Grove checkout?)"
[ -s "$kubeconfig" ] || fail "no kind cluster ${CLUSTER} (${kubeconfig}): run KIND_CLUSTER=${CLUSTER} hack/kind-up.sh --scheduler-only"
# A suite run cut short leaves the nodes it cordoned so (the real worker among them): Phalanx
# could not be rolled out there.
step "uncordon every node"
"${kubectl[@]}" get nodes -o name | xargs "${kubectl[@]}" uncordon >/dev/null
if [ "$mode" = grove ]; then
  : "${GROVE_OPERATOR_IMAGE:?set GROVE_OPERATOR_IMAGE to the operator image built from GROVE_DIR}"
  : "${GROVE_INITC_IMAGE:?set GROVE_INITC_IMAGE to the init-container image built from GROVE_DIR}"
  : "${GROVE_INSTALL_CRDS_IMAGE:?set GROVE_INSTALL_CRDS_IMAGE to the CRD installer image built from GROVE_DIR}"
  for image in "$GROVE_OPERATOR_IMAGE" "$GROVE_INITC_IMAGE" "$GROVE_INSTALL_CRDS_IMAGE"; do
    docker image inspect "$image" >/dev/null 2>&1 || fail "image ${image} is not in the local Docker"
  done
fi
mkdir -p "$out"

if [ "$mode" = phalanx ]; then
  step "Phalanx with its controller in place of Grove's operator"
  deploy_phalanx_full
  step "CRDs: Grove's ClusterTopologyBinding, and stand-ins for the KAI kinds the suite reads"
  "${kubectl[@]}" apply --server-side --force-conflicts \
    -f "${GROVE_DIR}/operator/api/core/v1alpha1/crds/grove.io_clustertopologybindings.yaml" \
    -f "${root}/hack/grove-suite/kai-standins.yaml"
  "${kubectl[@]}" wait --for condition=Established --timeout 60s crd/clustertopologybindings.grove.io crd/queues.scheduling.run.ai
  "${kubectl[@]}" apply --server-side -f "${GROVE_DIR}/operator/e2e/yaml/queues.yaml"
else
  step "Grove's images into the nodes"
  "${bin}/kind" load docker-image --name "$CLUSTER" "$GROVE_OPERATOR_IMAGE" "$GROVE_INITC_IMAGE" "$GROVE_INSTALL_CRDS_IMAGE"

  step "CRDs: Grove's, and stand-ins for the KAI kinds Grove's KAI backend writes"
  "${kubectl[@]}" apply --server-side --force-conflicts \
    -f "${GROVE_DIR}/operator/api/core/v1alpha1/crds" \
    -f "${GROVE_DIR}/scheduler/api/core/v1alpha1/crds" \
    -f "${root}/hack/grove-suite/kai-standins.yaml"
  "${kubectl[@]}" wait --for condition=Established --timeout 60s \
    crd/podcliquesets.grove.io crd/podgangs.scheduler.grove.io crd/podgroups.scheduling.run.ai crd/queues.scheduling.run.ai
  "${kubectl[@]}" apply --server-side -f "${GROVE_DIR}/operator/e2e/yaml/queues.yaml"

  step "Phalanx: a profile for each schedulerName Grove stamps (kai-scheduler for the suite's workloads)"
  "${bin}/helm" template phalanx "${root}/manifests/helm/phalanx" -n phalanx-system --set mode=schedulerOnly \
    --set-json 'profiles=[{"schedulerName":"phalanx-scheduler","plugins":["PodGang"]},{"schedulerName":"lpx-scheduler","plugins":["PodGang"]},{"schedulerName":"kai-scheduler","plugins":["PodGang"]}]' --set-json 'pluginArgs.PodGang.kaiEventProfiles=["kai-scheduler"]' \
    -s templates/configmap.yaml >"${out}/phalanx-config.yaml"
  before="$("${kubectl[@]}" -n phalanx-system get configmap phalanx-scheduler-config -o jsonpath='{.data.config\.yaml}')"
  "${kubectl[@]}" apply --server-side --force-conflicts -f "${out}/phalanx-config.yaml"
  if [ "$before" != "$("${kubectl[@]}" -n phalanx-system get configmap phalanx-scheduler-config -o jsonpath='{.data.config\.yaml}')" ]; then
    # The scheduler reads its configuration at start.
    "${kubectl[@]}" -n phalanx-system rollout restart deployment/phalanx-scheduler
  fi
  "${kubectl[@]}" -n phalanx-system rollout status deployment/phalanx-scheduler --timeout 300s

  step "Grove's operator (its chart; the profile its e2e cluster uses: kai-scheduler, topology-aware scheduling on)"
  cat >"${out}/grove-values.yaml" <<EOF
replicaCount: 1
image: {repository: "${GROVE_OPERATOR_IMAGE%:*}", tag: "${GROVE_OPERATOR_IMAGE##*:}", pullPolicy: IfNotPresent}
crdInstaller:
  enabled: false
  image: {repository: "${GROVE_INSTALL_CRDS_IMAGE%:*}", tag: "${GROVE_INSTALL_CRDS_IMAGE##*:}", pullPolicy: IfNotPresent}
deployment:
  env:
  - {name: GROVE_INIT_CONTAINER_IMAGE, value: "${GROVE_INITC_IMAGE}"}
# On the control-plane node: the suite cordons every other node it does not use (the kind
# workers among them), and its Helm upgrades restart the operator.
tolerations:
- {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
nodeSelector: {node-role.kubernetes.io/control-plane: ""}
config:
  leaderElection: {enabled: false}
  scheduler:
    defaultProfileName: kai-scheduler
    profiles:
    - name: default-scheduler
    - name: kai-scheduler
  topologyAwareScheduling: {enabled: true}
EOF
  # Installed anew when its values differ from this run's (the suite's own upgrades change them):
  # an upgrade of the release conflicts with the webhook certificate that Grove's operator
  # writes into the chart's Secret.
  if ! "${helm[@]}" get values grove-operator -n grove-system -o yaml >"${out}/grove-values.live" 2>/dev/null ||
     ! cmp -s "${out}/grove-values.live" "${out}/grove-values.installed"; then
    "${helm[@]}" uninstall grove-operator -n grove-system --wait 2>/dev/null || true
    # Client-side apply: the suite upgrades the release itself (crdInstaller on and off) with
    # Helm's SDK, which a server-side install would make conflict with the same Secret.
    "${helm[@]}" install grove-operator "${GROVE_DIR}/operator/charts" -n grove-system --create-namespace \
      --server-side=false -f "${out}/grove-values.yaml" --wait --timeout 5m
    "${helm[@]}" get values grove-operator -n grove-system -o yaml >"${out}/grove-values.installed"
  fi
  "${kubectl[@]}" -n grove-system rollout status deployment/grove-operator --timeout 300s

fi

step "KWOK: pods turn Ready ${pod_start}s after they are bound (a container's start on Grove's k3d agents)"
# Grove's gang termination acts only on a PodClique whose PodCliqueScheduled condition turned
# more than 5 s after its creation (InitialScheduleGrace): pods Ready at once let the suite
# break a gang inside that window, and Grove then reads it as never scheduled.
awk -v ms="$((pod_start * 1000))" '
  { print }
  /^  name: pod-ready$/ { ready = 1 }
  ready && /^spec:$/ { print "  delay:"; print "    durationMilliseconds: " ms; ready = 0 }
' "${root}/hack/kwok/stages.yaml" >"${out}/kwok-stages.yaml"
cat "${root}/hack/kwok/pod-delete-stage.yaml" >>"${out}/kwok-stages.yaml"
grep -q "durationMilliseconds: $((pod_start * 1000))" "${out}/kwok-stages.yaml" || fail "no pod-ready stage in hack/kwok/stages.yaml to delay"
before="$("${kubectl[@]}" -n kube-system get configmap kwok-stages -o jsonpath='{.data.stages\.yaml}')"
"${kubectl[@]}" -n kube-system create configmap kwok-stages --from-file=stages.yaml="${out}/kwok-stages.yaml" \
  --dry-run=client -o yaml | "${kubectl[@]}" apply --server-side --force-conflicts -f - >/dev/null
if [ "$before" != "$(cat "${out}/kwok-stages.yaml")" ]; then
  "${kubectl[@]}" -n kube-system rollout restart deployment/kwok >/dev/null
fi
"${kubectl[@]}" -n kube-system rollout status deployment/kwok --timeout 120s >/dev/null

step "${agents} fake worker nodes (KWOK) as Grove's e2e cluster lays them out"
{
  for i in $(seq 0 $((agents - 1))); do
    name=$(printf 'agent-%02d' "$i")
    cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: ${name}
  annotations: {kwok.x-k8s.io/node: fake}
  labels:
    kubernetes.io/hostname: ${name}
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
    phalanx.dev/fake-node: "true"
    node_role.e2e.grove.nvidia.com: agent
    nvidia.com/gpu.deploy.operands: "false"
    kubernetes.io/zone: zone-$((i / 28))
    kubernetes.io/block: block-$((i / 14))
    kubernetes.io/rack: rack-$((i / 7))
spec:
  taints:
  - {key: node_role.e2e.grove.nvidia.com, value: agent, effect: NoSchedule}
status:
  capacity: {cpu: "2", memory: 150Mi, pods: "110"}
  allocatable: {cpu: "2", memory: 150Mi, pods: "110"}
---
EOF
  done
} >"${out}/agents.yaml"
"${kubectl[@]}" apply -f "${out}/agents.yaml" >/dev/null
"${kubectl[@]}" wait --for condition=Ready --timeout 120s -l node_role.e2e.grove.nvidia.com=agent node >/dev/null

step "registry on localhost:${registry_port} and busybox:latest (the suite pushes it; no pod pulls it: they run on KWOK nodes)"
if ! curl -sf "http://localhost:${registry_port}/v2/" >/dev/null; then
  [ -x "${bin}/registry" ] || make -C "$root" --no-print-directory "${bin}/registry"
  nohup "${bin}/registry" -port "$registry_port" >"${out}/registry.log" 2>&1 &
  for _ in $(seq 1 50); do curl -sf "http://localhost:${registry_port}/v2/" >/dev/null && break; sleep 0.2; done
  curl -sf "http://localhost:${registry_port}/v2/" >/dev/null || fail "registry did not start (${out}/registry.log)"
fi
if ! docker image inspect busybox:latest >/dev/null 2>&1; then
  command -v busybox >/dev/null || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null; }
  ctx="$(mktemp -d)"
  cp "$(command -v busybox)" "${ctx}/busybox"
  printf 'FROM scratch\nCOPY busybox /bin/busybox\nRUN ["/bin/busybox", "--install", "-s", "/bin"]\nENTRYPOINT ["/bin/sh"]\n' >"${ctx}/Dockerfile"
  docker build -q -t busybox:latest "$ctx" >/dev/null
  rm -rf "$ctx"
fi

[ "$setup_only" = true ] && { step "set up: KUBECONFIG=${kubeconfig}"; exit 0; }

status=0
for pkg in $packages; do
  log="${out}/$(echo "$pkg" | tr / -).log"
  step "Grove's suite: operator/e2e/${pkg} (log: ${log})"
  (cd "${GROVE_DIR}/operator" && KUBECONFIG="$kubeconfig" E2E_REGISTRY_PORT="$registry_port" GOFLAGS="${GROVE_GOFLAGS:-}" \
    go test -tags=e2e -count=1 -v -timeout "${GROVE_TIMEOUT:-90m}" ${GROVE_RUN:+-run "$GROVE_RUN"} \
    -skip "${GROVE_SKIP-Test_CM1_CertManagementRoundTrip}" "./e2e/${pkg}/") >"$log" 2>&1 || status=1
  grep -E '^(=== RUN|--- (PASS|FAIL|SKIP)|(ok|FAIL)\s)' "$log" | grep -v '^=== RUN' || true
done
step "summary (${out}/summary.txt: each test's result and time)"
for pkg in $packages; do
  grep -E '^--- (PASS|FAIL|SKIP)' "${out}/$(echo "$pkg" | tr / -).log" | sed "s|^--- |${pkg} |" || true
done >"${out}/summary.txt"
awk '{print $2}' "${out}/summary.txt" | sort | uniq -c
exit "$status"
