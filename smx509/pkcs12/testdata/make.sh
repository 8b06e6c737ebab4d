#!/bin/sh
# How the recorded files here were made (Tongsuo 8.5.0-pre2, see
# /work/peers/RUN.md). Rerun from this directory with
#   T=/work/peers/tongsuo/bin/tongsuo LD_LIBRARY_PATH=/work/peers/tongsuo/lib64 sh make.sh
# It regenerates every key and certificate, so the tests' expectations
# (which compare against the PEM files) stay consistent.
set -e
printf '[req]\ndistinguished_name=dn\n[dn]\n[v3]\nbasicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n' > req.cnf
: "${T:?set T to the tongsuo binary}"
$T ecparam -genkey -name SM2 -noout -out ca.key
$T req -new -x509 -key ca.key -sm3 -sigopt distid:1234567812345678 -subj "/CN=pkcs12 test CA" -config req.cnf -extensions v3 -days 36500 -out ca.pem
$T ecparam -genkey -name SM2 -noout -out sign.key
$T ecparam -genkey -name SM2 -noout -out enc.key
for r in sign enc; do
  $T req -new -key $r.key -sm3 -subj "/CN=pkcs12 test $r" -config req.cnf -out $r.csr
done
printf 'keyUsage=critical,digitalSignature\n' > sign.ext
printf 'keyUsage=critical,keyEncipherment,dataEncipherment,keyAgreement\n' > enc.ext
for r in sign enc; do
  $T x509 -req -in $r.csr -CA ca.pem -CAkey ca.key -sm3 -set_serial 0x$(printf %s $r | od -An -tx1 | tr -d ' \n') -days 36500 -extfile $r.ext -out $r.pem
  rm $r.csr $r.ext
done
rm req.cnf
P=pass:shangmi
# Tongsuo's defaults (PBES2/AES-256-CBC/HMAC-SHA256 for key and certs, SHA-256 MAC).
$T pkcs12 -export -inkey sign.key -in sign.pem -certfile ca.pem -name "sign" -passout $P -out tongsuo_default.p12
# The SM options of issue 29.
$T pkcs12 -export -inkey sign.key -in sign.pem -certfile ca.pem -name "sign" -keypbe SM4-CBC -certpbe SM4-CBC -macalg SM3 -passout $P -out tongsuo_sm4_sm3.p12
# The legacy form (3DES key, RC2-40 certificates, SHA-1 MAC) OpenSSL 1.x wrote by default.
$T pkcs12 -export -legacy -inkey sign.key -in sign.pem -certfile ca.pem -name "sign" -passout $P -out tongsuo_legacy.p12
# Unencrypted certificates, no MAC.
$T pkcs12 -export -inkey sign.key -in sign.pem -keypbe SM4-CBC -certpbe NONE -nomac -passout $P -out tongsuo_nomac.p12
# RC2: Tongsuo is built without RC2, so the pbeWithSHA1And40BitRC2-CBC file
# comes from the system's OpenSSL 3.0.19 (its legacy provider), whose
# -legacy is RC2-40 around the certificates and 3DES around the key.
openssl pkcs12 -export -legacy -inkey sign.key -in sign.pem -certfile ca.pem -name sign -passout $P -out openssl_legacy_rc2.p12
# The CFCA SM2 file (cfca_sign.sm2) and the enveloped key vectors are made
# with gmsm v0.44.1 by examples/bench/cmd/gengmsm (in the bench module, which requires gmsm; see there).
