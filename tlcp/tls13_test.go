// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"golang.org/x/crypto/cryptobyte"
)

func tls13ClientConfig(t testing.TB) *Config {
	cfg := testClientConfig(t)
	cfg.MinVersion = VersionTLS13
	cfg.MaxVersion = VersionTLS13
	return cfg
}

// handshake13 runs a handshake between a client and a server over TCP.
func handshake13(t testing.TB, ccfg, scfg *Config) (client, server *Conn, cerr, serr error) {
	t.Helper()
	c, s := tcpPair(t)
	client, server = Client(c, ccfg), Server(s, scfg)
	done := make(chan error, 1)
	go func() { done <- server.Handshake() }()
	cerr = client.Handshake()
	if cerr != nil {
		// The server may wait for a flight that will not come.
		s.SetReadDeadline(time.Now().Add(2 * time.Second))
	}
	serr = <-done
	return
}

func mustHandshake13(t testing.TB, ccfg, scfg *Config) (*Conn, *Conn) {
	t.Helper()
	client, server, cerr, serr := handshake13(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
	return client, server
}

// readTickets lets the client take in what the server sent after its
// Finished (the NewSessionTicket) by exchanging a little data.
func readTickets(t testing.TB, client, server *Conn) {
	t.Helper()
	exchange(t, client, server, 10)
}

// TestTLS13Matrix runs our client against our server for both suites,
// with and without client authentication, full and resumed, with and
// without middlebox compatibility, from a TLS 1.3-only client and from
// one that offers TLCP as well.
func TestTLS13Matrix(t *testing.T) {
	p := getPKI(t)
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		for _, auth := range []ClientAuthType{NoClientCert, RequestClientCert, RequireAndVerifyClientCert} {
			for _, both := range []bool{false, true} {
				for _, noCompat := range []bool{false, true} {
					name := fmt.Sprintf("%s/%v/both=%v/nocompat=%v", ciphersuite.Name(id), auth, both, noCompat)
					t.Run(name, func(t *testing.T) {
						scfg := testServerConfig(t)
						scfg.ClientAuth = auth
						scfg.NextProtos = []string{"h2", "http/1.1"}
						ccfg := tls13ClientConfig(t)
						ccfg.CipherSuites = []uint16{id}
						if both {
							ccfg.MinVersion = VersionTLCP
							ccfg.CipherSuites = append(ccfg.CipherSuites, ciphersuite.ECC_SM4_GCM_SM3)
						}
						ccfg.NextProtos = []string{"http/1.1"}
						ccfg.TLS13NoMiddleboxCompat = noCompat
						ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
						for i, wantResume := range []bool{false, true} {
							client, server := mustHandshake13(t, ccfg, scfg)
							cs, ss := client.ConnectionState(), server.ConnectionState()
							for side, st := range map[string]ConnectionState{"client": cs, "server": ss} {
								if st.Version != VersionTLS13 || st.CipherSuite != id || st.DidResume != wantResume ||
									st.NegotiatedProtocol != "http/1.1" || !st.HandshakeComplete {
									t.Fatalf("handshake %d: %s state %+v", i, side, st)
								}
							}
							if cs.PeerSignCertificate == nil || !cs.PeerSignCertificate.Equal(p.server.Sign.Leaf) ||
								cs.PeerEncCertificate != nil || len(cs.VerifiedChains) == 0 {
								t.Fatalf("handshake %d: client's view of the server: %+v", i, cs)
							}
							if ss.ServerName != "tlcp.test" {
								t.Errorf("server name %q", ss.ServerName)
							}
							if auth == NoClientCert {
								if ss.PeerSignCertificate != nil {
									t.Fatal("client certificate without a request")
								}
							} else if ss.PeerSignCertificate == nil || !ss.PeerSignCertificate.Equal(p.client.Sign.Leaf) {
								t.Fatalf("handshake %d: server's view of the client: %+v", i, ss)
							}
							if (auth == RequireAndVerifyClientCert) != (len(ss.VerifiedChains) > 0) {
								t.Fatalf("handshake %d: client chains %v under %v", i, ss.VerifiedChains, auth)
							}
							readTickets(t, client, server)
						}
					})
				}
			}
		}
	}
}

// TestTLS13BulkAndKeyUpdate moves data both ways across automatic and
// requested KeyUpdates.
func TestTLS13BulkAndKeyUpdate(t *testing.T) {
	defer func(n uint64) { keyUpdateInterval = n }(keyUpdateInterval)
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		t.Run(ciphersuite.Name(id), func(t *testing.T) {
			keyUpdateInterval = 5
			ccfg := tls13ClientConfig(t)
			ccfg.CipherSuites = []uint16{id}
			client, server := mustHandshake13(t, ccfg, testServerConfig(t))
			first := client.out.secret13
			exchange(t, client, server, 200000) // 13 records each way: two updates each
			// The last KeyUpdates follow the data; one more exchange,
			// without updates, takes them in.
			keyUpdateInterval = 1 << 24
			exchange(t, client, server, 10)
			if bytes.Equal(first, client.out.secret13) || !bytes.Equal(client.out.secret13, server.in.secret13) ||
				!bytes.Equal(server.out.secret13, client.in.secret13) {
				t.Fatal("automatic KeyUpdate did not move both sides to the same keys")
			}
			// A requested update: the peer answers with its own.
			before := server.out.secret13
			client.out.Lock()
			err := client.updateWriteKeyLocked(true)
			client.out.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			exchange(t, client, server, 1000)
			if bytes.Equal(before, server.out.secret13) || !bytes.Equal(server.out.secret13, client.in.secret13) {
				t.Fatal("the server did not answer update_requested")
			}
			exchange(t, client, server, 1000)
		})
	}
}

// TestTLS13KeyUpdateFlood: KeyUpdates with nothing between them are cut
// off after maxKeyUpdatesInARow.
func TestTLS13KeyUpdateFlood(t *testing.T) {
	client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
	go func() {
		server.out.Lock()
		defer server.out.Unlock()
		for range maxKeyUpdatesInARow + 1 {
			if server.updateWriteKeyLocked(false) != nil {
				return
			}
		}
	}()
	_, err := client.Read(make([]byte, 1))
	if err == nil || !strings.Contains(err.Error(), "KeyUpdates with nothing between them") {
		t.Fatalf("Read: %v", err)
	}
}

// TestTLS13HelloRetryRequest: a ClientHello without a curveSM2 share gets
// a HelloRetryRequest, for full and resumed handshakes (the binder then
// covers the retry), with and without compatibility mode; and a client
// answers a HelloRetryRequest that carries a cookie, in both kinds of
// handshake.
func TestTLS13HelloRetryRequest(t *testing.T) {
	for _, noCompat := range []bool{false, true} {
		scfg := testServerConfig(t)
		var ticket *ticket13
		for i, resume := range []bool{false, true} {
			s := newClient13()
			s.omitKeyShare, s.noCompat, s.ticket = true, noCompat, ticket
			server, cerr, serr := s.againstServer(t, scfg)
			if cerr != nil || serr != nil {
				t.Fatalf("nocompat=%v handshake %d: client %v, server %v", noCompat, i, cerr, serr)
			}
			if !s.hrr || s.usedPSK != resume || server.ConnectionState().DidResume != resume {
				t.Fatalf("nocompat=%v handshake %d: retried %v, resumed %v", noCompat, i, s.hrr, s.usedPSK)
			}
			ticket = s.takeTicket(t, server)
		}
	}
	for _, noCompat := range []bool{false, true} {
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		ccfg.TLS13NoMiddleboxCompat = noCompat
		scfg := testServerConfig(t)
		scfg.SetSessionCacheKeys([][32]byte{{7}})
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		for i, resume := range []bool{false, true} {
			s := newServer13(&getPKI(t).server)
			s.hrrCookie = []byte("cookie")
			if resume {
				s.ticketKeys = scfg
			}
			client, cerr, serr := s.againstClient(t, ccfg)
			if cerr != nil || serr != nil {
				t.Fatalf("nocompat=%v cookie handshake %d: client %v, server %v", noCompat, i, cerr, serr)
			}
			if client.ConnectionState().DidResume != resume {
				t.Fatalf("nocompat=%v cookie handshake %d: resumed = %v", noCompat, i, client.ConnectionState().DidResume)
			}
			if resume {
				continue
			}
			// The scripted server sends no ticket; the cached one stays.
			ccfg.ClientSessionCache.Put("tlcp.test", nil)
			client, server = mustHandshake13(t, ccfg, scfg)
			readTickets(t, client, server)
		}
	}
}

// TestTLS13ClientAuthPolicies checks what a server accepts from a client
// without a certificate, with an unverifiable one, and its alerts.
func TestTLS13ClientAuthPolicies(t *testing.T) {
	p := getPKI(t)
	noCert := tls13ClientConfig(t)
	noCert.Certificates = nil
	otherCA := tls13ClientConfig(t)
	otherCA.Certificates = []CertificatePair{{Sign: p.serverOtherCA.Sign}}
	for _, c := range []struct {
		policy ClientAuthType
		client *Config
		alert  alert // 0: success
	}{
		{RequireAnyClientCert, noCert, alertCertificateRequired},
		{RequireAndVerifyClientCert, noCert, alertCertificateRequired},
		{VerifyClientCertIfGiven, noCert, 0},
		{RequestClientCert, noCert, 0},
		{RequireAndVerifyClientCert, otherCA, alertUnknownCA},
		{RequireAnyClientCert, otherCA, 0},
		{RequireAndVerifyClientCert, tls13ClientConfig(t), 0},
	} {
		scfg := testServerConfig(t)
		scfg.ClientAuth = c.policy
		_, _, cerr, serr := handshake13(t, c.client, scfg)
		if c.alert == 0 {
			if cerr != nil || serr != nil {
				t.Errorf("%v: client %v, server %v", c.policy, cerr, serr)
			}
			continue
		}
		wantAlert(t, serr, c.alert)
		if cerr != nil {
			// The client finished before the alert, or read it.
			wantAlert(t, cerr, c.alert)
		}
	}
}

// TestTLS13NoCommonParameters: no shared suite, group or signature scheme,
// and each side's version limits.
func TestTLS13NoCommonParameters(t *testing.T) {
	// Version limits.
	tlcpOnly := testServerConfig(t)
	tlcpOnly.MaxVersion = VersionTLCP
	_, _, cerr, serr := handshake13(t, tls13ClientConfig(t), tlcpOnly)
	wantAlert(t, serr, alertProtocolVersion)
	wantAlert(t, cerr, alertProtocolVersion)

	tls13Only := testServerConfig(t)
	tls13Only.MinVersion = VersionTLS13
	_, _, cerr, serr = handshake13(t, testClientConfig(t), tls13Only)
	wantAlert(t, serr, alertProtocolVersion)
	wantAlert(t, cerr, alertProtocolVersion)
	if serr == nil || !strings.Contains(serr.Error(), "offers only TLCP") {
		t.Errorf("server error %v", serr)
	}

	// No common suite.
	scfg := testServerConfig(t)
	scfg.CipherSuites = []uint16{ciphersuite.TLS_SM4_CCM_SM3, ciphersuite.ECC_SM4_GCM_SM3}
	ccfg := tls13ClientConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.TLS_SM4_GCM_SM3}
	_, _, cerr, serr = handshake13(t, ccfg, scfg)
	wantAlert(t, serr, alertHandshakeFailure)
	wantAlert(t, cerr, alertHandshakeFailure)

	// Unknown groups and signature schemes, from a hand-made ClientHello.
	for _, c := range []struct {
		name  string
		edit  func(*clientHelloMsg)
		alert alert
	}{
		{"no curveSM2 in supported_groups", func(h *clientHelloMsg) {
			h.tls13.supportedGroups = []uint16{29, 23}
			h.tls13.keyShares = []keyShare{{group: 29, data: make([]byte, 32)}}
		}, alertHandshakeFailure},
		{"no supported_groups", func(h *clientHelloMsg) { h.tls13.supportedGroups = nil }, alertMissingExtension},
		{"no sm2sig_sm3", func(h *clientHelloMsg) { h.tls13.signatureAlgorithms = []uint16{0x0403, 0x0804} }, alertHandshakeFailure},
		{"no signature_algorithms", func(h *clientHelloMsg) { h.tls13.signatureAlgorithms = nil }, alertMissingExtension},
		{"key share for a group not in supported_groups", func(h *clientHelloMsg) {
			h.tls13.supportedGroups = []uint16{uint16(CurveSM2)}
		}, alertIllegalParameter},
		{"compression methods", func(h *clientHelloMsg) { h.compressionMethods = []uint8{1, 0} }, alertIllegalParameter},
		{"PSK without psk_key_exchange_modes", func(h *clientHelloMsg) {
			h.tls13.pskIdentities = []pskIdentity{{label: []byte("ticket")}}
		}, alertMissingExtension},
		{"TLS 1.2 only", func(h *clientHelloMsg) { h.tls13.supportedVersions = []uint16{0x0303} }, alertProtocolVersion},
	} {
		t.Run(c.name, func(t *testing.T) {
			hello := rawTLS13Hello(t)
			c.edit(hello)
			got, err := serverAnswer(t, testServerConfig(t), hello, 0x0301)
			wantAlert(t, err, c.alert)
			if len(got) < 7 || got[0] != byte(recordTypeAlert) || got[1] != 3 || got[6] != byte(c.alert) {
				t.Errorf("server sent %x, want a %v alert in a TLS record", got, c.alert)
			}
		})
	}
}

// TestTLS13IllegalClientHello: a ClientHello that parses but breaks a rule
// of RFC 8446 is illegal_parameter, before and after a HelloRetryRequest.
func TestTLS13IllegalClientHello(t *testing.T) {
	psk := func(ids, binders int) []byte {
		var b cryptobyte.Builder
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for range ids {
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte("ticket")) })
				b.AddUint32(0)
			}
		})
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for range binders {
				b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(make([]byte, 32)) })
			}
		})
		return b.BytesOrPanic()
	}
	for _, c := range []struct {
		name  string
		hello func(*clientHelloMsg) []byte
		want  string
	}{
		{"pre_shared_key not last", func(h *clientHelloMsg) []byte {
			b, _ := h.marshal()
			b = appendExtension(b, helloExtensionsOffset(b), extensionPreSharedKey, psk(1, 1))
			return appendExtension(b, helloExtensionsOffset(b), 0xFF00, nil)
		}, "not its last extension"},
		{"more identities than binders", func(h *clientHelloMsg) []byte {
			b, _ := h.marshal()
			return appendExtension(b, helloExtensionsOffset(b), extensionPreSharedKey, psk(2, 1))
		}, "2 identities and 1 binders"},
		{"more binders than identities", func(h *clientHelloMsg) []byte {
			b, _ := h.marshal()
			return appendExtension(b, helloExtensionsOffset(b), extensionPreSharedKey, psk(1, 2))
		}, "1 identities and 2 binders"},
		{"two curveSM2 shares", func(h *clientHelloMsg) []byte {
			h.tls13.keyShares = append(h.tls13.keyShares, h.tls13.keyShares[0])
			b, _ := h.marshal()
			return b
		}, "two key shares for one group"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hello := rawTLS13Hello(t)
			hello.tls13.pskModes = []uint8{pskModeDHE}
			hello.original = nil
			got, err := serverAnswerBytes(t, testServerConfig(t), c.hello(hello), 0x0301)
			wantAlert(t, err, alertIllegalParameter)
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("server error %v", err)
			}
			if len(got) < 7 || got[0] != byte(recordTypeAlert) || got[6] != byte(alertIllegalParameter) {
				t.Errorf("server sent %x, want an illegal_parameter alert", got)
			}
		})
	}
	// The second ClientHello is held to the same rules.
	s := newClient13()
	s.omitKeyShare = true
	c, sc := tcpPair(t)
	server := Server(sc, testServerConfig(t))
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	s.attach(c)
	if err := s.sendHello(); err != nil {
		t.Fatal(err)
	}
	if _, err := expect[*serverHelloMsg](s.peer13); err != nil {
		t.Fatal(err)
	}
	h := s.hello
	h.tls13.keyShares = nil
	s.newShare(h, CurveSM2)
	h.tls13.keyShares = append(h.tls13.keyShares, h.tls13.keyShares[0])
	h.original = nil
	s.send(h)
	if err := s.readAlert(); err != AlertError(alertIllegalParameter) {
		t.Errorf("client read %v, want illegal_parameter", err)
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "two key shares") {
		t.Errorf("server error %v", err)
	}
}

// rawTLS13Hello makes a TLS 1.3 ClientHello as our client would, for tests
// to edit.
func rawTLS13Hello(t testing.TB) *clientHelloMsg {
	t.Helper()
	c := Client(nil, tls13ClientConfig(t))
	c.config = tls13ClientConfig(t)
	hello, err := c.makeClientHello()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.offerTLS13(context.Background(), hello); err != nil {
		t.Fatal(err)
	}
	return hello
}

// serverAnswer sends hello to a server and returns the bytes it sent back
// and its handshake error.
func serverAnswer(t testing.TB, scfg *Config, hello *clientHelloMsg, recordVers uint16) ([]byte, error) {
	t.Helper()
	hello.original = nil
	b, err := hello.marshal()
	if err != nil {
		t.Fatal(err)
	}
	return serverAnswerBytes(t, scfg, b, recordVers)
}

// serverAnswerBytes is serverAnswer for a marshalled hello.
func serverAnswerBytes(t testing.TB, scfg *Config, b []byte, recordVers uint16) ([]byte, error) {
	t.Helper()
	c, s := tcpPair(t)
	server := Server(s, scfg)
	errc := make(chan error, 1)
	go func() {
		err := server.Handshake()
		s.Close()
		errc <- err
	}()
	c.Write(append([]byte{22, byte(recordVers >> 8), byte(recordVers), byte(len(b) >> 8), byte(len(b))}, b...))
	if recordVers == VersionTLCP {
		// Read the ServerHello only: the server waits for the client.
		hdr := make([]byte, 5)
		io.ReadFull(c, hdr)
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		io.ReadFull(c, body)
		c.Close()
		<-errc
		return append(hdr, body...), nil
	}
	got, _ := io.ReadAll(c)
	return got, <-errc
}

// TestTLS13BadFinishedAndCertificateVerify: a tampered Finished or
// CertificateVerify from either side is decrypt_error; a scheme that was
// not offered is illegal_parameter; so is a ServerHello that selects
// another version, and an extension the client never offered in
// EncryptedExtensions is unsupported_extension.
func TestTLS13BadFinishedAndCertificateVerify(t *testing.T) {
	p := getPKI(t)
	scfg := testServerConfig(t)
	scfg.ClientAuth = RequireAndVerifyClientCert
	for _, c := range []struct {
		name   string
		client func(*client13) // a scripted client against a real server
		server func(*server13) // a scripted server against a real client
		alert  alert
	}{
		{"server Finished", nil, func(s *server13) { s.corruptFin = true }, alertDecryptError},
		{"client Finished", func(s *client13) { s.corruptFin = true }, nil, alertDecryptError},
		{"server CertificateVerify", nil, func(s *server13) { s.corruptCV = true }, alertDecryptError},
		{"client CertificateVerify", func(s *client13) { s.corruptCV = true }, nil, alertDecryptError},
		{"server scheme", nil, func(s *server13) { s.cvScheme = 0x0403 }, alertIllegalParameter},
		{"client scheme", func(s *client13) { s.cvScheme = 0x0807 }, nil, alertIllegalParameter},
		{"server supported_versions", nil, func(s *server13) { s.selectedVersion = 0x0303 }, alertIllegalParameter},
		{"server extension", nil, func(s *server13) { s.extraEE = 0xFF01 }, alertUnsupportedExtension},
		{"server early_data", nil, func(s *server13) { s.extraEE = extensionEarlyData }, alertUnsupportedExtension},
		// RFC 8446 §4.3.1: an extension that belongs elsewhere.
		{"key_share in EncryptedExtensions", nil, func(s *server13) { s.extraEE = extensionKeyShare }, alertIllegalParameter},
		{"supported_versions in EncryptedExtensions", nil, func(s *server13) {
			s.extraEE, s.extraEEBody = extensionSupportedVersions, []byte{3, 4}
		}, alertIllegalParameter},
		// ALPN that the client never offered (tls13ClientConfig has no
		// NextProtos).
		{"ALPN not offered", nil, func(s *server13) {
			s.extraEE, s.extraEEBody = extensionALPN, []byte{0, 3, 2, 'h', '2'}
		}, alertUnsupportedExtension},
		// RFC 8446 §4.2: an extension the client knows, in a ServerHello
		// that may not carry it.
		{"supported_groups in ServerHello", nil, func(s *server13) { s.extraSH = extensionSupportedGroups }, alertIllegalParameter},
		{"unknown extension in ServerHello", nil, func(s *server13) { s.extraSH = 0xFF02 }, alertUnsupportedExtension},
		// RFC 8446 §4.3.2: signature_algorithms is mandatory, §6.2.
		{"CertificateRequest without signature_algorithms", nil, func(s *server13) {
			s.certRequest = []byte{typeCertificateRequest, 0, 0, 3, 0, 0, 0}
		}, alertMissingExtension},
		// RFC 8446 §4.4.2: an OCSP response that was not requested.
		{"server CertificateEntry extension", nil, func(s *server13) { s.entryExt = 5 }, alertUnsupportedExtension},
		{"client CertificateEntry extension", func(s *client13) { s.entryExt = 5 }, nil, alertUnsupportedExtension},
		{"key_share in CertificateRequest", nil, func(s *server13) {
			s.certRequest = []byte{typeCertificateRequest, 0, 0, 15, 0, 0, 12,
				0, 13, 0, 4, 0, 2, 7, 8, // signature_algorithms: sm2sig_sm3
				0, 51, 0, 0} // key_share
		}, alertIllegalParameter},
	} {
		t.Run(c.name, func(t *testing.T) {
			var detector, other error
			if c.client != nil {
				s := newClient13()
				s.cert = &p.client.Sign
				c.client(s)
				_, other, detector = s.againstServer(t, scfg)
			} else {
				s := newServer13(&p.server)
				c.server(s)
				_, detector, other = s.againstClient(t, tls13ClientConfig(t))
			}
			var pe *protocolError
			if !errors.As(detector, &pe) || pe.alert != c.alert {
				t.Fatalf("error %v, want a local %v", detector, c.alert)
			}
			wantAlert(t, other, c.alert)
		})
	}
}

// TestTLS13BadServerHello: a client refuses a ServerHello or a
// HelloRetryRequest whose fields or extensions TLS 1.3 forbids (RFC 8446
// §4.1.3, §4.1.4), each with the alert the RFC names.
func TestTLS13BadServerHello(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*serverHelloMsg)
		alert alert
	}{
		{"legacy_version", func(h *serverHelloMsg) { h.vers = 0x0301 }, alertIllegalParameter},
		{"compression", func(h *serverHelloMsg) { h.compressionMethod = 1 }, alertIllegalParameter},
		{"session ID not echoed", func(h *serverHelloMsg) { h.sessionID = []byte{1} }, alertIllegalParameter},
		{"suite not offered", func(h *serverHelloMsg) { h.cipherSuite = ciphersuite.ECC_SM4_GCM_SM3 }, alertIllegalParameter},
		{"server_name in ServerHello", func(h *serverHelloMsg) { h.serverNameAck = true }, alertIllegalParameter},
		{"cookie in ServerHello", func(h *serverHelloMsg) { h.tls13.cookie = []byte{1} }, alertIllegalParameter},
		{"other group", func(h *serverHelloMsg) { h.tls13.serverShare.group = 29 }, alertIllegalParameter},
		{"PSK not offered", func(h *serverHelloMsg) { h.tls13.selectedPSK = true }, alertIllegalParameter},
		{"TLCP suite with TLS 1.3", func(h *serverHelloMsg) { h.tls13.supportedVersion = VersionTLCP }, alertIllegalParameter},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer13(&getPKI(t).server)
			s.afterServerHello = c.edit
			_, cerr, serr := s.againstClient(t, tls13ClientConfig(t))
			var pe *protocolError
			if !errors.As(cerr, &pe) || pe.alert != c.alert {
				t.Fatalf("client error %v, want a local %v", cerr, c.alert)
			}
			wantAlert(t, serr, c.alert)
		})
	}
	// HelloRetryRequests that a client must refuse (RFC 8446 §4.1.4).
	for _, c := range []struct {
		name   string
		edit   func(*serverHelloMsg)
		second bool
		alert  alert
	}{
		{"HelloRetryRequest for the share that was sent", func(h *serverHelloMsg) { h.tls13.selectedGroup = uint16(CurveSM2) }, false, alertIllegalParameter},
		{"HelloRetryRequest for another group", func(h *serverHelloMsg) { h.tls13.selectedGroup = 29 }, false, alertIllegalParameter},
		{"HelloRetryRequest asking for nothing", func(*serverHelloMsg) {}, false, alertIllegalParameter},
		{"HelloRetryRequest with a PSK", func(h *serverHelloMsg) {
			h.tls13.cookie, h.tls13.selectedPSK = []byte{1}, true
		}, false, alertIllegalParameter},
		{"second HelloRetryRequest", func(h *serverHelloMsg) { h.tls13.cookie = []byte{1} }, true, alertUnexpectedMessage},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer13(&getPKI(t).server)
			s.editHRR, s.secondHRR = c.edit, c.second
			if c.second {
				s.hrrCookie = []byte{1}
			}
			_, cerr, serr := s.againstClient(t, tls13ClientConfig(t))
			var pe *protocolError
			if !errors.As(cerr, &pe) || pe.alert != c.alert {
				t.Fatalf("client error %v, want a local %v", cerr, c.alert)
			}
			wantAlert(t, serr, c.alert)
		})
	}
}

// TestTLS13SM2ID: CertificateVerify uses RFC 8998's ID; a peer signing
// with the default ID is refused unless TLS13DefaultSM2ID is set.
func TestTLS13SM2ID(t *testing.T) {
	ccfg := tls13ClientConfig(t)
	scfg := testServerConfig(t)
	scfg.TLS13DefaultSM2ID = true // signs with 1234567812345678
	_, _, cerr, _ := handshake13(t, ccfg, scfg)
	wantAlert(t, cerr, alertDecryptError)
	if !strings.Contains(cerr.Error(), TLS13SM2ID) {
		t.Errorf("error %v does not name the ID", cerr)
	}
	ccfg.TLS13DefaultSM2ID = true // accepts both
	mustHandshake13(t, ccfg, scfg)
	scfg.TLS13DefaultSM2ID = false
	mustHandshake13(t, ccfg, scfg)

	// What the server signs verifies with RFC 8998's ID and no other.
	msg := certificateVerifyContext(true, make([]byte, 32))
	key := getPKI(t).server.Sign.PrivateKey.(*sm2.PrivateKey)
	sig, err := signTLS13(nil, key, msg, scfg.tls13SignID())
	if err != nil {
		t.Fatal(err)
	}
	if !sm2.VerifyASN1(key.PublicKey(), msg, []byte("TLSv1.3+GM+Cipher+Suite"), sig) ||
		sm2.VerifyASN1(key.PublicKey(), msg, nil, sig) {
		t.Error("CertificateVerify is not signed with RFC 8998's ID alone")
	}
}

// TestTLS13Resumption covers what may and may not be resumed.
func TestTLS13Resumption(t *testing.T) {
	t.Run("ticket after an empty Write", func(t *testing.T) {
		ccfg := tls13ClientConfig(t)
		cache := NewLRUClientSessionCache(2)
		ccfg.ClientSessionCache = cache
		client, server := mustHandshake13(t, ccfg, testServerConfig(t))
		if _, err := server.Write(nil); err != nil {
			t.Fatal(err)
		}
		client.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		client.Read(make([]byte, 1)) // times out, having taken in the ticket
		if s, ok := cache.Get("tlcp.test"); !ok || s == nil || s.vers != VersionTLS13 {
			t.Fatal("no ticket after the server's empty Write")
		}
	})
	t.Run("tickets disabled", func(t *testing.T) {
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		scfg := testServerConfig(t)
		scfg.SessionTicketsDisabled = true
		for range 2 {
			client, server := mustHandshake13(t, ccfg, scfg)
			readTickets(t, client, server)
			if client.ConnectionState().DidResume {
				t.Fatal("resumed without tickets")
			}
		}
	})
	t.Run("other server key", func(t *testing.T) {
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		client, server := mustHandshake13(t, ccfg, testServerConfig(t))
		readTickets(t, client, server)
		client, _ = mustHandshake13(t, ccfg, testServerConfig(t)) // a new random ticket key
		if client.ConnectionState().DidResume {
			t.Fatal("resumed with a ticket sealed by another key")
		}
	})
	t.Run("shared and rotated keys", func(t *testing.T) {
		k1, k2 := [32]byte{1}, [32]byte{2}
		s1, s2 := testServerConfig(t), testServerConfig(t)
		s1.SetSessionCacheKeys([][32]byte{k1})
		s2.SetSessionCacheKeys([][32]byte{k2, k1})
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		client, server := mustHandshake13(t, ccfg, s1)
		readTickets(t, client, server)
		client, server = mustHandshake13(t, ccfg, s2)
		if !client.ConnectionState().DidResume {
			t.Fatal("the second server did not resume the first one's ticket")
		}
		readTickets(t, client, server)
		client, _ = mustHandshake13(t, ccfg, s1)
		if client.ConnectionState().DidResume {
			t.Fatal("a ticket sealed with k2 opened where only k1 is known")
		}
	})
	t.Run("expired", func(t *testing.T) {
		now := time.Now()
		clock := func() time.Time { return now }
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		ccfg.Time = clock
		scfg := testServerConfig(t)
		scfg.Time = clock
		scfg.SessionLifetime = time.Minute
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		now = now.Add(2 * time.Minute)
		if client, _ = mustHandshake13(t, ccfg, scfg); client.ConnectionState().DidResume {
			t.Fatal("resumed an expired ticket")
		}
	})
	t.Run("server expires it first", func(t *testing.T) {
		now := time.Now()
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		scfg := testServerConfig(t)
		scfg.Time = func() time.Time { return now }
		scfg.SessionLifetime = time.Minute
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		now = now.Add(2 * time.Minute) // only the server's clock moves
		if client, _ = mustHandshake13(t, ccfg, scfg); client.ConnectionState().DidResume {
			t.Fatal("the server resumed an expired ticket")
		}
	})
	t.Run("bad binder", func(t *testing.T) {
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		scfg := testServerConfig(t)
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		s := newClient13()
		s.ticket, s.corruptBind = ticketFrom(t, scfg), true
		_, cerr, serr := s.againstServer(t, scfg)
		wantAlert(t, serr, alertDecryptError)
		wantAlert(t, cerr, alertDecryptError)
		// The alert a client gets for its hello drops the ticket it
		// offered from its cache.
		sc := newServer13(&getPKI(t).server)
		sc.rejectHello = alertDecryptError
		_, cerr, _ = sc.againstClient(t, ccfg)
		wantAlert(t, cerr, alertDecryptError)
		if s, ok := ccfg.ClientSessionCache.Get("tlcp.test"); ok && s != nil {
			t.Error("the ticket survived a fatal alert")
		}
	})
	t.Run("policy now requires a certificate", func(t *testing.T) {
		ccfg := tls13ClientConfig(t)
		ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
		scfg := testServerConfig(t)
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		scfg2 := scfg.Clone()
		scfg2.ClientAuth = RequireAndVerifyClientCert
		client, server = mustHandshake13(t, ccfg, scfg2)
		if client.ConnectionState().DidResume || server.ConnectionState().PeerSignCertificate == nil {
			t.Fatal("a session without a client certificate satisfied RequireAndVerifyClientCert")
		}
		readTickets(t, client, server)
		// That session has a verified certificate and resumes with it.
		client, server = mustHandshake13(t, ccfg, scfg2)
		if !client.ConnectionState().DidResume || server.ConnectionState().PeerSignCertificate == nil ||
			len(server.ConnectionState().VerifiedChains) == 0 {
			t.Fatalf("resumption with a client certificate: %+v", server.ConnectionState())
		}
	})
	t.Run("other server name", func(t *testing.T) {
		ccfg := tls13ClientConfig(t)
		cache := NewLRUClientSessionCache(2)
		ccfg.ClientSessionCache = cache
		scfg := testServerConfig(t)
		client, server := mustHandshake13(t, ccfg, scfg)
		readTickets(t, client, server)
		s, _ := cache.Get("tlcp.test")
		cache.Put("other.test", s)
		ccfg2 := ccfg.Clone()
		ccfg2.ServerName = "other.test"
		ccfg2.InsecureSkipVerify = true
		if client, _ = mustHandshake13(t, ccfg2, scfg); client.ConnectionState().DidResume {
			t.Fatal("a ticket for tlcp.test resumed for other.test")
		}
	})
	t.Run("TLCP and TLS 1.3 sessions share the cache", func(t *testing.T) {
		cache := NewLRUClientSessionCache(2)
		ccfg := testClientConfig(t)
		ccfg.ClientSessionCache = cache
		ccfg.MaxVersion = VersionTLS13
		scfg := testServerConfig(t)
		client, server := mustHandshake13(t, ccfg, scfg) // TLS 1.3 with the TLCP suites offered too
		readTickets(t, client, server)
		tlcpOnly := scfg.Clone()
		tlcpOnly.MaxVersion = VersionTLCP
		client, _ = mustHandshake13(t, ccfg, tlcpOnly)
		if st := client.ConnectionState(); st.Version != VersionTLCP || st.DidResume {
			t.Fatalf("TLCP after a TLS 1.3 ticket: %+v", st)
		}
		client, _ = mustHandshake13(t, ccfg, tlcpOnly)
		if st := client.ConnectionState(); st.Version != VersionTLCP || !st.DidResume {
			t.Fatalf("TLCP resumption after a TLS 1.3 ticket was replaced: %+v", st)
		}
	})
}

// TestTLS13EarlyDataRefused: a client that sends 0-RTT data anyway (our
// tickets never allow it) gets a normal handshake; the server skips the
// early data and reads only what follows the handshake.
func TestTLS13EarlyDataRefused(t *testing.T) {
	for _, resume := range []bool{false, true} {
		scfg := testServerConfig(t)
		s := newClient13()
		if resume {
			s.ticket = ticketFrom(t, scfg)
		}
		s.earlyData = []byte("early data that must not be read")
		server, cerr, serr := s.againstServer(t, scfg)
		if cerr != nil || serr != nil {
			t.Fatalf("resume=%v: client %v, server %v", resume, cerr, serr)
		}
		if s.usedPSK != resume || server.ConnectionState().DidResume != resume {
			t.Fatalf("resume=%v: resumed %v", resume, s.usedPSK)
		}
		if err := s.writeRecord(recordTypeApplicationData, []byte("after")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, err := server.Read(buf)
		if err != nil || string(buf[:n]) != "after" {
			t.Fatalf("resume=%v: server read %q, %v", resume, buf[:n], err)
		}
	}
	// More early data than the server skips ends the handshake.
	s := newClient13()
	s.earlyData = make([]byte, 2*maxEarlyDataSkipped)
	_, _, serr := s.againstServer(t, testServerConfig(t))
	wantAlert(t, serr, alertBadRecordMAC)
}

// TestTLS13UnexpectedMessages sends what may not come, after the
// handshake and during it.
func TestTLS13UnexpectedMessages(t *testing.T) {
	for _, c := range []struct {
		name string
		// send makes the server send something; the client must fail.
		send func(t *testing.T, server *Conn)
		want string
	}{
		{"post-handshake CertificateRequest", func(t *testing.T, s *Conn) {
			s.writeHandshake(&certificateRequestMsgTLS13{signatureAlgorithms: []uint16{signatureSM2SM3}}, nil)
		}, "unexpected CertificateRequest after the TLS 1.3 handshake"},
		{"ServerHello after the handshake", func(t *testing.T, s *Conn) {
			s.writeHandshake(&serverHelloMsg{vers: 0x0303, random: make([]byte, 32)}, nil)
		}, "unexpected ServerHello"},
		{"HelloRequest", func(t *testing.T, s *Conn) {
			writeRecord13(t, s, recordTypeHandshake, []byte{0, 0, 0, 0})
		}, "unknown handshake message type 0"},
		{"KeyUpdate not ending its record", func(t *testing.T, s *Conn) {
			writeRecord13(t, s, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, 0, typeKeyUpdate, 0})
		}, "KeyUpdate not at the end of its record"},
		{"malformed KeyUpdate", func(t *testing.T, s *Conn) {
			writeRecord13(t, s, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, 2})
		}, "KeyUpdate with request_update 2"},
		{"ChangeCipherSpec after the handshake", func(t *testing.T, s *Conn) {
			s.out.Lock()
			rp := s.out.rp
			s.out.rp = nil
			s.writeRecordLocked(recordTypeChangeCipherSpec, []byte{1})
			s.out.rp = rp
			s.out.Unlock()
		}, "ChangeCipherSpec after the TLS 1.3 handshake"},
		{"protected ChangeCipherSpec", func(t *testing.T, s *Conn) {
			writeRecord13(t, s, recordTypeChangeCipherSpec, []byte{1})
		}, "protected ChangeCipherSpec"},
		{"unprotected handshake record", func(t *testing.T, s *Conn) {
			s.conn.Write([]byte{22, 3, 3, 0, 5, typeKeyUpdate, 0, 0, 1, 0})
		}, "unprotected handshake record"},
		{"no content type", func(t *testing.T, s *Conn) {
			writeRecord13(t, s, 0, []byte{})
		}, "without a content type"},
		{"unknown content type", func(t *testing.T, s *Conn) {
			writeRecord13(t, s, 99, []byte{1})
		}, "unknown record type 99"},
		{"oversized record", func(t *testing.T, s *Conn) {
			s.conn.Write(append([]byte{23, 3, 3, 0x41, 0x01}, make([]byte, 0x4101)...))
		}, "over the limit"},
		{"record version", func(t *testing.T, s *Conn) {
			s.conn.Write([]byte{23, 1, 1, 0, 1, 0})
		}, "version 0x0101 in a TLS 1.3 connection"},
		{"warning alert", func(t *testing.T, s *Conn) {
			s.out.Lock()
			s.writeRecordLocked(recordTypeAlert, []byte{alertLevelWarning, byte(alertNoRenegotiation)})
			s.out.Unlock()
		}, "remote error: tlcp: no renegotiation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
			c.send(t, server)
			_, err := client.Read(make([]byte, 1))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Read: %v, want %q", err, c.want)
			}
		})
	}

	// A client's second flight that starts with something else.
	t.Run("EndOfEarlyData", func(t *testing.T) {
		c, sc := tcpPair(t)
		server := Server(sc, testServerConfig(t))
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		s := newClient13()
		s.attach(c)
		for _, step := range []func() error{s.sendHello, s.readServerHello, s.readServerFlight} {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
		s.out = newProtection13(s.suite, s.clientHS)
		s.send(&endOfEarlyDataMsg{})
		err := <-errc
		if err == nil || !strings.Contains(err.Error(), "expected Finished, received EndOfEarlyData") {
			t.Fatalf("server: %v", err)
		}
	})
}

// writeRecord13 sends one protected record with any inner type; type 0
// with no data is an inner plaintext of zeros only.
func writeRecord13(t testing.TB, c *Conn, typ recordType, data []byte) {
	t.Helper()
	c.out.Lock()
	defer c.out.Unlock()
	out, err := c.out.rp.Seal([]byte{23, 3, 3, 0, 0}, uint8(typ), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(out) - 5
	out[3], out[4] = byte(n>>8), byte(n)
	if _, err := c.conn.Write(out); err != nil {
		t.Fatal(err)
	}
}

// TestTLS13Downgrade: a TLS 1.3-capable server marks its TLCP ServerHello,
// and a client that offered TLS 1.3 refuses a marked TLCP answer, which is
// what an attacker who strips TLS 1.3 from the ClientHello causes.
func TestTLS13Downgrade(t *testing.T) {
	random := func(scfg *Config) []byte {
		c := Client(nil, testClientConfig(t))
		hello, err := c.makeClientHello()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := serverAnswer(t, scfg, hello, VersionTLCP)
		var sh serverHelloMsg
		if len(got) < 5 || !sh.unmarshal(got[5:]) || sh.vers != VersionTLCP {
			t.Fatalf("no TLCP ServerHello: %x", got)
		}
		return sh.random
	}
	if r := random(testServerConfig(t)); !bytes.Equal(r[24:], []byte("DOWNGRD\x00")) {
		t.Errorf("a TLS 1.3-capable server's TLCP random ends %x", r[24:])
	}
	tlcpOnly := testServerConfig(t)
	tlcpOnly.MaxVersion = VersionTLCP
	if r := random(tlcpOnly); bytes.Equal(r[24:], []byte("DOWNGRD\x00")) {
		t.Error("a TLCP-only server sent the sentinel")
	}

	// The client offers both; a man in the middle strips TLS 1.3.
	ccfg := testClientConfig(t)
	ccfg.MaxVersion = VersionTLS13
	c, s := tcpPair(t)
	mitmClient, mitmServer := net.Pipe()
	server := Server(mitmServer, testServerConfig(t))
	go server.Handshake()
	go func() {
		// Rewrite the first record, copy the rest both ways.
		hdr := make([]byte, 5)
		io.ReadFull(s, hdr)
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		io.ReadFull(s, body)
		var hello clientHelloMsg
		if !hello.unmarshal(body) {
			t.Error("the MITM cannot parse the hello")
			return
		}
		hello.tls13 = clientHelloTLS13{}
		hello.original = nil
		b, _ := hello.marshal()
		mitmClient.Write(append([]byte{22, 1, 1, byte(len(b) >> 8), byte(len(b))}, b...))
		go io.Copy(mitmClient, s)
		io.Copy(s, mitmClient)
	}()
	client := Client(c, ccfg)
	err := client.Handshake()
	wantAlert(t, err, alertIllegalParameter)
	if !strings.Contains(err.Error(), "downgrade sentinel") {
		t.Fatalf("client: %v", err)
	}
}

// TestTLS13CombinedHello: a client that offers TLCP and TLS 1.3 speaks TLS
// 1.3 to a server that can, and TLCP to one that cannot, without a
// sentinel; its hello is TLCP-shaped.
func TestTLS13CombinedHello(t *testing.T) {
	ccfg := testClientConfig(t)
	ccfg.MaxVersion = VersionTLS13
	client, _ := mustHandshake13(t, ccfg, testServerConfig(t))
	if client.ConnectionState().Version != VersionTLS13 {
		t.Fatalf("version %x", client.ConnectionState().Version)
	}
	scfg := testServerConfig(t)
	scfg.MaxVersion = VersionTLCP
	client, _ = mustHandshake13(t, ccfg, scfg)
	if client.ConnectionState().Version != VersionTLCP {
		t.Fatalf("version %x", client.ConnectionState().Version)
	}
	// The shape on the wire.
	c := Client(nil, ccfg)
	hello, _ := c.makeClientHello()
	c.offerTLS13(context.Background(), hello)
	if hello.vers != VersionTLCP || c.outRecordVersion() != VersionTLCP ||
		!equalUint16s(hello.tls13.supportedVersions, []uint16{VersionTLS13, VersionTLCP}) ||
		hello.cipherSuites[0] != ciphersuite.TLS_SM4_GCM_SM3 {
		t.Errorf("combined hello: vers %x, record %x, versions %x, suites %x", hello.vers, c.outRecordVersion(),
			hello.tls13.supportedVersions, hello.cipherSuites)
	}
	// A TLS 1.3-only hello.
	c = Client(nil, tls13ClientConfig(t))
	hello, _ = c.makeClientHello()
	c.offerTLS13(context.Background(), hello)
	if hello.vers != 0x0303 || c.outRecordVersion() != 0x0301 || len(hello.sessionID) != 32 ||
		!equalUint16s(hello.tls13.supportedVersions, []uint16{VersionTLS13}) {
		t.Errorf("TLS 1.3 hello: vers %x, record %x, versions %x", hello.vers, c.outRecordVersion(), hello.tls13.supportedVersions)
	}
	for _, id := range hello.cipherSuites {
		if ciphersuite.LookupTLS13(id) == nil {
			t.Errorf("TLS 1.3 hello offers %s", ciphersuite.Name(id))
		}
	}
	// The default client is plain TLCP.
	c = Client(nil, testClientConfig(t))
	hello, _ = c.makeClientHello()
	if hs, _ := c.offerTLS13(context.Background(), hello); hs != nil || hello.tls13.supportedVersions != nil || hello.tls13.keyShareSeen {
		t.Error("the default client offers TLS 1.3")
	}
	// Nor does one that sends no extensions at all, even if asked to.
	ccfg = testClientConfig(t)
	ccfg.MaxVersion = VersionTLS13
	ccfg.ClientHelloNoExtensions = true
	c = Client(nil, ccfg)
	hello, _ = c.makeClientHello()
	if hs, err := c.offerTLS13(context.Background(), hello); hs != nil || err != nil {
		t.Errorf("ClientHelloNoExtensions with TLCP and TLS 1.3: %v, %v", hs, err)
	}
	ccfg.MinVersion = VersionTLS13
	c = Client(nil, ccfg)
	hello, _ = c.makeClientHello()
	if _, err := c.offerTLS13(context.Background(), hello); err == nil {
		t.Error("ClientHelloNoExtensions with TLS 1.3 only: no error")
	}
	// MinVersion alone is enough for TLS 1.3.
	ccfg = testClientConfig(t)
	ccfg.MinVersion = VersionTLS13
	client, _ = mustHandshake13(t, ccfg, testServerConfig(t))
	if st := client.ConnectionState(); st.Version != VersionTLS13 {
		t.Errorf("MinVersion TLS 1.3: state %+v", st)
	}
	// A range that holds nothing.
	ccfg.MaxVersion = VersionTLCP
	if _, _, cerr, _ := handshake13(t, ccfg, testServerConfig(t)); cerr == nil || !strings.Contains(cerr.Error(), "MinVersion") {
		t.Errorf("MinVersion > MaxVersion: %v", cerr)
	}
	// Naming a TLS 1.3 suite is enough to offer it.
	ccfg = testClientConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.TLS_SM4_CCM_SM3}
	client, _ = mustHandshake13(t, ccfg, testServerConfig(t))
	if st := client.ConnectionState(); st.Version != VersionTLS13 || st.CipherSuite != ciphersuite.TLS_SM4_CCM_SM3 {
		t.Errorf("state %+v", st)
	}
}

func equalUint16s(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTLS13Callbacks: GetCertificate, GetClientCertificate,
// VerifyPeerCertificate and VerifyConnection see TLS 1.3, a sign-only
// pair serves it, and the key log has TLS 1.3's lines.
func TestTLS13Callbacks(t *testing.T) {
	p := getPKI(t)
	var mu sync.Mutex
	var seen []string
	note := func(s string) { mu.Lock(); seen = append(seen, s); mu.Unlock() }
	scfg := testServerConfig(t)
	scfg.Certificates = nil
	scfg.GetCertificate = func(info *ClientHelloInfo) (*CertificatePair, error) {
		note(fmt.Sprintf("GetCertificate %x %s", info.SupportedVersions, info.ServerName))
		return &CertificatePair{Sign: p.server.Sign}, nil
	}
	scfg.ClientAuth = RequireAndVerifyClientCert
	scfg.VerifyConnection = func(s ConnectionState) error {
		note(fmt.Sprintf("server VerifyConnection %x %v", s.Version, s.PeerSignCertificate != nil))
		return nil
	}
	var keyLog bytes.Buffer
	ccfg := tls13ClientConfig(t)
	ccfg.KeyLogWriter = &keyLog
	ccfg.GetClientCertificate = func(info *CertificateRequestInfo) (*CertificatePair, error) {
		note(fmt.Sprintf("GetClientCertificate %x %d", info.Version, len(info.AcceptableCAs)))
		return &p.signOnly, nil
	}
	ccfg.VerifyPeerCertificate = func(raw [][]byte, chains [][]*smx509.Certificate) error {
		note(fmt.Sprintf("VerifyPeerCertificate %d %d", len(raw), len(chains)))
		return nil
	}
	mustHandshake13(t, ccfg, scfg)
	want := []string{
		"GetCertificate [304] tlcp.test",
		"VerifyPeerCertificate 1 1",
		"GetClientCertificate 304 1",
		"server VerifyConnection 304 true",
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("callbacks %q\n want %q", seen, want)
	}
	for _, label := range []string{"CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
		"CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET"} {
		if !strings.Contains(keyLog.String(), label+" ") {
			t.Errorf("key log lacks %s:\n%s", label, keyLog.String())
		}
	}
	// A failing VerifyConnection is bad_certificate.
	ccfg.VerifyConnection = func(ConnectionState) error { return errors.New("no thanks") }
	_, _, cerr, _ := handshake13(t, ccfg, scfg)
	wantAlert(t, cerr, alertBadCertificate)
}

// TestTLS13ServerChain: the server sends its leaf and intermediates, not
// the root, and a client verifies through the intermediate.
func TestTLS13ServerChain(t *testing.T) {
	p := getPKI(t)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{{Sign: p.serverViaInter.Sign}}
	client, _ := mustHandshake13(t, tls13ClientConfig(t), scfg)
	st := client.ConnectionState()
	if len(st.PeerCertificates) != 2 || !st.PeerCertificates[1].Equal(p.intermediate) || len(st.VerifiedChains[0]) != 3 {
		t.Fatalf("peer certificates %d, chain %d", len(st.PeerCertificates), len(st.VerifiedChains[0]))
	}
	// A server whose only certificate is an encryption certificate
	// cannot serve TLS 1.3.
	scfg.Certificates = []CertificatePair{{Sign: p.server.Enc}}
	_, _, _, serr := handshake13(t, tls13ClientConfig(t), scfg)
	if serr == nil || !strings.Contains(serr.Error(), "digitalSignature") {
		t.Fatalf("server: %v", serr)
	}
}

// TestTLS13CloseNotify: close_notify ends the peer's reading with io.EOF;
// after CloseWrite the other direction still carries data, as TLS 1.3
// allows (RFC 8446 §6.1).
func TestTLS13CloseNotify(t *testing.T) {
	client, server := mustHandshake13(t, tls13ClientConfig(t), testServerConfig(t))
	if err := client.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("server Read after close_notify: %v", err)
	}
	go func() { server.Write([]byte("still here")); server.Close() }()
	got, err := io.ReadAll(client)
	if err != nil || string(got) != "still here" {
		t.Fatalf("client read %q, %v", got, err)
	}
	if _, err := client.Write([]byte("x")); err == nil {
		t.Error("Write after CloseWrite")
	}
}

// TestTLS13GetConfigForClient: the Config GetConfigForClient returns
// decides the protocol and the certificate, and a fresh Config per
// connection still resumes, with the original Config's session cache keys.
func TestTLS13GetConfigForClient(t *testing.T) {
	p := getPKI(t)
	base := testServerConfig(t)
	var versions [][]uint16
	base.GetConfigForClient = func(info *ClientHelloInfo) (*Config, error) {
		versions = append(versions, info.SupportedVersions)
		cfg := testServerConfig(t)
		cfg.Certificates = []CertificatePair{{Sign: p.serverViaInter.Sign}}
		cfg.MinVersion = VersionTLS13
		return cfg, nil
	}
	ccfg := testClientConfig(t)
	ccfg.MaxVersion = VersionTLS13 // offers TLCP too
	ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
	for i, resume := range []bool{false, true} {
		client, server := mustHandshake13(t, ccfg, base)
		st := client.ConnectionState()
		if st.Version != VersionTLS13 || st.DidResume != resume || len(st.PeerCertificates) != 2 {
			t.Fatalf("handshake %d: %+v", i, st)
		}
		readTickets(t, client, server)
	}
	if len(versions) != 2 || !equalUint16s(versions[0], []uint16{VersionTLS13, VersionTLCP}) {
		t.Errorf("SupportedVersions seen: %x", versions)
	}
}

// TestTLS13ZeroAllocsSteadyState: Write and Read allocate nothing per
// record once a TLS 1.3 connection is up, for both suites.
func TestTLS13ZeroAllocsSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation test")
	}
	for _, suite := range ciphersuite.TLS13DefaultPreference() {
		ccfg := tls13ClientConfig(t)
		ccfg.CipherSuites = []uint16{suite}
		client, server := mustHandshake13(t, ccfg, testServerConfig(t))
		wbuf, rbuf := make([]byte, 4096), make([]byte, 4096)
		step := func() {
			if _, err := client.Write(wbuf); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(server, rbuf); err != nil {
				t.Fatal(err)
			}
		}
		step()
		if n := testing.AllocsPerRun(50, step); n != 0 {
			t.Errorf("%s: %v allocations per Write+Read", CipherSuiteName(suite), n)
		}
	}
}
