// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcpcreds

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/examples/grpc/internal/echo"
	"github.com/shangmi-go/shangmi/examples/grpc/internal/stdtls"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// testdata is the main module's certificate material: a root, and
// double certificates for "shangmi test server" and "shangmi test
// client", each valid for localhost and 127.0.0.1.
var testdata = filepath.Join("..", "..", "..", "testdata", "tlcp")

func pair(t testing.TB, who string) tlcp.CertificatePair {
	t.Helper()
	f := func(n string) string { return filepath.Join(testdata, who+"_"+n) }
	p, err := tlcp.LoadCertificatePair(f("sign.pem"), f("sign.key"), f("enc.pem"), f("enc.key"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func roots(t testing.TB) *smx509.CertPool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	p := smx509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		t.Fatal("ca.pem holds no certificate")
	}
	return p
}

// serverConfig requires and verifies client certificates.
func serverConfig(t testing.TB) *tlcp.Config {
	return &tlcp.Config{
		Certificates: []tlcp.CertificatePair{pair(t, "server")},
		ClientCAs:    roots(t),
		ClientAuth:   tlcp.RequireAndVerifyClientCert,
	}
}

// clientConfig speaks one suite, TLCP or TLS 1.3 as the suite says, with
// the client's double certificate (both halves sent, for TLCP) and a
// session cache.
func clientConfig(t testing.TB, suite uint16) *tlcp.Config {
	return &tlcp.Config{
		Certificates:         []tlcp.CertificatePair{pair(t, "client")},
		RootCAs:              roots(t),
		CipherSuites:         []uint16{suite},
		ClientCertIncludeEnc: true,
		ClientSessionCache:   tlcp.NewLRUClientSessionCache(8),
	}
}

// describe is the echo service's report on its caller, from the AuthInfo
// these credentials (or grpc's TLS credentials) put in the peer.
func describe(p *peer.Peer) string {
	switch a := p.AuthInfo.(type) {
	case AuthInfo:
		st := a.State
		cn := func(c *smx509.Certificate) string {
			if c == nil {
				return "-"
			}
			return c.Subject.CommonName
		}
		return fmt.Sprintf("type=%s version=%#04x suite=%s alpn=%s, resumed=%v sign=%q enc=%q chains=%d level=%v",
			a.AuthType(), st.Version, tlcp.CipherSuiteName(st.CipherSuite), st.NegotiatedProtocol, st.DidResume,
			cn(st.PeerSignCertificate), cn(st.PeerEncCertificate), len(st.VerifiedChains), a.SecurityLevel)
	case credentials.TLSInfo:
		return fmt.Sprintf("type=%s version=%#04x alpn=%s level=%v", a.AuthType(), a.State.Version, a.State.NegotiatedProtocol, a.SecurityLevel)
	case nil:
		return "type=none"
	}
	return fmt.Sprintf("type=%T", p.AuthInfo)
}

// startServer serves the echo service with creds on ln (a new loopback
// listener if nil) until the test ends.
func startServer(t testing.TB, creds credentials.TransportCredentials, ln net.Listener, opts ...grpc.ServerOption) (*grpc.Server, string) {
	t.Helper()
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	s := grpc.NewServer(append(append(echo.ServerOptions(), grpc.Creds(creds)), opts...)...)
	echo.Register(s, describe)
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	return s, ln.Addr().String()
}

func dial(t testing.TB, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, append(echo.DialOptions(), grpc.WithTransportCredentials(creds))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// ecdsaTLS is the crypto/tls side: server config and the matching client
// config.
func ecdsaTLS(t testing.TB) (server, client *tls.Config) {
	t.Helper()
	server, client, err := stdtls.Configs()
	if err != nil {
		t.Fatal(err)
	}
	return server, client
}

// The suites each test runs over: the TLCP ECC and ECDHE suites and a
// TLS 1.3 one.
var suites = []struct {
	name  string
	id    uint16
	proto string
}{
	{"TLCP_ECC", ciphersuite.ECC_SM4_GCM_SM3, ProtocolTLCP},
	{"TLCP_ECDHE", ciphersuite.ECDHE_SM4_GCM_SM3, ProtocolTLCP},
	{"TLS13_SM4_GCM", ciphersuite.TLS_SM4_GCM_SM3, ProtocolTLS13SM},
}
