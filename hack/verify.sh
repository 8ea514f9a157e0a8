#!/usr/bin/env bash
# Fails when generated files differ from what `make generate` writes, when Go files are not
# gofmt-clean, or when vendor/ does not match go.mod.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
status=0

generated=(pkg/apis pkg/scheduler/apis pkg/client manifests/crds)
before=$(mktemp -d); trap 'rm -rf "$before"' EXIT
for p in "${generated[@]}"; do mkdir -p "$before/$p"; cp -a "$p/." "$before/$p/"; done
make --no-print-directory generate >/dev/null
for p in "${generated[@]}"; do
  if ! diff -r -q "$before/$p" "$p" >/dev/null; then
    echo "stale generated files under $p (run make generate and commit):"; diff -r -q "$before/$p" "$p" || true
    status=1
  fi
done

mapfile -t gofiles < <(git ls-files '*.go' | grep -v '^vendor/')
unformatted=$(gofmt -l "${gofiles[@]}" 2>/dev/null || true)
if [ -n "$unformatted" ]; then echo "not gofmt-clean:"; echo "$unformatted"; status=1; fi

if command -v shellcheck >/dev/null 2>&1; then
  mapfile -t scripts < <(git ls-files 'hack/*.sh' '.ci/run')
  shellcheck "${scripts[@]}" || status=1
else
  echo "shellcheck not installed: shell scripts not linted (apt-get install shellcheck)"
fi

if ! go mod verify >/dev/null 2>&1 || ! go mod vendor -o "$before/vendor" 2>/dev/null || ! diff -r -q "$before/vendor" vendor >/dev/null; then
  echo "vendor/ does not match go.mod (run go mod tidy && go mod vendor)"; status=1
fi
go vet -mod=vendor ./... || status=1
[ $status -eq 0 ] && echo "verify: ok"
exit $status
