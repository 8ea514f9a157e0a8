#!/usr/bin/env bash
# hack/test-compat.sh (make test-compat): the compatibility suite. For each supported
# Kubernetes minor it runs a fixed selection of the integration and e2e tests against that
# minor's kube-apiserver and kube-controller-manager (bin/compat/<minor>/, built by make from
# hack/tools/compat/<minor>; 1.37 is bin/ itself), with the one phalanx-scheduler build of
# this repository. The selection covers what docs/compatibility.md tabulates: gang
# all-or-nothing, base before scaled, gang preemption, a PodCliqueSet rolling update with
# surge and ReplicaRecreate, the webhooks, leader election, Phalanx deployed from manifests/,
# and kinds the server lacks (reported once, picked up when they appear).
#
# COMPAT_VERSIONS="v1.34 v1.36" narrows the matrix. Prints one line per minor and package
# and a summary table; exits non-zero when any run failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VERSIONS=${COMPAT_VERSIONS:-v1.34 v1.35 v1.36 v1.37}
GO=${GO:-go}

# package -> tests (a -run expression). Each package starts its own control plane.
declare -A SUITE=(
  [./test/integration/]='^(TestGangPlacedWholeOrNotAtAll|TestCompetingGangsNoPartialPlacement|TestScaledGangWaitsForBase|TestPreemptionTakesOneWholeGang|TestSchedulerStartsWithoutManifests|TestSchedulerBindsToFakeGPUNode)$'
  [./test/integration/controller/]='^(TestWebhooksRefuseAndDefault|TestRollingUpdateScalingGroupSurge|TestRollingUpdatePodCliqueSurge|TestReplicaRecreate|TestSurgeAdmission|TestOneLeaseForSchedulerAndController)$'
  [./test/integration/grove/]='^(TestPodGroupCRDInstalledLater|TestSchedulerNamesServeGroveBackendName|TestReuseReservationRefHonoured)$'
  [./test/integration/podgroup/]='^(TestJobGangWaitsForCapacity|TestPodGroupPreemptionTakesOneWholeGroup)$'
  [./test/e2e/]='^(TestManifests|TestSchedulerOnlyManifests|TestInvalidPodCliqueSetRefused|TestLeaderKilledMidUpdate|TestAPIServerRestartedMidUpdate|TestGangPreemption)$'
)
PACKAGES=(./test/integration/ ./test/integration/controller/ ./test/integration/grove/ ./test/integration/podgroup/ ./test/e2e/)

summary=()
failed=0
for v in $VERSIONS; do
  dir=$ROOT/bin/compat/$v
  mkdir -p "$dir"
  if [[ $v == v1.37 ]]; then
    for b in kube-apiserver kube-controller-manager; do ln -sf ../../$b "$dir/$b"; done
  fi
  for b in etcd kwok podreaper phalanx-scheduler; do ln -sf ../../$b "$dir/$b"; done
  for b in kube-apiserver kube-controller-manager etcd kwok podreaper phalanx-scheduler; do
    [[ -x $dir/$b ]] || { echo "$dir/$b missing: run make test-compat (it builds them)" >&2; exit 1; }
  done
  server=$("$dir/kube-apiserver" --version | awk '{print $2}')
  echo ">> compatibility suite on kube-apiserver $server ($dir)"
  for pkg in "${PACKAGES[@]}"; do
    start=$(date +%s)
    log=$(mktemp)
    if PHALANX_BIN_DIR=$dir PHALANX_LOCAL_DIR= PHALANX_E2E_KUBECONFIG= \
        $GO test -mod=vendor -trimpath -count=1 -timeout 30m -run "${SUITE[$pkg]}" -v "$pkg" >"$log" 2>&1; then
      result=PASS
    else
      result=FAIL; failed=1
    fi
    passed=$(grep -c '^--- PASS' "$log" || true)
    fails=$(grep '^--- FAIL' "$log" | awk '{print $3}' | paste -sd, - || true)
    line=$(printf '%-8s %-34s %s  %2d passed  %4ds  %s' "$server" "$pkg" "$result" "$passed" $(( $(date +%s) - start )) "${fails:+failed: $fails}")
    echo "   $line"
    summary+=("$line")
    if [[ $result == FAIL ]]; then
      grep -E '^\s+\S+_test\.go:[0-9]+:|^--- FAIL|^FAIL|panic:' "$log" | head -40 | sed 's/^/      /'
      cp "$log" "$ROOT/bin/compat/$v/last-failure-$(basename "$pkg").log"
    fi
    rm -f "$log"
  done
done
echo
echo "== compatibility matrix (server, package, result, tests passed, seconds)"
printf '%s\n' "${summary[@]}"
exit $failed
