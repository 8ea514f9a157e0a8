#!/usr/bin/env bash
# make run: the local control plane with fake GPU nodes, phalanx-scheduler as a separate
# process, and a demonstration (hack/demo). `make run ARGS=--down` (or `make down`) stops it all.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
dir="$root/.run/local"
pidfile="$dir/phalanx-scheduler.pid"

stop_scheduler() {
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then kill "$pid"; for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; fi
    rm -f "$pidfile"
  fi
}

if [ "${1:-}" = "--down" ]; then
  stop_scheduler
  "$root/bin/localup" down --dir "$dir"
  exit 0
fi

"$root/bin/localup" up --dir "$dir" --nodes "${PHALANX_NODES:-16}" --gpus 8 --nodes-per-rack 4
export KUBECONFIG="$dir/kubeconfig"

stop_scheduler
mkdir -p "$dir/logs"
echo ">> starting phalanx-scheduler (log: $dir/logs/phalanx-scheduler.log)"
# The production set-up, with a local URL for the webhooks (the API server runs on this host):
# leader election on, webhooks on with a self-managed certificate kept in a Secret.
setsid "$root/bin/phalanx-scheduler" --kubeconfig "$KUBECONFIG" --secure-port 10359 --v=2 \
  --leader-elect --webhook-port 10360 --webhook-url https://127.0.0.1:10360 \
  --webhook-secret kube-system/phalanx-webhook-tls \
  >"$dir/logs/phalanx-scheduler.log" 2>&1 < /dev/null &
echo $! > "$pidfile"
for _ in $(seq 100); do
  if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "phalanx-scheduler exited; last lines of its log:"; tail -n 20 "$dir/logs/phalanx-scheduler.log"; exit 1
  fi
  grep -q 'Starting Kubernetes Scheduler' "$dir/logs/phalanx-scheduler.log" && break
  sleep 0.1
done

"$root/bin/demo" --kubeconfig "$KUBECONFIG" "$@"
cat <<MSG

The local control plane and phalanx-scheduler are running.
  export KUBECONFIG=$KUBECONFIG
  kubectl get nodes -L topology.phalanx.dev/rack
  kubectl get pcs,pclq,pcsg,pg,podgroups -A
  kubectl describe pg multinode-disaggregated-inference-0
The API server serves the upstream Workload API (scheduling.k8s.io/v1beta1 PodGroups):
  kubectl apply -f manifests/samples/workload-deployment.yaml
  bin/kubectl-phalanx status podgroup/llm-serve
Scheduler log: $dir/logs/phalanx-scheduler.log
Stop everything with: make run ARGS=--down
MSG
