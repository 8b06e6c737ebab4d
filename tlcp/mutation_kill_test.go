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
