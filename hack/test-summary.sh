#!/usr/bin/env bash
# hack/test-summary.sh COMMAND...: runs a `go test` COMMAND, its output passed through as it comes,
# and when it fails prints again, last, the failing tests and their messages. A failing package's
# output holds the in-process scheduler's and controller's logs (thousands of lines); CI keeps only
# the tail of a run, so without this the test that failed and why can be lost. Exits with COMMAND's
# status.
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/phalanx-test.XXXXXX")
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "== failures (repeated from above) =="
  # t.Error/t.Fatal/t.Log messages of the failing tests (indented file_test.go:N:), the state a
  # failed test left in its namespace (test/framework/dump.go), panics and timeouts; then, last,
  # which tests and packages failed.
  grep -E -e '^\s+([A-Za-z0-9_]+_test|dump)\.go:[0-9]+: ' -e '^panic: ' -e '^FATAL: ' -e 'test timed out after' "$log" | tail -n 120 || true
  grep -E -e '^\s*--- FAIL' -e '^FAIL\s' "$log" || true
fi
exit "$status"
