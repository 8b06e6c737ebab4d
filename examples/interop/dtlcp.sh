#!/usr/bin/env bash
# DTLCP interop by hand: shangmi's tlcp/dtlcp against gotlcp's dtlcp, both
# directions, every suite, with and without client certificates, with
# resumption (dtlcppeer/interop_test.go). The Go module proxy refuses
# gotlcp, so the module's go.mod is copied and given a replace pointing at
# a gotlcp checkout, the first argument:
#
#   bash examples/interop/dtlcp.sh /work/peers/src/gotlcp
#
# BENCH=1 also runs the comparison over an in-memory datagram pipe
# (dtlcppeer/bench_test.go); DTLCP_CAPTURE=file writes the datagrams of two
# handshakes, hex, to file. Extra arguments go to go test.
set -euo pipefail
gotlcp=${1:?usage: dtlcp.sh /path/to/gotlcp [go test flags]}
shift
gotlcp=$(cd "$gotlcp" && pwd)
here=$(cd "$(dirname "$0")/dtlcppeer" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/go.mod" "$tmp/go.mod"
[ -f "$here/go.sum" ] && cp "$here/go.sum" "$tmp/go.sum"
go mod edit -modfile="$tmp/go.mod" -replace "gitee.com/Trisia/gotlcp=$gotlcp" -replace "github.com/shangmi-go/shangmi=$root"
cd "$here"
export GOFLAGS="-modfile=$tmp/go.mod -mod=mod -buildvcs=false"
go test -count=1 -v -run 'Test' . "$@" | grep -E '^(=== RUN|--- |\s+---|ok|FAIL|PASS)|_test.go' || true
if [ "${BENCH:-}" = 1 ]; then
  go test -count=1 -run 'TestCompare' -v . "$@"
fi
