// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package interop

import (
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	gotlcp "gitee.com/Trisia/gotlcp/tlcp"
	gx509 "github.com/emmansun/gmsm/smx509"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	smx "github.com/shangmi-go/shangmi/x509"
)

var suites = []uint16{0xE053, 0xE013, 0xE051, 0xE011}

func isECDHE(id uint16) bool { return id == 0xE051 || id == 0xE011 }

// credentials: a root and PEM double certificates, made with this project's
// smx509 and read by both implementations.
type credentials struct {
	caPEM []byte
	pem   map[string][2][]byte // name → cert PEM, key PEM
}

var (
	credOnce sync.Once
	cred     credentials
)

func getCredentials(t *testing.T) credentials {
	credOnce.Do(func() {
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
		ca, caKey := issue(&smx509.Certificate{Subject: pkix.Name{CommonName: "interop root"},
			KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}, nil, nil)
		cred = credentials{
			caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}),
			pem:   map[string][2][]byte{},
		}
		for _, who := range []string{"server", "client"} {
			eku := smx509.ExtKeyUsageServerAuth
			if who == "client" {
				eku = smx509.ExtKeyUsageClientAuth
			}
			for role, ku := range map[string]smx509.KeyUsage{
				"sign": smx509.KeyUsageDigitalSignature,
				"enc":  smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement | smx509.KeyUsageDataEncipherment,
			} {
				cert, key := issue(&smx509.Certificate{
					Subject: pkix.Name{CommonName: who + ".interop"}, DNSNames: []string{"localhost"},
					IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: ku,
					ExtKeyUsage: []smx509.ExtKeyUsage{eku}, BasicConstraintsValid: true,
				}, ca, caKey)
				keyPEM, err := smx.MarshalPrivateKeyPEM(key)
				if err != nil {
					t.Fatal(err)
				}
				cred.pem[who+"_"+role] = [2][]byte{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), keyPEM}
			}
		}
	})
	if cred.pem == nil {
		t.Fatal("credentials setup failed")
	}
	return cred
}

func goCert(t *testing.T, name string) gotlcp.Certificate {
	p := getCredentials(t).pem[name]
	c, err := gotlcp.X509KeyPair(p[0], p[1])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ourPair(t *testing.T, who string) tlcp.CertificatePair {
	cr := getCredentials(t)
	load := func(name string) tlcp.Certificate {
		c, err := tlcp.X509KeyPair(cr.pem[name][0], cr.pem[name][1])
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return tlcp.CertificatePair{Sign: load(who + "_sign"), Enc: load(who + "_enc")}
}

func pools(t *testing.T) (*smx509.CertPool, *gx509.CertPool) {
	ca := getCredentials(t).caPEM
	a, b := smx509.NewCertPool(), gx509.NewCertPool()
	if !a.AppendCertsFromPEM(ca) || !b.AppendCertsFromPEM(ca) {
		t.Fatal("CA PEM not accepted")
	}
	return a, b
}

func serveEcho(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			io.Copy(c, c)
		}()
	}
}

func roundTrip(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	msg := []byte(fmt.Sprintf("interop %d", time.Now().UnixNano()))
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != string(msg) {
		t.Fatal("echo differs")
	}
}

// TestOurClientTheirServer: tlcp client, gotlcp server.
func TestOurClientTheirServer(t *testing.T) {
	ours, theirs := pools(t)
	for _, id := range suites {
		for _, auth := range []bool{false, true} {
			for _, f71 := range []bool{false, true} {
				if !isECDHE(id) && f71 {
					continue
				}
				t.Run(fmt.Sprintf("%s/auth=%v/framing71=%v", tlcp.CipherSuiteName(id), auth, f71), func(t *testing.T) {
					scfg := &gotlcp.Config{
						Certificates: []gotlcp.Certificate{goCert(t, "server_sign"), goCert(t, "server_enc")},
						CipherSuites: []uint16{id},
						ClientCAs:    theirs,
						SessionCache: gotlcp.NewLRUSessionCache(10),
					}
					if auth {
						scfg.ClientAuth = gotlcp.RequireAndVerifyClientCert
					}
					ln, err := gotlcp.Listen("tcp", "127.0.0.1:0", scfg)
					if err != nil {
						t.Fatal(err)
					}
					defer ln.Close()
					go serveEcho(ln)
					ccfg := &tlcp.Config{RootCAs: ours, ServerName: "localhost", CipherSuites: []uint16{id},
						ClientECDHEFraming71: f71, ClientSessionCache: tlcp.NewLRUClientSessionCache(2)}
					if auth || isECDHE(id) {
						ccfg.Certificates = []tlcp.CertificatePair{ourPair(t, "client")}
					}
					for i, resume := range []bool{false, true} {
						c, err := tlcp.Dial("tcp", ln.Addr().String(), ccfg)
						if err != nil {
							t.Fatalf("connection %d: %v", i, err)
						}
						roundTrip(t, c)
						if got := c.ConnectionState().DidResume; got != resume {
							t.Errorf("connection %d: resumed %v", i, got)
						}
						c.Close()
					}
				})
			}
		}
	}
}

// TestTheirClientOurServer: gotlcp client, tlcp server; the client sends
// SIGN or SIGN, ENC for ECC client authentication (D3).
func TestTheirClientOurServer(t *testing.T) {
	ours, theirs := pools(t)
	for _, id := range suites {
		for _, f71 := range []bool{false, true} {
			for _, certs := range []int{0, 1, 2} {
				if (!isECDHE(id) && f71) || (isECDHE(id) && certs != 2) {
					continue
				}
				t.Run(fmt.Sprintf("%s/framing71=%v/clientcerts=%d", tlcp.CipherSuiteName(id), f71, certs), func(t *testing.T) {
					scfg := &tlcp.Config{
						Certificates: []tlcp.CertificatePair{ourPair(t, "server")},
						CipherSuites: []uint16{id},
						ClientCAs:    ours,
					}
					if certs > 0 {
						scfg.ClientAuth = tlcp.RequireAndVerifyClientCert
					}
					ln, err := tlcp.Listen("tcp", "127.0.0.1:0", scfg)
					if err != nil {
						t.Fatal(err)
					}
					defer ln.Close()
					go serveEcho(ln)
					ccfg := &gotlcp.Config{RootCAs: theirs, ServerName: "localhost", CipherSuites: []uint16{id},
						ClientECDHEParamsAsVector: f71, SessionCache: gotlcp.NewLRUSessionCache(2)}
					for _, name := range []string{"client_sign", "client_enc"}[:certs] {
						ccfg.Certificates = append(ccfg.Certificates, goCert(t, name))
					}
					for i, resume := range []bool{false, true} {
						c, err := gotlcp.Dial("tcp", ln.Addr().String(), ccfg)
						if err != nil {
							t.Fatalf("connection %d: %v", i, err)
						}
						roundTrip(t, c)
						if got := c.ConnectionState().DidResume; got != resume {
							t.Errorf("connection %d: resumed %v", i, got)
						}
						c.Close()
					}
				})
			}
		}
	}
}
