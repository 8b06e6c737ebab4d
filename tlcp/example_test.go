// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp_test

import (
	"crypto"
	"crypto/rand"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// issue makes an SM2 key and a certificate for it, signed by parent (or
// self-signed if parent is nil).
func issue(tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
	key, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl.SerialNumber, _ = rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		log.Fatal(err)
	}
	cert, err := smx509.ParseCertificate(der)
	if err != nil {
		log.Fatal(err)
	}
	return cert, key
}

var (
	exampleCAOnce sync.Once
	exampleCA     *smx509.Certificate
	exampleCAKey  *sm2.PrivateKey
)

// exampleRoot returns the examples' CA, made once.
func exampleRoot() (*smx509.Certificate, *sm2.PrivateKey) {
	exampleCAOnce.Do(func() {
		exampleCA, exampleCAKey = issue(&smx509.Certificate{
			Subject: pkix.Name{CommonName: "Example CA"}, IsCA: true, BasicConstraintsValid: true,
			KeyUsage: smx509.KeyUsageCertSign,
		}, nil, nil)
	})
	return exampleCA, exampleCAKey
}

// examplePair issues a double certificate for names (the first is the
// subject's; all are DNS names, and 127.0.0.1 too) under the examples' CA.
func examplePair(eku smx509.ExtKeyUsage, names ...string) tlcp.CertificatePair {
	ca, caKey := exampleRoot()
	leaf := func(ku smx509.KeyUsage) tlcp.Certificate {
		cert, key := issue(&smx509.Certificate{
			Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: ku, BasicConstraintsValid: true,
			ExtKeyUsage: []smx509.ExtKeyUsage{eku},
		}, ca, caKey)
		return tlcp.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
	}
	return tlcp.CertificatePair{
		Sign: leaf(smx509.KeyUsageDigitalSignature),
		Enc:  leaf(smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement),
	}
}

// exampleCredentials returns a pool holding the examples' CA and a
// server's double certificate for localhost.
func exampleCredentials() (*smx509.CertPool, tlcp.CertificatePair) {
	ca, _ := exampleRoot()
	pool := smx509.NewCertPool()
	pool.AddCert(ca)
	return pool, examplePair(smx509.ExtKeyUsageServerAuth, "localhost")
}

// serveOnce runs a server for the examples: it answers each connection
// with what reply says about its handshake.
func serveOnce(cfg *tlcp.Config, reply func(tlcp.ConnectionState) string) string {
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		defer ln.Close()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tc := c.(*tlcp.Conn)
				if tc.Handshake() == nil {
					io.WriteString(c, reply(tc.ConnectionState()))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// get dials addr, returns what the server says, and closes.
func get(addr string, cfg *tlcp.Config) (string, error) {
	conn, err := tlcp.Dial("tcp", addr, cfg)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	b, err := io.ReadAll(conn)
	return string(b), err
}

// A server and a client over loopback: the server holds a signing and an
// encryption certificate, the client trusts their CA.
func Example() {
	roots, pair := exampleCredentials()
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "hello over TLCP\n")
	}()

	conn, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{RootCAs: roots, ServerName: "localhost"})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	msg, _ := io.ReadAll(conn)
	fmt.Print(string(msg))
	fmt.Println(tlcp.CipherSuiteName(conn.ConnectionState().CipherSuite))
	// Output:
	// hello over TLCP
	// ECC_SM4_GCM_SM3
}

// HTTPS over TLCP: the server is an http.Server served by ServeHTTP (or,
// in one line, tlcp.ListenAndServe(addr, cfg, handler)), the client an
// http.Client with NewHTTPTransport. Handlers see a non-nil r.TLS, and
// ConnectionStateFromRequest gives the TLCP details; handshake failures
// go to the server's ErrorLog.
func ExampleServeHTTP() {
	roots, pair := exampleCredentials()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			st, _ := tlcp.ConnectionStateFromRequest(r)
			fmt.Fprintf(w, "%s over %s (r.TLS set: %v, client certificate: %v)",
				r.URL.Path, tlcp.CipherSuiteName(r.TLS.CipherSuite), r.TLS != nil, st.PeerSignCertificate != nil)
		}),
		ErrorLog:          log.New(os.Stdout, "", 0), // "http: TLCP handshake error from ..."
		ReadHeaderTimeout: 10 * time.Second,          // also bounds each handshake
	}
	go tlcp.ServeHTTP(srv, ln, &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	defer srv.Close()

	client := &http.Client{Transport: tlcp.NewHTTPTransport(&tlcp.Config{RootCAs: roots})}
	resp, err := client.Get("https://" + ln.Addr().String() + "/hello")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output: /hello over ECC_SM4_GCM_SM3 (r.TLS set: true, client certificate: false)
}

// A client through an HTTP CONNECT proxy: NewHTTPTransport takes the
// proxy from HTTPS_PROXY (and NO_PROXY) by default; a Dialer names one
// explicitly.
func ExampleNewHTTPTransport_proxy() {
	cfg := &tlcp.Config{ServerName: "bank.example"} // and RootCAs
	tr := tlcp.NewHTTPTransport(cfg)
	proxy, _ := url.Parse("http://user:password@proxy.example:3128")
	tr.DialTLSContext = (&tlcp.Dialer{
		Config:           cfg,
		Proxy:            http.ProxyURL(proxy),
		HandshakeTimeout: 10 * time.Second,
	}).DialContext
	client := &http.Client{Transport: tr}
	_ = client // client.Get("https://bank.example/") goes through proxy.example
}

// TestHTTPRoundTrip runs several requests over kept-alive, new and resumed
// connections.
func TestHTTPRoundTrip(t *testing.T) {
	roots, pair := exampleCredentials()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, r.Body)
	})}
	go tlcp.ServeHTTP(srv, ln, &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	defer srv.Close()
	tr := tlcp.NewHTTPTransport(&tlcp.Config{RootCAs: roots, ClientSessionCache: tlcp.NewLRUClientSessionCache(4)})
	client := &http.Client{Transport: tr}
	for i := range 5 {
		body := fmt.Sprintf("request %d", i)
		resp, err := client.Post("https://"+ln.Addr().String()+"/", "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != body {
			t.Fatalf("got %q", got)
		}
		if i == 2 {
			tr.CloseIdleConnections() // the next request resumes
		}
	}
}

// A GetClientCertificate callback that prefers pairs the server can verify
// and logs when it has to send one it probably cannot; without a callback
// the client makes the same choice silently.
func ExampleCertificateRequestInfo_SupportsCertificate() {
	var pairs []tlcp.CertificatePair // e.g. from tlcp.LoadCertificatePair
	cfg := &tlcp.Config{
		GetClientCertificate: func(info *tlcp.CertificateRequestInfo) (*tlcp.CertificatePair, error) {
			for i := range pairs {
				if info.SupportsCertificate(&pairs[i]) == nil {
					return &pairs[i], nil
				}
			}
			if len(pairs) == 0 {
				return &tlcp.CertificatePair{}, nil // an empty Certificate message
			}
			log.Printf("no client certificate from a CA the server accepts; sending %s", pairs[0].Sign.Leaf.Subject)
			return &pairs[0], nil
		},
	}
	_ = cfg
}

// hsmKey stands for a key in a hardware security module or cipher
// machine: the process holds a handle, the device signs digests and
// decrypts. Here the "device" is an *sm2.PrivateKey kept out of sight.
type hsmKey struct {
	pub    *sm2.PublicKey
	device *sm2.PrivateKey // in real life: a session and a key index
}

func (k *hsmKey) Public() crypto.PublicKey { return k.pub }

// Sign is given the message (opts is an *sm2.SignerOpts with the default
// identifier). A device that signs digests, such as GM/T 0018's
// SDF_InternalSign_ECC, gets e = SM3(Z ‖ message).
func (k *hsmKey) Sign(_ io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	e := sm3.Sum(append(k.pub.Z(nil), msg...))
	return sm2.SignDigestASN1(rand.Reader, k.device, e[:]) // the device call
}

// Decrypt is given the GM/T 0009 DER ciphertext (C1C3C2) and opts an
// *sm2.DecrypterOpts saying so.
func (k *hsmKey) Decrypt(_ io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	return sm2.Decrypt(k.device, ciphertext, opts.(*sm2.DecrypterOpts)) // the device call
}

// A server whose two private keys stay in an HSM: PrivateKey holds a
// crypto.Signer for the signing certificate and a crypto.Decrypter for the
// encryption certificate. A key that can also run the SM2 key exchange
// (tlcp.SM2KeyExchanger) makes the ECDHE suites work too; without it the
// server negotiates ECC suites only.
func ExampleCertificate_hsm() {
	roots, pair := exampleCredentials()
	for _, half := range []*tlcp.Certificate{&pair.Sign, &pair.Enc} {
		device := half.PrivateKey.(*sm2.PrivateKey)
		half.PrivateKey = &hsmKey{pub: device.PublicKey(), device: device}
	}
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "signed and decrypted in the HSM\n")
	}()

	conn, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{RootCAs: roots, ServerName: "localhost"})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	msg, _ := io.ReadAll(conn)
	fmt.Print(string(msg))
	fmt.Println(tlcp.CipherSuiteName(conn.ConnectionState().CipherSuite))
	// Output:
	// signed and decrypted in the HSM
	// ECC_SM4_GCM_SM3
}

// hsmExchangeKey is an hsmKey whose device also runs the SM2 key exchange
// (GM/T 0018: SDF_GenerateAgreementDataWithECC and SDF_GenerateKeyWithECC
// on the server, SDF_GenerateAgreementDataAndKeyWithECC on the client).
type hsmExchangeKey struct{ *hsmKey }

func (k hsmExchangeKey) NewKeyExchange(uid []byte, keyLen int, initiator bool) (tlcp.SM2KeyExchange, error) {
	ke, err := sm2.NewKeyExchange(k.device, uid, keyLen, initiator) // the device call
	if err != nil {
		return nil, err
	}
	return ke, nil
}

// An encryption key in an HSM that runs the SM2 key exchange itself, as
// the ECDHE suites need: the ephemeral key is made and used in the device,
// only the 48-byte premaster comes out.
func ExampleSM2KeyExchanger() {
	roots, pair := exampleCredentials()
	device := pair.Enc.PrivateKey.(*sm2.PrivateKey)
	pair.Enc.PrivateKey = hsmExchangeKey{&hsmKey{pub: device.PublicKey(), device: device}}
	addr := serveOnce(&tlcp.Config{
		Certificates: []tlcp.CertificatePair{pair},
		CipherSuites: []uint16{ciphersuite.ECDHE_SM4_GCM_SM3},
	}, func(st tlcp.ConnectionState) string { return tlcp.CipherSuiteName(st.CipherSuite) + "\n" })

	// ECDHE clients need a double certificate of their own.
	client := examplePair(smx509.ExtKeyUsageClientAuth, "client.example")
	reply, err := get(addr, &tlcp.Config{RootCAs: roots, ServerName: "localhost", Certificates: []tlcp.CertificatePair{client}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(reply)
	// Output: ECDHE_SM4_GCM_SM3
}
