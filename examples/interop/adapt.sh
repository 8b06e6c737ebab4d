#!/usr/bin/env bash
# The self-adapting TLCP client by hand (tlcp/INTEROP.md §12): smtool
# s_client with no interop switch against each peer's TLCP server, on
# every suite the server has, with and without client certificates (a
# double certificate: the case where a client must choose SIGN or SIGN,
# ENC). Each cell prints PASS or FAIL and how many ClientHellos the client
# sent (2 = one retry on a new connection). Give the peers' binaries in
# the environment; a peer left out is skipped:
#
#   TONGSUO=/work/peers/tongsuo/bin/tongsuo \
#   GMSSL=/work/peers/gmssl/bin/gmssl GMSSL311=/work/peers/gmssl-3.1.1/bin/gmssl \
#   GOTLCP=/work/peers/src/gotlcp bash examples/interop/adapt.sh
#
# Each binary's libraries are looked for in <prefix>/lib and <prefix>/lib64
# (prefix = the binary's directory's parent). GmSSL's tlcp_server demo
# serves one connection and exits after a failed handshake, so it runs
# behind respawn (respawn/main.go), which starts one per connection as a
# server on the library would accept one after another. Our own server
# (smtool s_server) and tjfoc's gmtls (peerserver) are always run; gotlcp
# (peerserver -tags gotlcp) when GOTLCP names a gotlcp v1.5.0 source tree. KEEP=1 keeps the work directory
# with every client's -msg trace; BASE_PORT (default 27100) picks ports.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
[ "${KEEP:-}" = 1 ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT
port=${BASE_PORT:-27100}
pw='P@ssw0rd'
fails=0
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap 'cleanup; [ "${KEEP:-}" = 1 ] || rm -rf "$work"' EXIT

(cd "$root/examples/smtool" && go build -o "$work/smtool" .) || exit 1
(cd "$root/examples/interop" && go build -o "$work/respawn" ./respawn) || exit 1
S=$work/smtool

. "$root/examples/interop/lib.sh"

# cell LABEL -- CLIENT ARGS: run smtool s_client, which must get back the
# line it sent ("hello adapt") in its output.
cell() {
  local label=$1; shift 2
  local log="$work/$(echo "$label" | tr ' /,' '___').log"
  echo "hello adapt" | timeout 20 "$S" s_client -msg "$@" >"$log" 2>&1
  local rc=$? hellos
  hellos=$(grep -c '^>>> .*ClientHello' "$log")
  if [ $rc = 0 ] && grep -qiE 'hello adapt|tpada olleh' "$log"; then
    printf 'PASS  %-60s ClientHellos=%s\n' "$label" "$hellos"
  else
    printf 'FAIL  %-60s ClientHellos=%s: %s\n' "$label" "$hellos" "$(tail -n1 "$log")"
    fails=$((fails + 1))
  fi
}

# respawned SERVER ARGS...: start respawn on the next port.
respawned() {
  port=$((port + 1))
  "$work/respawn" -listen "127.0.0.1:$port" -- "$@" >>"$work/respawn.log" 2>&1 &
  pids+=($!)
  wait_port "$port" || echo "respawn did not start on $port"
}

suites="ECC_SM4_GCM_SM3 ECC_SM4_CBC_SM3 ECDHE_SM4_GCM_SM3 ECDHE_SM4_CBC_SM3"

if [ -n "${GMSSL:-}" ]; then
  echo "== GmSSL master tlcp_server ($("$GMSSL" version 2>/dev/null | head -1))"
  d=$work/gmssl; gmssl_pki "$GMSSL" "$d"
  for s in $suites; do
    for auth in no yes; do
      case $s in ECDHE*) [ $auth = yes ] || continue; sa=(-cacert "$d/ca.pem");; *) sa=();; esac
      [ $s = "${s#ECDHE}" ] && [ $auth = yes ] && sa=(-cacert "$d/ca.pem" -cert_request)
      ca=(); [ $auth = yes ] && ca=(-cert "$d/client_certs.pem" -key "$d/client_keys.pem" -pass "$pw")
      respawned env LD_LIBRARY_PATH="$(libs "$GMSSL")" "$GMSSL" tlcp_server -port '{port}' -cert "$d/server_certs.pem" \
        -key "$d/server_keys.pem" -pass "$pw" -cipher_suite "TLS_$s" "${sa[@]}"
      cell "gmssl-master $s client-auth=$auth" -- -host 127.0.0.1 -port "$port" -server_name localhost \
        -cacert "$d/ca.pem" -cipher_suite "TLS_$s" "${ca[@]}"
      if [ $auth = yes ] && [ $s = ECC_SM4_GCM_SM3 ]; then
        # No SNI: the flight does not tell GmSSL ≥ 3.2 from 3.1.1 (§12.2).
        cell "gmssl-master $s client-auth=$auth no SNI" -- -host 127.0.0.1 -port "$port" -server_name localhost \
          -noservername -cacert "$d/ca.pem" -cipher_suite "TLS_$s" "${ca[@]}"
      fi
    done
  done
fi

if [ -n "${GMSSL311:-}" ]; then
  echo "== GmSSL 3.1.1 tlcp_server"
  d=$work/gmssl311; gmssl_pki "$GMSSL311" "$d"
  # Its server has ECC_SM4_CBC_SM3 only; -cacert turns on client authentication.
  for auth in no yes; do
    sa=(); ca=()
    [ $auth = yes ] && sa=(-cacert "$d/ca.pem") && ca=(-cert "$d/client_certs.pem" -key "$d/client_keys.pem" -pass "$pw")
    respawned env LD_LIBRARY_PATH="$(libs "$GMSSL311")" "$GMSSL311" tlcp_server -port '{port}' -cert "$d/server_certs.pem" \
      -key "$d/sign_key.pem" -pass "$pw" -ex_key "$d/enc_key.pem" -ex_pass "$pw" "${sa[@]}"
    cell "gmssl-3.1.1 ECC_SM4_CBC_SM3 client-auth=$auth" -- -host 127.0.0.1 -port "$port" -server_name localhost \
      -cacert "$d/ca.pem" "${ca[@]}"
  done
fi

td=$root/testdata/tlcp
pair=(-sign_cert "$td/client_sign.pem" -sign_key "$td/client_sign.key" -enc_cert "$td/client_enc.pem" -enc_key "$td/client_enc.key")
srvpair=(-sign_cert "$td/server_sign.pem" -sign_key "$td/server_sign.key" -enc_cert "$td/server_enc.pem" -enc_key "$td/server_enc.key")
tongsuo_name() { case $1 in ECC_SM4_GCM_SM3) echo ECC-SM2-SM4-GCM-SM3;; ECC_SM4_CBC_SM3) echo ECC-SM2-SM4-CBC-SM3;;
  ECDHE_SM4_GCM_SM3) echo ECDHE-SM2-SM4-GCM-SM3;; ECDHE_SM4_CBC_SM3) echo ECDHE-SM2-SM4-CBC-SM3;; esac; }

if [ -n "${TONGSUO:-}" ]; then
  echo "== Tongsuo s_server -enable_ntls ($(LD_LIBRARY_PATH=$(libs "$TONGSUO") "$TONGSUO" version 2>/dev/null))"
  for s in $suites; do
    for auth in no yes; do
      case $s in ECDHE*) [ $auth = yes ] || continue;; esac
      sa=(); ca=()
      [ $auth = yes ] && sa=(-Verify 1 -CAfile "$td/ca.pem") && ca=("${pair[@]}")
      port=$((port + 1))
      LD_LIBRARY_PATH=$(libs "$TONGSUO") "$TONGSUO" s_server -accept "127.0.0.1:$port" -quiet -rev -enable_ntls \
        "${srvpair[@]}" "${sa[@]}" >>"$work/tongsuo.log" 2>&1 &
      pids+=($!); wait_port "$port"
      cell "tongsuo $s client-auth=$auth" -- -connect "localhost:$port" -CAfile "$td/ca.pem" \
        -cipher "$(tongsuo_name $s)" "${ca[@]}"
    done
  done
fi

# The Go peers' servers (peerserver): tjfoc's gmtls always (its only
# working suite is ECC_SM4_CBC_SM3), gotlcp when GOTLCP names its source
# tree (v1.5.0; built as scan.sh builds it).
peer=$work/peerserver
build_peerserver "$root" "$peer" || exit 1
for impl in tjfoc gotlcp; do
  [ $impl = gotlcp ] && [ -z "${GOTLCP:-}" ] && continue
  echo "== $impl server (peerserver)"
  ss=$suites; [ $impl = tjfoc ] && ss=ECC_SM4_CBC_SM3
  for s in $ss; do
    for auth in no yes; do
      case $s in ECDHE*) [ $auth = yes ] || continue;; esac
      sa=(); ca=()
      [ $auth = yes ] && sa=(-CAfile "$td/ca.pem") && ca=("${pair[@]}")
      port=$((port + 1))
      "$peer" -impl $impl -listen "127.0.0.1:$port" "${srvpair[@]}" "${sa[@]}" >>"$work/peers.log" 2>&1 &
      pids+=($!); wait_port "$port"
      cell "$impl $s client-auth=$auth" -- -connect "localhost:$port" -CAfile "$td/ca.pem" -cipher "$(tongsuo_name $s)" "${ca[@]}"
    done
  done
done

echo "== shangmi smtool s_server"
for s in $suites; do
  for auth in no yes; do
    case $s in ECDHE*) [ $auth = yes ] || continue;; esac
    sa=(); ca=()
    [ $auth = yes ] && sa=(-Verify 1 -CAfile "$td/ca.pem") && ca=("${pair[@]}")
    port=$((port + 1))
    "$S" s_server -accept "127.0.0.1:$port" -quiet -rev "${srvpair[@]}" "${sa[@]}" </dev/null >>"$work/ours.log" 2>&1 &
    pids+=($!); wait_port "$port"
    cell "shangmi $s client-auth=$auth" -- -connect "localhost:$port" -CAfile "$td/ca.pem" -cipher "$(tongsuo_name $s)" "${ca[@]}"
  done
done

echo "FAIL cells: $fails"
exit "$fails"
