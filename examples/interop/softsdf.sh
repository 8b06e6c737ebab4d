#!/usr/bin/env bash
# TLCP with keys in GmSSL's SoftSDF (GM/T 0018) by hand (issue 29): a
# server of ours whose signing and encryption keys are both in the device,
# against our client and Tongsuo's; a client of ours whose signing key is
# in the device; the module's own SoftSDF test. Build SoftSDF as
# examples/sdf/README.md says, then:
#
#   SOFTSDF=/work/peers/softsdf TONGSUO=/work/peers/tongsuo/bin/tongsuo \
#     bash examples/interop/softsdf.sh
#
# SOFTSDF is SoftSDF's install prefix (lib/libsoftsdf.so, bin/softsdfinit);
# TONGSUO may be left unset. Every cell prints PASS, FAIL, or XFAIL (a
# combination the device cannot do, with the reason); the exit status is
# the number of FAILs. BENCH=1 adds sdfbench's handshake rates.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${SOFTSDF:?set SOFTSDF to the install prefix of SoftSDF}"
lib=$SOFTSDF/lib/libsoftsdf.so
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
pw='P@ssw0rd'
port=${BASE_PORT:-27500}
fails=0
(cd "$root/examples/sdf" && go build -o "$work/smtool" ./cmd/smtool && go build -o "$work/sdfcert" ./cmd/sdfcert) || exit 1
S=$work/smtool
. "$root/examples/interop/lib.sh"
# cell LABEL EXPECT -- COMMAND...: EXPECT is pass or xfail:REASON; the
# command must print back "hello sdf".
cell() {
  local label=$1 expect=$2; shift 3
  local log="$work/$(echo "$label" | tr ' /,' '___').log"
  echo "hello sdf" | timeout 20 "$@" >"$log" 2>&1
  local ok=no
  grep -qiE 'hello sdf|fds olleh' "$log" && ok=yes
  case $expect,$ok in
    pass,yes) printf 'PASS   %s\n' "$label" ;;
    xfail:*,no) printf 'XFAIL  %s: %s (%s)\n' "$label" "${expect#xfail:}" "$(grep -m1 -iE 'error|fail|alert' "$log" | cut -c1-120)" ;;
    *) printf 'FAIL   %s: %s\n' "$label" "$(tail -n1 "$log")"; fails=$((fails + 1)) ;;
  esac
}

# The device folder: SoftSDF keeps its keys in files of the working directory.
dev=$work/dev; mkdir -p "$dev"; cd "$dev" || exit 1
"$SOFTSDF/bin/softsdfinit" -kek 1 -key 1 -pass "$pw" >/dev/null || { echo "softsdfinit failed"; exit 1; }
"$S" cert gen -out pki >/dev/null 2>&1 || { echo "cert gen failed"; exit 1; }
"$work/sdfcert" -lib "$lib" -sign_index 1 -enc_index 1 -CA pki/ca.pem -CAkey pki/ca.key -cn localhost -out . >/dev/null ||
  { echo "sdfcert failed"; exit 1; }
client=(-sign_cert pki/client_sign.pem -sign_key pki/client_sign.key -enc_cert pki/client_enc.pem -enc_key pki/client_enc.key)

for auth in no yes; do
  port=$((port + 1)); sa=(); [ $auth = yes ] && sa=(-Verify 1 -CAfile pki/ca.pem)
  "$S" s_server -accept "127.0.0.1:$port" -quiet -rev -sdf "$lib" -sdf_sign_index 1 -sdf_enc_index 1 \
    -sdf_pass "pass:$pw" -sign_cert sign.pem -enc_cert enc.pem "${sa[@]}" </dev/null >>"$work/server.log" 2>&1 &
  pids+=($!); wait_port "$port" || exit 1
  ca=(); [ $auth = yes ] && ca=("${client[@]}")
  for s in ECC_SM4_GCM_SM3 ECC_SM4_CBC_SM3; do
    cell "both keys in SoftSDF, $s, client auth $auth: our client" pass -- \
      "$S" s_client -connect "localhost:$port" -CAfile pki/ca.pem -cipher "$s" "${ca[@]}"
    if [ -n "${TONGSUO:-}" ]; then
      ts=$(echo "$s" | sed 's/ECC_SM4_GCM_SM3/ECC-SM2-SM4-GCM-SM3/; s/ECC_SM4_CBC_SM3/ECC-SM2-SM4-CBC-SM3/')
      cell "both keys in SoftSDF, $s, client auth $auth: Tongsuo s_client" pass -- \
        env LD_LIBRARY_PATH="$(libs "$TONGSUO")" "$TONGSUO" s_client -connect "127.0.0.1:$port" -quiet \
        -enable_ntls -ntls -CAfile pki/ca.pem -cipher "$ts" "${ca[@]}"
    fi
  done
  if [ $auth = yes ]; then
    for s in ECDHE_SM4_GCM_SM3 ECDHE_SM4_CBC_SM3; do
      cell "both keys in SoftSDF, $s: our client" "xfail:SoftSDF has no SM2 key agreement, and GM/T 0018's ends in a key handle (examples/sdf/README.md)" -- \
        "$S" s_client -connect "localhost:$port" -CAfile pki/ca.pem -cipher "$s" "${ca[@]}"
    done
    # A client whose signing key is in the device (ECC client authentication).
    cell "client signing key in SoftSDF, ECC_SM4_GCM_SM3: our server" pass -- \
      "$S" s_client -connect "localhost:$port" -CAfile pki/ca.pem -cipher ECC_SM4_GCM_SM3 \
      -sdf "$lib" -sdf_sign_index 1 -sdf_pass "pass:$pw" -sign_cert sign.pem
  fi
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
done

# The module's test against the device: every suite with the signing key in
# the device (ECDHE with the encryption key in memory), concurrent
# handshakes through a small session pool, decryption forms, error codes.
if (cd "$root/examples/sdf" && SHANGMI_SDF_LIB=$lib go test -count=1 -run SoftSDF . >"$work/gotest.log" 2>&1); then
  echo "PASS   go test -run SoftSDF ./examples/sdf (SHANGMI_SDF_LIB)"
else
  echo "FAIL   go test -run SoftSDF ./examples/sdf: $(tail -n3 "$work/gotest.log" | tr '\n' ' ')"; fails=$((fails + 1))
fi
if [ "${BENCH:-}" = 1 ]; then
  (cd "$root/examples/sdf" && go run ./cmd/sdfbench -lib "$lib" -dir "$dev" -pass "$pw" -n 1000 -c 1,2,4)
fi
echo "FAIL cells: $fails"
exit "$fails"
