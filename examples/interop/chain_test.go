// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package interop

import (
	"bytes"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/tjfoc/gmsm/gmtls"
	tjx509 "github.com/tjfoc/gmsm/x509"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	smx "github.com/shangmi-go/shangmi/x509"
)

// generate makes, in memory, a root, an intermediate CA under it and the
// four TLCP leaves under the intermediate. m.caPEM holds only the root;
// the intermediate is m.der["inter"]. If encSAN is false the two
// encryption certificates carry no subject alternative names at all (they
// still share the subject with their signing certificate).
func generate(t *testing.T, encSAN bool) *material {
	t.Helper()
	now := time.Now()
	issue := func(tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
		t.Helper()
		key, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl.SerialNumber, err = rand.Int(rand.Reader, big.NewInt(1<<62))
		if err != nil {
			t.Fatal(err)
		}
		tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(24*time.Hour)
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
	certPEM := func(c *smx509.Certificate) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	ca := func(cn string, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
		return issue(&smx509.Certificate{
			Subject:  pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi interop"}, CommonName: cn},
			KeyUsage: smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign, BasicConstraintsValid: true, IsCA: true,
		}, parent, parentKey)
	}
	root, rootKey := ca("interop root", nil, nil)
	inter, interKey := ca("interop intermediate", root, rootKey)

	m := &material{caPEM: certPEM(root), pem: map[string][2][]byte{}, der: map[string][]byte{"inter": inter.Raw}}
	for _, who := range []string{"server", "client"} {
		eku := smx509.ExtKeyUsageServerAuth
		if who == "client" {
			eku = smx509.ExtKeyUsageClientAuth
		}
		for _, role := range []string{"sign", "enc"} {
			tmpl := &smx509.Certificate{
				Subject:               pkix.Name{Country: []string{"CN"}, Organization: []string{"shangmi interop"}, CommonName: "interop " + who},
				ExtKeyUsage:           []smx509.ExtKeyUsage{eku},
				BasicConstraintsValid: true,
				KeyUsage:              smx509.KeyUsageDigitalSignature,
			}
			if role == "enc" {
				tmpl.KeyUsage = smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement
			}
			if role == "sign" || encSAN {
				tmpl.DNSNames = []string{"localhost"}
				tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
			}
			cert, key := issue(tmpl, inter, interKey)
			keyPEM, err := smx.MarshalPrivateKeyPEM(key)
			if err != nil {
				t.Fatal(err)
			}
			m.pem[who+"_"+role] = [2][]byte{certPEM(cert), keyPEM}
			m.der[who+"_"+role] = cert.Raw
		}
	}
	return m
}

// withInter returns c with the intermediate appended to its chain.
func (m *material) withInter(c tlcp.Certificate) tlcp.Certificate {
	c.Certificate = append(c.Certificate[:len(c.Certificate):len(c.Certificate)], m.der["inter"])
	return c
}

func (m *material) theirWithInter(c gmtls.Certificate) gmtls.Certificate {
	c.Certificate = append(c.Certificate[:len(c.Certificate):len(c.Certificate)], m.der["inter"])
	return c
}

// TestIntermediateChain runs both directions with leaves issued by an
// intermediate CA that only the peer's chain carries (the trust anchors
// hold the root alone), with client authentication, so that each side must
// use the intermediates the other sends.
func TestIntermediateChain(t *testing.T) {
	m := generate(t, true)

	// gmtls puts each configured chain on the wire one after the other, so
	// the position of the intermediate in its Certificates decides the
	// order: after ENC is the usual SIGN, ENC, CA; after SIGN gives the
	// TASSL order SIGN, CA, ENC that our client must recognise (tlcp/INTEROP.md
	// §3.5, D4).
	for _, order := range []string{"sign-enc-ca", "sign-ca-enc"} {
		t.Run("our client, their server/"+order, func(t *testing.T) {
			sign, enc := m.theirCert(t, "server_sign"), m.theirCert(t, "server_enc")
			if order == "sign-enc-ca" {
				enc = m.theirWithInter(enc)
			} else {
				sign = m.theirWithInter(sign)
			}
			srvCfg := &gmtls.Config{
				GMSupport:              gmtls.NewGMSupport(),
				Certificates:           []gmtls.Certificate{sign, enc},
				CipherSuites:           []uint16{eccSM4CBCSM3},
				ClientAuth:             gmtls.RequireAndVerifyClientCert,
				ClientCAs:              m.theirPool(t),
				SessionTicketsDisabled: true,
			}
			pair := m.ourPair(t, "client")
			pair.Sign = m.withInter(pair.Sign)
			cliCfg := &tlcp.Config{
				RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3},
				Certificates: []tlcp.CertificatePair{pair},
			}
			serverErr, clientErr := pipe(t, func(raw net.Conn) error {
				c := gmtls.Server(raw, srvCfg)
				if err := guard(c.Handshake); err != nil {
					return err
				}
				st := c.ConnectionState()
				if st.CipherSuite != eccSM4CBCSM3 || len(st.VerifiedChains) == 0 || len(st.VerifiedChains[0]) != 3 {
					return fmt.Errorf("gmtls server: suite %#04x, chains %d", st.CipherSuite, len(st.VerifiedChains))
				}
				return guard(func() error { return serverSide(c) })
			}, func(raw net.Conn) error {
				c := tlcp.Client(raw, cliCfg)
				if err := c.Handshake(); err != nil {
					return err
				}
				st := c.ConnectionState()
				if err := checkOurState(st, m, "server", true); err != nil {
					return err
				}
				if len(st.VerifiedChains[0]) != 3 {
					return fmt.Errorf("our client built a chain of %d certificates, want leaf, intermediate, root", len(st.VerifiedChains[0]))
				}
				return clientSide(c)
			})
			if serverErr != nil || clientErr != nil {
				t.Fatalf("server (gmtls): %v; client (ours): %v", serverErr, clientErr)
			}
		})
	}

	// The gmtls client cannot take a server chain with an intermediate at
	// all (TestGmtlsQuirks), so in this direction only the client's chain
	// has one: our server sends SIGN, ENC and must complete the client's
	// chain from the intermediate the client sends; the gmtls client gets
	// the intermediate as a root.
	t.Run("their client, our server", func(t *testing.T) {
		srvCfg := &tlcp.Config{
			Certificates:     []tlcp.CertificatePair{m.ourPair(t, "server")},
			ClientAuth:       tlcp.RequireAndVerifyClientCert,
			ClientCAs:        m.ourPool(t),
			SessionCacheSize: -1,
		}
		roots := m.theirPool(t)
		inter, err := tjx509.ParseCertificate(m.der["inter"])
		if err != nil {
			t.Fatal(err)
		}
		roots.AddCert(inter)
		cliCfg := &gmtls.Config{
			GMSupport: gmtls.NewGMSupport(), RootCAs: roots, ServerName: "localhost",
			CipherSuites:           []uint16{eccSM4CBCSM3},
			Certificates:           []gmtls.Certificate{m.theirWithInter(m.theirCert(t, "client_sign")), m.theirCert(t, "client_enc")},
			SessionTicketsDisabled: true,
		}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			c := tlcp.Server(raw, srvCfg)
			if err := c.Handshake(); err != nil {
				return err
			}
			st := c.ConnectionState()
			if err := checkOurState(st, m, "client", false); err != nil {
				return err
			}
			if len(st.VerifiedChains[0]) != 3 {
				return fmt.Errorf("our server built a chain of %d certificates, want leaf, intermediate, root", len(st.VerifiedChains[0]))
			}
			return serverSide(c)
		}, func(raw net.Conn) error {
			c := gmtls.Client(raw, cliCfg)
			if err := guard(c.Handshake); err != nil {
				return err
			}
			st := c.ConnectionState()
			if st.CipherSuite != eccSM4CBCSM3 || len(st.PeerCertificates) != 2 {
				return fmt.Errorf("gmtls client: suite %#04x, %d server certificates", st.CipherSuite, len(st.PeerCertificates))
			}
			return guard(func() error { return clientSide(c) })
		})
		if serverErr != nil || clientErr != nil {
			t.Fatalf("server (ours): %v; client (gmtls): %v", serverErr, clientErr)
		}
	})
}

// TestEncCertWithoutSAN: an encryption certificate that shares its subject
// with the signing certificate but names no host. Our client accepts it
// (host name on SIGN, same entity on ENC: tlcp/INTEROP.md D16). The gmtls client
// checks the host name on every certificate and refuses it
// (TestGmtlsQuirks), which is why testdata gives encryption certificates
// the SANs too.
func TestEncCertWithoutSAN(t *testing.T) {
	m := generate(t, false)
	srvCerts := []gmtls.Certificate{m.theirCert(t, "server_sign"), m.theirWithInter(m.theirCert(t, "server_enc"))}

	t.Run("our client accepts", func(t *testing.T) {
		srvCfg := &gmtls.Config{
			GMSupport: gmtls.NewGMSupport(), Certificates: srvCerts,
			CipherSuites: []uint16{eccSM4CBCSM3}, SessionTicketsDisabled: true,
		}
		cliCfg := &tlcp.Config{RootCAs: m.ourPool(t), ServerName: "localhost", CipherSuites: []uint16{eccSM4CBCSM3}}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			c := gmtls.Server(raw, srvCfg)
			if err := guard(c.Handshake); err != nil {
				return err
			}
			return guard(func() error { return serverSide(c) })
		}, func(raw net.Conn) error {
			c := tlcp.Client(raw, cliCfg)
			if err := c.Handshake(); err != nil {
				return err
			}
			if err := checkOurState(c.ConnectionState(), m, "server", true); err != nil {
				return err
			}
			return clientSide(c)
		})
		if serverErr != nil || clientErr != nil {
			t.Fatalf("server (gmtls): %v; client (ours): %v", serverErr, clientErr)
		}
	})
}

// TestGmtlsQuirks pins behaviours of the gmtls v1.4.1 client that the tests
// above work around, so that a change of the gmsm version is noticed rather
// than silently changing what the other tests cover. The gmtls client
// verifies every certificate the server sends, intermediates included,
// against its roots and the host name, and adds the ones after the second
// to its intermediate pool only after checking the first two.
func TestGmtlsQuirks(t *testing.T) {
	// run connects a gmtls client to our server and returns the client's
	// handshake error.
	run := func(t *testing.T, m *material, sendInter, interAsRoot bool) error {
		t.Helper()
		pair := m.ourPair(t, "server")
		if sendInter {
			pair.Sign = m.withInter(pair.Sign)
		}
		srvCfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}, SessionCacheSize: -1}
		roots := m.theirPool(t)
		if interAsRoot {
			inter, err := tjx509.ParseCertificate(m.der["inter"])
			if err != nil {
				t.Fatal(err)
			}
			roots.AddCert(inter)
		}
		cliCfg := &gmtls.Config{
			GMSupport: gmtls.NewGMSupport(), RootCAs: roots, ServerName: "localhost",
			CipherSuites: []uint16{eccSM4CBCSM3}, SessionTicketsDisabled: true,
		}
		serverErr, clientErr := pipe(t, func(raw net.Conn) error {
			return tlcp.Server(raw, srvCfg).Handshake()
		}, func(raw net.Conn) error {
			return guard(gmtls.Client(raw, cliCfg).Handshake)
		})
		if clientErr == nil {
			t.Fatal("gmtls client accepted")
		}
		if serverErr == nil {
			t.Fatalf("our server completed although the client failed with %v", clientErr)
		}
		t.Logf("gmtls client: %v; our server: %v", clientErr, serverErr)
		return clientErr
	}
	wantHostnameError := func(t *testing.T, err error, der []byte) {
		t.Helper()
		var he tjx509.HostnameError
		if !errors.As(err, &he) || he.Certificate == nil || !bytes.Equal(he.Certificate.Raw, der) {
			t.Fatalf("want a host name error on the expected certificate, got %v", err)
		}
	}

	t.Run("host name checked on the encryption certificate", func(t *testing.T) {
		m := generate(t, false)
		wantHostnameError(t, run(t, m, false, true), m.der["server_enc"])
	})
	t.Run("host name checked on an intermediate", func(t *testing.T) {
		m := generate(t, true)
		wantHostnameError(t, run(t, m, true, true), m.der["inter"])
	})
	t.Run("intermediates sent by the server are not used", func(t *testing.T) {
		m := generate(t, true)
		var ue tjx509.UnknownAuthorityError
		if err := run(t, m, true, false); !errors.As(err, &ue) {
			t.Fatalf("want an unknown authority error, got %v", err)
		}
	})
}
