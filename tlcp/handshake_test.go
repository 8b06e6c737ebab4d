// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
)

// tcpPair returns the two ends of a loopback TCP connection. Unlike
// net.Pipe it buffers, so a side that sends an alert while the other is
// still writing does not deadlock.
func tcpPair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	forgetHintsAt(t, ln.Addr().String())
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		ch <- res{c, err}
	}()
	c1, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	deadline := time.Now().Add(20 * time.Second)
	c1.SetDeadline(deadline)
	r.c.SetDeadline(deadline)
	t.Cleanup(func() { c1.Close(); r.c.Close() })
	return c1, r.c
}

// handshakePair runs a handshake and returns both ends.
func handshakePair(t testing.TB, ccfg, scfg *Config) (client, server *Conn, cerr, serr error) {
	t.Helper()
	c, s := tcpPair(t)
	client, server = Client(c, ccfg), Server(s, scfg)
	done := make(chan error, 1)
	// A failing side keeps its end open until the other has read the
	// alert; closing at once could turn the alert into a broken pipe.
	go func() { done <- server.Handshake() }()
	cerr = client.Handshake()
	serr = <-done
	return
}

// exchange sends data both ways over established connections.
func exchange(t testing.TB, client, server *Conn, size int) {
	t.Helper()
	msg := bytes.Repeat([]byte("TLCP"), size/4+1)[:size]
	errc := make(chan error, 1)
	go func() {
		buf := make([]byte, len(msg))
		if _, err := io.ReadFull(server, buf); err != nil {
			errc <- err
			return
		}
		_, err := server.Write(buf)
		errc <- err
	}()
	if _, err := client.Write(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(client, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("echoed data differs")
	}
}

func supportedSuites() []uint16 {
	var ids []uint16
	for _, s := range CipherSuites() {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestHandshakeMatrix runs every suite × client auth × full/resumed × both
// ECDHE framings.
func TestHandshakeMatrix(t *testing.T) {
	p := getPKI(t)
	for _, id := range supportedSuites() {
		s := ciphersuite.Lookup(id)
		ecdhe := s.KeyExchange == ciphersuite.KeyExchangeECDHE
		for _, auth := range []bool{false, true} {
			framings := []bool{false}
			if ecdhe {
				framings = []bool{false, true}
			}
			for _, f71 := range framings {
				name := fmt.Sprintf("%s/auth=%v/framing71=%v", s.Name, auth, f71)
				t.Run(name, func(t *testing.T) {
					scfg := testServerConfig(t)
					scfg.CipherSuites = []uint16{id}
					if auth {
						scfg.ClientAuth = RequireAndVerifyClientCert
					}
					ccfg := testClientConfig(t)
					ccfg.CipherSuites = []uint16{id}
					ccfg.ClientECDHEFraming71 = f71
					ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
					for i, wantResume := range []bool{false, true} {
						client, server, cerr, serr := handshakePair(t, ccfg, scfg)
						if cerr != nil || serr != nil {
							t.Fatalf("handshake %d: client %v, server %v", i, cerr, serr)
						}
						cs, ss := client.ConnectionState(), server.ConnectionState()
						if cs.DidResume != wantResume || ss.DidResume != wantResume {
							t.Fatalf("handshake %d: resumed client %v server %v, want %v", i, cs.DidResume, ss.DidResume, wantResume)
						}
						if cs.CipherSuite != id || ss.CipherSuite != id || cs.Version != VersionTLCP {
							t.Fatalf("suite %x/%x version %x", cs.CipherSuite, ss.CipherSuite, cs.Version)
						}
						if !cs.PeerSignCertificate.Equal(p.server.Sign.Leaf) || !cs.PeerEncCertificate.Equal(p.server.Enc.Leaf) {
							t.Fatal("client sees wrong server certificates")
						}
						if auth || ecdhe {
							if ss.PeerSignCertificate == nil || !ss.PeerSignCertificate.Equal(p.client.Sign.Leaf) {
								t.Fatal("server does not see the client's signing certificate")
							}
						} else if ss.PeerSignCertificate != nil {
							t.Fatal("server got a client certificate it did not ask for")
						}
						if ecdhe && !ss.PeerEncCertificate.Equal(p.client.Enc.Leaf) {
							t.Fatal("server does not see the client's encryption certificate")
						}
						if auth && len(ss.VerifiedChains) == 0 {
							t.Fatal("client certificate not verified")
						}
						exchange(t, client, server, 40000)
						client.Close()
						server.Close()
					}
				})
			}
		}
	}
}

// TestCertificateListShapes covers both server list orders (D4), a chain
// with an intermediate (root stripped) and both client list shapes (D3).
func TestCertificateListShapes(t *testing.T) {
	p := getPKI(t)
	t.Run("intermediate", func(t *testing.T) {
		scfg := testServerConfig(t)
		scfg.Certificates = []CertificatePair{p.serverViaInter}
		client, server, cerr, serr := handshakePair(t, testClientConfig(t), scfg)
		if cerr != nil || serr != nil {
			t.Fatalf("client %v, server %v", cerr, serr)
		}
		certs := client.ConnectionState().PeerCertificates
		if len(certs) != 3 || !certs[2].Equal(p.intermediate) {
			t.Fatalf("server sent %d certificates, want sign, enc, intermediate (no root)", len(certs))
		}
		exchange(t, client, server, 10)
	})
	t.Run("enc last", func(t *testing.T) {
		// SIGN | CA | ENC, as TASSL with ENC_CERT_LAST sends.
		sign, enc, inter := splitServerCertificates([]*smx509.Certificate{p.serverViaInter.Sign.Leaf, p.intermediate, p.serverViaInter.Enc.Leaf})
		if !sign.Equal(p.serverViaInter.Sign.Leaf) || !enc.Equal(p.serverViaInter.Enc.Leaf) || len(inter) != 1 {
			t.Fatal("SIGN|CA|ENC not recognised")
		}
		sign, enc, inter = splitServerCertificates([]*smx509.Certificate{p.serverViaInter.Sign.Leaf, p.serverViaInter.Enc.Leaf, p.intermediate})
		if !sign.Equal(p.serverViaInter.Sign.Leaf) || !enc.Equal(p.serverViaInter.Enc.Leaf) || len(inter) != 1 {
			t.Fatal("SIGN|ENC|CA not recognised")
		}
	})
	for _, withEnc := range []bool{false, true} {
		t.Run(fmt.Sprintf("client ECC list with enc=%v", withEnc), func(t *testing.T) {
			scfg := testServerConfig(t)
			scfg.ClientAuth = RequireAndVerifyClientCert
			scfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
			ccfg := testClientConfig(t)
			ccfg.ClientCertIncludeEnc = withEnc
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatalf("client %v, server %v", cerr, serr)
			}
			ss := server.ConnectionState()
			if got := len(ss.PeerCertificates); (withEnc && got != 2) || (!withEnc && got != 1) {
				t.Fatalf("server received %d client certificates", got)
			}
			if withEnc != (ss.PeerEncCertificate != nil) {
				t.Fatal("client encryption certificate not recognised")
			}
			exchange(t, client, server, 10)
		})
	}
}

// TestHandshakeFailures: each case must fail on both sides, with the
// expected alert arriving at the peer where one is sent.
func TestHandshakeFailures(t *testing.T) {
	p := getPKI(t)
	tests := []struct {
		name      string
		client    func(*Config)
		server    func(*Config)
		wantErr   string // substring of the failing side's error
		peerAlert alert  // alert the other side must receive
		serverErr bool   // the server detects the failure
	}{
		{name: "untrusted server", client: func(c *Config) { c.RootCAs = nil }, server: func(c *Config) { c.Certificates = []CertificatePair{p.serverOtherCA} },
			wantErr: "signing certificate", peerAlert: alertUnknownCA},
		{name: "wrong host", client: func(c *Config) { c.ServerName = "other.test" }, wantErr: "signing certificate", peerAlert: alertBadCertificate},
		{name: "ECDHE without client certificates", client: func(c *Config) {
			c.Certificates = nil
			c.GetClientCertificate = func(*CertificateRequestInfo) (*CertificatePair, error) { return &CertificatePair{}, nil }
		},
			server: func(c *Config) { c.CipherSuites = []uint16{ciphersuite.ECDHE_SM4_GCM_SM3} }, wantErr: "ECDHE", peerAlert: alertHandshakeFailure},
		{name: "client certificate required", client: func(c *Config) { c.Certificates = nil },
			server: func(c *Config) { c.ClientAuth = RequireAndVerifyClientCert }, wantErr: "no certificate", peerAlert: alertBadCertificate, serverErr: true},
		{name: "untrusted client", client: func(c *Config) {
			c.Certificates = []CertificatePair{p.serverOtherCA}
			c.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3}
		},
			server: func(c *Config) { c.ClientAuth = RequireAndVerifyClientCert }, wantErr: "client's signing certificate", peerAlert: alertUnknownCA, serverErr: true},
		{name: "no common suite", client: func(c *Config) { c.CipherSuites = []uint16{ciphersuite.ECC_SM4_CBC_SM3} },
			server: func(c *Config) { c.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3} }, wantErr: "no cipher suite", peerAlert: alertHandshakeFailure, serverErr: true},
		{name: "swapped server pair", server: func(c *Config) { c.Certificates = []CertificatePair{{Sign: p.server.Enc, Enc: p.server.Sign}} },
			wantErr: "swapped", peerAlert: alertInternalError, serverErr: true},
		{name: "CertificateVerify valid in neither form", client: func(c *Config) {
			pair := p.client
			pair.Sign.PrivateKey = wrongMessageSigner{p.client.Sign.PrivateKey.(*sm2.PrivateKey)}
			c.Certificates = []CertificatePair{pair}
		},
			server: func(c *Config) { c.ClientAuth = RequireAndVerifyClientCert }, wantErr: "CertificateVerify", peerAlert: alertDecryptError, serverErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			if tt.client != nil {
				tt.client(ccfg)
			}
			if tt.server != nil {
				tt.server(scfg)
			}
			_, _, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr == nil || serr == nil {
				t.Fatalf("handshake did not fail on both sides: client %v, server %v", cerr, serr)
			}
			failing, peer := cerr, serr
			if tt.serverErr {
				failing, peer = serr, cerr
			}
			if !strings.Contains(failing.Error(), tt.wantErr) {
				t.Errorf("error %q does not mention %q", failing, tt.wantErr)
			}
			var ae AlertError
			if !errors.As(peer, &ae) || alert(ae) != tt.peerAlert {
				t.Errorf("peer error %v, want alert %v", peer, tt.peerAlert)
			}
		})
	}
}

// wrongMessageSigner signs something other than what it is given.
type wrongMessageSigner struct{ k *sm2.PrivateKey }

func (s wrongMessageSigner) Public() crypto.PublicKey { return s.k.Public() }
func (s wrongMessageSigner) Sign(rand io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	return s.k.Sign(rand, append([]byte("not "), msg...), opts)
}

// TestBothCertificateVerifyFormsAccepted: a server accepts the standard
// and the GmSSL 3.0.0/≥3.2 raw-transcript CertificateVerify by default, on
// every suite, in full handshakes (D1); the switch changes only what a
// client signs.
func TestBothCertificateVerifyFormsAccepted(t *testing.T) {
	for _, id := range supportedSuites() {
		for _, raw := range []bool{false, true} {
			ccfg, scfg := testClientConfig(t), testServerConfig(t)
			ccfg.CipherSuites = []uint16{id}
			ccfg.CertificateVerifyRawTranscript = raw
			scfg.CipherSuites = []uint16{id}
			scfg.ClientAuth = RequireAndVerifyClientCert
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatalf("%s, raw %v: client %v, server %v", CipherSuiteName(id), raw, cerr, serr)
			}
			if len(server.ConnectionState().VerifiedChains) == 0 {
				t.Fatal("client not verified")
			}
			exchange(t, client, server, 100)
		}
	}
	// The two forms are different messages: a signature of one does not
	// verify as the other (kat_test.go checks the same on fixed values).
	tr := newTranscript(true)
	tr.Write(bytes.Repeat([]byte{1}, 100))
	k := getPKI(t).client.Sign
	sig, _ := sign(rand.Reader, k.PrivateKey, certificateVerifyMessage(tr, false))
	if verify(k.Leaf, certificateVerifyMessage(tr, true), sig) {
		t.Fatal("a hash-form signature verified as the raw form")
	}
}

// TestECCWithoutClientEncCert: an ECC client with only a signing pair can
// authenticate, and does not offer ECDHE.
func TestECCWithoutClientEncCert(t *testing.T) {
	p := getPKI(t)
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.Certificates = []CertificatePair{p.signOnly}
	scfg.ClientAuth = RequireAndVerifyClientCert
	scfg.CipherSuites = []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_GCM_SM3}
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("client %v, server %v", cerr, serr)
	}
	if s := client.ConnectionState().CipherSuite; s != ciphersuite.ECC_SM4_GCM_SM3 {
		t.Fatalf("negotiated %s", CipherSuiteName(s))
	}
	exchange(t, client, server, 10)
}

// TestResumptionDroppedAfterFatalAlert: a session is removed from both
// caches when a connection using it ends with a fatal alert (INTEROP.md §6.1).
func TestResumptionDroppedAfterFatalAlert(t *testing.T) {
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if sessionCount(scfg) != 1 {
		t.Fatal("server did not cache the session")
	}
	// The client reports a fatal alert on the established connection.
	client.sendAlert(alertInternalError)
	buf := make([]byte, 1)
	if _, err := server.Read(buf); err == nil {
		t.Fatal("server read succeeded after a fatal alert")
	}
	if sessionCount(scfg) != 0 {
		t.Fatal("server kept the session after a fatal alert")
	}
	if _, ok := ccfg.ClientSessionCache.Get("tlcp.test"); ok {
		t.Fatal("client kept the session after a fatal alert")
	}
	client, _, cerr, serr = handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil || client.ConnectionState().DidResume {
		t.Fatal("expected a full handshake", cerr, serr)
	}
}

// TestSNIByDefault: server_name is sent for a host name, as crypto/tls
// does, not for an IP address, without trailing dots; nothing at all
// with ClientHelloNoExtensions (D6).
func TestSNIByDefault(t *testing.T) {
	for _, tc := range []struct {
		serverName string
		noExt      bool
		want       string
		wantExt    bool
	}{
		{"bank.example", false, "bank.example", true},
		{"bank.example.", false, "bank.example", true},
		{"127.0.0.1", false, "", false},
		{"::1", false, "", false},
		{"[fe80::1%eth0]", false, "", false},
		{"bank.example", true, "", false},
	} {
		cfg := &Config{ServerName: tc.serverName, ClientHelloNoExtensions: tc.noExt}
		hello, err := Client(nil, cfg).makeClientHello()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := hello.marshal()
		parsed, ok := parseHandshakeMessage(raw)
		if !ok {
			t.Fatalf("%q: ClientHello does not parse", tc.serverName)
		}
		ch := parsed.(*clientHelloMsg)
		if ch.serverName != tc.want || ch.hasExtensions != tc.wantExt {
			t.Errorf("ServerName %q (no extensions %v): sent server_name %q, extensions %v", tc.serverName, tc.noExt, ch.serverName, ch.hasExtensions)
		}
	}
	// ALPN is dropped too by the switch.
	cfg := &Config{ServerName: "bank.example", NextProtos: []string{"http/1.1"}, ClientHelloNoExtensions: true}
	hello, _ := Client(nil, cfg).makeClientHello()
	if raw, _ := hello.marshal(); len(raw) != 4+2+32+1+2+2*len(hello.cipherSuites)+2 {
		t.Fatalf("ClientHello with ClientHelloNoExtensions has %d bytes: %x", len(raw), raw)
	}
}

// TestALPNAndSNI: the extensions are echoed.
func TestALPNAndSNI(t *testing.T) {
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.NextProtos = []string{"h2", "http/1.1"}
	scfg.NextProtos = []string{"http/1.1"}
	client, server, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	cs, ss := client.ConnectionState(), server.ConnectionState()
	if cs.NegotiatedProtocol != "http/1.1" || ss.NegotiatedProtocol != "http/1.1" || ss.ServerName != "tlcp.test" {
		t.Fatalf("ALPN %q/%q, SNI %q", cs.NegotiatedProtocol, ss.NegotiatedProtocol, ss.ServerName)
	}
}

// TestKeyLog writes the NSS line.
func TestKeyLog(t *testing.T) {
	var buf bytes.Buffer
	ccfg := testClientConfig(t)
	ccfg.KeyLogWriter = &buf
	if _, _, cerr, serr := handshakePair(t, ccfg, testServerConfig(t)); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	f := strings.Fields(buf.String())
	if len(f) != 3 || f[0] != "CLIENT_RANDOM" || len(f[1]) != 64 || len(f[2]) != 96 {
		t.Fatalf("key log %q", buf.String())
	}
}

// fakeServer reads the ClientHello from the raw end c and answers with
// the handshake messages flight makes, one per record.
func fakeServer(t *testing.T, c net.Conn, flight func(ch *clientHelloMsg) []handshakeMessage) {
	t.Helper()
	go func() {
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return
		}
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		var ch clientHelloMsg
		if !ch.unmarshal(body) {
			return
		}
		for _, m := range flight(&ch) {
			b, err := m.marshal()
			if err != nil {
				return
			}
			c.Write(append([]byte{22, 1, 1, byte(len(b) >> 8), byte(len(b))}, b...))
		}
	}()
}

// readAlert returns the alert the client sent on c (after its own
// handshake messages), or -1.
func readAlert(c net.Conn) int {
	for {
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return -1
		}
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(c, body); err != nil {
			return -1
		}
		if hdr[0] == byte(recordTypeAlert) && len(body) == 2 {
			return int(body[1])
		}
	}
}

// TestClientRejectsBadServerFlights: fewer than two server certificates,
// ECDHE without CertificateRequest, an unoffered suite, a missing
// ServerKeyExchange.
func TestClientRejectsBadServerFlights(t *testing.T) {
	p := getPKI(t)
	hello := func(ch *clientHelloMsg, suite uint16) *serverHelloMsg {
		return &serverHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{}, cipherSuite: suite}
	}
	certs := &certificateMsg{certificates: [][]byte{p.server.Sign.Certificate[0], p.server.Enc.Certificate[0]}}
	tests := []struct {
		name    string
		suites  []uint16
		flight  func(ch *clientHelloMsg) []handshakeMessage
		wantErr string
		alert   alert
	}{
		{"one certificate", nil, func(ch *clientHelloMsg) []handshakeMessage {
			return []handshakeMessage{hello(ch, ciphersuite.ECC_SM4_GCM_SM3), &certificateMsg{certificates: [][]byte{p.server.Sign.Certificate[0]}}}
		}, "must send a signing and an encryption certificate", alertBadCertificate},
		{"swapped server certificates", nil, func(ch *clientHelloMsg) []handshakeMessage {
			return []handshakeMessage{hello(ch, ciphersuite.ECC_SM4_GCM_SM3), &certificateMsg{certificates: [][]byte{p.server.Enc.Certificate[0], p.server.Sign.Certificate[0]}}}
		}, "signing certificate", alertBadCertificate},
		{"suite not offered", []uint16{ciphersuite.ECC_SM4_GCM_SM3}, func(ch *clientHelloMsg) []handshakeMessage {
			return []handshakeMessage{hello(ch, ciphersuite.ECC_SM4_CBC_SM3)}
		}, "not offered", alertIllegalParameter},
		{"no ServerKeyExchange", nil, func(ch *clientHelloMsg) []handshakeMessage {
			return []handshakeMessage{hello(ch, ciphersuite.ECC_SM4_GCM_SM3), certs, &serverHelloDoneMsg{}}
		}, "expected ServerKeyExchange", alertUnexpectedMessage},
		{"ECDHE without CertificateRequest", nil, func(ch *clientHelloMsg) []handshakeMessage {
			sh := hello(ch, ciphersuite.ECDHE_SM4_GCM_SM3)
			skx, err := new(ecdheKeyAgreement).generateServerKeyExchange(&Config{}, &p.server, nil, ch.random, sh.random)
			if err != nil {
				panic(err)
			}
			return []handshakeMessage{sh, certs, skx, &serverHelloDoneMsg{}}
		}, "ECDHE suites require", alertHandshakeFailure},
		{"bad ServerKeyExchange signature", nil, func(ch *clientHelloMsg) []handshakeMessage {
			sh := hello(ch, ciphersuite.ECC_SM4_GCM_SM3)
			skx, _ := eccKeyAgreement{}.generateServerKeyExchange(&Config{}, &p.server, nil, sh.random, ch.random)
			return []handshakeMessage{sh, certs, skx, &serverHelloDoneMsg{}}
		}, "signature", alertDecryptError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := tcpPair(t)
			fakeServer(t, s, tt.flight)
			ccfg := testClientConfig(t)
			if tt.suites != nil {
				ccfg.CipherSuites = tt.suites
			}
			err := Client(c, ccfg).Handshake()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if got := readAlert(s); got != int(tt.alert) {
				t.Fatalf("client sent alert %d, want %d (%v)", got, tt.alert, tt.alert)
			}
		})
	}
}

// TestVerifyConnection: called on both sides, in full and resumed
// handshakes, and its error fails the handshake.
func TestVerifyConnection(t *testing.T) {
	var calls [2]int
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
	ccfg.VerifyConnection = func(cs ConnectionState) error {
		if cs.PeerSignCertificate == nil {
			return errors.New("no server certificate")
		}
		calls[0]++
		return nil
	}
	scfg.VerifyConnection = func(cs ConnectionState) error { calls[1]++; return nil }
	for range 2 {
		if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
	}
	if calls != [2]int{2, 2} {
		t.Fatalf("calls %v", calls)
	}
	scfg.VerifyConnection = func(cs ConnectionState) error { return errors.New("go away") }
	_, _, cerr, serr := handshakePair(t, ccfg, scfg)
	if serr == nil || !strings.Contains(serr.Error(), "go away") {
		t.Fatalf("server error %v", serr)
	}
	wantAlert(t, cerr, alertBadCertificate)
}

// TestServerAnswersRecordedClientHello: our server answers gotlcp's
// ClientHello with ServerHello, acknowledging only server_name.
func TestServerAnswersRecordedClientHello(t *testing.T) {
	c, s := tcpPair(t)
	go Server(s, testServerConfig(t)).Handshake()
	c.Write(unhex(t, gotlcpClientHello))
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(c, hdr); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	io.ReadFull(c, body)
	var sh serverHelloMsg
	if hdr[0] != 22 || !sh.unmarshal(body) {
		t.Fatalf("no ServerHello: %x %x", hdr, body)
	}
	if sh.cipherSuite != 0xe053 || !sh.serverNameAck || sh.alpnProtocol != "" || sh.unknownExtension || len(sh.sessionID) != 32 {
		t.Fatalf("%+v", sh)
	}
}

// TestSessionCacheLimits: the server keeps SessionCacheSize sessions and
// resumes only within SessionLifetime; the client ages sessions out too.
func TestSessionCacheLimits(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	scfg := testServerConfig(t)
	scfg.SessionCacheSize = 1
	scfg.SessionLifetime = time.Minute
	scfg.Time = clock
	newClient := func() *Config {
		c := testClientConfig(t)
		c.ClientSessionCache = NewLRUClientSessionCache(1)
		c.Time = clock
		return c
	}
	a, b := newClient(), newClient()
	handshake := func(cfg *Config) bool {
		client, _, cerr, serr := handshakePair(t, cfg, scfg)
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		return client.ConnectionState().DidResume
	}
	handshake(a)
	if !handshake(a) {
		t.Fatal("a did not resume")
	}
	handshake(b) // evicts a's session (size 1)
	if handshake(a) {
		t.Fatal("a resumed an evicted session")
	}
	now = now.Add(2 * time.Minute)
	if handshake(a) {
		t.Fatal("a resumed an expired session")
	}
	scfg.SessionCacheSize = -1
	scfg.serverCache = nil
	handshake(a)
	if handshake(a) {
		t.Fatal("resumed with the server cache disabled")
	}
}

// TestGetCertificateBySNI picks the pair by server name.
func TestGetCertificateBySNI(t *testing.T) {
	p := getPKI(t)
	scfg := testServerConfig(t)
	scfg.Certificates = nil
	var seen string
	scfg.GetCertificate = func(hi *ClientHelloInfo) (*CertificatePair, error) {
		seen = hi.ServerName
		if hi.ServerName != "tlcp.test" {
			return nil, errors.New("unknown host")
		}
		return &p.serverViaInter, nil
	}
	ccfg := testClientConfig(t)
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if seen != "tlcp.test" {
		t.Fatalf("GetCertificate saw %q", seen)
	}
	ccfg.ClientHelloNoExtensions = true
	if _, _, _, serr := handshakePair(t, ccfg, scfg); serr == nil || !strings.Contains(serr.Error(), "unknown host") {
		t.Fatalf("server error %v", serr)
	}
}

// TestClientChainWithIntermediate: a client whose certificates chain
// through an intermediate it sends is verified.
func TestClientChainWithIntermediate(t *testing.T) {
	p := getPKI(t)
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_GCM_SM3} {
		scfg := testServerConfig(t)
		scfg.ClientAuth = RequireAndVerifyClientCert
		ccfg := testClientConfig(t)
		ccfg.CipherSuites = []uint16{suite}
		ccfg.Certificates = []CertificatePair{p.serverViaInter} // has serverAuth only
		_, _, _, serr := handshakePair(t, ccfg, scfg)
		if serr == nil {
			t.Fatal("a certificate without clientAuth was accepted for a client")
		}
		cp := makePair(t, "client2.test", smx509.ExtKeyUsageClientAuth, p.intermediate, p.intermediateKey, p.intermediate, p.ca)
		ccfg.Certificates = []CertificatePair{cp}
		client, server, cerr, serr := handshakePair(t, ccfg, scfg)
		if cerr != nil || serr != nil {
			t.Fatal(cerr, serr)
		}
		if n := len(server.ConnectionState().VerifiedChains[0]); n != 3 {
			t.Fatalf("chain of %d", n)
		}
		exchange(t, client, server, 10)
	}
}

// TestEncCertOtherEntity: a server whose encryption certificate belongs to
// a different entity is refused (D16), unless verification is skipped.
func TestEncCertOtherEntity(t *testing.T) {
	p := getPKI(t)
	cert, key := mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: "someone.else"},
		DNSNames:              []string{"someone.else"},
		KeyUsage:              smx509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}, p.ca, p.caKey)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{{Sign: p.server.Sign, Enc: Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}}}
	_, _, cerr, _ := handshakePair(t, testClientConfig(t), scfg)
	if cerr == nil || !strings.Contains(cerr.Error(), "different entities") {
		t.Fatalf("client error %v", cerr)
	}
	ccfg := testClientConfig(t)
	ccfg.InsecureSkipVerify = true
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
}

// TestClientAcceptsEncCertLast: a TASSL-style server list SIGN | CA | ENC
// is understood end to end: the client verifies it, checks the
// ServerKeyExchange over the right certificate and sends its key exchange.
func TestClientAcceptsEncCertLast(t *testing.T) {
	p := getPKI(t)
	pair := p.serverViaInter
	c, s := tcpPair(t)
	helloRead := make(chan struct{})
	fakeServer(t, s, func(ch *clientHelloMsg) []handshakeMessage {
		defer close(helloRead)
		sh := &serverHelloMsg{vers: VersionTLCP, random: make([]byte, 32), sessionID: []byte{}, cipherSuite: ciphersuite.ECC_SM4_GCM_SM3}
		skx, err := eccKeyAgreement{}.generateServerKeyExchange(&Config{}, &pair, nil, ch.random, sh.random)
		if err != nil {
			panic(err)
		}
		certs := &certificateMsg{certificates: [][]byte{pair.Sign.Certificate[0], p.intermediate.Raw, pair.Enc.Certificate[0]}}
		return []handshakeMessage{sh, certs, skx, &serverHelloDoneMsg{}}
	})
	errc := make(chan error, 1)
	go func() { errc <- Client(c, testClientConfig(t)).Handshake() }()
	<-helloRead
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(s, hdr); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	io.ReadFull(s, body)
	if hdr[0] != byte(recordTypeHandshake) || body[0] != typeClientKeyExchange {
		t.Fatalf("client sent %x %x, want ClientKeyExchange", hdr, body)
	}
	// The ciphertext is for the encryption certificate, the last one.
	var ckx clientKeyExchangeMsg
	if !ckx.unmarshal(body) {
		t.Fatal("bad ClientKeyExchange")
	}
	pm, err := decryptPremaster(&Config{}, pair.Enc.PrivateKey, ckx.ciphertext)
	if err != nil || len(pm) != 48 || pm[0] != 1 || pm[1] != 1 {
		t.Fatalf("premaster %x, %v", pm, err)
	}
	s.Close()
	<-errc
}
