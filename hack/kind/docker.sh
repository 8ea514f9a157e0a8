#!/usr/bin/env bash
# hack/kind/docker.sh: make sure a Docker engine answers (idempotent). Installs Debian's
# docker.io with apt when docker is missing and starts dockerd in the background when none
# runs (its log: .run/dockerd.log). Needs root for both.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if [ "$(id -u)" != 0 ]; then
  echo "hack/kind/docker.sh installs, configures and starts Docker, which needs root: run as root" >&2
  exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo ">> installing Docker (Debian's docker.io, about 2 min)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  # hack/kind/node-image.sh makes the node image's Debian rootfs with it
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
# Every kind node's kubelet, kube-proxy and containerd take inotify instances; at the kernel's
# default 128 per user a second cluster (or a restarted one) leaves kube-proxy failing with
# "fsnotify watcher init: too many open files" and its node NotReady (kind's known issue).
for kv in fs.inotify.max_user_instances=8192 fs.inotify.max_user_watches=524288; do
  key="${kv%%=*}" want="${kv#*=}"
  if [ "$(sysctl -n "$key" 2>/dev/null || echo 0)" -lt "$want" ]; then
    sysctl -q -w "$kv" || echo "hack/kind/docker.sh: could not raise $key to $want (kind nodes may fail to start)" >&2
  fi
done
# A machine whose capability bounding set lacks some (seen: CAP_SYS_RESOURCE) cannot start
# Docker 20.10's privileged containers, kind's nodes: dockerd then runs containers through
# hack/kind/runcwrap, which leaves out what the machine cannot grant.
full=$(( (1 << 41) - 1 ))
bound=$(( 16#$(awk '/^CapBnd:/ { print $2 }' /proc/self/status) ))
if [ $(( bound & full )) -ne $full ]; then
  wrap="${root}/bin/runcwrap"
  (cd "$root" && go build -mod=vendor -o "$wrap" ./hack/kind/runcwrap)
  want="{\"runtimes\": {\"runcwrap\": {\"path\": \"${wrap}\"}}, \"default-runtime\": \"runcwrap\"}"
  if [ ! -s /etc/docker/daemon.json ] || grep -q runcwrap /etc/docker/daemon.json; then
    if [ "$(cat /etc/docker/daemon.json 2>/dev/null)" != "$want" ]; then
      echo ">> this machine's capability bounding set is $(printf '%x' "$bound"): dockerd runs containers through bin/runcwrap" >&2
      mkdir -p /etc/docker
      echo "$want" >/etc/docker/daemon.json
      if pgrep -x dockerd >/dev/null; then
        pkill -x dockerd
        for _ in $(seq 1 30); do pgrep -x dockerd >/dev/null || break; sleep 1; done
      fi
    fi
  else
    echo "warning: /etc/docker/daemon.json is yours; privileged containers may fail here (add ${wrap} as the default runtime)" >&2
  fi
fi
if ! pgrep -x dockerd >/dev/null; then
  mkdir -p "$root/.run"
  echo ">> starting dockerd (log: .run/dockerd.log)" >&2
  nohup dockerd >"$root/.run/dockerd.log" 2>&1 &
fi
for _ in $(seq 1 120); do
  if docker info >/dev/null 2>&1; then exit 0; fi
  sleep 1
done
echo "dockerd did not answer within 120 s; see .run/dockerd.log:" >&2
tail -20 "$root/.run/dockerd.log" >&2 || true
exit 1
