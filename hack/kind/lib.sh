# hack/kind/lib.sh: names shared by hack/kind/node-image.sh and hack/kind-up.sh (sourced).
# shellcheck shell=bash

# The Kubernetes version has one source: the k8s.io/kubernetes requirement in go.mod.
K8S_VERSION="$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' "${root}/go.mod")"
KIND_VERSION="$(awk -F':= *' '$1 ~ /^KIND_VERSION/ { print $2; exit }' "${root}/Makefile")"
# etcd is built from hack/tools/etcd; its version is that module's requirement.
ETCD_TAG="$(awk '{ for (i = 1; i < NF; i++) if ($i == "go.etcd.io/etcd/server/v3") { print $(i+1); exit } }' "${root}/hack/tools/etcd/go.mod")"

# Images built here live under a repository no registry serves, so nothing is ever pulled
# for them by mistake (imagePullPolicy IfNotPresent finds them in the node's containerd).
IMAGE_REPO="phalanx.local"
NODE_IMAGE="${IMAGE_REPO}/kind-node:${K8S_VERSION}"
RELEASED_NODE_IMAGE="kindest/node:${K8S_VERSION}"
ROOTFS_IMAGE="${IMAGE_REPO}/kind-rootfs:bookworm"
PAUSE_IMAGE="${IMAGE_REPO}/pause:${K8S_VERSION}"
PODNET_IMAGE="${IMAGE_REPO}/podnet:${K8S_VERSION}"
FAKEGPU_IMAGE="${IMAGE_REPO}/fakegpu:${K8S_VERSION}"
# The test server is loaded under two tags, v1 and v2 (the same image), so that the
# real-cluster tests can roll a set from one image to another.
TESTSERVER_REPO="${IMAGE_REPO}/testserver"
TESTSERVER_IMAGE="${TESTSERVER_REPO}:v1"
KWOK_IMAGE="${IMAGE_REPO}/kwok:${K8S_VERSION}"

# render_podnet_manifest prints the pod network DaemonSet (test/images/podnet) that the offline
# node image carries as kind's default CNI manifest.
render_podnet_manifest() {
  cat <<EOF
apiVersion: v1
kind: ServiceAccount
metadata:
  name: podnet
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: podnet
rules:
- apiGroups: [""]
  resources: [nodes]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: podnet
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: podnet
subjects:
- kind: ServiceAccount
  name: podnet
  namespace: kube-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: podnet
  namespace: kube-system
  labels: {app: podnet}
spec:
  selector:
    matchLabels: {app: podnet}
  template:
    metadata:
      labels: {app: podnet}
    spec:
      serviceAccountName: podnet
      hostNetwork: true
      priorityClassName: system-node-critical
      tolerations:
      - operator: Exists
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: phalanx.dev/fake-node, operator: DoesNotExist}
      containers:
      - name: podnet
        image: ${PODNET_IMAGE}
        imagePullPolicy: IfNotPresent
        args: ["--cluster-cidr=10.244.0.0/16"]
        env:
        - name: NODE_NAME
          valueFrom:
            fieldRef: {fieldPath: spec.nodeName}
        securityContext:
          capabilities:
            add: [NET_ADMIN, NET_RAW]
        resources:
          requests: {cpu: 10m, memory: 20Mi}
        volumeMounts:
        - {name: cni-cfg, mountPath: /etc/cni/net.d}
      volumes:
      - name: cni-cfg
        hostPath: {path: /etc/cni/net.d, type: DirectoryOrCreate}
EOF
}
