// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// TestRenegotiationFloodCut is issue 10's third attack: 200 ClientHellos
// after the handshake, one per record. A few are declined with a warning;
// then the server ends the connection with a clear error, instead of
// answering each and never returning to the application. A server asking
// a client over and over is cut off the same way.
func TestRenegotiationFloodCut(t *testing.T) {
	t.Run("ClientHello to a server", func(t *testing.T) {
		client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
		hello, err := client.makeClientHello()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range 200 {
				if client.writeHandshake(hello, nil) != nil {
					return
				}
			}
			client.Write([]byte("data"))
		}()
		n, err := server.Read(make([]byte, 10))
		if err == nil || !strings.Contains(err.Error(), "renegotiat") {
			t.Fatalf("server Read returned %d bytes, %v; want the connection cut", n, err)
		}
		wantAlert(t, err, alertUnexpectedMessage)
		_, err = client.Read(make([]byte, 10))
		wantAlert(t, err, alertUnexpectedMessage)
	})
	t.Run("HelloRequest to a client", func(t *testing.T) {
		client, server := established(t, ciphersuite.ECDHE_SM4_GCM_SM3)
		go func() {
			for range 200 {
				if server.writeHandshake(&helloRequestMsg{}, nil) != nil {
					return
				}
			}
			server.Write([]byte("data"))
		}()
		n, err := client.Read(make([]byte, 10))
		if err == nil || !strings.Contains(err.Error(), "renegotiat") {
			t.Fatalf("client Read returned %d bytes, %v; want the connection cut", n, err)
		}
		wantAlert(t, err, alertUnexpectedMessage)
	})
}

// TestTruncationAlwaysExplained is issue 10's fifth finding: a transport
// that ends inside a record header, inside a record body or at a record
// boundary gets the same clear error, wrapping io.ErrUnexpectedEOF.
func TestTruncationAlwaysExplained(t *testing.T) {
	for _, cut := range []struct {
		name string
		send []byte
	}{
		{"at a record boundary", nil},
		{"inside a record header", []byte{23, 1, 1}},
		{"inside a record body", []byte{23, 1, 1, 0, 40, 1, 2, 3}},
	} {
		t.Run(cut.name, func(t *testing.T) {
			client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
			client.NetConn().Write(cut.send)
			client.NetConn().Close()
			_, err := server.Read(make([]byte, 1))
			if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "closed without close_notify") {
				t.Fatalf("error %v", err)
			}
		})
	}
	t.Run("inside a record header during the handshake", func(t *testing.T) {
		c, s := tcpPair(t)
		server := Server(s, testServerConfig(t))
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		c.Write([]byte{22, 1})
		c.Close()
		err := <-errc
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "closed without close_notify") ||
			!strings.Contains(err.Error(), "during the handshake") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestMessageSizeLimits: a message longer than its type allows is refused
// as soon as its header arrives (64 KiB for all but Certificate, as in
// crypto/tls); a Certificate message may be up to 256 KiB.
func TestMessageSizeLimits(t *testing.T) {
	serve := func(t *testing.T) (*hostilePeer, chan error) {
		c, s := tcpPair(t)
		errc := make(chan error, 1)
		go func() { errc <- Server(s, testServerConfig(t)).Handshake() }()
		return newHostilePeer(c), errc
	}
	t.Run("ClientHello over 64 KiB", func(t *testing.T) {
		h, errc := serve(t)
		// Only the header: the server must not wait for the body.
		h.record(recordTypeHandshake, []byte{typeClientHello, 0x01, 0x00, 0x01})
		if got := h.readAlert(); got != int(alertDecodeError) {
			t.Fatalf("alert %d, want decode_error", got)
		}
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "ClientHello message of 65537 bytes, over the limit of 65536") {
			t.Fatalf("server error %v", err)
		}
	})
	t.Run("Certificate of 200 KiB", func(t *testing.T) {
		h, errc := serve(t)
		big, _ := bigCertificate(t, "big", smx509.KeyUsageKeyEncipherment, 100<<10)
		if err := h.hello(ciphersuite.ECDHE_SM4_GCM_SM3); err != nil {
			t.Fatal(err)
		}
		if err := h.readUntil(typeServerHelloDone); err != nil {
			t.Fatal(err)
		}
		// Two encryption certificates: parsed, then refused for their
		// role, not for their size.
		h.send(&certificateMsg{certificates: [][]byte{big, big}})
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "first certificate is not") {
			t.Fatalf("server error %v", err)
		}
	})
	t.Run("Certificate over 256 KiB", func(t *testing.T) {
		h, errc := serve(t)
		if err := h.hello(ciphersuite.ECDHE_SM4_GCM_SM3); err != nil {
			t.Fatal(err)
		}
		if err := h.readUntil(typeServerHelloDone); err != nil {
			t.Fatal(err)
		}
		h.record(recordTypeHandshake, []byte{typeCertificate, 0x04, 0x00, 0x01})
		if got := h.readAlert(); got != int(alertDecodeError) {
			t.Fatalf("alert %d, want decode_error", got)
		}
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "over the limit of 262144") {
			t.Fatalf("server error %v", err)
		}
	})
}

// TestNonSM2CertificateAlert is issue 10's sixth finding: a certificate
// with a key other than SM2 is unsupported_certificate (43), whatever its
// key usage, on both sides; the key type is checked before the usage.
func TestNonSM2CertificateAlert(t *testing.T) {
	p := getPKI(t)
	ecSign := ecdsaCertificate(t, "tlcp.test", smx509.KeyUsageDigitalSignature)
	ecEnc := ecdsaCertificate(t, "tlcp.test", smx509.KeyUsageKeyEncipherment)
	for _, tc := range []struct {
		name       string
		sign, enc  []byte
		wantInText string
	}{
		{"ECDSA signing certificate", ecSign, p.server.Enc.Certificate[0], "signing certificate has an ECDSA key"},
		{"ECDSA encryption certificate", p.server.Sign.Certificate[0], ecEnc, "encryption certificate has an ECDSA key"},
	} {
		t.Run("server sends "+tc.name, func(t *testing.T) {
			c, s := tcpPair(t)
			fakeServer(t, s, func(ch *clientHelloMsg) []handshakeMessage {
				return []handshakeMessage{
					&serverHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{}, cipherSuite: ciphersuite.ECC_SM4_GCM_SM3},
					&certificateMsg{certificates: [][]byte{tc.sign, tc.enc}},
				}
			})
			err := Client(c, testClientConfig(t)).Handshake()
			if err == nil || !strings.Contains(err.Error(), tc.wantInText) {
				t.Fatalf("client error %v", err)
			}
			if got := readAlert(s); got != int(alertUnsupportedCertificate) {
				t.Fatalf("client sent alert %d, want unsupported_certificate", got)
			}
		})
	}
	for _, tc := range []struct {
		name       string
		sign, enc  []byte
		wantInText string
	}{
		{"ECDSA signing certificate", ecSign, p.client.Enc.Certificate[0], "signing certificate has an ECDSA key"},
		{"ECDSA encryption certificate", p.client.Sign.Certificate[0], ecEnc, "encryption certificate has an ECDSA key"},
	} {
		t.Run("client sends "+tc.name, func(t *testing.T) {
			c, s := tcpPair(t)
			errc := make(chan error, 1)
			go func() { errc <- Server(s, testServerConfig(t)).Handshake() }()
			h := newHostilePeer(c)
			if err := h.hello(ciphersuite.ECDHE_SM4_GCM_SM3); err != nil {
				t.Fatal(err)
			}
			if err := h.readUntil(typeServerHelloDone); err != nil {
				t.Fatal(err)
			}
			h.send(&certificateMsg{certificates: [][]byte{tc.sign, tc.enc}})
			if got := h.readAlert(); got != int(alertUnsupportedCertificate) {
				t.Fatalf("server sent alert %d, want unsupported_certificate", got)
			}
			if err := <-errc; err == nil || !strings.Contains(err.Error(), tc.wantInText) {
				t.Fatalf("server error %v", err)
			}
		})
	}
}
