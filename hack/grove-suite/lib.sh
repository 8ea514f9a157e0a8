# hack/grove-suite/lib.sh: what run.sh and migrate.sh share (sourced; needs root, bin, dir,
# CLUSTER and a function k that runs kubectl on the cluster).
# shellcheck shell=bash

# deploy_phalanx_full ARG...: Phalanx with its PodCliqueSet controller and webhook (hack/kind:
# manifests/ as on the kind cluster of hack/kind-up.sh), from an image of this tree, with the
# extra flags ARG and a profile for each schedulerName Grove stamps (kai-scheduler for Grove's
# e2e workloads).
deploy_phalanx_full() {
  local image="phalanx.local/phalanx-scheduler:grove-suite" id tag
  make -C "$root" --no-print-directory image IMAGE="$image" >/dev/null
  id="$(docker image inspect --format '{{.Id}}' "$image")"
  docker tag "$image" "${image}-${id:7:12}" && image="${image}-${id:7:12}"
  "${bin}/kind" load docker-image --name "$CLUSTER" "$image" >/dev/null
  tag="$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' "${root}/go.mod")"
  rm -rf "${dir}/full" && mkdir -p "${dir}/full"
  cat "${root}/hack/kwok/stages.yaml" "${root}/hack/kwok/pod-delete-stage.yaml" >"${dir}/full/kwok-stages.yaml"
  {
    cat <<EOF2
# Written by hack/grove-suite: hack/kind (Phalanx with its controller) for Grove's e2e objects.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../../hack/kind
configMapGenerator:
- name: kwok-stages
  namespace: kube-system
  files: [stages.yaml=kwok-stages.yaml]
  options: {disableNameSuffixHash: true}
images:
- {name: ghcr.io/phalanx-sched/phalanx-scheduler, newName: ${image%:*}, newTag: ${image##*:}}
- {name: phalanx.local/fakegpu, newName: phalanx.local/fakegpu, newTag: ${tag}}
- {name: phalanx.local/kwok, newName: phalanx.local/kwok, newTag: ${tag}}
EOF2
    if [ $# -gt 0 ]; then
      echo "patches:"
      echo "- target: {kind: Deployment, name: phalanx-scheduler, namespace: phalanx-system}"
      echo "  patch: |"
      for arg in "$@"; do
        echo "    - {op: add, path: /spec/template/spec/containers/0/args/-, value: ${arg}}"
      done
    fi
  } >"${dir}/full/kustomization.yaml"
  "${bin}/helm" template phalanx "${root}/manifests/helm/phalanx" -n phalanx-system \
    --set-json 'profiles=[{"schedulerName":"phalanx-scheduler","plugins":["PodGang","PodGroup"]},{"schedulerName":"kai-scheduler","plugins":["PodGang"]}]' --set-json 'pluginArgs.PodGang.kaiEventProfiles=["kai-scheduler"]' \
    -s templates/configmap.yaml >"${dir}/full/config.yaml"
  k apply --server-side --force-conflicts -k "${dir}/full" >/dev/null
  k apply --server-side --force-conflicts -f "${dir}/full/config.yaml" >/dev/null
  k -n phalanx-system rollout restart deployment/phalanx-scheduler >/dev/null
  k -n phalanx-system rollout status deployment/phalanx-scheduler --timeout 600s >/dev/null
}
