#!/bin/bash
# Regenerates the known-answer messages of this directory with the peers'
# command-line tools, and GmSSL's library where its tools lack a type (see
# README.md). Usage, from this directory:
#   GMSSL=/work/peers/gmssl/bin/gmssl TONGSUO=/work/peers/tongsuo/bin/tongsuo \
#   LD_LIBRARY_PATH=/work/peers/tongsuo/lib64 SMTOOL=smtool bash gen.sh
# SMTOOL is only used to write the PKI keys encrypted, as GmSSL wants them.
set -euo pipefail
: "${GMSSL:?path of the gmssl binary}" "${TONGSUO:?path of the tongsuo binary}" "${SMTOOL:?path of smtool}"
P=../../../testdata/tlcp
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for k in server_sign server_enc client_sign client_enc; do
  "$SMTOOL" key convert -in $P/$k.key -passout pass:1234 -out "$tmp/$k.key"
done
printf 'shangmi CMS known-answer message\n' > message.txt

# GmSSL 3: GM/T 0010 identifiers, no signed attributes.
"$GMSSL" cmssign -key "$tmp/server_sign.key" -pass 1234 -cert $P/server_sign.pem -in message.txt -out gmssl_signed.pem
"$GMSSL" cmsencrypt -rcptcert $P/server_enc.pem -rcptcert $P/client_enc.pem -in message.txt -out gmssl_enveloped.pem

# GmSSL 3's library for the types its command line lacks, through the helper
# of examples/interop (GMSSL_PREFIX is the directory with include/ and lib/).
G=$(dirname "$(dirname "$GMSSL")")
cc -O1 -DENABLE_SM9 -DENABLE_SECP256R1 -DENABLE_SECP384R1 -DENABLE_LMS -DENABLE_XMSS -DENABLE_SPHINCS -DENABLE_KYBER \
  -o "$tmp/gmsslcms" ../../../examples/interop/gmsslcms/gmsslcms.c -I"$G/include" -L"$G/lib" -lgmssl -Wl,-rpath,"$G/lib"
"$tmp/gmsslcms" seal $P/server_sign.pem "$tmp/server_sign.key" 1234 $P/server_enc.pem message.txt gmssl_signed_and_enveloped.pem
"$tmp/gmsslcms" encrypt 000102030405060708090a0b0c0d0e0f message.txt gmssl_encrypted.pem

# Tongsuo: PKCS #7 identifiers.
T="$TONGSUO"
"$T" cms -sign -md sm3 -nodetach -binary -signer $P/server_sign.pem -inkey $P/server_sign.key -in message.txt -outform PEM -out tongsuo_signed.pem
"$T" cms -sign -md sm3 -binary -signer $P/server_sign.pem -inkey $P/server_sign.key -in message.txt -outform PEM -out tongsuo_signed_detached.pem
"$T" cms -sign -md sm3 -nodetach -binary -noattr -signer $P/server_sign.pem -inkey $P/server_sign.key -in message.txt -outform PEM -out tongsuo_signed_noattr.pem
"$T" cms -sign -md sm3 -nodetach -binary -keyid -signer $P/server_sign.pem -inkey $P/server_sign.key -in message.txt -outform PEM -out tongsuo_signed_keyid.pem
"$T" cms -sign -md sm3 -nodetach -binary -signer $P/server_sign.pem -inkey $P/server_sign.key -signer $P/client_sign.pem -inkey $P/client_sign.key -certfile $P/ca.pem -in message.txt -outform PEM -out tongsuo_signed_two.pem
# -stream with DER output writes BER with indefinite lengths, as Java's streaming writers do.
"$T" cms -sign -md sm3 -nodetach -binary -stream -signer $P/server_sign.pem -inkey $P/server_sign.key -in message.txt -outform DER -out tongsuo_signed_ber.der
"$T" cms -EncryptedData_encrypt -binary -sm4-cbc -secretkey 000102030405060708090a0b0c0d0e0f -in message.txt -outform PEM -out tongsuo_encrypted.pem
"$T" cms -digest_create -md sm3 -in message.txt -binary -outform PEM -out tongsuo_digested.pem
