//go:build ignore

// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Stapling and trusted_ca_keys against gotlcp (issue 34). gotlcp is not
// served by the module proxy, so this file is not built here (the ignore
// tag); it runs in the gotlcp cross-check module of /work/peers/RUN.md:
//
//	g=$(mktemp -d) && cp /work/peers/gotlcp-interop/{doc.go,go.mod,go.sum,interop_test.go} $g/ &&
//	  sed 1,2d examples/interop/gotlcp/stapling_test.go >$g/stapling_test.go && cd $g &&
//	  go mod edit -replace github.com/shangmi-go/shangmi=$SHANGMI -replace gitee.com/Trisia/gotlcp=$GOTLCP &&
//	  GOFLAGS="-mod=mod -buildvcs=false" go test -count=1 -v -run 'Staple|TrustedCA' .
//
// with SHANGMI the checkout and GOTLCP gotlcp's source.

package interop

import (
	"bytes"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	gotlcp "gitee.com/Trisia/gotlcp/tlcp"
	gx509 "github.com/emmansun/gmsm/smx509"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
	"github.com/shangmi-go/shangmi/tlcp"
	smx "github.com/shangmi-go/shangmi/x509"
)

// stapleCA is a CA with its key and a server double certificate it
// issued, in both implementations' forms.
type stapleCA struct {
	ca     *smx509.Certificate
	caKey  *sm2.PrivateKey
	leaf   *smx509.Certificate
	ours   tlcp.CertificatePair // chain ends with the root (never sent)
	theirs [2]gotlcp.Certificate
}

func newStapleCA(t *testing.T, name string) *stapleCA {
	t.Helper()
	issue := func(tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
		key, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl.SerialNumber, _ = rand.Int(rand.Reader, big.NewInt(1<<62))
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := smx509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return cert, key
	}
	s := &stapleCA{}
	s.ca, s.caKey = issue(&smx509.Certificate{Subject: pkix.Name{CommonName: name},
		KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}, nil, nil)
	for i, ku := range []smx509.KeyUsage{smx509.KeyUsageDigitalSignature,
		smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement | smx509.KeyUsageDataEncipherment} {
		cert, key := issue(&smx509.Certificate{Subject: pkix.Name{CommonName: "server.interop"}, DNSNames: []string{"localhost"},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: ku,
			ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true}, s.ca, s.caKey)
		keyPEM, err := smx.MarshalPrivateKeyPEM(key)
		if err != nil {
			t.Fatal(err)
		}
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
		if s.theirs[i], err = gotlcp.X509KeyPair(certPEM, keyPEM); err != nil {
			t.Fatal(err)
		}
		c := tlcp.Certificate{Certificate: [][]byte{cert.Raw, s.ca.Raw}, PrivateKey: key, Leaf: cert}
		if i == 0 {
			s.leaf, s.ours.Sign = cert, c
		} else {
			s.ours.Enc = c
		}
	}
	return s
}

func (s *stapleCA) staple(t *testing.T, status int) []byte {
	t.Helper()
	tmpl := ocsp.Response{Status: status, SerialNumber: s.leaf.SerialNumber,
		ThisUpdate: time.Now().Add(-time.Hour), NextUpdate: time.Now().Add(time.Hour)}
	if status == ocsp.Revoked {
		tmpl.RevokedAt, tmpl.RevocationReason = time.Now().Add(-2*time.Hour), ocsp.KeyCompromise
	}
	der, err := ocsp.CreateResponse(s.ca, nil, tmpl, s.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func (s *stapleCA) pools() (*smx509.CertPool, *gx509.CertPool) {
	a, b := smx509.NewCertPool(), gx509.NewCertPool()
	a.AddCert(s.ca)
	b.AppendCertsFromPEM(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.ca.Raw}))
	return a, b
}

// TestStapleFromGotlcpServer: gotlcp puts the staple in ServerHello's
// status_request; our client asks, reads it and requires it good.
func TestStapleFromGotlcpServer(t *testing.T) {
	s := newStapleCA(t, "staple root")
	ours, _ := s.pools()
	for _, status := range []int{ocsp.Good, ocsp.Revoked} {
		staple := s.staple(t, status)
		sign := s.theirs[0]
		sign.OCSPStaple = staple
		ln, err := gotlcp.Listen("tcp", "127.0.0.1:0", &gotlcp.Config{Certificates: []gotlcp.Certificate{sign, s.theirs[1]}})
		if err != nil {
			t.Fatal(err)
		}
		go serveEcho(ln)
		c, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{RootCAs: ours, ServerName: "localhost",
			CipherSuites: []uint16{0xE013}, RequireOCSPStaple: true})
		if status == ocsp.Good {
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, c)
			if !bytes.Equal(c.ConnectionState().OCSPResponse, staple) {
				t.Fatal("OCSPResponse is not gotlcp's staple")
			}
			c.Close()
		} else if err == nil || !bytes.Contains([]byte(err.Error()), []byte("revoked")) {
			t.Fatalf("revoked staple: %v", err)
		}
		ln.Close()
	}
}

// TestOurStapleToGotlcpClient: gotlcp's client never asks for a staple,
// so our server sends none in either form, and the handshake is the usual.
func TestOurStapleToGotlcpClient(t *testing.T) {
	s := newStapleCA(t, "staple root")
	_, theirs := s.pools()
	for _, inHello := range []bool{false, true} {
		pair := s.ours
		pair.Sign.OCSPStaple = s.staple(t, ocsp.Good)
		ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}, TLCPStapleInServerHello: inHello})
		if err != nil {
			t.Fatal(err)
		}
		go serveEcho(ln)
		c, err := gotlcp.Dial("tcp", ln.Addr().String(), &gotlcp.Config{RootCAs: theirs, ServerName: "localhost"})
		if err != nil {
			t.Fatalf("inHello=%v: %v", inHello, err)
		}
		roundTrip(t, c)
		c.Close()
		ln.Close()
	}
}

// TestTrustedCAGotlcpClientOurServer: gotlcp's client indicates its CA
// by SM3 key hash, SM3 certificate hash or name; our server, holding
// another CA's pair first, chooses the indicated one (the other would
// fail gotlcp's verification).
func TestTrustedCAGotlcpClientOurServer(t *testing.T) {
	a, b := newStapleCA(t, "root A"), newStapleCA(t, "root B")
	_, theirs := a.pools()
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{b.ours, a.ours}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveEcho(ln)
	for _, typ := range []uint8{gotlcp.IdentifierTypeKeySM3Hash, gotlcp.IdentifierTypeCertSM3Hash, gotlcp.IdentifierTypeX509Name} {
		ta, err := tlcp.NewTrustedAuthority(a.ca, typ) // the identifiers are the same in both
		if err != nil {
			t.Fatal(err)
		}
		c, err := gotlcp.Dial("tcp", ln.Addr().String(), &gotlcp.Config{RootCAs: theirs, ServerName: "localhost",
			TrustedCAIndications: []gotlcp.TrustedAuthority{{IdentifierType: ta.IdentifierType, Identifier: ta.Identifier}}})
		if err != nil {
			t.Fatalf("type %d: %v", typ, err)
		}
		roundTrip(t, c)
		c.Close()
	}
	if c, err := gotlcp.Dial("tcp", ln.Addr().String(), &gotlcp.Config{RootCAs: theirs, ServerName: "localhost"}); err == nil {
		c.Close()
		t.Fatal("without an indication the first pair (root B's) was expected")
	}
}

// TestTrustedCAOurClientGotlcpServer: gotlcp's server sees our client's
// indications, each type it knows, as we sent them.
func TestTrustedCAOurClientGotlcpServer(t *testing.T) {
	a := newStapleCA(t, "root A")
	ours, _ := a.pools()
	var tas []tlcp.TrustedAuthority
	for _, typ := range []uint8{tlcp.TrustedCAPreAgreed, tlcp.TrustedCAKeySM3Hash, tlcp.TrustedCACertSM3Hash, tlcp.TrustedCAX509Name} {
		ta, err := tlcp.NewTrustedAuthority(a.ca, typ)
		if err != nil {
			t.Fatal(err)
		}
		tas = append(tas, ta)
	}
	seen := make(chan []gotlcp.TrustedAuthority, 1)
	scfg := &gotlcp.Config{
		GetCertificate: func(info *gotlcp.ClientHelloInfo) (*gotlcp.Certificate, error) {
			seen <- info.TrustedCAIndications
			return &a.theirs[0], nil
		},
		GetKECertificate: func(*gotlcp.ClientHelloInfo) (*gotlcp.Certificate, error) { return &a.theirs[1], nil },
	}
	ln, err := gotlcp.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveEcho(ln)
	c, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{RootCAs: ours, ServerName: "localhost",
		CipherSuites: []uint16{0xE013}, TrustedCAIndications: tas})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c)
	c.Close()
	got := <-seen
	if len(got) != len(tas) {
		t.Fatalf("gotlcp saw %d indications, want %d", len(got), len(tas))
	}
	for i := range tas {
		if got[i].IdentifierType != tas[i].IdentifierType || !bytes.Equal(got[i].Identifier, tas[i].Identifier) &&
			!(len(got[i].Identifier) == 0 && len(tas[i].Identifier) == 0) {
			t.Fatalf("indication %d: gotlcp saw %+v, we sent %+v", i, got[i], tas[i])
		}
	}
}
