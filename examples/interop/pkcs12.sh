#!/usr/bin/env bash
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

# Manual interoperability runs of package smx509/pkcs12 (through smtool
# pkcs12) against Tongsuo's and OpenSSL's `pkcs12` command, both directions,
# every protection each writes or reads. Not part of CI (CI reads the files
# smx509/pkcs12/testdata/make.sh recorded from the same peers):
#
#   SHANGMI_TONGSUO=/path/to/tongsuo/bin/tongsuo \
#   SHANGMI_OPENSSL=/usr/bin/openssl \
#   SHANGMI_GMSSL=/path/to/gmssl/bin/gmssl \
#   bash examples/interop/pkcs12.sh
#
# Any variable may be left unset to skip that peer; libraries are looked up
# beside the binary as cms.sh does. GmSSL 3 has no PKCS #12 command or
# library code, which the run reports. KEEP=1 keeps the work directory.
# Every cell prints PASS, FAIL, or XFAIL for a combination the peer cannot
# do (with the reason); the exit status is the number of FAILs.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pki=$root/smx509/pkcs12/testdata
work=$(mktemp -d)
failed=0
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

known() {
	if [ "$2" = 0 ]; then
		printf 'XPASS %-78s %s\n' "$1" "worked although: $3"
	else
		printf 'XFAIL %-78s %s\n' "$1" "$3"
	fi
}

libdirs() {
	local r
	r=$(dirname "$(dirname "$1")")
	echo "$r/lib:$r/lib64"
}

P=pass:interop
S() { "$smtool" pkcs12 "$@" 2>>"$work/smtool.log"; }

# ours NAME FLAGS...: smtool writes $work/ours_NAME.p12 (sign pair + CA).
ours() {
	local n=$1
	shift
	S -export -inkey "$pki/sign.key" -in "$pki/sign.pem" -certfile "$pki/ca.pem" -name sign -passout $P "$@" -out "$work/ours_$n.p12"
}
ours sm
ours openssl -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg SHA256 -prf sha256
ours tongsuo_sm -keypbe SM4-CBC -certpbe SM4-CBC -macalg SM3 -prf sha256
ours gmssl_prf -prf sm3-gmssl
ours sha1mac -macalg SHA1 -prf sha256
ours plaincerts -certpbe NONE -prf sha256
ours nomac -nomac -prf sha256
S -export -inkey "$pki/sign.key" -in "$pki/sign.pem" -enc_inkey "$pki/enc.key" -enc_in "$pki/enc.pem" \
	-certfile "$pki/ca.pem" -passout $P -out "$work/ours_tlcp.p12"

# theirs_reads PEER NAME WHAT: the peer reads ours_NAME.p12 and its key is
# sign.key.
theirs_reads() {
	local peer=$1 n=$2
	"$peer" pkcs12 -in "$work/ours_$n.p12" -passin $P -nodes -out "$work/$n.$3.pem" 2>"$work/$n.$3.err" &&
		[ "$("$peer" pkey -in "$work/$n.$3.pem" 2>/dev/null)" = "$("$peer" pkey -in "$pki/sign.key")" ] &&
		[ "$(grep -c 'BEGIN CERTIFICATE' "$work/$n.$3.pem")" = 2 ]
}

# we_read FILE: smtool reads it and finds sign.key and two certificates.
we_read() {
	local out=$work/read.pem
	S -in "$1" -passin $P -out "$out" || return 1
	[ "$(grep -c 'BEGIN CERTIFICATE' "$out")" = "${2:-2}" ] &&
		"$smtool" key convert -in "$out" -out "$work/read.key" 2>>"$work/smtool.log" &&
		cmp -s "$work/read.key" <("$smtool" key convert -in "$pki/sign.key" 2>/dev/null)
}

peer_cells() {
	local label=$1 peer=$2 sm_prf_ok=$3
	# Theirs, read by us.
	"$peer" pkcs12 -export -inkey "$pki/sign.key" -in "$pki/sign.pem" -certfile "$pki/ca.pem" -name sign -passout $P -out "$work/$label.default.p12" 2>/dev/null &&
		we_read "$work/$label.default.p12"
	result "$label pkcs12 -export (default) -> smtool pkcs12" $? "PBES2 AES-256-CBC/HMAC-SHA256, SHA-256 MAC"
	"$peer" pkcs12 -export -inkey "$pki/sign.key" -in "$pki/sign.pem" -certfile "$pki/ca.pem" -name sign -keypbe SM4-CBC -certpbe SM4-CBC -macalg SM3 -passout $P -out "$work/$label.sm.p12" 2>/dev/null &&
		we_read "$work/$label.sm.p12"
	result "$label pkcs12 -export -keypbe SM4-CBC -certpbe SM4-CBC -macalg SM3 -> smtool" $? "SM4-CBC under PBKDF2-HMAC-SHA256, SM3 MAC"
	"$peer" pkcs12 -export -legacy -inkey "$pki/sign.key" -in "$pki/sign.pem" -certfile "$pki/ca.pem" -passout $P -out "$work/$label.legacy.p12" 2>/dev/null &&
		we_read "$work/$label.legacy.p12"
	result "$label pkcs12 -export -legacy -> smtool" $? "$("$peer" pkcs12 -in "$work/$label.legacy.p12" -passin $P -info -noout -legacy 2>&1 | grep -m1 'Encrypted data' | sed 's/PKCS7 //')"
	"$peer" pkcs12 -export -inkey "$pki/sign.key" -in "$pki/sign.pem" -keypbe SM4-CBC -certpbe NONE -nomac -passout $P -out "$work/$label.nomac.p12" 2>/dev/null &&
		we_read "$work/$label.nomac.p12" 1
	result "$label pkcs12 -export -certpbe NONE -nomac -> smtool" $? "plain certificates, no MAC"

	# Ours, read by them.
	for n in openssl tongsuo_sm sha1mac plaincerts nomac; do
		theirs_reads "$peer" $n "$label"
		result "smtool pkcs12 -export ($n) -> $label pkcs12" $? ""
	done
	theirs_reads "$peer" sm "$label"
	if [ "$sm_prf_ok" = yes ]; then
		result "smtool pkcs12 -export (default: SM4-CBC, HMAC-SM3 1.2.156.10197.1.401.3.1, SM3 MAC) -> $label" $? ""
	else
		known "smtool pkcs12 -export (default: SM4-CBC, HMAC-SM3 PRF, SM3 MAC) -> $label" $? "no HMAC-SM3 PBKDF2 PRF"
	fi
	theirs_reads "$peer" gmssl_prf "$label"
	known "smtool pkcs12 -export -prf sm3-gmssl -> $label" $? "GmSSL's HMAC-SM3 identifier 1.2.156.10197.1.401.2 is not a PRF there"
	"$peer" pkcs12 -in "$work/ours_tlcp.p12" -passin $P -nodes -out "$work/tlcp.$label.pem" 2>/dev/null &&
		[ "$(grep -c 'BEGIN PRIVATE KEY' "$work/tlcp.$label.pem")" = 2 ] &&
		grep -q 'friendlyName: enc' "$work/tlcp.$label.pem"
	if [ "$sm_prf_ok" = yes ]; then
		result "smtool pkcs12 -export -enc_inkey -enc_in (TLCP pair) -> $label: both keys" $? "two shrouded keys, friendlyNames sign/enc"
	else
		known "smtool pkcs12 -export -enc_inkey -enc_in (TLCP pair) -> $label" $? "no HMAC-SM3 PBKDF2 PRF"
	fi
}

if [ -n "${SHANGMI_TONGSUO:-}" ]; then
	ts_libs=${LD_LIBRARY_PATH:-$(libdirs "$SHANGMI_TONGSUO")}
	ts() { LD_LIBRARY_PATH=$ts_libs "$SHANGMI_TONGSUO" "$@"; }
	peer_cells Tongsuo ts yes
fi
if [ -n "${SHANGMI_OPENSSL:-}" ]; then
	ossl() { "$SHANGMI_OPENSSL" "$@"; }
	peer_cells OpenSSL ossl no
fi
if [ -n "${SHANGMI_GMSSL:-}" ]; then
	"$SHANGMI_GMSSL" help 2>&1 | grep -qi pkcs12
	known "GmSSL pkcs12, either direction" $? "GmSSL 3 has no PKCS #12 command (nor PFX code in its library)"
fi
echo "$failed failed"
exit "$failed"
