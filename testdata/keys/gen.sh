#!/usr/bin/env bash
# Regenerates the key-format fixtures in testdata/keys/ with the openssl 3.x
# CLI:   bash testdata/keys/gen.sh
#
# Every file except the ones marked "own key" holds the key of sm2.pem in
# another form, so tests compare each against sm2.pem and never depend on
# particular key bytes. The password of every encrypted file is in PASSWORD.
# GmSSL- and Tongsuo-only forms (HMAC-SM3 PBKDF2, GmSSL's two-key and chain
# files) cannot be written by OpenSSL 3.0; the x509 and tlcp tests build
# them in Go following those tools' layouts.
set -euo pipefail
cd "$(dirname "$0")"

PASSWORD=shangmi-test
pass=(-passout "pass:$PASSWORD")

rm -f ./*.pem
openssl genpkey -algorithm SM2 -out sm2.pem 2>/dev/null

# SEC 1, as `openssl ec` writes SM2 keys (label SM2 PRIVATE KEY).
openssl ec -in sm2.pem -out sec1_sm2.pem 2>/dev/null
openssl ec -in sm2.pem -no_public -out sec1_sm2_nopub.pem 2>/dev/null
openssl ec -in sm2.pem -param_enc explicit -out sec1_sm2_explicit.pem 2>/dev/null
openssl ec -in sm2.pem -param_enc explicit -conv_form compressed \
	-out sec1_sm2_explicit_compressed.pem 2>/dev/null
# PKCS #8 of the explicit-parameter key.
openssl pkey -in sec1_sm2_explicit.pem -out pkcs8_sm2_explicit.pem
# A parameters block before the key, as `openssl ec -param_out` and
# `openssl ecparam -genkey` lay them out.
{ openssl ec -in sm2.pem -param_out 2>/dev/null; cat sec1_sm2.pem; } >sec1_sm2_with_params.pem
# The same SEC 1 key under the label EC PRIVATE KEY: GmSSL 3's
# sm2_private_key_to_pem form (curve OID and public key present).
sed 's/SM2 PRIVATE KEY/EC PRIVATE KEY/' sec1_sm2.pem >sec1_ec_label.pem

# Own keys: P-256 from ecparam (EC PARAMETERS + EC PRIVATE KEY), RSA PKCS #1.
openssl ecparam -name prime256v1 -genkey -out p256_ecparam.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null |
	openssl rsa -traditional -out rsa_pkcs1.pem 2>/dev/null

# Legacy PEM encryption (Proc-Type: 4,ENCRYPTED / DEK-Info).
for c in sm4 aes128 aes192 aes256 des3; do
	openssl ec -in sm2.pem "-$c" "${pass[@]}" -out "legacy_$c.pem" 2>/dev/null
done
openssl rsa -in rsa_pkcs1.pem -traditional -aes256 "${pass[@]}" -out legacy_rsa_aes256.pem 2>/dev/null
openssl ec -in p256_ecparam.pem -aes128 "${pass[@]}" -out legacy_p256_aes128.pem 2>/dev/null

# PBES2 PKCS #8 with every PRF and CBC cipher `openssl pkcs8 -v2` offers.
for prf in hmacWithSHA1 hmacWithSHA224 hmacWithSHA256 hmacWithSHA384 hmacWithSHA512 \
	hmacWithSHA512-224 hmacWithSHA512-256 hmacWithMD5; do
	for c in aes-128-cbc aes-192-cbc aes-256-cbc sm4-cbc des-ede3-cbc; do
		openssl pkcs8 -topk8 -in sm2.pem -v2 "$c" -v2prf "$prf" "${pass[@]}" \
			-out "pbes2_${prf}_$c.pem"
	done
done
# PBES2 with scrypt (openssl's default N=16384, r=8, p=1).
openssl pkcs8 -topk8 -in sm2.pem -scrypt "${pass[@]}" -out pbes2_scrypt_aes-256-cbc.pem
openssl pkcs8 -topk8 -in sm2.pem -scrypt -v2 sm4-cbc "${pass[@]}" -out pbes2_scrypt_sm4-cbc.pem
# PBES1 / PKCS #12 schemes: refused by the parser, with their names.
openssl pkcs8 -topk8 -in sm2.pem -v1 PBE-SHA1-3DES "${pass[@]}" -out pbes1_sha1_3des.pem

ls | grep -c '\.pem$' | sed 's/$/ files written/'
