#!/usr/bin/env bash
# Fails when a check that no compiler makes fails: generated files differ from what
# `make generate` would write (compared in a temporary copy; nothing here is rewritten in
# place), Go files are not gofmt-clean, `go vet` finds something, vendor/ does not match
# go.mod, the tools module pins another Kubernetes, or a tracked file is a binary, over 5 MB or
# outside the top-level layout. Tools come from bin/ (PHALANX_BIN_DIR), built by the Makefile.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bin=${PHALANX_BIN_DIR:-$root/bin}
status=0
fail() { echo "verify: $*"; status=1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The work tree as it would be committed: tracked and new files, not the ignored ones.
mapfile -d '' files < <(git ls-files -z --cached --others --exclude-standard)
present=()
for f in "${files[@]}"; do [ -e "$f" ] && present+=("$f"); done

echo ">> tracked files: no binaries, nothing over 5 MB, top-level layout"
printf '%s\0' "${present[@]}" | go run -mod=vendor ./hack/repocheck || fail "tracked files break the rules above"

echo ">> generated code (regenerated in a copy of the tree)"
copy="$tmp/tree"
mkdir -p "$copy"
printf '%s\0' "${present[@]}" | xargs -0 cp --parents -t "$copy"
PHALANX_BIN_DIR="$bin" "$copy/hack/update-codegen.sh" >"$tmp/codegen.log" 2>&1 || { cat "$tmp/codegen.log"; fail "make generate failed in the copy"; }
for p in pkg/apis pkg/scheduler/apis pkg/client manifests/helm/phalanx/files/crds; do
  if ! diff -r -q "$p" "$copy/$p" >/dev/null 2>&1; then
    fail "stale generated files under $p (run make generate and commit):"
    diff -r -q "$p" "$copy/$p" || true
  fi
done

echo ">> gofmt"
mapfile -t gofiles < <(printf '%s\n' "${present[@]}" | grep '\.go$' | grep -v '^vendor/')
unformatted=$(gofmt -l "${gofiles[@]}")
[ -z "$unformatted" ] || fail "not gofmt-clean (run gofmt -w):"$'\n'"$unformatted"

echo ">> one Kubernetes version"
main_k8s=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' go.mod)
tools_k8s=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit } $1 == "require" && $2 == "k8s.io/kubernetes" { print $3; exit }' hack/tools/go.mod)
[ "$main_k8s" = "$tools_k8s" ] || fail "go.mod requires k8s.io/kubernetes $main_k8s but hack/tools/go.mod $tools_k8s (the test control plane must match)"

echo ">> shellcheck"
if command -v shellcheck >/dev/null 2>&1; then
  mapfile -t scripts < <(git ls-files 'hack/*.sh' '.ci/run')
  shellcheck "${scripts[@]}" || fail "shellcheck findings"
else
  echo "shellcheck not installed: shell scripts not linted (apt-get install shellcheck)"
fi

echo ">> vendor/ matches go.mod"
if ! go mod verify >/dev/null || ! go mod vendor -o "$tmp/vendor" || ! diff -r -q "$tmp/vendor" vendor >/dev/null; then
  fail "vendor/ does not match go.mod (run go mod tidy && go mod vendor)"
fi

echo ">> go vet"
go vet -mod=vendor -trimpath ./... || fail "go vet findings"

if [ $status -eq 0 ]; then echo "verify: ok"; fi
exit $status
