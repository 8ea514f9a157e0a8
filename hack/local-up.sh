#!/usr/bin/env bash
# Starts or stops the local control plane: etcd, kube-apiserver and KWOK on 127.0.0.1 with fake
# GPU nodes and the Phalanx CRDs. No containers.
#
#   hack/local-up.sh up [--nodes 8] [--gpus 8] [--nodes-per-rack 4] [--racks-per-block 2] ...
#   hack/local-up.sh down
#   hack/local-up.sh status
#
# The binaries come from `make tools` (bin/etcd, bin/kube-apiserver, bin/kwok).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
make --no-print-directory tools bin/localup >&2
exec "$root/bin/localup" "$@"
