#!/usr/bin/env bash
# Copyright 2026 The shangmi Authors. All rights reserved.
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file.

# Manual interoperability runs of package smx509/pkcs7 (through smtool cms)
# against GmSSL 3 (cmssign, cmsverify, cmsencrypt, cmsdecrypt, and its
# library through gmsslcms/gmsslcms.c for SignedAndEnvelopedData and
# EncryptedData, which needs a C compiler) and Tongsuo (cms), every message
# type each has, both directions. Not part of CI:
# it needs the peers' binaries, which this script only runs:
#
#   SHANGMI_TONGSUO=/path/to/tongsuo/bin/tongsuo \
#   SHANGMI_GMSSL=/path/to/gmssl/bin/gmssl \
#   bash examples/interop/cms.sh
#
# Either variable may be left unset to skip that peer; their libraries are
# looked up beside the binary as tls13.sh does. KEEP=1 keeps the work
# directory. Every cell prints PASS, FAIL, or XFAIL for a combination the
# peer cannot do (with the reason); the exit status is the number of FAILs.
# The PKI is the repository's testdata/tlcp; GmSSL reads only encrypted
# keys, so they are re-encrypted for it (password "interop").

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pki=$root/testdata/tlcp
work=$(mktemp -d)
failed=0
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

smtool=$work/smtool
(cd "$root" && go build -o "$smtool" ./examples/smtool) || exit 1
printf 'hello from the cms interop run\n' >"$work/in.txt"
head -c 100000 /dev/urandom >"$work/big.bin"

result() {
	if [ "$2" = 0 ]; then
		printf 'PASS  %-66s %s\n' "$1" "$3"
	else
		printf 'FAIL  %-66s %s\n' "$1" "$3"
		failed=$((failed + 1))
	fi
}

# known NAME OK WHY: a combination the peer does not support.
known() {
	if [ "$2" = 0 ]; then
		printf 'XPASS %-66s %s\n' "$1" "worked although: $3"
	else
		printf 'XFAIL %-66s %s\n' "$1" "$3"
	fi
}

# same FILE: the output equals the input.
same() { cmp -s "$work/in.txt" "$1"; }

libdirs() {
	local r
	r=$(dirname "$(dirname "$1")")
	echo "$r/lib:$r/lib64"
}

S() { "$smtool" cms "$@" 2>>"$work/smtool.log"; }

if [ -n "${SHANGMI_GMSSL:-}" ]; then
	gmssl_libs=${LD_LIBRARY_PATH:-$(libdirs "$SHANGMI_GMSSL")}
	gm() { LD_LIBRARY_PATH=$gmssl_libs "$SHANGMI_GMSSL" "$@"; }
	G=gm
	for k in server_sign server_enc client_enc; do
		"$smtool" key convert -in "$pki/$k.key" -passout pass:interop -pbe gmssl -out "$work/gm_$k.key" || exit 1
	done
	w=$work/gmssl
	mkdir -p "$w"

	# SignedData
	"$G" cmssign -key "$work/gm_server_sign.key" -pass interop -cert "$pki/server_sign.pem" -in "$work/in.txt" -out "$w/theirs.sig" 2>"$w/e1" &&
		S verify -in "$w/theirs.sig" -CAfile "$pki/ca.pem" -out "$w/out1" && same "$w/out1"
	result "GmSSL cmssign -> smtool cms verify" $? "GM/T 0010, no attributes, GmSSL's no-Z digest"
	S sign -gmssl -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/ours.sig" &&
		"$G" cmsverify -in "$w/ours.sig" -out "$w/out2" >"$w/o2" 2>&1 && same "$w/out2"
	result "smtool cms sign -gmssl -> GmSSL cmsverify" $? "GmSSL's form"
	S sign -nodetach -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/ours_std.sig" &&
		"$G" cmsverify -in "$w/ours_std.sig" >"$w/o3" 2>&1
	known "smtool cms sign (GB/T 35275 form) -> GmSSL cmsverify" $? "GmSSL signs and checks SM3(ContentInfo) without Z or attributes"

	# EnvelopedData
	"$G" cmsencrypt -rcptcert "$pki/server_enc.pem" -rcptcert "$pki/client_enc.pem" -in "$work/in.txt" -out "$w/theirs.env" 2>"$w/e4" &&
		S decrypt -in "$w/theirs.env" -recip "$pki/client_enc.pem" -inkey "$pki/client_enc.key" -out "$w/out4" && same "$w/out4"
	result "GmSSL cmsencrypt (2 recipients) -> smtool cms decrypt" $? "SM4-CBC, sm2encrypt 1.2.156.10197.1.301.2"
	S encrypt -gmssl -in "$work/in.txt" -recip "$pki/server_enc.pem" -recip "$pki/client_enc.pem" -out "$w/ours.env" &&
		"$G" cmsdecrypt -key "$work/gm_server_enc.key" -pass interop -cert "$pki/server_enc.pem" -in "$w/ours.env" -out "$w/out5" 2>"$w/e5" && same "$w/out5"
	result "smtool cms encrypt -gmssl (2 recipients) -> GmSSL cmsdecrypt" $? "SM4-CBC"
	S encrypt -in "$work/in.txt" -recip "$pki/server_enc.pem" -out "$w/ours_std.env" &&
		"$G" cmsdecrypt -key "$work/gm_server_enc.key" -pass interop -cert "$pki/server_enc.pem" -in "$w/ours_std.env" -out "$w/out6" 2>"$w/e6"
	known "smtool cms encrypt (sm2-3 1.2.156.10197.1.301.3) -> GmSSL cmsdecrypt" $? "GmSSL requires its 1.2.156.10197.1.301.2"
	S encrypt -gmssl -sm4-gcm -in "$work/in.txt" -recip "$pki/server_enc.pem" -out "$w/ours_gcm.env" &&
		"$G" cmsdecrypt -key "$work/gm_server_enc.key" -pass interop -cert "$pki/server_enc.pem" -in "$w/ours_gcm.env" -out "$w/out7" 2>"$w/e7"
	known "smtool cms encrypt -gmssl -sm4-gcm -> GmSSL cmsdecrypt" $? "GmSSL's CMS reads SM4-CBC only"
	S encrypt -gmssl -in "$work/in.txt" -recip "$pki/server_enc.pem" -family pkcs7 -out "$w/ours_p7.env" &&
		"$G" cmsdecrypt -key "$work/gm_server_enc.key" -pass interop -cert "$pki/server_enc.pem" -in "$w/ours_p7.env" -out "$w/out8" 2>"$w/e8"
	known "smtool cms encrypt -family pkcs7 -> GmSSL cmsdecrypt" $? "GmSSL reads GM/T 0010 content types only"
	# SignedAndEnvelopedData and EncryptedData: GmSSL's command line has
	# neither, its library has both; gmsslcms.c calls it. The -D options
	# are GmSSL's default build options, which change X509_KEY's layout.
	groot=$(dirname "$(dirname "$SHANGMI_GMSSL")")
	helper=$w/gmsslcms
	if cc -O1 -DENABLE_SM9 -DENABLE_SECP256R1 -DENABLE_SECP384R1 -DENABLE_LMS -DENABLE_XMSS -DENABLE_SPHINCS -DENABLE_KYBER \
		-o "$helper" "$here/gmsslcms/gmsslcms.c" -I"$groot/include" -L"$groot/lib" -lgmssl -Wl,-rpath,"$groot/lib" 2>"$w/cc.log"; then
		H() { LD_LIBRARY_PATH=$gmssl_libs "$helper" "$@" 2>>"$w/helper.log"; }
		H seal "$pki/server_sign.pem" "$work/gm_server_sign.key" interop "$pki/server_enc.pem" "$work/in.txt" "$w/theirs.sed" &&
			S decrypt -in "$w/theirs.sed" -inkey "$pki/server_enc.key" -CAfile "$pki/ca.pem" -out "$w/out9" && same "$w/out9"
		result "GmSSL cms_sign_and_envelop -> smtool cms decrypt" $? "SignedAndEnvelopedData, verified"
		S encrypt -gmssl -in "$work/in.txt" -recip "$pki/server_enc.pem" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/ours.sed" &&
			H open "$pki/server_enc.pem" "$work/gm_server_enc.key" interop "$w/ours.sed" "$w/out10" && same "$w/out10"
		result "smtool cms encrypt -gmssl -signer -> GmSSL decipher+verify" $? "SignedAndEnvelopedData (GmSSL's cms_deenvelop_and_verify refuses all input)"
		S encrypt -in "$work/in.txt" -recip "$pki/server_enc.pem" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/ours_std.sed"
		H open "$pki/server_enc.pem" "$work/gm_server_enc.key" interop "$w/ours_std.sed" "$w/out11"
		known "smtool cms encrypt -signer (GB/T 35275 form) -> GmSSL decipher+verify" $? "GmSSL wants its sm2encrypt OID and no-Z signature"
		key=000102030405060708090a0b0c0d0e0f
		H encrypt $key "$work/in.txt" "$w/theirs.enc" &&
			S decrypt -in "$w/theirs.enc" -secretkey $key -out "$w/out12" && same "$w/out12"
		result "GmSSL cms_encrypt -> smtool cms decrypt -secretkey" $? "EncryptedData"
		S encrypt -secretkey $key -in "$work/in.txt" -out "$w/ours.enc" &&
			H decrypt $key "$w/ours.enc" "$w/out13" && same "$w/out13"
		result "smtool cms encrypt -secretkey -> GmSSL cms_decrypt" $? "EncryptedData"
	else
		echo "SKIP  GmSSL library cells: cannot build gmsslcms.c (see $w/cc.log)"
	fi
	echo "----  GmSSL has no DigestedData"
else
	echo "SKIP  GmSSL: SHANGMI_GMSSL not set"
fi

if [ -n "${SHANGMI_TONGSUO:-}" ]; then
	tongsuo_libs=${LD_LIBRARY_PATH:-$(libdirs "$SHANGMI_TONGSUO")}
	ts() { LD_LIBRARY_PATH=$tongsuo_libs "$SHANGMI_TONGSUO" "$@"; }
	T=ts
	w=$work/tongsuo
	mkdir -p "$w"
	TV() { "$T" cms -verify -purpose any -CAfile "$pki/ca.pem" "$@" >"$w/tv.log" 2>&1; }

	# SignedData, theirs by us
	"$T" cms -sign -md sm3 -nodetach -binary -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -in "$work/in.txt" -outform PEM -out "$w/t1" 2>/dev/null &&
		S verify -in "$w/t1" -CAfile "$pki/ca.pem" -out "$w/o1" && same "$w/o1"
	result "Tongsuo cms -sign -md sm3 -nodetach -> smtool cms verify" $? "signed attributes"
	"$T" cms -sign -md sm3 -binary -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -in "$work/big.bin" -outform DER -out "$w/t2" 2>/dev/null &&
		S verify -in "$w/t2" -content "$work/big.bin" -CAfile "$pki/ca.pem"
	result "Tongsuo cms -sign (detached, DER) -> smtool cms verify -content" $? "100 kB"
	"$T" cms -sign -md sm3 -nodetach -binary -noattr -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -in "$work/in.txt" -outform PEM -out "$w/t3" 2>/dev/null &&
		S verify -in "$w/t3" -CAfile "$pki/ca.pem" -out "$w/o3" && same "$w/o3"
	result "Tongsuo cms -sign -noattr -> smtool cms verify" $? "no Z"
	"$T" cms -sign -md sm3 -nodetach -binary -keyid -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -signer "$pki/client_sign.pem" -inkey "$pki/client_sign.key" -in "$work/in.txt" -outform PEM -out "$w/t4" 2>/dev/null &&
		S verify -in "$w/t4" -CAfile "$pki/ca.pem" -out "$w/o4" && same "$w/o4"
	result "Tongsuo cms -sign -keyid (2 signers) -> smtool cms verify" $? "subject key identifiers"
	"$T" cms -sign -md sm3 -nodetach -binary -stream -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -in "$work/in.txt" -outform DER -out "$w/t5" 2>/dev/null &&
		S verify -in "$w/t5" -CAfile "$pki/ca.pem" -out "$w/o5" && same "$w/o5"
	result "Tongsuo cms -sign -stream (BER) -> smtool cms verify" $? "indefinite lengths"

	# SignedData, ours by them
	S sign -family pkcs7 -nodetach -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/s1" &&
		TV -in "$w/s1" -inform PEM -out "$w/so1" && same "$w/so1"
	result "smtool cms sign -family pkcs7 -nodetach -> Tongsuo cms -verify" $? "signed attributes"
	S sign -family pkcs7 -outform DER -in "$work/big.bin" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/s2" &&
		TV -in "$w/s2" -inform DER -binary -content "$work/big.bin"
	result "smtool cms sign -family pkcs7 (detached, DER) -> Tongsuo cms -verify" $? "100 kB, streamed"
	S sign -family pkcs7 -nodetach -sm2-1 -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/s21" &&
		TV -in "$w/s21" -inform PEM -out "$w/so21" && same "$w/so21"
	result "smtool cms sign -family pkcs7 -sm2-1 -> Tongsuo cms -verify" $? "signature algorithm sm2-1 (gmsm's, CFCA's)"
	S sign -family pkcs7 -nodetach -noattr -noZ -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/s3" &&
		TV -in "$w/s3" -inform PEM -out "$w/so3" && same "$w/so3"
	result "smtool cms sign -family pkcs7 -noattr -noZ -> Tongsuo cms -verify" $? "OpenSSL's no-Z form"
	S sign -family pkcs7 -nodetach -noattr -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/s3z"
	TV -in "$w/s3z" -inform PEM
	known "smtool cms sign -family pkcs7 -noattr (with Z) -> Tongsuo cms -verify" $? "Tongsuo hashes the content without Z when there are no attributes"
	S sign -family pkcs7 -nodetach -keyid -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -signer "$pki/client_sign.pem" -inkey "$pki/client_sign.key" -out "$w/s4" &&
		TV -in "$w/s4" -inform PEM -out "$w/so4" && same "$w/so4"
	result "smtool cms sign -family pkcs7 -keyid (2 signers) -> Tongsuo cms -verify" $? "subject key identifiers"
	S sign -nodetach -in "$work/in.txt" -signer "$pki/server_sign.pem" -inkey "$pki/server_sign.key" -out "$w/s5"
	TV -in "$w/s5" -inform PEM
	known "smtool cms sign (GM/T 0010 family) -> Tongsuo cms -verify" $? "Tongsuo reads PKCS #7 content types only"

	# EnvelopedData
	"$T" cms -encrypt -sm4-cbc -binary -in "$work/in.txt" -outform PEM -out "$w/t6" "$pki/server_enc.pem" >/dev/null 2>&1 &&
		S decrypt -in "$w/t6" -inkey "$pki/server_enc.key" -out "$w/o6" && same "$w/o6"
	known "Tongsuo cms -encrypt -sm4-cbc -> smtool cms decrypt" $? "Tongsuo's CMS has no SM2 key transport: it writes an empty encryptedKey"
	S encrypt -family pkcs7 -in "$work/in.txt" -recip "$pki/server_enc.pem" -recip "$pki/client_enc.pem" -out "$w/s6" &&
		"$T" cms -decrypt -in "$w/s6" -inform PEM -recip "$pki/client_enc.pem" -inkey "$pki/client_enc.key" -out "$w/so6" 2>"$w/e6" && same "$w/so6"
	result "smtool cms encrypt -family pkcs7 (2 recipients) -> Tongsuo cms -decrypt" $? "SM4-CBC, sm2-3"
	S encrypt -family pkcs7 -keyid -in "$work/in.txt" -recip "$pki/server_enc.pem" -out "$w/s7" &&
		"$T" cms -decrypt -in "$w/s7" -inform PEM -recip "$pki/server_enc.pem" -inkey "$pki/server_enc.key" -out "$w/so7" 2>"$w/e7" && same "$w/so7"
	result "smtool cms encrypt -family pkcs7 -keyid -> Tongsuo cms -decrypt" $? "recipient by subject key identifier"
	S encrypt -family pkcs7 -sm4-gcm -in "$work/in.txt" -recip "$pki/server_enc.pem" -out "$w/s8" &&
		"$T" cms -decrypt -in "$w/s8" -inform PEM -recip "$pki/server_enc.pem" -inkey "$pki/server_enc.key" -out "$w/so8" 2>"$w/e8" && same "$w/so8"
	known "smtool cms encrypt -family pkcs7 -sm4-gcm -> Tongsuo cms -decrypt" $? "OpenSSL's CMS reads GCM only in AuthEnvelopedData"

	# EncryptedData
	key=000102030405060708090a0b0c0d0e0f
	"$T" cms -EncryptedData_encrypt -binary -sm4-cbc -secretkey $key -in "$work/in.txt" -outform PEM -out "$w/t9" 2>/dev/null &&
		S decrypt -in "$w/t9" -secretkey $key -out "$w/o9" && same "$w/o9"
	result "Tongsuo cms -EncryptedData_encrypt -sm4-cbc -> smtool cms decrypt" $? "EncryptedData"
	S encrypt -family pkcs7 -secretkey $key -in "$work/in.txt" -out "$w/s9" &&
		"$T" cms -EncryptedData_decrypt -secretkey $key -in "$w/s9" -inform PEM -out "$w/so9" 2>"$w/e9" && same "$w/so9"
	result "smtool cms encrypt -secretkey -> Tongsuo cms -EncryptedData_decrypt" $? "EncryptedData"

	# DigestedData
	"$T" cms -digest_create -md sm3 -binary -in "$work/in.txt" -outform PEM -out "$w/t10" 2>/dev/null &&
		S verify -in "$w/t10" -out "$w/o10" && same "$w/o10"
	result "Tongsuo cms -digest_create -md sm3 -> smtool cms verify" $? "DigestedData"
	S sign -digest_create -family pkcs7 -in "$work/in.txt" -out "$w/s10" &&
		"$T" cms -digest_verify -in "$w/s10" -inform PEM -out "$w/so10" 2>"$w/e10" && same "$w/so10"
	result "smtool cms sign -digest_create -> Tongsuo cms -digest_verify" $? "DigestedData"
	echo "----  Tongsuo's cms has no SignedAndEnvelopedData"
else
	echo "SKIP  Tongsuo: SHANGMI_TONGSUO not set"
fi
exit $failed
