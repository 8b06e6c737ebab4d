// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509/pkix"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/internal/hostile"
	"github.com/shangmi-go/shangmi/smx509"
)

// The hostile corpus (issue 33, item 4): scripted anonymous clients, each
// with the alert the server owes it, kept as text under testdata/hostile so
// that examples/soak replays the same scripts against a loaded server.
// go test -run TestHostileCorpus -update-hostile rewrites the files from
// hostileScripts; every run replays the files.

var updateHostile = flag.Bool("update-hostile", false, "rewrite testdata/hostile from hostileScripts")

const hostileDir = "../testdata/hostile"

// hostileServerConfig is the server the scripts are written for: the
// soak's, both protocols, client certificates verified if given. Nothing
// in a script depends on the server's certificates.
func hostileServerConfig(t testing.TB) *Config {
	cfg := testServerConfig(t)
	cfg.MaxVersion = VersionTLS13
	cfg.ClientAuth = VerifyClientCertIfGiven
	return cfg
}

// scriptRecord frames body as one record, whatever its length.
func scriptRecord(typ recordType, vers uint16, body []byte) []byte {
	return append([]byte{byte(typ), byte(vers >> 8), byte(vers), byte(len(body) >> 8), byte(len(body))}, body...)
}

func scriptMessage(t testing.TB, m handshakeMessage) []byte {
	t.Helper()
	b, err := m.marshal()
	if err != nil {
		t.Fatal(err)
	}
	return scriptRecord(recordTypeHandshake, VersionTLCP, b)
}

func scriptHello(t testing.TB, vers uint16, suites ...uint16) []byte {
	return scriptMessage(t, &clientHelloMsg{vers: vers, random: make([]byte, 32), sessionID: []byte{},
		cipherSuites: suites, compressionMethods: []uint8{0}})
}

// corpusECDSACertificate is a self-signed P-256 certificate valid for a
// century: the scripts keep it, and the server refuses it for its key
// type before it looks at validity or chain.
func corpusECDSACertificate(t testing.TB, ku smx509.KeyUsage) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &smx509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hostile.example"},
		KeyUsage: ku, NotBefore: time.Unix(1764547200, 0), NotAfter: time.Unix(1764547200, 0).AddDate(100, 0, 0)}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// hostileScripts are the corpus. Each alert is the one GB/T 38636 (for
// TLCP, which takes TLS 1.1's) or RFC 8446 names for the fault.
func hostileScripts(t testing.TB) []*hostile.Script {
	send := func(b []byte) hostile.Step { return hostile.Step{Op: hostile.Send, Data: b} }
	until := func(typ uint8) hostile.Step { return hostile.Step{Op: hostile.ReadUntil, N: int(typ)} }
	alert := func(a alert) hostile.Step { return hostile.Step{Op: hostile.ExpectAlert, N: int(a)} }
	ecdhe, ecc := ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_GCM_SM3
	hello := scriptHello(t, VersionTLCP, ecdhe, ecc)
	helloECC := scriptHello(t, VersionTLCP, ecc)

	// A ClientHello whose body runs on past its extensions.
	ch := &clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{},
		cipherSuites: []uint16{ecc}, compressionMethods: []uint8{0}}
	chBytes, err := ch.marshal()
	if err != nil {
		t.Fatal(err)
	}
	trailing := append(bytes.Clone(chBytes), 0, 0, 0, 0)
	n := len(trailing) - 4
	trailing[1], trailing[2], trailing[3] = byte(n>>16), byte(n>>8), byte(n)

	// A TLS 1.3 ClientHello whose SM2 key share is not a point on the
	// curve (uncompressed form, x = y = 0). The hybrid share and group
	// are dropped, or the server would pick the hybrid and never look at
	// the SM2 share.
	h13 := rawTLS13Hello(t)
	h13.original = nil
	bad := make([]byte, 65)
	bad[0] = 4
	h13.tls13.supportedGroups = []uint16{uint16(CurveSM2)}
	h13.tls13.keyShares = []keyShare{{uint16(CurveSM2), bad}}
	h13Bytes, err := h13.marshal()
	if err != nil {
		t.Fatal(err)
	}

	return []*hostile.Script{
		{Name: "clienthello-over-limit", Description: "a ClientHello header claiming 65537 bytes, its body never sent: decode_error at the header",
			Steps: []hostile.Step{send(scriptRecord(recordTypeHandshake, VersionTLCP, []byte{typeClientHello, 0x01, 0x00, 0x01})), alert(alertDecodeError)}},
		{Name: "certificate-over-limit", Description: "after the server's flight, a Certificate header claiming 256 KiB + 1: decode_error at the header",
			Steps: []hostile.Step{send(hello), until(typeServerHelloDone), send(scriptRecord(recordTypeHandshake, VersionTLCP, []byte{typeCertificate, 0x04, 0x00, 0x01})), alert(alertDecodeError)}},
		{Name: "no-common-suite", Description: "a ClientHello offering only TLS_RSA_WITH_AES_128_CBC_SHA: handshake_failure",
			Steps: []hostile.Step{send(scriptHello(t, VersionTLCP, 0x002f)), alert(alertHandshakeFailure)}},
		{Name: "sslv3-hello", Description: "a ClientHello for SSL 3.0: protocol_version",
			Steps: []hostile.Step{send(scriptHello(t, 0x0300, ecc)), alert(alertProtocolVersion)}},
		{Name: "hello-trailing-bytes", Description: "a ClientHello with four bytes after its last field: decode_error",
			Steps: []hostile.Step{send(scriptRecord(recordTypeHandshake, VersionTLCP, trailing)), alert(alertDecodeError)}},
		{Name: "non-sm2-certificates", Description: "client certificates with P-256 keys: unsupported_certificate, before any chain is built",
			Steps: []hostile.Step{send(hello), until(typeServerHelloDone),
				send(scriptMessage(t, &certificateMsg{certificates: [][]byte{
					corpusECDSACertificate(t, smx509.KeyUsageDigitalSignature),
					corpusECDSACertificate(t, smx509.KeyUsageKeyEncipherment)}})),
				alert(alertUnsupportedCertificate)}},
		{Name: "unknown-record-type", Description: "a record of type 99 first: unexpected_message",
			Steps: []hostile.Step{send(scriptRecord(99, VersionTLCP, []byte{0})), alert(alertUnexpectedMessage)}},
		{Name: "application-data-first", Description: "application data before any handshake: unexpected_message",
			Steps: []hostile.Step{send(scriptRecord(recordTypeApplicationData, VersionTLCP, []byte("GET / HTTP/1.1\r\n"))), alert(alertUnexpectedMessage)}},
		{Name: "ccs-before-key-exchange", Description: "ChangeCipherSpec right after the server's flight: unexpected_message",
			Steps: []hostile.Step{send(helloECC), until(typeServerHelloDone), send(scriptRecord(recordTypeChangeCipherSpec, VersionTLCP, []byte{1})), alert(alertUnexpectedMessage)}},
		{Name: "finished-before-key-exchange", Description: "a plaintext Finished right after the server's flight: unexpected_message",
			Steps: []hostile.Step{send(helloECC), until(typeServerHelloDone), send(scriptMessage(t, &finishedMsg{verifyData: make([]byte, 12)})), alert(alertUnexpectedMessage)}},
		{Name: "second-clienthello", Description: "a second ClientHello in place of the client's flight: unexpected_message",
			Steps: []hostile.Step{send(helloECC), until(typeServerHelloDone), send(helloECC), alert(alertUnexpectedMessage)}},
		{Name: "record-overflow", Description: "a handshake record header claiming 2^14 + 1 bytes of plaintext: record_overflow at the header",
			Steps: []hostile.Step{send([]byte{byte(recordTypeHandshake), 0x01, 0x01, 0x40, 0x01}), alert(alertRecordOverflow)}},
		{Name: "truncated-header", Description: "two bytes of a record header, then a half-close: the server closes",
			Steps: []hostile.Step{send([]byte{byte(recordTypeHandshake), 0x01}), {Op: hostile.CloseWrite}, {Op: hostile.ExpectClose}}},
		{Name: "tls13-off-curve-share", Description: "a TLS 1.3 ClientHello whose SM2 key share is not on the curve: illegal_parameter",
			Steps: []hostile.Step{send(scriptRecord(recordTypeHandshake, 0x0301, h13Bytes)), alert(alertIllegalParameter)}},
	}
}

// TestHostileCorpus replays every script of testdata/hostile against a
// server of its own, and checks that the files are the scripts
// hostileScripts writes (by name; the certificates in them are made
// afresh when they are rewritten).
func TestHostileCorpus(t *testing.T) {
	scripts := hostileScripts(t)
	if *updateHostile {
		os.RemoveAll(hostileDir)
		if err := os.MkdirAll(hostileDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, s := range scripts {
			if err := os.WriteFile(filepath.Join(hostileDir, s.Name+".txt"), s.Marshal(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	corpus, err := hostile.Load(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, s := range scripts {
		want = append(want, s.Name)
	}
	for _, s := range corpus {
		got = append(got, s.Name)
	}
	sort.Strings(want)
	if !slices.Equal(want, got) {
		t.Fatalf("testdata/hostile holds %v, hostileScripts %v: run go test -run TestHostileCorpus -update-hostile", got, want)
	}
	for _, s := range corpus {
		t.Run(s.Name, func(t *testing.T) {
			c, srv := tcpPair(t)
			errc := make(chan error, 1)
			go func() {
				defer srv.Close()
				errc <- Server(srv, hostileServerConfig(t)).Handshake()
			}()
			if err := s.Run(c, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			if err := <-errc; err == nil {
				t.Fatal("the server completed a handshake with a hostile script")
			}
		})
	}
}
