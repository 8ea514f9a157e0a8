#!/usr/bin/env bash
# hack/kind/node-image.sh: the kind node image for the Kubernetes version of go.mod, and the
# images the kind cluster runs, built on this machine with no container registry.
#
#   hack/kind/node-image.sh            build what is missing (cached in Docker), print the node image
#   hack/kind/node-image.sh --rebuild  build everything again
#
# A machine that can pull uses the released kindest/node image of the version and skips the
# control-plane images and step 4; the cluster's own images (fake GPU device plugin, test
# server, KWOK) and bin/node are built either way (steps 1-3). Offline:
#   1. phalanx.local/kind-rootfs:bookworm: a Debian bookworm rootfs (debootstrap from Debian's
#      mirror) with systemd, iptables, runc and the CNI plugins from Debian packages;
#   2. the Kubernetes binaries of go.mod's version built from the Go module proxy (hack/tools:
#      kubelet, kubeadm, kubectl, kube-proxy, kube-scheduler, kube-apiserver,
#      kube-controller-manager), containerd from its Go module, etcd from hack/tools/etcd;
#   3. the control-plane images (phalanx.local/<component>:<version>) on that rootfs, and
#      phalanx.local/pause (test/images/pause);
#   4. phalanx.local/kind-node:<version>: the rootfs with kind's base files (read from kind's Go
#      module, as kind's own base image has them), the binaries, a CNI manifest for
#      test/images/podnet, and the images above preloaded into containerd, as `kind build
#      node-image` makes it.
# The cluster config that goes with it (image repository, etcd tag, no CoreDNS) is written by
# hack/kind-up.sh.
#
# Also built (for hack/kind-up.sh, loaded with `kind load`): phalanx.local/podnet,
# phalanx.local/fakegpu, phalanx.local/testserver, phalanx.local/kwok.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=hack/kind/lib.sh
source "${root}/hack/kind/lib.sh"

rebuild=false
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=true ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "node-image.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

have_image() { [ "$rebuild" = false ] && docker image inspect "$1" >/dev/null 2>&1; }
step() { echo ">> [$(date +%T)] $*" >&2; }

work="${root}/.run/kind-build"
mkdir -p "$work"

# --- the released image, where it can be pulled ---------------------------------------------
# The cluster's own images (fake GPU plugin, test server, KWOK) are built here either way.
released=""
if [ "${PHALANX_KIND_OFFLINE:-}" != "1" ] && ! have_image "$NODE_IMAGE"; then
  if have_image "$RELEASED_NODE_IMAGE" || timeout 60 docker pull "$RELEASED_NODE_IMAGE" >/dev/null 2>&1; then
    released="$RELEASED_NODE_IMAGE"
    step "using the released ${released}"
  else
    step "cannot pull ${RELEASED_NODE_IMAGE}: building ${NODE_IMAGE} here"
  fi
fi

# --- 1. the Debian rootfs ----------------------------------------------------------------------
if ! have_image "$ROOTFS_IMAGE"; then
  step "debootstrap Debian bookworm (about 2 min)"
  rm -rf "$work/rootfs"
  debootstrap --variant=minbase \
    --include=systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps,runc,containernetworking-plugins,socat,ebtables,iputils-ping,netbase \
    bookworm "$work/rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  chroot "$work/rootfs" apt-get clean
  rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/usr/share/doc/"* "$work/rootfs/usr/share/man/"*
  tar -C "$work/rootfs" -c . | docker import - "$ROOTFS_IMAGE" >/dev/null
  rm -rf "$work/rootfs"
fi

# --- 2. binaries -------------------------------------------------------------------------------
step "building the node binaries (make kind-binaries; cold: kubelet, kubeadm, kubectl, kube-proxy, kube-scheduler, containerd)"
make -C "$root" --no-print-directory kind-binaries >&2

# --- 3. images of binaries ---------------------------------------------------------------------
# image NAME BASE BINARY...: an image whose entrypoint is the first binary.
image() {
  local name="$1" base="$2"; shift 2
  if have_image "$name"; then return; fi
  local ctx; ctx="$(mktemp -d "$work/ctx.XXXX")"
  {
    echo "FROM ${base}"
    for b in "$@"; do
      cp "$b" "$ctx/"
      echo "COPY $(basename "$b") /usr/local/bin/$(basename "$b")"
    done
    if [ "$base" = scratch ]; then
      # the static test images: CA bundle and a non-root user, nothing else
      mkdir -p "$ctx/etc/ssl/certs"
      cp /etc/ssl/certs/ca-certificates.crt "$ctx/etc/ssl/certs/"
      echo "COPY etc /etc"
      echo "USER 65532:65532"
    fi
    echo "ENTRYPOINT [\"/usr/local/bin/$(basename "$1")\"]"
  } >"$ctx/Dockerfile"
  docker build -q -t "$name" "$ctx" >"$work/docker-build.log" 2>&1 || { cat "$work/docker-build.log" >&2; exit 1; }
  rm -rf "$ctx"
  step "built $name"
}

nb="${root}/bin/node"
if [ -z "$released" ]; then
  # the control plane, pause and pod network the released image brings itself
  for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
    src="$nb/$c"
    case "$c" in kube-apiserver|kube-controller-manager) src="${root}/bin/$c" ;; esac
    image "${IMAGE_REPO}/${c}:${K8S_VERSION}" "$ROOTFS_IMAGE" "$src"
  done
  image "${IMAGE_REPO}/etcd:${ETCD_TAG}" "$ROOTFS_IMAGE" "${root}/bin/etcd"
  image "$PAUSE_IMAGE" scratch "$nb/pause"
  image "$PODNET_IMAGE" "$ROOTFS_IMAGE" "$nb/podnet"
fi
image "$FAKEGPU_IMAGE" scratch "$nb/fakegpu"
image "$TESTSERVER_IMAGE" scratch "$nb/testserver"
docker tag "$TESTSERVER_IMAGE" "${TESTSERVER_REPO}:v2"
image "$KWOK_IMAGE" "$ROOTFS_IMAGE" "${root}/bin/kwok"

# --- 4. the node image -------------------------------------------------------------------------
if [ -n "$released" ]; then
  echo "$released"
  exit 0
fi
if have_image "$NODE_IMAGE"; then
  echo "$NODE_IMAGE"
  exit 0
fi
kind_src="$(cd "$root/hack/tools" && GOFLAGS= go mod download -json "sigs.k8s.io/kind@${KIND_VERSION}" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
files="${kind_src}/images/base/files"
[ -d "$files" ] || { echo "kind's base files not found in ${kind_src}" >&2; exit 1; }

step "assembling ${NODE_IMAGE}"
cid="$(docker run -d --entrypoint=sleep --security-opt seccomp=unconfined "$ROOTFS_IMAGE" infinity)"
trap 'docker rm -f -v "$cid" >/dev/null 2>&1 || true' EXIT
node_exec() { docker exec -i "$cid" "$@"; }

# kind's base image files (entrypoint, systemd units for containerd and kubelet, containerd's
# configuration), then what kind's base Dockerfile runs on them.
tar -C "$files" --exclude=LICENSES -c . | node_exec tar -C / --no-same-owner -x
node_exec bash -euc '
  chmod 0755 /usr/local/bin/* /kind /kind/bin /kind/bin/*
  find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete
  rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \
        /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev* \
        /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*
  echo "ReadKMsg=no" >> /etc/systemd/journald.conf
  systemctl enable kubelet.service containerd.service undo-mount-hacks.service
  systemctl mask systemd-binfmt.service
  mkdir -p /etc/kubernetes/manifests /opt/cni /kind/manifests
  ln -sfn /usr/lib/cni /opt/cni/bin
'
for b in containerd containerd-shim-runc-v2 ctr; do docker cp "$nb/$b" "$cid:/usr/local/bin/$b"; done
for b in kubelet kubeadm kubectl; do docker cp "$nb/$b" "$cid:/usr/bin/$b"; done
node_exec bash -euc '
  ctr oci spec | jq ".hooks.createContainer[.hooks.createContainer| length] |= . + {\"path\": \"/kind/bin/mount-product-files.sh\"}" \
    | jq "del(.process.rlimits)" > /etc/containerd/cri-base.json
  sed -i "s#sandbox_image = .*#sandbox_image = \"'"$PAUSE_IMAGE"'\"#" /etc/containerd/config.toml
  grep -q "'"$PAUSE_IMAGE"'" /etc/containerd/config.toml
  containerd --version; kubelet --version
'
echo -n "$K8S_VERSION" | node_exec tee /kind/version >/dev/null
echo -n "offline: built by hack/kind/node-image.sh; images under ${IMAGE_REPO}, etcd ${ETCD_TAG}, no CoreDNS" | node_exec tee /kind/phalanx-offline >/dev/null
# kind applies these at create: the pod network (podnet) and a StorageClass with no
# provisioner (the tests use no volumes; kind's local-path provisioner is an image of its own).
render_podnet_manifest | node_exec tee /kind/manifests/default-cni.yaml >/dev/null
cat <<'EOF' | node_exec tee /kind/manifests/default-storage.yaml >/dev/null
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
EOF

step "preloading the control-plane images into the node's containerd"
node_exec bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
node_exec bash -euc 'for i in $(seq 1 30); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && exit 0; sleep 1; done; cat /tmp/containerd.log; exit 1'
preload=("${IMAGE_REPO}/kube-apiserver:${K8S_VERSION}" "${IMAGE_REPO}/kube-controller-manager:${K8S_VERSION}"
  "${IMAGE_REPO}/kube-scheduler:${K8S_VERSION}" "${IMAGE_REPO}/kube-proxy:${K8S_VERSION}"
  "${IMAGE_REPO}/etcd:${ETCD_TAG}" "$PAUSE_IMAGE" "$PODNET_IMAGE")
docker save "${preload[@]}" | node_exec ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests - >/dev/null
node_exec ctr --namespace=k8s.io images list -q >&2
node_exec pkill containerd || true
node_exec bash -c 'for i in $(seq 1 20); do pgrep containerd >/dev/null || exit 0; sleep 0.5; done'
docker commit "$cid" "${NODE_IMAGE}-assembled" >/dev/null
# Entrypoint, environment and stop signal as kind's base image has them (a Dockerfile: the
# commit --change of older Docker engines takes no STOPSIGNAL).
ctx="$(mktemp -d "$work/ctx.XXXX")"
cat >"$ctx/Dockerfile" <<EOF
FROM ${NODE_IMAGE}-assembled
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]
EOF
docker build -q -t "$NODE_IMAGE" "$ctx" >"$work/docker-build.log" 2>&1 || { cat "$work/docker-build.log" >&2; exit 1; }
docker rmi "${NODE_IMAGE}-assembled" >/dev/null
rm -rf "$ctx"
step "built ${NODE_IMAGE} ($(docker image inspect -f '{{.Size}}' "$NODE_IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
echo "$NODE_IMAGE"
