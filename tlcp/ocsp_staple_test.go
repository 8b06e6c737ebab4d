// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
)

// makeStaple signs an OCSP response for leaf with the issuer's key.
func makeStaple(t testing.TB, leaf, issuer *smx509.Certificate, key *sm2.PrivateKey, status int, thisUpdate, nextUpdate time.Time) []byte {
	t.Helper()
	tmpl := ocsp.Response{Status: status, SerialNumber: leaf.SerialNumber, ThisUpdate: thisUpdate, NextUpdate: nextUpdate}
	if status == ocsp.Revoked {
		tmpl.RevokedAt = thisUpdate.Add(-time.Hour)
		tmpl.RevocationReason = ocsp.KeyCompromise
	}
	der, err := ocsp.CreateResponse(issuer, nil, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// stapledServer returns a server Config whose pair staples staple.
func stapledServer(t testing.TB, staple []byte) *Config {
	scfg := testServerConfig(t)
	pair := scfg.Certificates[0]
	pair.Sign.OCSPStaple = staple
	scfg.Certificates = []CertificatePair{pair}
	return scfg
}

// stapleProtocols are the handshakes stapling is tested on: TLS 1.3
// (the CertificateEntry), TLCP with the CertificateStatus message and
// TLCP with gotlcp's ServerHello form.
var stapleProtocols = []struct {
	name        string
	tls13       bool
	inHello     bool
	clientSuite uint16
}{
	{"TLS13", true, false, 0},
	{"TLCP-CertificateStatus", false, false, ciphersuite.ECC_SM4_GCM_SM3},
	{"TLCP-ServerHello", false, true, ciphersuite.ECC_SM4_GCM_SM3},
}

func stapleHandshake(t *testing.T, tls13, inHello bool, ccfg, scfg *Config) (*Conn, *Conn, error, error) {
	t.Helper()
	scfg.TLCPStapleInServerHello = inHello
	if tls13 {
		ccfg.MinVersion, ccfg.MaxVersion = VersionTLS13, VersionTLS13
		return handshake13(t, ccfg, scfg)
	}
	ccfg.MaxVersion = VersionTLCP
	return handshakePair(t, ccfg, scfg)
}

// TestOCSPStapling: a good staple reaches the client's ConnectionState on
// both protocols and in every form; a client that does not ask gets none,
// and one that asks but does not require it accepts its absence.
func TestOCSPStapling(t *testing.T) {
	p := getPKI(t)
	now := time.Now()
	leaf := p.server.Sign.Leaf
	good := makeStaple(t, leaf, p.ca, p.caKey, ocsp.Good, now.Add(-time.Hour), now.Add(time.Hour))
	for _, proto := range stapleProtocols {
		t.Run(proto.name, func(t *testing.T) {
			ccfg := testClientConfig(t)
			ccfg.RequireOCSPStaple = true
			client, server, cerr, serr := stapleHandshake(t, proto.tls13, proto.inHello, ccfg, stapledServer(t, good))
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			wantVers := uint16(VersionTLCP)
			if proto.tls13 {
				wantVers = VersionTLS13
			}
			if v := client.ConnectionState().Version; v != wantVers {
				t.Fatalf("version 0x%04x", v)
			}
			if got := client.ConnectionState().OCSPResponse; !bytes.Equal(got, good) {
				t.Fatalf("OCSPResponse %x, want the staple", got)
			}
			if got := server.ConnectionState().OCSPResponse; got != nil {
				t.Fatalf("server's OCSPResponse %x, want none", got)
			}

			ccfg = testClientConfig(t) // asks for nothing
			client, _, cerr, serr = stapleHandshake(t, proto.tls13, proto.inHello, ccfg, stapledServer(t, good))
			if cerr != nil || serr != nil || client.ConnectionState().OCSPResponse != nil {
				t.Fatalf("not asked: client %v, server %v, response %x", cerr, serr, client.ConnectionState().OCSPResponse)
			}

			ccfg = testClientConfig(t)
			ccfg.RequestOCSPStaple = true
			client, _, cerr, serr = stapleHandshake(t, proto.tls13, proto.inHello, ccfg, testServerConfig(t))
			if cerr != nil || serr != nil || client.ConnectionState().OCSPResponse != nil {
				t.Fatalf("asked, none: client %v, server %v, response %x", cerr, serr, client.ConnectionState().OCSPResponse)
			}

			// VerifyConnection sees the staple.
			ccfg = testClientConfig(t)
			ccfg.RequestOCSPStaple = true
			var seen []byte
			ccfg.VerifyConnection = func(cs ConnectionState) error { seen = cs.OCSPResponse; return nil }
			if _, _, cerr, serr = stapleHandshake(t, proto.tls13, proto.inHello, ccfg, stapledServer(t, good)); cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
			if !bytes.Equal(seen, good) {
				t.Fatalf("VerifyConnection saw %x", seen)
			}
		})
	}
}

// TestRequireOCSPStaple: a missing, revoked, expired, not yet valid,
// wrongly signed or unparsable staple fails the handshake with
// bad_certificate_status_response on both protocols.
func TestRequireOCSPStaple(t *testing.T) {
	p := getPKI(t)
	now := time.Now()
	leaf := p.server.Sign.Leaf
	cases := []struct {
		name   string
		staple []byte
		want   string
	}{
		{"missing", nil, "stapled no OCSP response"},
		{"revoked", makeStaple(t, leaf, p.ca, p.caKey, ocsp.Revoked, now.Add(-time.Hour), now.Add(time.Hour)), "revoked"},
		{"unknown", makeStaple(t, leaf, p.ca, p.caKey, ocsp.Unknown, now.Add(-time.Hour), now.Add(time.Hour)), "OCSP staple"},
		{"expired", makeStaple(t, leaf, p.ca, p.caKey, ocsp.Good, now.Add(-72*time.Hour), now.Add(-48*time.Hour)), "OCSP staple"},
		{"not yet valid", makeStaple(t, leaf, p.ca, p.caKey, ocsp.Good, now.Add(48*time.Hour), now.Add(72*time.Hour)), "OCSP staple"},
		{"wrong issuer", makeStaple(t, leaf, p.ca2, p.ca2Key, ocsp.Good, now.Add(-time.Hour), now.Add(time.Hour)), "OCSP staple"},
		{"not DER", []byte("not an OCSP response"), "OCSP staple"},
	}
	for _, proto := range stapleProtocols {
		for _, tc := range cases {
			t.Run(proto.name+"/"+tc.name, func(t *testing.T) {
				ccfg := testClientConfig(t)
				ccfg.RequireOCSPStaple = true
				_, _, cerr, serr := stapleHandshake(t, proto.tls13, proto.inHello, ccfg, stapledServer(t, tc.staple))
				if cerr == nil || !strings.Contains(cerr.Error(), tc.want) {
					t.Fatalf("client error %v, want %q", cerr, tc.want)
				}
				if got := alertFor(cerr); got != alertBadCertificateStatusResponse {
					t.Fatalf("client alert %v, want bad_certificate_status_response", got)
				}
				var ae AlertError
				if !errors.As(serr, &ae) || ae != AlertError(alertBadCertificateStatusResponse) {
					t.Fatalf("server error %v, want the alert", serr)
				}
			})
		}
	}
}

// TestMalformedCertificateStatus: a scripted TLCP server sends a
// CertificateStatus (or a ServerHello status_request) whose body is
// malformed, or one that was not announced; the client answers with the
// alert RFC 6066 names, or unexpected_message for the unannounced one.
func TestMalformedCertificateStatus(t *testing.T) {
	p := getPKI(t)
	certs := &certificateMsg{certificates: [][]byte{p.server.Sign.Certificate[0], p.server.Enc.Certificate[0]}}
	hello := func(status []byte, ack bool) *serverHelloMsg {
		return &serverHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{},
			cipherSuite: ciphersuite.ECC_SM4_GCM_SM3, ocspStapling: ack, ocspStatus: status}
	}
	bodies := map[string][]byte{
		"empty":           {},
		"status_type 2":   {2, 0, 0, 1, 0x30},
		"empty response":  {1, 0, 0, 0},
		"short length":    {1, 0, 0, 5, 0x30},
		"trailing byte":   {1, 0, 0, 1, 0x30, 0},
		"no length":       {1},
		"response is bad": {1, 0, 0, 2, 0x30, 0},
	}
	for name, body := range bodies {
		for _, inHello := range []bool{false, true} {
			where := "message"
			if inHello {
				where = "ServerHello"
			}
			t.Run(where+"/"+name, func(t *testing.T) {
				if inHello && len(body) == 0 {
					t.Skip("an empty extension is the announcement of the message form")
				}
				c, s := tcpPair(t)
				fakeServer(t, s, func(ch *clientHelloMsg) []handshakeMessage {
					if !ch.ocspStapling {
						panic("the client did not ask for a staple")
					}
					if inHello {
						return []handshakeMessage{hello(body, true), certs, &serverHelloDoneMsg{}}
					}
					return []handshakeMessage{hello(nil, true), certs, &certificateStatusMsg{body: body}, &serverHelloDoneMsg{}}
				})
				ccfg := testClientConfig(t)
				ccfg.RequireOCSPStaple = true
				ccfg.MaxVersion = VersionTLCP
				err := Client(c, ccfg).Handshake()
				if err == nil || !strings.Contains(err.Error(), "OCSP") && !strings.Contains(err.Error(), "CertificateStatus") {
					t.Fatalf("error %v", err)
				}
				if got := readAlert(s); got != int(alertBadCertificateStatusResponse) {
					t.Fatalf("client sent alert %d, want 113", got)
				}
			})
		}
	}
	t.Run("unannounced", func(t *testing.T) {
		c, s := tcpPair(t)
		fakeServer(t, s, func(ch *clientHelloMsg) []handshakeMessage {
			return []handshakeMessage{hello(nil, false), certs, &certificateStatusMsg{body: certificateStatusBody([]byte{0x30, 0})}}
		})
		ccfg := testClientConfig(t)
		ccfg.RequestOCSPStaple = true
		ccfg.MaxVersion = VersionTLCP
		if err := Client(c, ccfg).Handshake(); err == nil {
			t.Fatal("accepted")
		}
		if got := readAlert(s); got != int(alertUnexpectedMessage) {
			t.Fatalf("client sent alert %d, want unexpected_message", got)
		}
	})
	t.Run("not asked", func(t *testing.T) {
		c, s := tcpPair(t)
		fakeServer(t, s, func(ch *clientHelloMsg) []handshakeMessage {
			return []handshakeMessage{hello(nil, true), certs}
		})
		ccfg := testClientConfig(t)
		ccfg.MaxVersion = VersionTLCP
		if err := Client(c, ccfg).Handshake(); err == nil {
			t.Fatal("accepted")
		}
		if got := readAlert(s); got != int(alertUnsupportedExtension) {
			t.Fatalf("client sent alert %d, want unsupported_extension", got)
		}
	})
}

// TestStapleWireForms pins the encodings: the ClientHello's request, the
// CertificateStatus body, and the TLS 1.3 CertificateEntry extension.
func TestStapleWireForms(t *testing.T) {
	ch := &clientHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{},
		cipherSuites: []uint16{0xe053}, compressionMethods: []uint8{0}, ocspStapling: true}
	b, err := ch.marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, unhex(t, "0009 0005 0005 01 0000 0000")) {
		t.Fatalf("ClientHello %x", b)
	}
	var back clientHelloMsg
	if !back.unmarshal(b) || !back.ocspStapling {
		t.Fatal("status_request does not parse back")
	}
	if got := certificateStatusBody([]byte{0x30, 0}); !bytes.Equal(got, unhex(t, "01 000002 3000")) {
		t.Fatalf("CertificateStatus %x", got)
	}
	cm := &certificateMsgTLS13{certificates: [][]byte{{0xaa}, {0xbb}}, leafStatus: certificateStatusBody([]byte{0x30, 0})}
	b, err = cm.marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, "0b 00001a 00 000016 000001aa 000a 0005 0006 01000002 3000 000001bb 0000")
	if !bytes.Equal(b, want) {
		t.Fatalf("Certificate\n%x\nwant\n%x", b, want)
	}
	var cm2 certificateMsgTLS13
	if !cm2.unmarshal(b) || !bytes.Equal(cm2.leafStatus, cm.leafStatus) || cm2.entryExtension != 0 {
		t.Fatalf("%+v", cm2)
	}
	// Another request type parses and asks for nothing.
	var requested bool
	if !parseStatusRequest([]byte{2, 0, 0}, &requested) || requested {
		t.Fatal("status_type 2")
	}
}

func FuzzCertificateStatus(f *testing.F) {
	fuzzMessage(f, typeCertificateStatus, "01000002 3000", "")
}

// TestTLS13MalformedStapleEntry: the status_request of a TLS 1.3
// CertificateEntry with a malformed CertificateStatus is
// bad_certificate_status_response, checked before anything else of the
// Certificate is; one a client did not ask for is unsupported_extension.
func TestTLS13MalformedStapleEntry(t *testing.T) {
	p := getPKI(t)
	leaf := p.server.Sign.Certificate[0]
	for name, body := range map[string][]byte{
		"empty": {}, "status_type 2": {2, 0, 0, 1, 0x30}, "empty response": {1, 0, 0, 0},
		"short": {1, 0, 0, 3, 0x30}, "trailing": {1, 0, 0, 1, 0x30, 0},
	} {
		c := &Conn{config: &Config{RequestOCSPStaple: true}, isClient: true}
		_, err := c.readPeerCertificateTLS13(&certificateMsgTLS13{certificates: [][]byte{leaf}, leafStatus: body}, nil,
			peerCertificateCheck{fromServer: true})
		if got := alertFor(err); err == nil || got != alertBadCertificateStatusResponse {
			t.Errorf("%s: %v (alert %v)", name, err, got)
		}
	}
	c := &Conn{config: &Config{}, isClient: true}
	_, err := c.readPeerCertificateTLS13(&certificateMsgTLS13{certificates: [][]byte{leaf}, leafStatus: certificateStatusBody([]byte{0x30, 0})}, nil,
		peerCertificateCheck{fromServer: true})
	if got := alertFor(err); err == nil || got != alertUnsupportedExtension {
		t.Errorf("not asked: %v (alert %v)", err, got)
	}
	// A server never reads a staple from a client.
	c = &Conn{config: &Config{RequestOCSPStaple: true}}
	_, err = c.readPeerCertificateTLS13(&certificateMsgTLS13{certificates: [][]byte{leaf}, leafStatus: certificateStatusBody([]byte{0x30, 0})}, nil,
		peerCertificateCheck{})
	if got := alertFor(err); err == nil || got != alertUnsupportedExtension {
		t.Errorf("from a client: %v (alert %v)", err, got)
	}
}
