// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"io"
	"net"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// TestRecordHeaderError: a wrong first record is a RecordHeaderError, as
// in crypto/tls, carrying the header and the transport; a wrong record
// later carries no transport. Either is still the protocol error it was.
// TLS records are wrong only for a TLCP-only server; one that speaks TLS
// 1.3 reads them (tls13_test.go).
func TestRecordHeaderError(t *testing.T) {
	for _, tc := range []struct {
		name     string
		send     []byte
		wantConn bool
		alert    alert
		isHTTP   bool
	}{
		{"TLS 1.2 ClientHello", []byte{22, 3, 3, 0, 4, 1, 0, 0, 0}, true, alertProtocolVersion, false},
		{"HTTP request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), true, alertProtocolVersion, true},
		{"oversized first record", append([]byte{22, 1, 1, 0x40, 1}, make([]byte, 1<<14+1)...), true, alertRecordOverflow, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := tcpPair(t)
			cfg := testServerConfig(t)
			cfg.MaxVersion = VersionTLCP
			server := Server(s, cfg)
			errc := make(chan error, 1)
			go func() { errc <- server.Handshake() }()
			c.Write(tc.send)
			err := <-errc
			var rhe RecordHeaderError
			if !errors.As(err, &rhe) {
				t.Fatalf("error %v (%T) is not a RecordHeaderError", err, err)
			}
			if string(rhe.RecordHeader[:]) != string(tc.send[:5]) {
				t.Errorf("RecordHeader %x, want %x", rhe.RecordHeader, tc.send[:5])
			}
			if (rhe.Conn != nil) != tc.wantConn || (rhe.Conn != nil && rhe.Conn != s) {
				t.Errorf("Conn %v, want the transport: %v", rhe.Conn, tc.wantConn)
			}
			if rhe.Error() != err.Error() {
				t.Errorf("RecordHeaderError says %q, the error %q", rhe.Error(), err.Error())
			}
			if errors.Is(err, errClientSpeaksHTTP) != tc.isHTTP {
				t.Errorf("errors.Is(errClientSpeaksHTTP) = %v", !tc.isHTTP)
			}
			wantAlert(t, err, tc.alert)
		})
	}

	// A bad record after the first: no Conn.
	c, s := tcpPair(t)
	server := Server(s, testServerConfig(t))
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	hello, _ := (&clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{}, cipherSuites: []uint16{ciphersuite.ECC_SM4_GCM_SM3}, compressionMethods: []uint8{0}}).marshal()
	c.Write(append([]byte{22, 1, 1, byte(len(hello) >> 8), byte(len(hello))}, hello...))
	go io.Copy(io.Discard, c) // the server's flight
	c.Write([]byte{22, 3, 3, 0, 4, 1, 0, 0, 0})
	err := <-errc
	var rhe RecordHeaderError
	if !errors.As(err, &rhe) || rhe.Conn != nil {
		t.Fatalf("second record: %v, Conn %v", err, rhe.Conn)
	}

	// And a client that gets an HTTP answer.
	c, s = tcpPair(t)
	go func() { io.ReadAll(io.LimitReader(s, 5)); s.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n")) }()
	err = Client(c, testClientConfig(t)).Handshake()
	if !errors.As(err, &rhe) || rhe.Conn != c || string(rhe.RecordHeader[:]) != "HTTP/" {
		t.Fatalf("client: %v", err)
	}
}

// TestCertificateVerificationError: a chain that does not verify is a
// *CertificateVerificationError with the unverified certificates, on the
// client and on the server, and errors.As still finds the smx509 reason.
func TestCertificateVerificationError(t *testing.T) {
	p := getPKI(t)
	t.Run("server", func(t *testing.T) {
		scfg := testServerConfig(t)
		scfg.Certificates = []CertificatePair{p.serverOtherCA}
		_, _, cerr, serr := handshakePair(t, testClientConfig(t), scfg)
		var cve *CertificateVerificationError
		if !errors.As(cerr, &cve) {
			t.Fatalf("client error %v (%T)", cerr, cerr)
		}
		if len(cve.UnverifiedCertificates) != 2 || !cve.UnverifiedCertificates[0].Equal(p.serverOtherCA.Sign.Leaf) ||
			!cve.UnverifiedCertificates[1].Equal(p.serverOtherCA.Enc.Leaf) {
			t.Fatalf("UnverifiedCertificates %v", cve.UnverifiedCertificates)
		}
		var ua smx509.UnknownAuthorityError
		if !errors.As(cerr, &ua) || !errors.As(cve.Err, &ua) {
			t.Fatalf("the reason is not an UnknownAuthorityError: %v", cve.Err)
		}
		if cerr.Error() != cve.Error() {
			t.Fatalf("%q vs %q", cerr, cve)
		}
		wantAlert(t, cerr, alertUnknownCA)
		wantAlert(t, serr, alertUnknownCA)
	})
	t.Run("host name", func(t *testing.T) {
		ccfg := testClientConfig(t)
		ccfg.ServerName = "other.test"
		_, _, cerr, _ := handshakePair(t, ccfg, testServerConfig(t))
		var cve *CertificateVerificationError
		var he smx509.HostnameError
		if !errors.As(cerr, &cve) || !errors.As(cerr, &he) {
			t.Fatalf("client error %v", cerr)
		}
	})
	t.Run("client", func(t *testing.T) {
		scfg := testServerConfig(t)
		scfg.ClientAuth = RequireAndVerifyClientCert
		ccfg := testClientConfig(t)
		ccfg.Certificates = []CertificatePair{p.serverOtherCA}
		ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
		_, _, cerr, serr := handshakePair(t, ccfg, scfg)
		var cve *CertificateVerificationError
		if !errors.As(serr, &cve) || len(cve.UnverifiedCertificates) != 1 {
			t.Fatalf("server error %v", serr)
		}
		var ne net.Error
		if errors.As(serr, &ne) {
			t.Fatal("a local verification failure is a net.Error")
		}
		wantAlert(t, cerr, alertUnknownCA)
	})
}
