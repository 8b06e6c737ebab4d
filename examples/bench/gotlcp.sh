#!/usr/bin/env bash
# The bench with gotlcp in its memory and scaling groups. The Go module
# proxy refuses gotlcp, so this module's go.mod cannot require it (CI
# builds the bench from the registries): go.mod is copied, given a replace
# pointing at a gotlcp checkout (the first argument), and the bench is
# built with the gotlcp build tag against the copy. Other arguments go to
# the bench:
#
#   bash examples/bench/gotlcp.sh /work/peers/src/gotlcp -only memory,scaling
set -euo pipefail
gotlcp=${1:?usage: gotlcp.sh /path/to/gotlcp [bench flags]}
shift
gotlcp=$(cd "$gotlcp" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/go.mod" "$here/go.sum" "$tmp/"
go mod edit -modfile="$tmp/go.mod" -require "gitee.com/Trisia/gotlcp@v1.5.0" -replace "gitee.com/Trisia/gotlcp=$gotlcp" \
  -replace "github.com/shangmi-go/shangmi=$(cd "$here/../.." && pwd)"
cd "$here"
GOFLAGS="-modfile=$tmp/go.mod -mod=mod" go build -tags gotlcp -o "$tmp/bench" .
"$tmp/bench" "$@"
