#!/usr/bin/env bash
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

# Manual interoperability runs of package tlcp's TLS 1.3 with the RFC 8998
# suites (TLS_SM4_GCM_SM3, TLS_SM4_CCM_SM3) against Tongsuo and GmSSL, both
# directions, over 127.0.0.1. Not part of CI: it needs the peers' binaries,
# which this script only runs (it does not build them):
#
#   SHANGMI_TONGSUO=/path/to/tongsuo/bin/tongsuo \
#   SHANGMI_GMSSL=/path/to/gmssl/bin/gmssl \
#   bash examples/interop/tls13.sh
#
# Either variable may be left unset to skip that peer. Their shared
# libraries are looked up in the lib/ and lib64/ directories beside the
# binary's bin/ unless LD_LIBRARY_PATH is already set. Optional:
#   BASE_PORT=24430   first port used (one per cell)
#   CAPTURE_DIR=dir   also record the handshakes that tlcp's golden tests
#                     replay (testdata/tls13/*.capture)
#   KEEP=1            keep the work directory (PKI, logs)
#
# Every cell prints PASS or FAIL with what it checked; the exit status is the
# number of failed cells. The PKI is made fresh by tls13peer -gen-pki: GmSSL
# refuses certificates valid for long, with short serials, or whose leaves
# carry an empty basicConstraints, and reads only encrypted keys (password
# "interop"). See tlcp/TLS13.md §9 for what each peer needs.

set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
port=${BASE_PORT:-24500}
failed=0
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

peer=$work/tls13peer
(cd "$here" && go build -o "$peer" ./tls13peer) || exit 1
pki=$work/pki
"$peer" -gen-pki "$pki" -pass interop || exit 1
printf 'hello from the peer\n' >"$work/in.txt"

libdirs() {
	local root
	root=$(dirname "$(dirname "$1")")
	echo "$root/lib:$root/lib64"
}

# result NAME OK DETAIL
result() {
	if [ "$2" = 0 ]; then
		printf 'PASS  %-62s %s\n' "$1" "$3"
	else
		printf 'FAIL  %-62s %s\n' "$1" "$3"
		failed=$((failed + 1))
	fi
}

# known NAME OK WHY: a cell that fails because of a known peer defect
# (XFAIL), reported but not counted; XPASS means the defect is gone.
known() {
	if [ "$2" = 0 ]; then
		printf 'XPASS %-62s %s\n' "$1" "the known defect did not show: $3"
	else
		printf 'XFAIL %-62s %s\n' "$1" "$3"
	fi
}

# wait_port PORT: until something listens there (or 5 s). It asks ss
# rather than connecting: the peers' servers count every connection, and
# GmSSL's serves only one.
wait_port() {
	if ! command -v ss >/dev/null; then
		sleep 1
		return 0
	fi
	for _ in $(seq 50); do
		ss -ltnH "sport = :$1" 2>/dev/null | grep -q LISTEN && return 0
		sleep 0.1
	done
	return 1
}

capture() { [ -n "${CAPTURE_DIR:-}" ] && echo "-capture $CAPTURE_DIR/$1.capture"; }

# ours_server NAME FLAGS...: start tls13peer as a server on $port.
ours_server() {
	local name=$1
	shift
	"$peer" -server -addr "127.0.0.1:$port" -cert "$pki/server_sign.pem" -key "$pki/server_sign.key" \
		-ca "$pki/ca.pem" "$@" >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port "$port"
}

# ours_client NAME FLAGS...: run tls13peer as a client against $port.
ours_client() {
	local name=$1
	shift
	timeout 30 "$peer" -addr "127.0.0.1:$port" -ca "$pki/ca.pem" -servername localhost "$@" >"$work/$name.client.log" 2>&1
}

finish_server() {
	sleep 0.3
	kill "$server_pid" 2>/dev/null
	wait "$server_pid" 2>/dev/null
	port=$((port + 1))
}

# ---------------------------------------------------------------- Tongsuo

if [ -n "${SHANGMI_TONGSUO:-}" ]; then
	T=$SHANGMI_TONGSUO
	export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$(libdirs "$T")}
	sm="-tls1_3 -groups curveSM2 -sigalgs sm2sig_sm3"
	hyb="-tls1_3 -groups curveSM2MLKEM768 -sigalgs sm2sig_sm3"
	echo "== Tongsuo: $("$T" version 2>/dev/null | head -1)"

	# Our client (default groups: shares for curveSM2MLKEM768 and
	# curveSM2) against s_server with one group, every suite, with and
	# without client authentication, with resumption (psk_dhe_ke on that
	# group; TLS13.md §10).
	for group in curveSM2 curveSM2MLKEM768; do
		for suite in TLS_SM4_GCM_SM3 TLS_SM4_CCM_SM3; do
			for auth in none client; do
				name="tongsuo-server-$group-$suite-auth=$auth"
				sflags="" cflags=""
				[ $auth = client ] && sflags="-Verify 1 -CAfile $pki/ca.pem -verify_return_error" &&
					cflags="-cert $pki/client_sign.pem -key $pki/client_sign.key"
				cap=""
				if [ $suite = TLS_SM4_GCM_SM3 ] && [ $auth = client ]; then
					cap=$(capture tongsuo-server)
					[ $group = curveSM2MLKEM768 ] && cap=$(capture tongsuo-server-hybrid)
				fi
				"$T" s_server -accept "127.0.0.1:$port" -tls1_3 -groups $group -sigalgs sm2sig_sm3 -ciphersuites $suite \
					-cert "$pki/server_sign.pem" -key "$pki/server_sign.key" -naccept 2 -rev $sflags >"$work/$name.server.log" 2>&1 &
				server_pid=$!
				wait_port $port
				ours_client "$name" -n 2 -want-resume -pause 500ms -send 'hello tongsuo\n' $cflags $cap
				rc=$?
				[ "$(grep -c "group=$group alpn" "$work/$name.client.log")" = 2 ] || rc=1
				result "our client -> s_server -groups $group, $suite, client auth: $auth, resumption" $rc \
					"$(grep -c 'resumed=true' "$work/$name.client.log") resumed, echo: $(grep -c 'ousgnot olleh' "$work/$name.client.log")"
				finish_server
			done
		done
	done

	# HelloRetryRequest with a cookie (s_server -stateless).
	name=tongsuo-server-hrr
	"$T" s_server -accept "127.0.0.1:$port" $sm -ciphersuites TLS_SM4_GCM_SM3 -cert "$pki/server_sign.pem" \
		-key "$pki/server_sign.key" -naccept 1 -rev -stateless >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -send 'hello tongsuo\n'
	result "our client -> Tongsuo s_server -stateless (HelloRetryRequest, cookie)" $? "$(grep '^conn' "$work/$name.client.log" | cut -c1-60)"
	finish_server

	# No middlebox compatibility on either side.
	name=tongsuo-server-nocompat
	"$T" s_server -accept "127.0.0.1:$port" $sm -ciphersuites TLS_SM4_GCM_SM3 -cert "$pki/server_sign.pem" \
		-key "$pki/server_sign.key" -naccept 1 -rev -no_middlebox >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -nocompat -send 'hello tongsuo\n'
	result "our client (-nocompat) -> Tongsuo s_server -no_middlebox" $? "$(grep '^conn' "$work/$name.client.log" | cut -c1-60)"
	finish_server

	# s_client with one group against our server (default groups), every
	# suite, with and without client authentication, then resumption.
	for group in curveSM2 curveSM2MLKEM768; do
		for suite in TLS_SM4_GCM_SM3 TLS_SM4_CCM_SM3; do
			for auth in none client; do
				name="tongsuo-client-$group-$suite-auth=$auth"
				sflags="" cflags=""
				[ $auth = client ] && sflags="-verify" && cflags="-cert $pki/client_sign.pem -key $pki/client_sign.key"
				cap=""
				[ $group = curveSM2MLKEM768 ] && [ $suite = TLS_SM4_CCM_SM3 ] && [ $auth = client ] && cap=$(capture tongsuo-client-hybrid)
				ours_server "$name" -n 2 $sflags $cap
				ok=0
				for i in 1 2; do
					sess="-sess_out $work/$name.sess"
					[ $i = 2 ] && sess="-sess_in $work/$name.sess"
					(echo "hello ours $i"; sleep 1) | timeout 20 "$T" s_client -connect "127.0.0.1:$port" -tls1_3 -groups $group \
						-sigalgs sm2sig_sm3 -ciphersuites $suite -CAfile "$pki/ca.pem" -servername localhost \
						-verify_hostname localhost -verify_return_error $sess $cflags >"$work/$name.client$i.log" 2>&1 || ok=1
					grep -q "shangmi: hello ours $i" "$work/$name.client$i.log" || ok=1
				done
				finish_server
				grep -q '^Reused, TLSv1.3' "$work/$name.client2.log" || ok=1
				[ "$(grep -c "group=$group alpn" "$work/$name.server.log")" = 2 ] || ok=1
				[ $auth = client ] && { grep -q 'peer "shangmi interop client" (verified)' "$work/$name.server.log" || ok=1; }
				result "s_client -groups $group -> our server, $suite, client auth: $auth, resumption" $ok \
					"$(grep -c 'resumed=true' "$work/$name.server.log") resumed"
			done
		done
	done

	# s_client's default key shares (X25519MLKEM768, X25519) need a
	# HelloRetryRequest, to curveSM2MLKEM768 (which its default groups
	# list); then KeyUpdate both ways ("k", "K").
	name=tongsuo-client-hrr-keyupdate
	ours_server $name -n 1 $(capture tongsuo-client)
	(echo 'before'; sleep 0.5; echo k; sleep 0.5; echo 'after k'; sleep 0.5; echo K; sleep 0.5; echo 'after K'; sleep 1) |
		timeout 20 "$T" s_client -connect "127.0.0.1:$port" -tls1_3 -ciphersuites TLS_SM4_CCM_SM3 -CAfile "$pki/ca.pem" \
			-servername localhost -verify_return_error >"$work/$name.client.log" 2>&1
	finish_server
	ok=0
	for l in 'shangmi: before' 'shangmi: after k' 'shangmi: after K'; do grep -q "$l" "$work/$name.client.log" || ok=1; done
	grep -q 'KEYUPDATE' "$work/$name.client.log" || ok=1
	result "Tongsuo s_client (default groups) -> our server: HRR, KeyUpdate k and K" $ok \
		"$(grep -c KEYUPDATE "$work/$name.client.log") KeyUpdates"

	# Our client's KeyUpdates (Conn.SendKeyUpdate), update_requested in
	# every other one, each followed by a line s_server reverses: it must
	# read all six and answer the three requests.
	name=tongsuo-server-keyupdate
	"$T" s_server -accept "127.0.0.1:$port" $sm -ciphersuites TLS_SM4_GCM_SM3 -cert "$pki/server_sign.pem" \
		-key "$pki/server_sign.key" -naccept 1 -rev -msg >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -idle 300ms -keyupdates 6 -send 'hello tongsuo\n'
	rc=$?
	[ "$(grep -c '^keyupdate .*ousgnot olleh' "$work/$name.client.log")" = 6 ] || rc=1
	[ "$(grep -c '<<< .*KeyUpdate' "$work/$name.server.log")" = 6 ] || rc=1
	[ "$(grep -c '>>> .*KeyUpdate' "$work/$name.server.log")" = 3 ] || rc=1
	result "our client -keyupdates 6 -> Tongsuo s_server: read, 3 requests answered" $rc \
		"$(grep -c '<<< .*KeyUpdate' "$work/$name.server.log") received, $(grep -c '>>> .*KeyUpdate' "$work/$name.server.log") answered"
	finish_server

	# Tongsuo's default groups put curveSM2MLKEM768 in its first tuple:
	# our default shares need no HelloRetryRequest.
	name=tongsuo-server-hybrid-defaultgroups
	"$T" s_server -accept "127.0.0.1:$port" -tls1_3 -sigalgs sm2sig_sm3 -ciphersuites TLS_SM4_GCM_SM3 -cert "$pki/server_sign.pem" \
		-key "$pki/server_sign.key" -naccept 1 -rev -msg >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -send 'hello tongsuo\n'
	rc=$?
	grep -q 'group=curveSM2MLKEM768' "$work/$name.client.log" || rc=1
	[ "$(grep -c 'ServerHello' "$work/$name.server.log")" = 1 ] || rc=1
	result "our client -> s_server (its default groups): hybrid, no HRR" $rc "$(grep '^conn' "$work/$name.client.log" | cut -c1-70)"
	finish_server

	# HelloRetryRequest to the hybrid: our client lists it second and
	# sends a curveSM2 share only; then resumption after the HRR.
	name=tongsuo-server-hybrid-hrr
	"$T" s_server -accept "127.0.0.1:$port" $hyb -ciphersuites TLS_SM4_GCM_SM3 -cert "$pki/server_sign.pem" \
		-key "$pki/server_sign.key" -naccept 2 -rev >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -groups curveSM2:curveSM2MLKEM768 -n 2 -want-resume -pause 500ms -send 'hello tongsuo\n' -trace
	rc=$?
	[ "$(grep -c 'group=curveSM2MLKEM768' "$work/$name.client.log")" = 2 ] || rc=1
	[ "$(grep -c 'HelloRetryRequest' "$work/$name.client.log")" -ge 2 ] || rc=1
	result "our client (-groups curveSM2:curveSM2MLKEM768) -> s_server hybrid only: HRR, resumption" $rc \
		"$(grep -c 'HelloRetryRequest' "$work/$name.client.log") HRRs, $(grep -c 'resumed=true' "$work/$name.client.log") resumed"
	finish_server

	# HelloRetryRequest to the hybrid from our server: s_client lists it
	# second and sends a curveSM2 share only; and s_client's default
	# shares (X25519MLKEM768, X25519), which list curveSM2MLKEM768.
	# The curveSM2-first client resumes too, with a HelloRetryRequest again.
	for g in curveSM2:curveSM2MLKEM768 default; do
		name="tongsuo-client-hybrid-hrr-$g"
		gflags="-groups $g"
		[ $g = default ] && gflags=""
		n=1
		[ $g = default ] || n=2
		ours_server "$name" -n $n
		(echo 'hello ours'; sleep 1) | timeout 20 "$T" s_client -connect "127.0.0.1:$port" -tls1_3 $gflags \
			-ciphersuites TLS_SM4_GCM_SM3 -CAfile "$pki/ca.pem" -servername localhost -verify_return_error -msg \
			-sess_out "$work/$name.sess" >"$work/$name.client.log" 2>&1
		ok=0
		if [ $n = 2 ]; then
			(echo 'hello again'; sleep 1) | timeout 20 "$T" s_client -connect "127.0.0.1:$port" -tls1_3 $gflags \
				-ciphersuites TLS_SM4_GCM_SM3 -CAfile "$pki/ca.pem" -servername localhost -verify_return_error -msg \
				-sess_in "$work/$name.sess" >"$work/$name.client2.log" 2>&1
			grep -q '^Reused, TLSv1.3' "$work/$name.client2.log" || ok=1
			grep -q 'shangmi: hello again' "$work/$name.client2.log" || ok=1
			[ "$(grep -c '<<< TLS 1.3, Handshake .*ServerHello' "$work/$name.client2.log")" = 2 ] || ok=1
			grep -q 'resumed=true group=curveSM2MLKEM768' "$work/$name.server.log" || ok=1
		fi
		finish_server
		grep -q 'shangmi: hello ours' "$work/$name.client.log" || ok=1
		grep -q 'Negotiated TLS1.3 group: curveSM2MLKEM768' "$work/$name.client.log" || ok=1
		[ "$(grep -c '<<< TLS 1.3, Handshake .*ServerHello' "$work/$name.client.log")" = 2 ] || ok=1
		what="HRR to curveSM2MLKEM768"
		[ $n = 2 ] && what="$what, then resumption with HRR"
		result "s_client ($g groups) -> our server: $what" $ok "$(grep -c 'group=curveSM2MLKEM768' "$work/$name.server.log") on the hybrid, $(grep -c 'resumed=true' "$work/$name.server.log") resumed"
	done

	# Our server with curveSM2 alone, s_client preferring the hybrid:
	# HelloRetryRequest to curveSM2.
	name=tongsuo-client-hrr-to-curveSM2
	ours_server "$name" -n 1 -groups curveSM2
	(echo 'hello ours'; sleep 1) | timeout 20 "$T" s_client -connect "127.0.0.1:$port" -tls1_3 -groups curveSM2MLKEM768:curveSM2 \
		-ciphersuites TLS_SM4_GCM_SM3 -CAfile "$pki/ca.pem" -servername localhost -verify_return_error -msg \
		>"$work/$name.client.log" 2>&1
	finish_server
	ok=0
	grep -q 'shangmi: hello ours' "$work/$name.client.log" || ok=1
	# For an ECDH group s_client prints the key, not the group's name.
	grep -q 'Peer Temp Key: ECDH, SM2, 256 bits' "$work/$name.client.log" || ok=1
	[ "$(grep -c '<<< TLS 1.3, Handshake .*ServerHello' "$work/$name.client.log")" = 2 ] || ok=1
	grep -q 'group=curveSM2 ' "$work/$name.server.log" || ok=1
	result "s_client -groups curveSM2MLKEM768:curveSM2 -> our server -groups curveSM2: HRR" $ok "$(grep '^conn' "$work/$name.server.log" | cut -c1-70)"

	# Our client offering TLCP and TLS 1.3 in one hello, to Tongsuo with
	# -enable_ntls: Tongsuo chooses by the record version, TLCP.
	name=tongsuo-ntls-combined
	"$T" s_server -accept "127.0.0.1:$port" -enable_ntls -sign_cert "$pki/server_sign.pem" -sign_key "$pki/server_sign.key" \
		-enc_cert "$pki/server_enc.pem" -enc_key "$pki/server_enc.key" -cert "$pki/server_sign.pem" -key "$pki/server_sign.key" \
		-naccept 1 -rev >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -versions both -suites TLS_SM4_GCM_SM3,ECC_SM4_GCM_SM3,ECC_SM4_CBC_SM3 -send 'hello ntls\n'
	rc=$?
	grep -q "conn 1: TLCP ECC_SM4_" "$work/$name.client.log" || rc=1
	result "our client (TLCP + TLS 1.3 hello) -> Tongsuo s_server -enable_ntls" $rc "$(grep '^conn' "$work/$name.client.log" | cut -c1-40)"
	finish_server
fi

# ---------------------------------------------------------------- GmSSL

if [ -n "${SHANGMI_GMSSL:-}" ]; then
	G=$SHANGMI_GMSSL
	export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$(libdirs "$G")}
	echo "== GmSSL: $("$G" version 2>/dev/null | head -1)"
	gsm="-supported_group sm2p256v1 -sig_alg sm2sig_sm3"
	gkey="-cert $pki/server_sign.pem -key $pki/server_sign.gmssl.key -pass interop"
	ticket_key=000102030405060708090a0b0c0d0e0f

	# Our client against tls13_server (it serves one connection).
	for suite in TLS_SM4_GCM_SM3 TLS_SM4_CCM_SM3; do
		name="gmssl-server-$suite"
		timeout 20 "$G" tls13_server -port $port $gkey -cipher_suite $suite $gsm >"$work/$name.server.log" 2>&1 &
		server_pid=$!
		wait_port $port
		ours_client $name -send 'hello gmssl\n' $([ $suite = TLS_SM4_CCM_SM3 ] && capture gmssl-server)
		rc=$?
		grep -q 'hello gmssl' "$work/$name.server.log" || rc=1
		result "our client -> GmSSL tls13_server, $suite" $rc "$(grep '^conn' "$work/$name.client.log" | cut -c1-60)"
		finish_server
	done

	# Client authentication: GmSSL's server reads our compatibility
	# ChangeCipherSpec as the client Certificate, so -nocompat is needed
	# (TLS13NoMiddleboxCompat).
	for compat in default nocompat; do
		name="gmssl-server-auth-$compat"
		timeout 20 "$G" tls13_server -port $port $gkey -cipher_suite TLS_SM4_GCM_SM3 $gsm -cert_request \
			-cacert "$pki/ca.pem" >"$work/$name.server.log" 2>&1 &
		server_pid=$!
		wait_port $port
		flags=""
		[ $compat = nocompat ] && flags=-nocompat
		ours_client $name -send 'hello gmssl\n' -cert "$pki/client_sign.pem" -key "$pki/client_sign.key" $flags
		rc=$?
		grep -q 'hello gmssl' "$work/$name.server.log" || rc=1
		if [ $compat = default ]; then
			known "our client ($compat) -> GmSSL tls13_server -cert_request" $rc \
				"GmSSL takes the compatibility ChangeCipherSpec for the client Certificate"
		else
			result "our client (-nocompat) -> GmSSL tls13_server -cert_request" $rc "$(grep -E '^conn' "$work/$name.client.log" | cut -c1-70)"
		fi
		finish_server
	done

	# Resumption: two server runs with one ticket key.
	name=gmssl-server-resume
	(for _ in 1 2; do timeout 20 "$G" tls13_server -port $port $gkey -cipher_suite TLS_SM4_GCM_SM3 $gsm \
		-new_session_ticket 1 -ticket_key $ticket_key -psk_dhe_ke; done) >"$work/$name.server.log" 2>&1 &
	server_pid=$!
	wait_port $port
	ours_client $name -n 2 -pause 1s -want-resume -send 'hello gmssl\n'
	result "our client -> GmSSL tls13_server -new_session_ticket 1, resumption" $? \
		"$(grep -c 'resumed=true' "$work/$name.client.log") resumed"
	finish_server

	# tls13_client against our server.
	for suite in TLS_SM4_GCM_SM3 TLS_SM4_CCM_SM3; do
		for auth in none client; do
			name="gmssl-client-$suite-auth=$auth"
			sflags="-notickets" cflags=""
			[ $auth = client ] && sflags="$sflags -verify" &&
				cflags="-cert $pki/client_sign.pem -key $pki/client_sign.gmssl.key -pass interop"
			cap=""
			[ $suite = TLS_SM4_GCM_SM3 ] && [ $auth = client ] && cap=$(capture gmssl-client)
			ours_server $name -n 1 $sflags $cap
			timeout 20 "$G" tls13_client -host 127.0.0.1 -port $port -server_name localhost -cacert "$pki/ca.pem" \
				-cipher_suite $suite $gsm $cflags -in "$work/in.txt" >"$work/$name.client.log" 2>&1
			finish_server
			ok=0
			grep -q 'shangmi: hello from the peer' "$work/$name.client.log" || ok=1
			grep -q '^conn 1: TLS 1.3' "$work/$name.server.log" || ok=1
			[ $auth = client ] && { grep -q '(verified)' "$work/$name.server.log" || ok=1; }
			result "GmSSL tls13_client -> our server, $suite, client auth: $auth" $ok \
				"$(grep '^conn' "$work/$name.server.log" | cut -c1-60)"
		done
	done

	# HelloRetryRequest: the client's first key share is for secp256r1.
	name=gmssl-client-hrr
	ours_server $name -n 1 -notickets
	timeout 20 "$G" tls13_client -host 127.0.0.1 -port $port -server_name localhost -cacert "$pki/ca.pem" \
		-cipher_suite TLS_SM4_GCM_SM3 -supported_group prime256v1 -supported_group sm2p256v1 -max_key_exchanges 1 \
		-sig_alg sm2sig_sm3 -in "$work/in.txt" >"$work/$name.client.log" 2>&1
	finish_server
	grep -q 'shangmi: hello from the peer' "$work/$name.client.log"
	result "GmSSL tls13_client (P-256 share first) -> our server: HRR" $? "$(grep '^conn' "$work/$name.server.log" | cut -c1-60)"

	# Resumption, then early data on the resumed session, which we refuse.
	# GmSSL sends it although our tickets allow none, and after the refusal
	# it goes on protecting its records with its early key (the same
	# against Tongsuo), so that handshake cannot finish.
	name=gmssl-client-resume
	ours_server $name -n 3
	timeout 20 "$G" tls13_client -host 127.0.0.1 -port $port -server_name localhost -cacert "$pki/ca.pem" \
		-cipher_suite TLS_SM4_GCM_SM3 $gsm -psk_dhe_ke -sess_out "$work/$name.sess" -in "$work/in.txt" \
		>"$work/$name.client1.log" 2>&1
	timeout 20 "$G" tls13_client -host 127.0.0.1 -port $port -server_name localhost -cacert "$pki/ca.pem" \
		-cipher_suite TLS_SM4_GCM_SM3 $gsm -psk_dhe_ke -sess_in "$work/$name.sess" -in "$work/in.txt" \
		>"$work/$name.client2.log" 2>&1
	timeout 20 "$G" tls13_client -host 127.0.0.1 -port $port -server_name localhost -cacert "$pki/ca.pem" \
		-cipher_suite TLS_SM4_GCM_SM3 $gsm -psk_dhe_ke -sess_in "$work/$name.sess" -early_data "$work/in.txt" \
		-in "$work/in.txt" >"$work/$name.client3.log" 2>&1
	finish_server
	ok=0
	grep -q '^conn 2: TLS 1.3 TLS_SM4_GCM_SM3 resumed=true' "$work/$name.server.log" || ok=1
	result "GmSSL tls13_client -psk_dhe_ke -> our server: resumption" $ok "$(grep -c 'resumed=true' "$work/$name.server.log") resumed"
	grep -q '^conn 3: TLS 1.3' "$work/$name.server.log"
	known "GmSSL tls13_client -early_data -> our server: 0-RTT refused" $? \
		"GmSSL keeps its early key after the refusal: $(grep '^conn 3' "$work/$name.server.log" | cut -c1-50)"

	# KeyUpdate every 2 records from GmSSL's client.
	name=gmssl-client-keyupdate
	ours_server $name -n 1 -notickets
	printf 'one\ntwo\nthree\nfour\nfive\n' >"$work/lines.txt"
	timeout 20 "$G" tls13_client -host 127.0.0.1 -port $port -server_name localhost -cacert "$pki/ca.pem" \
		-cipher_suite TLS_SM4_GCM_SM3 $gsm -key_update_seq_num 2 -in "$work/lines.txt" >"$work/$name.client.log" 2>&1
	finish_server
	grep -q 'shangmi: five' "$work/$name.client.log"
	result "GmSSL tls13_client -key_update_seq_num 2 -> our server" $? "$(grep '^conn' "$work/$name.server.log" | cut -c1-60)"
fi

[ -n "${KEEP:-}" ] && echo "work directory: $work"
echo "$failed cell(s) failed"
exit $failed
