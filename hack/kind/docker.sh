#!/usr/bin/env bash
# hack/kind/docker.sh: make sure a Docker engine answers (idempotent). Installs Debian's
# docker.io with apt when docker is missing and starts dockerd in the background when none
# runs (its log: .run/dockerd.log). Needs root for both.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if docker info >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "docker does not answer and installing or starting it needs root: run as root, or start Docker yourself" >&2
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
if ! pgrep -x dockerd >/dev/null; then
  mkdir -p "$root/.run"
  echo ">> starting dockerd (log: .run/dockerd.log)" >&2
  nohup dockerd >"$root/.run/dockerd.log" 2>&1 &
fi
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1; then exit 0; fi
  sleep 1
done
echo "dockerd did not answer within 60 s; see .run/dockerd.log:" >&2
tail -20 "$root/.run/dockerd.log" >&2 || true
exit 1
