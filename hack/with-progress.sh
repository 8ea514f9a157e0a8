#!/usr/bin/env bash
# hack/with-progress.sh LABEL COMMAND...: runs COMMAND and, while it runs, prints how long it has
# been running every 20 seconds (cold builds of Kubernetes binaries take minutes and print
# nothing themselves). Exits with COMMAND's status.
set -euo pipefail
label="$1"; shift
start=$(date +%s)
"$@" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  for _ in $(seq 20); do
    sleep 1
    kill -0 "$pid" 2>/dev/null || break
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "   ... ${label}: $(( $(date +%s) - start ))s so far"
  fi
done
wait "$pid"
