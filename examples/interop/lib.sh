# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

# Helpers the by-hand interop scripts share (adapt.sh, scan.sh,
# softsdf.sh); sourced, not run. They use the caller's $S (smtool), $pw
# (the PKI's password) and $work (the work directory).

# libs BINARY: the library path of a peer installed under a prefix
# (prefix/bin/BINARY, prefix/lib or prefix/lib64).
libs() { local p; p=$(dirname "$(dirname "$1")"); echo "$p/lib:$p/lib64"; }

# wait_port PORT: until something listens on PORT (read from /proc, not
# probed, for one-shot servers).
wait_port() {
  local hex; hex=$(printf ':%04X' "$1")
  for _ in $(seq 100); do
    awk -v h="$hex" '$2 ~ h"$" && $4 == "0A" {f=1} END {exit !f}' /proc/net/tcp && return 0
    sleep 0.05
  done
  echo "nothing listens on $1"
  return 1
}

# gmssl_pki GMSSL DIR: GmSSL's PKI made by its own commands (its
# tlcp_server -help example), with a client double certificate issued by
# smtool from its CA (DIR/ours, and concatenated in client_certs.pem and
# client_keys.pem).
gmssl_pki() {
  local gm=$1 dir=$2
  mkdir -p "$dir" && (
    cd "$dir" || exit 1
    export LD_LIBRARY_PATH; LD_LIBRARY_PATH=$(libs "$gm")
    dn=(-C CN -ST Beijing -L Haidian -O GmSSL -OU Test)
    "$gm" sm2keygen -pass "$pw" -out ca_key.pem
    "$gm" certgen "${dn[@]}" -CN "GmSSL Root" -days 3650 -key ca_key.pem -pass "$pw" -out ca.pem \
      -key_usage keyCertSign -key_usage cRLSign -ca
    for l in "sign:digitalSignature" "enc:keyEncipherment"; do
      n=${l%%:*} ku=${l#*:}
      "$gm" sm2keygen -pass "$pw" -out "${n}_key.pem"
      "$gm" reqgen "${dn[@]}" -CN "GmSSL TLCP Server" -key "${n}_key.pem" -pass "$pw" -out "${n}_req.pem"
      "$gm" reqsign -in "${n}_req.pem" -days 365 -key_usage "$ku" -ext_key_usage serverAuth \
        -subject_dns_name localhost -cacert ca.pem -key ca_key.pem -pass "$pw" -out "${n}_cert.pem"
    done
    cat sign_cert.pem enc_cert.pem >server_certs.pem
    cat sign_key.pem enc_key.pem >server_keys.pem
    unset LD_LIBRARY_PATH
    "$S" cert gen -out ours -CA ca.pem -CAkey ca_key.pem -CApass "$pw" -hosts localhost -days 300 -passout "$pw"
    cat ours/client_sign.pem ours/client_enc.pem >client_certs.pem
    cat ours/client_sign.key ours/client_enc.key >client_keys.pem
  ) >"$dir.log" 2>&1 || { echo "making GmSSL's PKI failed: $dir.log"; exit 1; }
}

# build_peerserver ROOT OUT: examples/interop/peerserver into OUT, with
# gotlcp's server when $GOTLCP names a gotlcp v1.5.0 source tree (the
# module proxy does not serve gotlcp: the build uses a copy of this
# module's go.mod that points at it).
build_peerserver() {
  local root=$1 out=$2
  if [ -z "${GOTLCP:-}" ]; then
    (cd "$root/examples/interop" && go build -o "$out" ./peerserver)
    return
  fi
  local g mod
  g=$(cd "$GOTLCP" && pwd) || return 1
  mod=$(mktemp -d)
  cp "$root/examples/interop/go.mod" "$root/examples/interop/go.sum" "$mod/"
  go mod edit -modfile="$mod/go.mod" -require gitee.com/Trisia/gotlcp@v1.5.0 -replace "gitee.com/Trisia/gotlcp=$g" \
    -replace "github.com/shangmi-go/shangmi=$root"
  (cd "$root/examples/interop" && GOFLAGS="-modfile=$mod/go.mod -mod=mod" go build -tags gotlcp -o "$out" ./peerserver)
  local rc=$?
  rm -rf "$mod"
  return $rc
}
