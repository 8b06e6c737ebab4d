// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package interop checks package tlcp against a third-party TLCP
// implementation, the gmtls package of github.com/tjfoc/gmsm v1.4.1, in both
// directions: this project's client against its server and its client
// against this project's server, on ECC_SM4_CBC_SM3 (0xE013).
//
// The tests cover, with the double certificates of testdata/tlcp and
// testdata/openssl: server-only and mutual authentication (client lists
// SIGN and SIGN, ENC), both default suite lists, a host name and an IP
// address as server name, application data of several records each way,
// server_name and ALPN from our client, close_notify, full-duplex bulk
// transfer, session caches on both ends (gmtls resumes only by ticket,
// package tlcp only by session ID, so neither may resume), handshakes that
// must fail (unknown CA, wrong name, missing client certificate), and, with
// certificates made at test time, intermediate CAs on both sides including
// the SIGN, CA, ENC server order and an encryption certificate without SANs.
//
// gmtls gets only ECC_SM4_CBC_SM3 right: it has no GCM suites, and its
// ECDHE_SM4_CBC_SM3 is a bare panic on the server side and TLS-style ECDH on
// the client side (TestGmtlsECDHE checks that both fail cleanly). Every other
// gmtls endpoint here is therefore restricted to 0xE013, and every call into
// gmtls is guarded so that a panic there becomes a test failure instead of
// ending the test binary. Its client also checks the host
// name on every certificate the server sends, the encryption certificate
// and intermediates included, and does not use intermediates the server
// sends; TestGmtlsQuirks pins these behaviours.
//
// The default client, with no interop switch, sends SIGN, ENC when
// gmtls asks for client certificates, because gmtls's CertificateRequest
// lists rsa_sign as those of Tongsuo and gotlcp do (tlcp/INTEROP.md §12);
// gmtls takes either list.
//
// adapt.sh runs the same default client by hand against the C peers'
// servers (GmSSL master and 3.1.1, Tongsuo) and ours, on every suite, with
// and without client certificates; respawn serves GmSSL's one-shot demo
// server once per connection for it.
//
// The package lives in its own module so that the main module never depends
// on gmsm. Run it with
//
//	cd examples/interop && go test ./...
//
// Everything runs over 127.0.0.1 with deadlines; no other network access is
// needed once the module cache holds gmsm.
package interop
