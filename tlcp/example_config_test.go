// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// Mutual authentication: the server requires a client double certificate
// issued by a CA in ClientCAs and verifies it; the client offers its pair
// in Certificates (or chooses one in GetClientCertificate). With the ECC
// suites the client sends its signing certificate, with the ECDHE suites
// both.
func ExampleConfig_clientAuth() {
	roots, serverPair := exampleCredentials()
	addr := serveOnce(&tlcp.Config{
		Certificates: []tlcp.CertificatePair{serverPair},
		ClientAuth:   tlcp.RequireAndVerifyClientCert,
		ClientCAs:    roots,
	}, func(st tlcp.ConnectionState) string {
		return fmt.Sprintf("hello, %s (verified: %v)\n", st.PeerSignCertificate.Subject.CommonName, len(st.VerifiedChains) > 0)
	})

	clientPair := examplePair(smx509.ExtKeyUsageClientAuth, "teller-17.bank.example")
	reply, err := get(addr, &tlcp.Config{
		RootCAs:      roots,
		ServerName:   "localhost",
		Certificates: []tlcp.CertificatePair{clientPair},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(reply)

	// Without a certificate the server refuses, and says why.
	_, err = get(addr, &tlcp.Config{RootCAs: roots, ServerName: "localhost"})
	fmt.Println(err)
	// Output:
	// hello, teller-17.bank.example (verified: true)
	// remote error: tlcp: bad certificate
}

// LoadCertificatePair reads the four PEM files a CA delivers for a TLCP
// server: the signing certificate and key, the encryption certificate and
// key. It checks that each key matches its certificate and that the two
// certificates' key usages fit their roles.
func ExampleLoadCertificatePair() {
	dir := "../testdata/openssl"
	pair, err := tlcp.LoadCertificatePair(
		filepath.Join(dir, "server_sign.pem"), filepath.Join(dir, "server_sign.key"),
		filepath.Join(dir, "server_enc.pem"), filepath.Join(dir, "server_enc.key"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("sign:", pair.Sign.Leaf.Subject.CommonName, pair.Sign.Leaf.KeyUsage&smx509.KeyUsageDigitalSignature != 0)
	fmt.Println("enc: ", pair.Enc.Leaf.Subject.CommonName, pair.Enc.Leaf.KeyUsage&smx509.KeyUsageKeyEncipherment != 0)
	cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}}
	_ = cfg // tlcp.Listen("tcp", ":443", cfg)

	// The files given the wrong way round are refused with the reason.
	_, err = tlcp.LoadCertificatePair(
		filepath.Join(dir, "server_enc.pem"), filepath.Join(dir, "server_enc.key"),
		filepath.Join(dir, "server_sign.pem"), filepath.Join(dir, "server_sign.key"))
	fmt.Println(err != nil)
	// Output:
	// sign: shangmi openssl server true
	// enc:  shangmi openssl server true
	// true
}

// One server for several sites: GetCertificate picks the double
// certificate by the name the client sent in server_name, which clients
// send by default when ServerName is a host name.
func ExampleConfig_getCertificate() {
	ca, _ := exampleRoot()
	roots := smx509.NewCertPool()
	roots.AddCert(ca)
	sites := map[string]*tlcp.CertificatePair{}
	for _, name := range []string{"www.bank.example", "api.bank.example"} {
		pair := examplePair(smx509.ExtKeyUsageServerAuth, name)
		sites[name] = &pair
	}
	addr := serveOnce(&tlcp.Config{
		GetCertificate: func(hello *tlcp.ClientHelloInfo) (*tlcp.CertificatePair, error) {
			if pair, ok := sites[hello.ServerName]; ok {
				return pair, nil
			}
			return nil, fmt.Errorf("no certificate for %q", hello.ServerName)
		},
	}, func(st tlcp.ConnectionState) string { return "this is " + st.ServerName + "\n" })

	for _, name := range []string{"api.bank.example", "www.bank.example"} {
		reply, err := get(addr, &tlcp.Config{RootCAs: roots, ServerName: name})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(reply)
	}
	// Output:
	// this is api.bank.example
	// this is www.bank.example
}

// Per-site policy: GetConfigForClient returns the Config for the site the
// client asks for, here one that requires client certificates for the
// API and none for the web site. Sessions and session cache keys stay
// those of the Config passed to Listen, so connections resume whatever
// the callback returns.
func ExampleConfig_getConfigForClient() {
	ca, _ := exampleRoot()
	roots := smx509.NewCertPool()
	roots.AddCert(ca)
	pair := examplePair(smx509.ExtKeyUsageServerAuth, "www.bank.example", "api.bank.example")
	base := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}}
	api := base.Clone()
	api.ClientAuth = tlcp.RequireAndVerifyClientCert
	api.ClientCAs = roots
	base.GetConfigForClient = func(hello *tlcp.ClientHelloInfo) (*tlcp.Config, error) {
		if hello.ServerName == "api.bank.example" {
			return api, nil
		}
		return nil, nil // base itself
	}
	addr := serveOnce(base, func(st tlcp.ConnectionState) string {
		return fmt.Sprintf("%s: client certificate %v\n", st.ServerName, st.PeerSignCertificate != nil)
	})

	client := examplePair(smx509.ExtKeyUsageClientAuth, "client.example")
	for _, name := range []string{"www.bank.example", "api.bank.example"} {
		reply, err := get(addr, &tlcp.Config{RootCAs: roots, ServerName: name, Certificates: []tlcp.CertificatePair{client}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(reply)
	}
	// Output:
	// www.bank.example: client certificate false
	// api.bank.example: client certificate true
}

// VerifyConnection runs after the ordinary verification, in full and
// resumed handshakes alike, with the whole ConnectionState: here a client
// pins the server's signing key (SM3 of its SubjectPublicKeyInfo) in
// addition to verifying the chain.
func ExampleConfig_verifyConnection() {
	roots, pair := exampleCredentials()
	addr := serveOnce(&tlcp.Config{Certificates: []tlcp.CertificatePair{pair}},
		func(tlcp.ConnectionState) string { return "pinned key matches\n" })

	pin := sm3.Sum(pair.Sign.Leaf.RawSubjectPublicKeyInfo)
	pinning := func(pin [32]byte) func(tlcp.ConnectionState) error {
		return func(st tlcp.ConnectionState) error {
			if sm3.Sum(st.PeerSignCertificate.RawSubjectPublicKeyInfo) != pin {
				return errors.New("the server's signing key is not the pinned one")
			}
			return nil
		}
	}
	reply, err := get(addr, &tlcp.Config{RootCAs: roots, ServerName: "localhost", VerifyConnection: pinning(pin)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(reply)

	_, err = get(addr, &tlcp.Config{RootCAs: roots, ServerName: "localhost", VerifyConnection: pinning([32]byte{})})
	fmt.Println(err)
	// Output:
	// pinned key matches
	// tlcp: VerifyConnection: the server's signing key is not the pinned one
}

// KeyLogWriter writes each connection's master secret in the NSS key log
// format, which Wireshark reads to decrypt a capture of the connection
// (Preferences, Protocols, TLS, (Pre)-Master-Secret log filename). For
// debugging only: whoever has the file can read the traffic.
func ExampleConfig_keyLogWriter() {
	roots, pair := exampleCredentials()
	addr := serveOnce(&tlcp.Config{Certificates: []tlcp.CertificatePair{pair}},
		func(tlcp.ConnectionState) string { return "" })

	var keyLog bytes.Buffer // os.OpenFile(os.Getenv("SSLKEYLOGFILE"), ...)
	if _, err := get(addr, &tlcp.Config{RootCAs: roots, ServerName: "localhost", KeyLogWriter: &keyLog}); err != nil {
		log.Fatal(err)
	}
	f := strings.Fields(keyLog.String())
	fmt.Printf("%s <%d hex digits: client random> <%d hex digits: master secret>\n", f[0], len(f[1]), len(f[2]))
	// Output: CLIENT_RANDOM <64 hex digits: client random> <96 hex digits: master secret>
}

// The one-line HTTPS server over TLCP. ListenAndServe logs every failed
// handshake to the server's ErrorLog with the peer's address and the
// reason, and handlers see r.TLS; see ServeHTTP for an http.Server of
// your own.
func ExampleListenAndServe() {
	pair, err := tlcp.LoadCertificatePair("sign.pem", "sign.key", "enc.pem", "enc.key")
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello over %s\n", tlcp.CipherSuiteName(r.TLS.CipherSuite))
	})
	log.Fatal(tlcp.ListenAndServe(":443", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}}, nil))
}

// storeForExample is a ServerSessionCache in memory, standing for a
// shared store such as Redis (examples/sessioncache-redis has one).
type storeForExample struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *storeForExample) Get(_ context.Context, id []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[string(id)]
	return v, ok
}

func (s *storeForExample) Put(_ context.Context, id, session []byte, _ time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[string(id)] = session
}

func (s *storeForExample) Delete(_ context.Context, id []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, string(id))
}

// Two servers behind a load balancer share sessions through one store and
// one session cache key: a session made with the first resumes on the
// second. The store holds the sessions sealed with SM4-GCM.
func ExampleServerSessionCache() {
	roots, pair := exampleCredentials()
	var key [tlcp.SessionCacheKeySize]byte
	rand.Read(key[:]) // in a fleet: the same secret on every server
	store := &storeForExample{m: map[string][]byte{}}
	var addrs []string
	for range 2 {
		cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}, ServerSessionCache: store}
		cfg.SetSessionCacheKeys([][tlcp.SessionCacheKeySize]byte{key})
		addrs = append(addrs, serveOnce(cfg, func(st tlcp.ConnectionState) string {
			return fmt.Sprintf("resumed: %v\n", st.DidResume)
		}))
	}

	client := &tlcp.Config{RootCAs: roots, ServerName: "localhost", ClientSessionCache: tlcp.NewLRUClientSessionCache(8)}
	for _, addr := range addrs {
		reply, err := get(addr, client)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(reply)
	}
	// Output:
	// resumed: false
	// resumed: true
}

// A failed chain verification is a *CertificateVerificationError holding
// the certificates the peer sent, as in crypto/tls.
func ExampleCertificateVerificationError() {
	_, pair := exampleCredentials()
	addr := serveOnce(&tlcp.Config{Certificates: []tlcp.CertificatePair{pair}},
		func(tlcp.ConnectionState) string { return "" })

	_, err := get(addr, &tlcp.Config{RootCAs: smx509.NewCertPool(), ServerName: "localhost"})
	var cve *tlcp.CertificateVerificationError
	if errors.As(err, &cve) {
		var unknown smx509.UnknownAuthorityError
		fmt.Printf("%d unverified certificates, the first for %s; unknown authority: %v\n",
			len(cve.UnverifiedCertificates), cve.UnverifiedCertificates[0].Subject.CommonName, errors.As(err, &unknown))
	}
	// Output: 2 unverified certificates, the first for localhost; unknown authority: true
}
