#!/usr/bin/env bash
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

# Manual interoperability runs of package smx509/ocsp (through smtool ocsp)
# against Tongsuo's ocsp (client and HTTP responder) and GmSSL 3's ocspreq,
# ocspsign and ocspverify, both directions, with SM2 certificates made by
# smtool: a CA, a good and a revoked leaf, a delegated responder with the
# OCSPSigning extended key usage and one without it. Not part of CI: it needs
# the peers' binaries, which this script only runs:
#
#   SHANGMI_TONGSUO=/path/to/tongsuo/bin/tongsuo \
#   SHANGMI_GMSSL=/path/to/gmssl/bin/gmssl \
#   bash examples/interop/ocsp.sh
#
# Either variable may be left unset to skip that peer; their libraries are
# looked up beside the binary as tls13.sh does. KEEP=1 keeps the work
# directory; RECORD=DIR copies the PKI and the peer-made requests and
# responses there (smx509/ocsp/testdata was made so). BASE_PORT (default
# 25600) is the first of the local ports used. Every cell prints PASS or
# FAIL; the exit status is the number of FAILs.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
failed=0
port=${BASE_PORT:-25600}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

smtool=$work/smtool
(cd "$root" && go build -o "$smtool" ./examples/smtool) || exit 1

result() {
	if [ "$2" = 0 ]; then
		printf 'PASS  %-78s %s\n' "$1" "$3"
	else
		printf 'FAIL  %-78s %s\n' "$1" "$3"
		failed=$((failed + 1))
	fi
}

libdirs() {
	local r
	r=$(dirname "$(dirname "$1")")
	echo "$r/lib:$r/lib64"
}

# The PKI, all SM2: ca, good (V in the index), revoked (R, keyCompromise),
# unlisted (absent from the index: unknown), ocsp (delegated responder) and
# noeku (a responder certificate without OCSPSigning).
p=$work/pki
"$smtool" cert gen -out "$p" -ca-subj "/C=CN/O=shangmi interop/CN=OCSP interop CA" >/dev/null || exit 1
cp "$p/server_sign.pem" "$work/good.pem"
cp "$p/client_sign.pem" "$work/revoked.pem"
cp "$p/server_enc.pem" "$work/unlisted.pem"
cp "$p/ca.pem" "$p/ca.key" "$work/"
for r in ocsp noeku; do
	"$smtool" key gen -out "$work/$r.key" >/dev/null || exit 1
	"$smtool" req -key "$work/$r.key" -subj "/C=CN/O=shangmi interop/CN=$r responder" -out "$work/$r.csr" || exit 1
done
"$smtool" ca sign -in "$work/ocsp.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -key_usage digitalSignature -eku OCSPSigning -out "$work/ocsp.pem" || exit 1
"$smtool" ca sign -in "$work/noeku.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -key_usage digitalSignature -out "$work/noeku.pem" || exit 1
serial() { "$smtool" cert show -serial "$1" | cut -d= -f2; }
printf 'V\t361231000000Z\t\t%s\tunknown\t/CN=good\n' "$(serial "$work/good.pem")" >"$work/index.txt"
printf 'R\t361231000000Z\t261101000000Z,keyCompromise\t%s\tunknown\t/CN=revoked\n' "$(serial "$work/revoked.pem")" >>"$work/index.txt"
cd "$work" || exit 1

S() { "$smtool" ocsp "$@" 2>>"$work/smtool.log"; }

# wait_log FILE PATTERN: until a responder's log says it listens (at most
# 5 s). Probing the port instead would use up one of Tongsuo's -nrequest.
wait_log() {
	for _ in $(seq 50); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# our_responder PORT N ARGS...: smtool's responder for N requests.
our_responder() {
	local pt=$1 n=$2
	shift 2
	"$smtool" ocsp -index index.txt -CA ca.pem -port "$pt" -nrequest "$n" -ndays 1 "$@" >"responder_$pt.log" 2>&1 &
	wait_log "responder_$pt.log" waiting
}

if [ -n "${SHANGMI_TONGSUO:-}" ]; then
	tongsuo_libs=${LD_LIBRARY_PATH:-$(libdirs "$SHANGMI_TONGSUO")}
	T() { LD_LIBRARY_PATH=$tongsuo_libs "$SHANGMI_TONGSUO" "$@"; }
	mkdir -p tongsuo

	# Tongsuo's responder, delegated signer, answered to smtool.
	pt=$((port + 1))
	T ocsp -index index.txt -CA ca.pem -rsigner ocsp.pem -rkey ocsp.key -port $pt -ndays 1 -nrequest 5 >tongsuo/responder.log 2>&1 &
	wait_log tongsuo/responder.log ACCEPT
	S -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -CAfile ca.pem -reqout tongsuo/ours_good.req.der -respout tongsuo/delegated_good.resp.der >tongsuo/o1 &&
		grep -q 'good.pem: good' tongsuo/o1 && ! grep -q 'no nonce' smtool.log
	result "Tongsuo ocsp responder (delegated) -> smtool ocsp: good, SHA-1, nonce" $? "SM2-with-SM3"
	S -issuer ca.pem -cert revoked.pem -url http://127.0.0.1:$pt -respout tongsuo/delegated_revoked.resp.der >tongsuo/o2 &&
		grep -q 'revoked.pem: revoked' tongsuo/o2 && grep -q 'keyCompromise' tongsuo/o2
	result "Tongsuo ocsp responder (delegated) -> smtool ocsp: revoked, keyCompromise" $? ""
	S -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -sm3 -reqout tongsuo/ours_sm3.req.der -respout tongsuo/delegated_sm3.resp.der >tongsuo/o3 &&
		grep -q 'good.pem: good' tongsuo/o3
	result "Tongsuo ocsp responder (delegated) -> smtool ocsp -sm3: good" $? "CertID hashed with SM3"
	S -issuer ca.pem -cert unlisted.pem -url http://127.0.0.1:$pt -sha256 -respout tongsuo/delegated_unknown.resp.der >tongsuo/o4 &&
		grep -q 'unlisted.pem: unknown' tongsuo/o4
	result "Tongsuo ocsp responder (delegated) -> smtool ocsp -sha256: unknown" $? "CertID hashed with SHA-256"
	T ocsp -issuer ca.pem -cert good.pem -cert revoked.pem -url http://127.0.0.1:$pt -CAfile ca.pem -respout tongsuo/delegated_two.resp.der >/dev/null 2>&1 &&
		S -issuer ca.pem -cert good.pem -cert revoked.pem -respin tongsuo/delegated_two.resp.der -CAfile ca.pem >tongsuo/o4b &&
		grep -q 'good.pem: good' tongsuo/o4b && grep -q 'revoked.pem: revoked' tongsuo/o4b
	result "Tongsuo ocsp responder, two -cert (Tongsuo's client) -> smtool ocsp -respin" $? "two SingleResponses"
	wait

	# Tongsuo's responder signing with the CA itself, byKey ResponderID.
	pt=$((port + 2))
	T ocsp -index index.txt -CA ca.pem -rsigner ca.pem -rkey ca.key -resp_key_id -resp_no_certs -port $pt -nmin 60 -nrequest 1 >tongsuo/responder2.log 2>&1 &
	wait_log tongsuo/responder2.log ACCEPT
	S -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -CAfile ca.pem -respout tongsuo/ca_keyid_good.resp.der >tongsuo/o5 &&
		grep -q 'good.pem: good' tongsuo/o5
	result "Tongsuo ocsp responder (CA, -resp_key_id, no certs) -> smtool ocsp: good" $? "byKey ResponderID"
	wait

	# Tongsuo's responder with a responder certificate lacking OCSPSigning:
	# smtool must refuse its answer.
	pt=$((port + 3))
	T ocsp -index index.txt -CA ca.pem -rsigner noeku.pem -rkey noeku.key -port $pt -ndays 1 -nrequest 1 >tongsuo/responder3.log 2>&1 &
	wait_log tongsuo/responder3.log ACCEPT
	S -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -respout tongsuo/noeku_good.resp.der >tongsuo/o6
	[ $? != 0 ] && grep -q 'lacks the id-kp-OCSPSigning' smtool.log
	result "Tongsuo ocsp responder without OCSPSigning -> smtool ocsp refuses it" $? "negative"
	wait

	# A Tongsuo-made request, answered by smtool's responder offline. (With
# -cert, Tongsuo's -reqin run would make a new request with a new nonce.)
	T ocsp -issuer ca.pem -sm3 -cert good.pem -reqout tongsuo/tongsuo_sm3.req.der >/dev/null 2>&1 &&
		S -index index.txt -CA ca.pem -rsigner ocsp.pem -rkey ocsp.key -reqin tongsuo/tongsuo_sm3.req.der -respout tongsuo/ours_for_tongsuo.resp.der &&
		T ocsp -reqin tongsuo/tongsuo_sm3.req.der -respin tongsuo/ours_for_tongsuo.resp.der -CAfile ca.pem -resp_text >tongsuo/o7 2>&1 &&
		grep -q 'Response verify OK' tongsuo/o7 && grep -q 'Cert Status: good' tongsuo/o7 && grep -q 'OCSP Nonce' tongsuo/o7 && ! grep -q 'Nonce Verify error' tongsuo/o7
	result "Tongsuo ocsp -sm3 -reqout -> smtool ocsp -index -reqin -> Tongsuo ocsp -respin" $? "offline"

	# smtool's responder, answered to Tongsuo's client.
	pt=$((port + 4))
	our_responder $pt 3 -rsigner ocsp.pem -rkey ocsp.key
	T ocsp -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -CAfile ca.pem >tongsuo/o8 2>&1 &&
		grep -q 'Response verify OK' tongsuo/o8 && grep -q 'good.pem: good' tongsuo/o8 && ! grep -qi 'nonce' tongsuo/o8
	result "smtool ocsp responder (delegated) -> Tongsuo ocsp: good, nonce echoed" $? "POST"
	T ocsp -issuer ca.pem -cert revoked.pem -url http://127.0.0.1:$pt -CAfile ca.pem >tongsuo/o9 2>&1 &&
		grep -q 'Response verify OK' tongsuo/o9 && grep -q 'revoked.pem: revoked' tongsuo/o9 && grep -q 'Reason: keyCompromise' tongsuo/o9
	result "smtool ocsp responder (delegated) -> Tongsuo ocsp: revoked, keyCompromise" $? ""
	T ocsp -issuer ca.pem -sm3 -cert unlisted.pem -url http://127.0.0.1:$pt -CAfile ca.pem >tongsuo/o10 2>&1 &&
		grep -q 'Response verify OK' tongsuo/o10 && grep -q 'unlisted.pem: unknown' tongsuo/o10
	result "smtool ocsp responder (delegated) -> Tongsuo ocsp -sm3: unknown" $? "CertID hashed with SM3"
	wait
	pt=$((port + 5))
	our_responder $pt 1 -rkey ca.key -resp_key_id
	T ocsp -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -CAfile ca.pem >tongsuo/o11 2>&1 &&
		grep -q 'Response verify OK' tongsuo/o11 && grep -q 'good.pem: good' tongsuo/o11
	result "smtool ocsp responder (CA, -resp_key_id) -> Tongsuo ocsp: good" $? "byKey ResponderID"
	wait
	pt=$((port + 6))
	our_responder $pt 1 -rsigner noeku.pem -rkey noeku.key
	T ocsp -issuer ca.pem -cert good.pem -url http://127.0.0.1:$pt -CAfile ca.pem >tongsuo/o12 2>&1
	! grep -q 'Response verify OK' tongsuo/o12
	result "smtool ocsp responder without OCSPSigning -> Tongsuo ocsp refuses it" $? "negative"
	wait
else
	echo "SKIP  Tongsuo: SHANGMI_TONGSUO not set"
fi

if [ -n "${SHANGMI_GMSSL:-}" ]; then
	gmssl_libs=${LD_LIBRARY_PATH:-$(libdirs "$SHANGMI_GMSSL")}
	G() { LD_LIBRARY_PATH=$gmssl_libs "$SHANGMI_GMSSL" "$@"; }
	mkdir -p gmssl
	# GmSSL reads only encrypted keys.
	"$smtool" key convert -in ocsp.key -pass pass:interop -out gmssl/ocsp.key &&
		"$smtool" key convert -in ca.key -pass pass:interop -out gmssl/ca.key || exit 1
	cat good.pem ca.pem >gmssl/good_chain.pem

	G ocspreq -in gmssl/good_chain.pem -out gmssl/gmssl_sm3.req.der 2>/dev/null &&
		S -index index.txt -CA ca.pem -rsigner ocsp.pem -rkey ocsp.key -reqin gmssl/gmssl_sm3.req.der -respout gmssl/ours_delegated.resp.der &&
		G ocspverify -reqin gmssl/gmssl_sm3.req.der -respin gmssl/ours_delegated.resp.der -cacert ca.pem -signer ocsp.pem >gmssl/o1 2>&1 &&
		grep -q 'Verification success' gmssl/o1
	result "GmSSL ocspreq -> smtool ocsp -index (delegated) -> GmSSL ocspverify" $? "CertID hashed with SM3"
	S -index index.txt -CA ca.pem -rkey ca.key -reqin gmssl/gmssl_sm3.req.der -respout gmssl/ours_ca.resp.der &&
		G ocspverify -reqin gmssl/gmssl_sm3.req.der -respin gmssl/ours_ca.resp.der -cacert ca.pem -signer ca.pem >gmssl/o2 2>&1 &&
		grep -q 'Verification success' gmssl/o2
	result "GmSSL ocspreq -> smtool ocsp -index (CA) -> GmSSL ocspverify" $? ""

	G ocspsign -reqin gmssl/gmssl_sm3.req.der -cacert ca.pem -signer ocsp.pem -key gmssl/ocsp.key -pass interop -cert ocsp.pem \
		-this_update 20261201000000Z -next_update 20361201000000Z -out gmssl/delegated_good.resp.der 2>/dev/null &&
		S -issuer ca.pem -cert good.pem -reqin gmssl/gmssl_sm3.req.der -respin gmssl/delegated_good.resp.der -CAfile ca.pem >gmssl/o3 &&
		grep -q 'good.pem: good' gmssl/o3
	result "GmSSL ocspsign (delegated, -cert) -> smtool ocsp -respin: good" $? "SM2-with-SM3"
	G ocspsign -reqin gmssl/gmssl_sm3.req.der -cacert ca.pem -signer ca.pem -key gmssl/ca.key -pass interop -resp_key_id \
		-status revoked -revocation_time 20261101000000Z -revocation_reason keyCompromise \
		-this_update 20261201000000Z -next_update 20361201000000Z -out gmssl/ca_revoked.resp.der 2>/dev/null &&
		S -issuer ca.pem -cert good.pem -respin gmssl/ca_revoked.resp.der >gmssl/o4 &&
		grep -q 'good.pem: revoked' gmssl/o4 && grep -q keyCompromise gmssl/o4
	result "GmSSL ocspsign (CA, -resp_key_id, revoked) -> smtool ocsp -respin" $? "byKey ResponderID"
	for h in sha1 sm3; do
		S -issuer ca.pem -cert revoked.pem -$h -nonce -reqout gmssl/ours_$h.req.der -respin /dev/null >/dev/null
		G ocspsign -reqin gmssl/ours_$h.req.der -cacert ca.pem -signer ocsp.pem -key gmssl/ocsp.key -pass interop -cert ocsp.pem \
			-status unknown -out gmssl/ours_$h.resp.der 2>/dev/null &&
			S -issuer ca.pem -cert revoked.pem -reqin gmssl/ours_$h.req.der -respin gmssl/ours_$h.resp.der >gmssl/o5_$h &&
			grep -q 'revoked.pem: unknown' gmssl/o5_$h
		result "smtool ocsp -$h -nonce -reqout -> GmSSL ocspsign -> smtool ocsp -respin: unknown" $? "GmSSL echoes no nonce: a warning"
	done
else
	echo "SKIP  GmSSL: SHANGMI_GMSSL not set"
fi

if [ -n "${RECORD:-}" ]; then
	mkdir -p "$RECORD"
	cp ca.pem good.pem revoked.pem unlisted.pem ocsp.pem noeku.pem index.txt "$RECORD/"
	[ -d tongsuo ] && for f in tongsuo/*.der; do cp "$f" "$RECORD/tongsuo_$(basename "$f")"; done
	[ -d gmssl ] && for f in gmssl/*.der; do cp "$f" "$RECORD/gmssl_$(basename "$f")"; done
fi
exit $failed
