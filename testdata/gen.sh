#!/usr/bin/env bash
# Regenerates the certificate material in testdata/. Run from anywhere:
#   bash testdata/gen.sh
# Needs Go and the openssl 3.x CLI. Every run makes new keys, so tests must
# not depend on particular key or certificate bytes, only on the file names
# and the properties described in testdata/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

DISTID=distid:1234567812345678
PASSWORD=shangmi-test
DAYS=7300   # about 20 years

# 1. TLCP double certificates made by our own tool.
rm -rf testdata/tlcp
go run ./examples/smtool cert gen -out testdata/tlcp -hosts localhost,127.0.0.1 \
	-not-before 2026-01-01 -not-after 2046-01-01 >/dev/null
# One encrypted key (PBES2: PBKDF2-HMAC-SHA256, SM4-CBC), written by openssl
# so that our parser is tested on a foreign file.
openssl pkcs8 -topk8 -in testdata/tlcp/server_sign.key -v2 sm4-cbc \
	-passout "pass:$PASSWORD" -out testdata/tlcp/server_sign_encrypted.key

# 2. The same shape made by the openssl CLI, signed with the default SM2 ID.
out=testdata/openssl
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

newkey() { openssl genpkey -algorithm SM2 -out "$1" 2>/dev/null; }

newkey "$out/ca.key"
openssl req -x509 -new -key "$out/ca.key" -sm3 -sigopt "$DISTID" -days "$DAYS" \
	-subj "/C=CN/O=shangmi openssl/CN=shangmi openssl Root CA" \
	-addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" \
	-out "$out/ca.pem"

leaf() { # name cn keyUsage eku
	newkey "$out/$1.key"
	openssl req -new -key "$out/$1.key" -sm3 -sigopt "$DISTID" \
		-subj "/C=CN/O=shangmi openssl/CN=$2" -out "$out/$1.csr"
	cat >"$tmp/$1.ext" <<EOT
basicConstraints=critical,CA:FALSE
keyUsage=critical,$3
extendedKeyUsage=$4
subjectAltName=DNS:localhost,IP:127.0.0.1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOT
	openssl x509 -req -in "$out/$1.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" \
		-CAcreateserial -sm3 -sigopt "$DISTID" -vfyopt "$DISTID" -days "$DAYS" \
		-extfile "$tmp/$1.ext" -out "$out/$1.pem" 2>/dev/null
}
leaf server_sign "shangmi openssl server" digitalSignature serverAuth
leaf server_enc "shangmi openssl server" "keyEncipherment,dataEncipherment,keyAgreement" serverAuth
leaf client_sign "shangmi openssl client" digitalSignature clientAuth
leaf client_enc "shangmi openssl client" "keyEncipherment,dataEncipherment,keyAgreement" clientAuth
rm -f "$out"/*.srl
# Only one CSR is kept as a sample; the others were intermediate files.
rm -f "$out/server_enc.csr" "$out/client_sign.csr" "$out/client_enc.csr"

# A CRL from the openssl CA revoking client_enc.
mkdir -p "$tmp/ca"
: >"$tmp/ca/index.txt"
echo 1000 >"$tmp/ca/crlnumber"
cat >"$tmp/ca.cnf" <<EOT
[ ca ]
default_ca = testca
[ testca ]
database = $tmp/ca/index.txt
crlnumber = $tmp/ca/crlnumber
default_md = sm3
default_crl_days = $DAYS
EOT
openssl ca -config "$tmp/ca.cnf" -cert "$out/ca.pem" -keyfile "$out/ca.key" \
	-revoke "$out/client_enc.pem" -crl_reason keyCompromise 2>/dev/null
openssl ca -config "$tmp/ca.cnf" -cert "$out/ca.pem" -keyfile "$out/ca.key" \
	-gencrl -sigopt "$DISTID" -out "$out/ca.crl" 2>/dev/null

# 3. The empty-ID kind: OpenSSL 3.0 signs with an empty SM2 ID when no distid
# is given. Such certificates exist in the wild; we must accept them.
newkey "$out/noid_ca.key"
openssl req -x509 -new -key "$out/noid_ca.key" -sm3 -days "$DAYS" \
	-subj "/C=CN/O=shangmi openssl/CN=shangmi openssl empty-ID CA" \
	-addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" \
	-out "$out/noid_ca.pem"
newkey "$out/noid_leaf.key"
openssl req -new -key "$out/noid_leaf.key" -sm3 \
	-subj "/C=CN/O=shangmi openssl/CN=shangmi openssl empty-ID leaf" -out "$tmp/noid_leaf.csr"
cat >"$tmp/noid.ext" <<EOT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1
EOT
openssl x509 -req -in "$tmp/noid_leaf.csr" -CA "$out/noid_ca.pem" -CAkey "$out/noid_ca.key" \
	-CAcreateserial -sm3 -days "$DAYS" -extfile "$tmp/noid.ext" -out "$out/noid_leaf.pem" 2>/dev/null
rm -f "$out"/*.srl

# Sanity: openssl accepts what it made and what we made.
openssl verify -vfyopt "$DISTID" -CAfile "$out/ca.pem" "$out"/server_{sign,enc}.pem "$out"/client_{sign,enc}.pem >/dev/null
openssl verify -vfyopt "$DISTID" -CAfile testdata/tlcp/ca.pem testdata/tlcp/server_{sign,enc}.pem testdata/tlcp/client_{sign,enc}.pem >/dev/null
openssl verify -CAfile "$out/noid_ca.pem" "$out/noid_leaf.pem" >/dev/null
echo "testdata regenerated"
