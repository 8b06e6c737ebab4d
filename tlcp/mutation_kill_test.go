// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"bytes"
	"crypto/rand"
	"crypto/x509/pkix"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
)

// TestClientEncCertOtherEntity: the server refuses a client whose
// encryption certificate chains to ClientCAs but names another entity
// than its signing certificate (mutant tlcp-client-same-entity), as the
// client refuses such a server pair (TestEncCertOtherEntity).
func TestClientEncCertOtherEntity(t *testing.T) {
	p := getPKI(t)
	cert, key := mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: "someone.else"},
		DNSNames:              []string{"someone.else"},
		KeyUsage:              smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement,
		ExtKeyUsage:           []smx509.ExtKeyUsage{smx509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}, p.ca, p.caKey)
	for _, suite := range []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_GCM_SM3} {
		ccfg := testClientConfig(t)
		ccfg.CipherSuites = []uint16{suite}
		ccfg.ClientCertIncludeEnc = true // the ECC suite sends the encryption certificate too
		ccfg.Certificates = []CertificatePair{{Sign: p.client.Sign, Enc: Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}}}
		scfg := testServerConfig(t)
		scfg.ClientAuth = RequireAndVerifyClientCert
		_, _, cerr, serr := handshakePair(t, ccfg, scfg)
		if serr == nil || !strings.Contains(serr.Error(), "different entities") {
			t.Errorf("%s: server error %v (client %v), want the different-entities refusal", ciphersuite.Name(suite), serr, cerr)
		}
	}
}

// TestTLS13PeerKeyUsage: a TLS 1.3 peer's certificate must allow
// digitalSignature, as its CertificateVerify is a signature: a client
// refuses a server whose leaf allows only key encipherment, even though
// it chains and the signature verifies (mutant tls13-peer-keyusage). Our
// server refuses to send such a certificate, so it is given one with
// the same key and digitalSignature as Leaf, which is what it checks,
// and sends the other.
func TestTLS13PeerKeyUsage(t *testing.T) {
	p := getPKI(t)
	key, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	issueFor := func(ku smx509.KeyUsage) *smx509.Certificate {
		tmpl := &smx509.Certificate{
			SerialNumber: big.NewInt(time.Now().UnixNano()),
			Subject:      pkix.Name{CommonName: "tlcp.test"}, DNSNames: []string{"tlcp.test"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: ku, ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true,
		}
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, p.ca, key.Public(), p.caKey)
		if err != nil {
			t.Fatal(err)
		}
		c, err := smx509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	signing, encOnly := issueFor(smx509.KeyUsageDigitalSignature), issueFor(smx509.KeyUsageKeyEncipherment)
	ccfg := testClientConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.TLS_SM4_GCM_SM3}
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{{Sign: Certificate{Certificate: [][]byte{encOnly.Raw}, PrivateKey: key, Leaf: signing}}}
	_, _, cerr, _ := handshakePair(t, ccfg, scfg)
	if cerr == nil || !strings.Contains(cerr.Error(), "key usage digitalSignature") {
		t.Fatalf("client error %v, want the key-usage refusal", cerr)
	}
}

// TestStapleIssuerMustSignLeaf: with InsecureSkipVerify the client looks
// for the staple's issuer among the certificates the server sent (then
// RootCAs). A certificate there that bears the leaf's issuer name but a
// key that did not sign the leaf must not be taken for the issuer (mutant
// tlcp-staple-issuer-signed), or a server could staple a response signed
// by a key of its own. TestRequireOCSPStaple's wrong-issuer staple is
// signed by a CA the server does not send.
func TestStapleIssuerMustSignLeaf(t *testing.T) {
	p := getPKI(t)
	leaf := p.server.Sign.Leaf
	fake, fakeKey := mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: p.ca.Subject.CommonName},
		KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, p.ca2, p.ca2Key) // not self-signed, so the server sends it
	if !bytes.Equal(fake.RawSubject, leaf.RawIssuer) {
		t.Fatal("the impostor does not bear the leaf's issuer name")
	}
	now := time.Now()
	forged := makeStaple(t, leaf, fake, fakeKey, ocsp.Good, now.Add(-time.Hour), now.Add(time.Hour))
	genuine := makeStaple(t, leaf, p.ca, p.caKey, ocsp.Good, now.Add(-time.Hour), now.Add(time.Hour))
	server := func(staple []byte) *Config {
		scfg := stapledServer(t, staple)
		pair := scfg.Certificates[0]
		pair.Sign.Certificate = append(slices.Clip(pair.Sign.Certificate), fake.Raw)
		scfg.Certificates = []CertificatePair{pair}
		return scfg
	}
	for _, proto := range stapleProtocols {
		t.Run(proto.name, func(t *testing.T) {
			ccfg := testClientConfig(t)
			ccfg.InsecureSkipVerify = true
			ccfg.RequireOCSPStaple = true
			// The impostor in the chain is harmless to a genuine staple.
			client, _, cerr, serr := stapleHandshake(t, proto.tls13, proto.inHello, ccfg.Clone(), server(genuine))
			if cerr != nil || serr != nil {
				t.Fatalf("genuine staple: client %v, server %v", cerr, serr)
			}
			if !slices.ContainsFunc(client.ConnectionState().PeerCertificates, fake.Equal) {
				t.Fatal("the server did not send the impostor")
			}
			_, _, cerr, _ = stapleHandshake(t, proto.tls13, proto.inHello, ccfg.Clone(), server(forged))
			if cerr == nil || !strings.Contains(cerr.Error(), "OCSP staple") || alertFor(cerr) != alertBadCertificateStatusResponse {
				t.Fatalf("staple signed by an impostor of the issuer: client error %v, want bad_certificate_status_response", cerr)
			}
		})
	}
}

// TestTLS13ClientExpiresTicket: the client stops offering a ticket once
// its lifetime has passed on the client's clock, whatever the server's
// clock says (mutant tls13-ticket-age-client). TestTLS13Resumption's
// "expired" advances both clocks, so the server refuses it anyway.
func TestTLS13ClientExpiresTicket(t *testing.T) {
	now := time.Now()
	ccfg := tls13ClientConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
	ccfg.Time = func() time.Time { return now }
	scfg := testServerConfig(t)
	scfg.SessionLifetime = time.Minute // the ticket's lifetime
	client, server := mustHandshake13(t, ccfg, scfg)
	readTickets(t, client, server)
	if client, server = mustHandshake13(t, ccfg, scfg); !client.ConnectionState().DidResume {
		t.Fatal("the fresh ticket was not resumed")
	}
	readTickets(t, client, server) // the ticket of the resumed connection
	now = now.Add(2 * time.Minute)
	if client, _ = mustHandshake13(t, ccfg, scfg); client.ConnectionState().DidResume {
		t.Fatal("the client offered a ticket past its lifetime (the server, on its own clock, took it)")
	}
}

// TestTLS13TicketLifetimeOverSevenDays: a NewSessionTicket whose lifetime
// exceeds RFC 8446's 604800 seconds is an illegal_parameter (§4.6.1), not
// a ticket to keep (mutant tls13-ticket-lifetime-cap).
func TestTLS13TicketLifetimeOverSevenDays(t *testing.T) {
	ccfg := tls13ClientConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(2)
	client, server := mustHandshake13(t, ccfg, testServerConfig(t))
	go server.writeHandshake(&newSessionTicketMsg{
		lifetime: maxTicketLifetime + 1, nonce: []byte{1}, ticket: []byte("a ticket"),
	}, nil)
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := client.Read(make([]byte, 1))
	wantAlert(t, err, alertIllegalParameter)
}

// TestTLS13UnverifiedTicketNotResumedWhenVerifying: a ticket from a
// connection that skipped verification is not offered by a Config that
// verifies, from the cache they share (mutant tls13-ticket-verified-client);
// TestUnverifiedSessionNotResumedWhenVerifying is TLCP's.
func TestTLS13UnverifiedTicketNotResumedWhenVerifying(t *testing.T) {
	p := getPKI(t)
	cache := NewLRUClientSessionCache(4)
	scfg := testServerConfig(t)
	scfg.Certificates = []CertificatePair{p.serverOtherCA} // not under RootCAs
	insecure := tls13ClientConfig(t)
	insecure.InsecureSkipVerify = true
	insecure.ClientSessionCache = cache
	client, server := mustHandshake13(t, insecure, scfg)
	readTickets(t, client, server)
	if client, server = mustHandshake13(t, insecure, scfg); !client.ConnectionState().DidResume {
		t.Fatal("the insecure client did not resume its own ticket")
	}
	readTickets(t, client, server)
	verifying := tls13ClientConfig(t)
	verifying.ClientSessionCache = cache
	client, _, cerr, _ := handshake13(t, verifying, scfg)
	if cerr == nil {
		t.Fatalf("verifying client accepted an unverifiable server (resumed: %v)", client.ConnectionState().DidResume)
	}
	wantAlert(t, cerr, alertUnknownCA)
}

// TestTLS13ServerTicketRespectsVerification: a server Config that verifies
// client certificates does not resume a ticket, sealed by a Clone sharing
// its keys, whose client certificate was never verified (mutant
// tls13-ticket-cert-verified); TestServerResumptionRespectsVerification
// is TLCP's.
func TestTLS13ServerTicketRespectsVerification(t *testing.T) {
	p := getPKI(t)
	other := makePair(t, "client2.test", smx509.ExtKeyUsageClientAuth, p.ca2, p.ca2Key)
	lax := testServerConfig(t)
	lax.ClientAuth = RequireAnyClientCert
	ccfg := tls13ClientConfig(t)
	ccfg.Certificates = []CertificatePair{other}
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	client, server := mustHandshake13(t, ccfg, lax)
	readTickets(t, client, server)
	if client, server = mustHandshake13(t, ccfg, lax); !client.ConnectionState().DidResume {
		t.Fatal("no resumption under the lax policy")
	}
	readTickets(t, client, server)
	strict := lax.Clone()
	strict.ClientAuth = RequireAndVerifyClientCert
	_, server, _, serr := handshake13(t, ccfg, strict)
	if serr == nil {
		t.Fatalf("strict server accepted an unverified client (resumed: %v)", server.ConnectionState().DidResume)
	}
	wantAlert(t, serr, alertUnknownCA)
}

// TestTLCPClientExpiresSession: the TLCP client stops offering a session
// past its own SessionLifetime, whatever the server's clock says (mutant
// tlcp-session-lifetime-client).
func TestTLCPClientExpiresSession(t *testing.T) {
	now := time.Now()
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	ccfg.SessionLifetime = time.Minute
	ccfg.Time = func() time.Time { return now }
	if _, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if c, _, cerr, serr := handshakePair(t, ccfg, scfg); cerr != nil || serr != nil || !c.ConnectionState().DidResume {
		t.Fatal("the fresh session was not resumed", cerr, serr)
	}
	now = now.Add(2 * time.Minute)
	c, _, cerr, serr := handshakePair(t, ccfg, scfg)
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if c.ConnectionState().DidResume {
		t.Fatal("the client offered a session past its lifetime (the server, on its own clock, took it)")
	}
}

// TestTLCPServerSessionNeedsCert: a session made without a client
// certificate is not resumed by a server Config that now requires one, in
// the cache it shares with a Clone (mutant tlcp-session-need-cert).
func TestTLCPServerSessionNeedsCert(t *testing.T) {
	lax := testServerConfig(t)
	lax.ClientAuth = NoClientCert
	ccfg := testClientConfig(t)
	ccfg.CipherSuites = []uint16{ciphersuite.ECC_SM4_GCM_SM3} // ECC: no client certificate unless asked
	ccfg.ClientSessionCache = NewLRUClientSessionCache(4)
	if _, s, cerr, serr := handshakePair(t, ccfg, lax); cerr != nil || serr != nil || len(s.ConnectionState().PeerCertificates) != 0 {
		t.Fatal("first handshake", cerr, serr)
	}
	if c, _, cerr, serr := handshakePair(t, ccfg, lax); cerr != nil || serr != nil || !c.ConnectionState().DidResume {
		t.Fatal("no resumption under the lax policy", cerr, serr)
	}
	strict := lax.Clone()
	strict.ClientAuth = RequireAnyClientCert
	c, s, cerr, serr := handshakePair(t, ccfg, strict)
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if c.ConnectionState().DidResume || len(s.ConnectionState().PeerCertificates) == 0 {
		t.Fatal("a session without a client certificate satisfied a server that requires one")
	}
}
