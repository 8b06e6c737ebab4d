#!/usr/bin/env bash
# Regenerates the fixtures of examples/smtool's golden tests with smtool
# itself (new keys every run: regenerate the golden files afterwards with
# `go test ./examples/smtool/cli -run Golden -update`). Run from the module root.
set -euo pipefail
d=examples/smtool/cli/testdata
smtool() { go run ./examples/smtool "$@"; }
rm -f "$d"/*.pem "$d"/*.key "$d"/*.csr "$d"/*.crl "$d"/*.der
smtool cert gen -out "$d/pki" -force -hosts localhost,127.0.0.1 -san email:ops@example.cn \
	-subj "/C=CN/ST=Beijing/O=Example/OU=TLCP/CN=www.example.cn" \
	-not-before 2026-01-01 -not-after 2036-01-01 >/dev/null
mv "$d/pki/ca.pem" "$d/ca.pem"; mv "$d/pki/ca.key" "$d/ca.key"
mv "$d/pki/server_sign.pem" "$d/sign.pem"; mv "$d/pki/server_sign.key" "$d/sign.key"
mv "$d/pki/server_enc.pem" "$d/enc.pem"; mv "$d/pki/server_enc.key" "$d/enc.key"
mv "$d/pki/client_sign.pem" "$d/client_sign.pem"; rm -r "$d/pki"
smtool req -key "$d/sign.key" -subj "/C=CN/O=Example/CN=www.example.cn" \
	-hosts www.example.cn,10.0.0.1 -out "$d/req.csr"
smtool crl gen -CA "$d/ca.pem" -CAkey "$d/ca.key" -revoke "$d/client_sign.pem" \
	-reason keyCompromise -crlnumber 2A -days 3650 -out "$d/ca.crl"
smtool key convert -in "$d/enc.key" -format sec1 -out "$d/enc_sec1.key"
smtool key convert -in "$d/sign.key" -pass pass:smtool-test -pbe openssl -out "$d/sign_encrypted.key"
cat "$d/sign.pem" "$d/enc.pem" "$d/ca.pem" > "$d/gmssl_certs.pem"
smtool key convert -in "$d/sign.key" -pass pass:P@ssw0rd > "$d/gmssl_keys.pem"
smtool key convert -in "$d/enc.key" -pass pass:P@ssw0rd >> "$d/gmssl_keys.pem"
