#!/usr/bin/env bash
# smtool scan by hand against each peer's server (issue 31): the report
# of what each server speaks and which implementation scan says it
# behaves like. Give the peers in the environment; a peer left out is
# skipped, our own server always runs:
#
#   TONGSUO=/work/peers/tongsuo/bin/tongsuo GMSSL=/work/peers/gmssl/bin/gmssl \
#   GMSSL311=/work/peers/gmssl-3.1.1/bin/gmssl GOTLCP=/work/peers/src/gotlcp \
#     bash examples/interop/scan.sh
#
# GOTLCP is a gotlcp source tree (v1.5.0): the module proxy does not serve
# gotlcp, so peerserver is built with -tags gotlcp against a copy of this
# module's go.mod that points at it. tjfoc's gmtls (v1.4.1, from the proxy)
# always runs. Each server is scanned twice: without and with client
# authentication required (the client double certificate of testdata/tlcp
# offered). JSON=1 prints -json reports; OUT=DIR keeps each report there.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
port=${BASE_PORT:-27300}
pw='P@ssw0rd'
pids=()
failed=0
out=${OUT:-}
[ -n "$out" ] && mkdir -p "$out"

(cd "$root/examples/smtool" && go build -o "$work/smtool" .) || exit 1
(cd "$root/examples/interop" && go build -o "$work/respawn" ./respawn) || exit 1
. "$root/examples/interop/lib.sh"
build_peerserver "$root" "$work/peerserver" || exit 1
S=$work/smtool
td=$root/testdata/tlcp
client=(-sign_cert "$td/client_sign.pem" -sign_key "$td/client_sign.key" -enc_cert "$td/client_enc.pem" -enc_key "$td/client_enc.key")
srv=(-sign_cert "$td/server_sign.pem" -sign_key "$td/server_sign.key" -enc_cert "$td/server_enc.pem" -enc_key "$td/server_enc.key")

# scan LABEL CAFILE [CLIENT FLAGS...]: scan 127.0.0.1:$port with SNI
# localhost, offering the given client double certificate (default: the
# one of testdata/tlcp).
scan() {
  local label=$1 ca=$2 f="$work/report"; shift 2
  local cl=("${client[@]}"); [ $# -gt 0 ] && cl=("$@")
  local j=(); [ "${JSON:-}" = 1 ] && j=(-json)
  echo "== $label"
  local t0=$SECONDS
  "$S" scan "${j[@]}" -servername localhost -CAfile "$ca" "${cl[@]}" "127.0.0.1:$port" >"$f" 2>&1
  local rc=$?
  cat "$f"
  echo "-- $label: exit $rc, $((SECONDS - t0)) s"
  [ $rc = 0 ] || failed=$((failed + 1))
  [ -n "$out" ] && cp "$f" "$out/$(echo "$label" | tr ' /,()' '_____').txt"
}

# GmSSL's demo servers take their own PKI (gmssl_pki, lib.sh) and serve
# one connection each: respawn starts one per connection.
start() { "$@" >>"$work/servers.log" 2>&1 & pids+=($!); wait_port "$port"; }
stop_last() { kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null; }

if [ -n "${GMSSL:-}" ]; then
  d=$work/gmssl; gmssl_pki "$GMSSL" "$d"
  for auth in no yes; do
    port=$((port + 1)); sa=(); [ $auth = yes ] && sa=(-cacert "$d/ca.pem" -cert_request)
    # Its demo server needs -cipher_suite; it takes several: every suite it has.
    start "$work/respawn" -listen "127.0.0.1:$port" -- env LD_LIBRARY_PATH="$(libs "$GMSSL")" "$GMSSL" tlcp_server \
      -port '{port}' -cert "$d/server_certs.pem" -key "$d/server_keys.pem" -pass "$pw" "${sa[@]}" \
      -cipher_suite TLS_ECC_SM4_GCM_SM3 -cipher_suite TLS_ECC_SM4_CBC_SM3 \
      -cipher_suite TLS_ECDHE_SM4_GCM_SM3 -cipher_suite TLS_ECDHE_SM4_CBC_SM3
    scan "GmSSL master ($("$GMSSL" version 2>/dev/null | head -1)) tlcp_server, client auth $auth" "$d/ca.pem" \
      -sign_cert "$d/ours/client_sign.pem" -sign_key "$d/ours/client_sign.key" \
      -enc_cert "$d/ours/client_enc.pem" -enc_key "$d/ours/client_enc.key" -pass "$pw"
    stop_last
  done
fi

if [ -n "${GMSSL311:-}" ]; then
  d=$work/gmssl311; gmssl_pki "$GMSSL311" "$d"
  for auth in no yes; do
    port=$((port + 1)); sa=(); [ $auth = yes ] && sa=(-cacert "$d/ca.pem")
    start "$work/respawn" -listen "127.0.0.1:$port" -- env LD_LIBRARY_PATH="$(libs "$GMSSL311")" "$GMSSL311" tlcp_server \
      -port '{port}' -cert "$d/server_certs.pem" -key "$d/sign_key.pem" -pass "$pw" -ex_key "$d/enc_key.pem" -ex_pass "$pw" "${sa[@]}"
    scan "GmSSL 3.1.1 tlcp_server, client auth $auth" "$d/ca.pem" \
      -sign_cert "$d/ours/client_sign.pem" -sign_key "$d/ours/client_sign.key" \
      -enc_cert "$d/ours/client_enc.pem" -enc_key "$d/ours/client_enc.key" -pass "$pw"
    stop_last
  done
fi

if [ -n "${TONGSUO:-}" ]; then
  for auth in no yes; do
    port=$((port + 1)); sa=(); [ $auth = yes ] && sa=(-Verify 1 -CAfile "$td/ca.pem")
    # NTLS beside TLS 1.3 on one port, with an SM2 certificate for TLS 1.3-SM.
    start env LD_LIBRARY_PATH="$(libs "$TONGSUO")" "$TONGSUO" s_server -accept "127.0.0.1:$port" -quiet -rev -enable_ntls \
      "${srv[@]}" -cert "$td/server_sign.pem" -key "$td/server_sign.key" "${sa[@]}"
    scan "Tongsuo ($(LD_LIBRARY_PATH=$(libs "$TONGSUO") "$TONGSUO" version 2>/dev/null | head -1)) s_server -enable_ntls, client auth $auth" "$td/ca.pem"
    stop_last
  done
fi

for impl in tjfoc gotlcp; do
  [ $impl = gotlcp ] && [ -z "${GOTLCP:-}" ] && continue
  for auth in no yes; do
    port=$((port + 1)); sa=(); [ $auth = yes ] && sa=(-CAfile "$td/ca.pem")
    start "$work/peerserver" -impl $impl -listen "127.0.0.1:$port" "${srv[@]}" "${sa[@]}"
    scan "$impl ($( [ $impl = tjfoc ] && echo gmsm v1.4.1 gmtls || echo gotlcp v1.5.0 )) server, client auth $auth" "$td/ca.pem"
    stop_last
  done
done

for auth in no yes; do
  port=$((port + 1)); sa=(); [ $auth = yes ] && sa=(-Verify 1 -CAfile "$td/ca.pem")
  start "$S" s_server -accept "127.0.0.1:$port" -quiet -rev "${srv[@]}" "${sa[@]}"
  scan "shangmi smtool s_server (TLCP and TLS 1.3-SM on one port), client auth $auth" "$td/ca.pem"
  stop_last
done
echo "scans that failed: $failed"
exit "$failed"
