// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// TLS 1.3 with the ShangMi suites: the same server Config answers TLCP and
// TLS 1.3 clients; this client asks for TLS 1.3 only.
func Example_tls13() {
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
		io.WriteString(c, "hello over TLS 1.3")
	}()

	conn, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{
		RootCAs:    roots,
		ServerName: "localhost",
		MinVersion: tlcp.VersionTLS13,
		MaxVersion: tlcp.VersionTLS13,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	msg, _ := io.ReadAll(conn)
	st := conn.ConnectionState()
	fmt.Printf("%s: version %#04x, %s, %v\n", msg, st.Version, tlcp.CipherSuiteName(st.CipherSuite), st.CurveID)
	// Output: hello over TLS 1.3: version 0x0304, TLS_SM4_GCM_SM3, curveSM2MLKEM768
}

// The key exchange groups: both sides prefer the post-quantum hybrid by
// default. A server that must talk to clients without it keeps curveSM2
// after it; a server that lists curveSM2 alone turns the hybrid off. A
// client that lists curveSM2 first sends only its share, and a server that
// prefers the hybrid asks for that share with a HelloRetryRequest.
func ExampleConfig_curvePreferences() {
	roots, pair := exampleCredentials()
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{
		Certificates:     []tlcp.CertificatePair{pair},
		CurvePreferences: []tlcp.CurveID{tlcp.CurveSM2MLKEM768, tlcp.CurveSM2},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*tlcp.Conn).Handshake()
			c.Close()
		}
	}()

	for _, groups := range [][]tlcp.CurveID{nil, {tlcp.CurveSM2}, {tlcp.CurveSM2, tlcp.CurveSM2MLKEM768}} {
		conn, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{
			RootCAs:          roots,
			ServerName:       "localhost",
			MinVersion:       tlcp.VersionTLS13,
			CurvePreferences: groups,
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("client %v: %v\n", groups, conn.ConnectionState().CurveID)
		conn.Close()
	}
	// Output:
	// client []: curveSM2MLKEM768
	// client [curveSM2]: curveSM2
	// client [curveSM2 curveSM2MLKEM768]: curveSM2MLKEM768
}

// Naming a TLS 1.3 suite in CipherSuites is enough for a client to speak
// TLS 1.3; listing suites of both protocols with a version range that
// holds both offers both in one ClientHello.
func ExampleConfig_cipherSuites() {
	tls13Only := &tlcp.Config{CipherSuites: []uint16{ciphersuite.TLS_SM4_CCM_SM3}}
	both := &tlcp.Config{
		CipherSuites: []uint16{ciphersuite.TLS_SM4_GCM_SM3, ciphersuite.ECC_SM4_GCM_SM3},
		MaxVersion:   tlcp.VersionTLS13,
	}
	fmt.Println(tls13Only.MaxVersion == 0, both.MinVersion == 0)
	// Output: true true
}

// One port for TLCP, TLS 1.3-SM and ordinary TLS: browsers get HTTP/2 over
// crypto/tls with an ECDSA certificate, SM clients get this package.
func ExampleNewAutoListener() {
	roots, pair := exampleCredentials()
	smConfig := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}}
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{ecdsaCertificate()}, NextProtos: []string{"h2", "http/1.1"}}

	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ln := tlcp.NewAutoListener(inner, smConfig, tlsConfig)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s over %#04x", r.Proto, r.TLS.Version)
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go tlcp.ServeHTTP(srv, ln, smConfig)
	defer srv.Close()

	url := "https://" + ln.Addr().String() + "/"
	for _, cfg := range []*tlcp.Config{
		{RootCAs: roots, ServerName: "localhost"},                                // TLCP
		{RootCAs: roots, ServerName: "localhost", MinVersion: tlcp.VersionTLS13}, // TLS 1.3-SM
	} {
		resp, err := (&http.Client{Transport: tlcp.NewHTTPTransport(cfg)}).Get(url)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(string(body))
	}
	// Output:
	// HTTP/1.1 over 0x0101
	// HTTP/1.1 over 0x0304
}

// ecdsaCertificate makes a self-signed P-256 certificate for crypto/tls.
func ecdsaCertificate() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		log.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
