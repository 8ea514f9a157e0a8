#!/usr/bin/env bash
# hack/grove-suite/migrate.sh: a live PodCliqueSet moved from Grove's operator to Phalanx's
# controller and back, on the kind cluster that `hack/grove-suite/run.sh --setup-only` set up
# (Grove's operator, Phalanx scheduler-only, KWOK workers). It checks that every pod, PodClique
# and PodGang is kept across each move (same names and UIDs) and that the new owner manages the
# set afterwards (a scale of its scaling group is carried out, the pods before it untouched).
# Same inputs as run.sh (GROVE_DIR, GROVE_*_IMAGE). Result and figures: docs/grove-suite.md.
#
#   1. Grove's workload1 (Grove's e2e workload: 10 pods, a scaling group of 2) under Grove.
#   2. Grove's operator uninstalled; Phalanx with its controller (manifests/ as on the kind
#      cluster of hack/kind-up.sh) and --adopt-from=grove-operator: the set is adopted.
#   3. Phalanx back to scheduler-only; `kubectl phalanx handback`; Grove's operator installed
#      again: the set is Grove's, at the revision it left it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLUSTER="${KIND_CLUSTER:-grove}"
dir="${root}/.run/kind-${CLUSTER}"
kubeconfig="${dir}/kubeconfig"
bin="${root}/bin"
k() { "${bin}/node/kubectl" --kubeconfig "$kubeconfig" "$@"; }
ns=grove-migrate
pcs=workload1
out="${GROVE_SUITE_OUT:-${root}/.run/grove-suite}/migrate"
step() { echo ">> [$(date +%T)] $*"; }
fail() { echo "hack/grove-suite/migrate.sh: FAIL: $*" >&2; exit 1; }
: "${GROVE_DIR:?set GROVE_DIR (see hack/grove-suite/run.sh)}"
[ -s "$kubeconfig" ] || fail "no kind cluster ${CLUSTER}: run hack/grove-suite/run.sh --setup-only"
k -n grove-system get deployment grove-operator >/dev/null || fail "Grove's operator is not installed: run hack/grove-suite/run.sh --setup-only"
mkdir -p "$out"
# shellcheck source=hack/grove-suite/lib.sh
source "${root}/hack/grove-suite/lib.sh"

# wait_for DESCRIPTION SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS.
wait_for() {
  local what="$1" limit="$2"
  shift 2
  local start=$SECONDS
  until "$@" >/dev/null 2>&1; do
    [ $((SECONDS - start)) -lt "$limit" ] || fail "timed out after ${limit}s waiting for ${what}"
    sleep 1
  done
  echo "   ${what} ($((SECONDS - start)) s)"
}
# snapshot prints "kind/name uid" for the set's pods, PodCliques, scaling groups and PodGangs.
snapshot() {
  for kind in pods podcliques podcliquescalinggroups podgangs; do
    k -n "$ns" get "$kind" -o jsonpath='{range .items[*]}{.kind}/{.metadata.name} {.metadata.uid}{"\n"}{end}'
  done | sort
}
all_running() {
  local want="$1"
  [ "$(k -n "$ns" get pods --field-selector=status.phase=Running -o name | wc -l)" -eq "$want" ] &&
    [ "$(k -n "$ns" get pods -o name | wc -l)" -eq "$want" ]
}
managed_by_all() {
  local want="$1"
  ! k -n "$ns" get pods,podcliques,podcliquescalinggroups,podgangs -o jsonpath='{range .items[*]}{.metadata.labels.app\.kubernetes\.io/managed-by}{"\n"}{end}' | grep -vx "$want" | grep -q .
}
kept() {
  local before="$1" after="$2"
  # Every object of before is in after with its UID (after may have more: a scale-out).
  comm -23 "$before" "$after" >"${out}/lost"
  [ ! -s "${out}/lost" ] || fail "objects replaced or lost: $(tr '\n' ' ' <"${out}/lost")"
}

step "1. Grove's ${pcs} under Grove's operator"
k create namespace "$ns" --dry-run=client -o yaml | k apply -f - >/dev/null
k -n "$ns" apply -f "${GROVE_DIR}/operator/e2e/yaml/workload1.yaml" >/dev/null
wait_for "10 pods Running" 180 all_running 10
snapshot >"${out}/grove.txt"
echo "   $(grep -c '' "${out}/grove.txt") objects"
generation() { k -n "$ns" get pcs "$pcs" -o jsonpath='{.metadata.generation}'; }
# The spec is nobody's to change on a move: a new generation reads as a new revision to
# Grove's operator, which would then roll the set out again.
gen="$(generation)"

step "2. Grove's operator stopped; Phalanx's controller with --adopt-from=grove-operator"
"${bin}/helm" --kubeconfig "$kubeconfig" uninstall grove-operator -n grove-system --wait >/dev/null
deploy_phalanx_full --adopt-from=grove-operator
adopted() { k -n "$ns" get events --field-selector "involvedObject.name=${pcs},reason=Adopted" -o name | grep -q .; }
wait_for "the Adopted event" 120 adopted
wait_for "every object labelled managed-by=phalanx" 60 managed_by_all phalanx
snapshot >"${out}/phalanx.txt"
kept "${out}/grove.txt" "${out}/phalanx.txt"
echo "   every pod, PodClique, scaling group and PodGang kept: $(grep -c '' "${out}/phalanx.txt") objects"
[ "$(generation)" = "$gen" ] || fail "the adoption changed the PodCliqueSet's spec (generation ${gen} -> $(generation))"
k -n "$ns" scale podcliquescalinggroup "${pcs}-0-sg-x" --replicas=3 >/dev/null
wait_for "Phalanx scaling sg-x to 3 (14 pods Running)" 180 all_running 14
snapshot >"${out}/phalanx-scaled.txt"
kept "${out}/phalanx.txt" "${out}/phalanx-scaled.txt"
echo "   scaled by Phalanx's controller, the 10 pods before it untouched"

step "3. Phalanx back to scheduler-only; kubectl phalanx handback; Grove's operator again"
k delete mutatingwebhookconfiguration phalanx --ignore-not-found >/dev/null
k delete validatingwebhookconfiguration phalanx --ignore-not-found >/dev/null
k apply --server-side --force-conflicts -k "${dir}/overlay" >/dev/null
"${bin}/helm" template phalanx "${root}/manifests/helm/phalanx" -n phalanx-system --set mode=schedulerOnly \
  --set-json 'profiles=[{"schedulerName":"phalanx-scheduler","plugins":["PodGang"]},{"schedulerName":"lpx-scheduler","plugins":["PodGang"]},{"schedulerName":"kai-scheduler","plugins":["PodGang"]}]' --set-json 'pluginArgs.PodGang.kaiEventProfiles=["kai-scheduler"]' \
  -s templates/configmap.yaml | k apply --server-side --force-conflicts -f - >/dev/null
k -n phalanx-system rollout status deployment/phalanx-scheduler --timeout 300s >/dev/null
make -C "$root" --no-print-directory "${bin}/kubectl-phalanx" >/dev/null
"${bin}/kubectl-phalanx" --kubeconfig "$kubeconfig" -n "$ns" handback "pcs/${pcs}"
snapshot >"${out}/handed.txt"
kept "${out}/phalanx-scaled.txt" "${out}/handed.txt"
[ "$(generation)" = "$gen" ] || fail "the PodCliqueSet's spec changed while Phalanx had it (generation ${gen} -> $(generation))"
rm -f "${out}/../grove-values.installed"
GROVE_PACKAGES="" "${root}/hack/grove-suite/run.sh" --setup-only >"${out}/reinstall.log" 2>&1 || fail "reinstalling Grove's operator: ${out}/reinstall.log"
# Grove has taken the set over when its own status writes show every PodClique at its
# template (updatedReplicas == replicas, written after the hand-back).
handed_rv="$(k -n "$ns" get podcliques -o jsonpath='{range .items[*]}{.metadata.resourceVersion}{"\n"}{end}' | sort -n | tail -1)"
grove_settled() {
  k -n "$ns" get podcliques -o jsonpath='{range .items[*]}{.metadata.resourceVersion} {.spec.replicas} {.status.updatedReplicas} {.status.readyReplicas}{"\n"}{end}' >"${out}/cliques"
  awk -v rv="$handed_rv" 'BEGIN { n = 0; newer = 0 } { n++; if ($1 + 0 > rv + 0) newer++; if ($2 != $3 || $2 != $4) bad++ } END { exit !(n > 0 && newer > 0 && bad == 0) }' "${out}/cliques"
}
wait_for "Grove writing its PodCliques' status, every one at its template" 180 grove_settled
k -n "$ns" scale podcliquescalinggroup "${pcs}-0-sg-x" --replicas=4 >/dev/null
wait_for "Grove scaling sg-x to 4 (18 pods Running)" 180 all_running 18
snapshot >"${out}/grove-again.txt"
kept "${out}/handed.txt" "${out}/grove-again.txt"
wait_for "every object labelled managed-by=grove-operator" 60 managed_by_all grove-operator
echo "   Grove manages the set again: the 14 pods it was handed untouched, 4 made by Grove"
step "migration kept every pod, index and gang both ways"
