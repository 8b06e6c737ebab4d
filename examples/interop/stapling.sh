#!/usr/bin/env bash
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

# Manual interoperability runs of package tlcp's OCSP stapling (TLS 1.3's
# CertificateEntry status_request, TLCP's CertificateStatus message) and of
# the keying material exporter (smtool s_client/s_server -keymatexport,
# OpenSSL's flag) against Tongsuo's s_server/s_client, both directions,
# over 127.0.0.1. Not part of CI: it needs the peer's binary:
#
#   SHANGMI_TONGSUO=/path/to/tongsuo/bin/tongsuo bash examples/interop/stapling.sh
#
# Its libraries are looked up beside the binary as tls13.sh does. KEEP=1
# keeps the work directory; BASE_PORT (default 26100) is the first port.
# gotlcp's side (the ServerHello form of the staple, trusted_ca_keys) is
# examples/interop/gotlcp/stapling_test.go, run as its header says. Every
# cell prints PASS, FAIL or, for a form a peer is known not to read, XFAIL;
# the exit status is the number of FAILs.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
failed=0
port=${BASE_PORT:-26100}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
[ -n "${SHANGMI_TONGSUO:-}" ] || { echo "SHANGMI_TONGSUO is not set: nothing to run"; exit 0; }

S=$work/smtool
(cd "$root" && go build -o "$S" ./examples/smtool) || exit 1
r=$(dirname "$(dirname "$SHANGMI_TONGSUO")")
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$r/lib:$r/lib64}
T=$SHANGMI_TONGSUO

result() {
	if [ "$2" = 0 ]; then
		printf 'PASS  %-74s %s\n' "$1" "$3"
	else
		printf 'FAIL  %-74s %s\n' "$1" "$3"
		failed=$((failed + 1))
	fi
}
known() {
	if [ "$2" = 0 ]; then
		printf 'XPASS %-74s %s\n' "$1" "$3"
	else
		printf 'XFAIL %-74s %s\n' "$1" "$3"
	fi
}
wait_port() {
	for _ in $(seq 50); do
		ss -ltnH "sport = :$1" 2>/dev/null | grep -q LISTEN && return 0
		sleep 0.1
	done
	return 1
}
stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	port=$((port + 1))
}
keymat() { grep -m1 'Keying material:' "$1" | awk '{print $3}'; }

cd "$work" || exit 1
# The PKI (smtool cert gen) and three staples for server_sign.pem made by
# smtool's responder from a Tongsuo-made request: good, revoked, and good
# but signed by another CA.
"$S" cert gen -out pki >/dev/null || exit 1
"$S" cert gen -out other -ca-subj "/C=CN/O=other/CN=Other CA" >/dev/null || exit 1
serial=$("$S" cert show -serial pki/server_sign.pem | cut -d= -f2)
printf 'V\t361231000000Z\t\t%s\tunknown\t/CN=good\n' "$serial" >good.idx
printf 'R\t361231000000Z\t261101000000Z,keyCompromise\t%s\tunknown\t/CN=revoked\n' "$serial" >revoked.idx
"$T" ocsp -issuer pki/ca.pem -cert pki/server_sign.pem -reqout req.der -no_nonce >/dev/null 2>&1 || exit 1
"$S" ocsp -index good.idx -CA pki/ca.pem -rsigner pki/ca.pem -rkey pki/ca.key -reqin req.der -respout good.der -ndays 1 >/dev/null || exit 1
"$S" ocsp -index revoked.idx -CA pki/ca.pem -rsigner pki/ca.pem -rkey pki/ca.key -reqin req.der -respout revoked.der -ndays 1 >/dev/null || exit 1
"$S" ocsp -index good.idx -CA pki/ca.pem -rsigner other/ca.pem -rkey other/ca.key -reqin req.der -respout wrong.der -ndays 1 >/dev/null 2>&1 || exit 1

label=EXPERIMENTAL-shangmi
tls13="-tls1_3 -groups curveSM2 -sigalgs sm2sig_sm3 -ciphersuites TLS_SM4_GCM_SM3"
ntls="-enable_ntls -ntls"
tsrv_keys="-cert pki/server_sign.pem -key pki/server_sign.key"
ntls_keys="-sign_cert pki/server_sign.pem -sign_key pki/server_sign.key -enc_cert pki/server_enc.pem -enc_key pki/server_enc.key"
our_keys="-sign_cert pki/server_sign.pem -sign_key pki/server_sign.key -enc_cert pki/server_enc.pem -enc_key pki/server_enc.key"

# tongsuo_server NAME PROTO-FLAGS STAPLE: Tongsuo's s_server for one
# connection, its standard input held open so that it prints the
# connection (and the keying material) and waits.
tongsuo_server() {
	local name=$1 flags=$2 keys=$3 staple=$4
	(sleep 6 | "$T" s_server -accept 127.0.0.1:$port $flags $keys -status_file "$staple" -naccept 1 \
		-keymatexport $label -keymatexportlen 32 >"$name.server.log" 2>&1) &
	server_pid=$!
	wait_port $port
}
our_client() {
	local name=$1
	shift
	(echo hello; sleep 1) | timeout 15 "$S" s_client -connect 127.0.0.1:$port -servername localhost -CAfile pki/ca.pem \
		-keymatexport $label -keymatexportlen 32 "$@" >"$name.client.log" 2>&1
}

# ---- Tongsuo s_server -status_file -> smtool s_client -status_require
for proto in tls13 tlcp; do
	if [ $proto = tls13 ]; then pf=$tls13 keys=$tsrv_keys cf=-tls1_3; else pf=$ntls keys=$ntls_keys cf=-tlcp; fi
	name=tongsuo-server-$proto-good
	tongsuo_server $name "$pf" "$keys" good.der
	our_client $name $cf -status_require
	rc=$?
	grep -q '^OCSP response: 323 bytes\|^OCSP response: [0-9]* bytes' $name.client.log || rc=1
	stop $server_pid
	detail="staple read"
	if [ $proto = tls13 ]; then
		ours=$(keymat $name.client.log) theirs=$(keymat $name.server.log)
		[ -n "$ours" ] && [ "$ours" = "$theirs" ] || rc=1
		detail="staple read; keying material equal: $ours"
	fi
	result "Tongsuo s_server ($proto) -status_file good -> s_client -status_require" $rc "$detail"
	for bad in revoked wrong; do
		name=tongsuo-server-$proto-$bad
		tongsuo_server $name "$pf" "$keys" $bad.der
		our_client $name $cf -status_require
		rc=$?
		stop $server_pid
		[ $rc != 0 ] && grep -q 'OCSP staple' $name.client.log && grep -qi 'bad certificate status response\|alert number 113' $name.server.log
		result "Tongsuo s_server ($proto) -status_file $bad -> s_client -status_require refuses" $? \
			"$(grep -o 'alert [a-z ]*status response\|alert number 113' $name.server.log | head -1)"
	done
done

# ---- smtool s_server -status_file -> Tongsuo s_client -status
for proto in tls13 tlcp; do
	for form in message hello; do
		[ $proto = tls13 ] && [ $form = hello ] && continue
		name=our-server-$proto-$form
		sf=""
		[ $form = hello ] && sf=-status_in_hello
		"$S" s_server -accept 127.0.0.1:$port $our_keys -status_file good.der $sf -keymatexport $label -keymatexportlen 32 >$name.server.log 2>&1 &
		server_pid=$!
		wait_port $port
		if [ $proto = tls13 ]; then cf=$tls13; else cf=$ntls; fi
		(echo hello; sleep 1) | timeout 15 "$T" s_client -connect 127.0.0.1:$port $cf -CAfile pki/ca.pem -status \
			-keymatexport $label -keymatexportlen 32 >$name.client.log 2>&1
		rc=$?
		stop $server_pid
		grep -q 'Cert Status: good' $name.client.log || rc=1
		detail="Cert Status: good"
		if [ $proto = tls13 ]; then
			ours=$(keymat $name.server.log) theirs=$(keymat $name.client.log)
			[ -n "$ours" ] && [ "$ours" = "$theirs" ] || rc=1
			detail="$detail; keying material equal: $ours"
		elif grep -A3 'Keying material exporter' $name.client.log | grep -q Error; then
			detail="$detail; Tongsuo's NTLS has no exporter (prints Error)"
		fi
		if [ $form = hello ]; then
			known "smtool s_server ($proto, -status_in_hello) -> Tongsuo s_client -status" $rc \
				"Tongsuo wants an empty ServerHello status_request: $(grep -o 'bad extension\|decode error' $name.client.log | head -1)"
		else
			result "smtool s_server ($proto) -status_file -> Tongsuo s_client -status" $rc "$detail"
		fi
	done
done

echo "failed cells: $failed"
exit $failed
