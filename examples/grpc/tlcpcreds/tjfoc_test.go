// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcpcreds

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tjfoc/gmsm/gmtls"
	"github.com/tjfoc/gmsm/gmtls/gmcredentials"
	tjx509 "github.com/tjfoc/gmsm/x509"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/examples/grpc/internal/echo"
)

// Interop with tjfoc's gmcredentials (github.com/tjfoc/gmsm v1.4.1), the
// gRPC binding of its gmtls, on ECC_SM4_CBC_SM3, the one TLCP suite gmtls
// implements correctly, with client authentication, in both directions.

func tjfocCert(t *testing.T, name string) gmtls.Certificate {
	t.Helper()
	c, err := gmtls.LoadX509KeyPair(filepath.Join(testdata, name+".pem"), filepath.Join(testdata, name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tjfocPool(t *testing.T) *tjx509.CertPool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	p := tjx509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		t.Fatal("gmsm/x509 refused ca.pem")
	}
	return p
}

// TestTjfocClient: a gmcredentials client calls our server, which must
// let it through without ALPN: gmtls sends no extension over TLCP.
func TestTjfocClient(t *testing.T) {
	_, addr := startServer(t, NewServer(serverConfig(t), AllowMissingALPN()), nil)
	sign := tjfocCert(t, "client_sign")
	creds := gmcredentials.NewTLS(&gmtls.Config{
		GMSupport:    gmtls.NewGMSupport(),
		RootCAs:      tjfocPool(t),
		ServerName:   "localhost",
		CipherSuites: []uint16{ciphersuite.ECC_SM4_CBC_SM3},
		// gmtls sends no certificate when the client's issuer is not
		// among the CAs requested, unless chosen by hand.
		GetClientCertificate:   func(*gmtls.CertificateRequestInfo) (*gmtls.Certificate, error) { return &sign, nil },
		SessionTicketsDisabled: true,
	})
	cc := dial(t, addr, creds)
	got, _ := who(t, cc)
	mustContain(t, got, "type=tlcp", "suite=ECC_SM4_CBC_SM3", "alpn=,", `sign="shangmi test client"`, "chains=1")
	// Without the option, the server refuses it as grpc's TLS
	// credentials would.
	_, strict := startServer(t, NewServer(serverConfig(t)), nil)
	if _, err := echo.Unary(ctxT(t, 10*time.Second), dial(t, strict, creds), []byte("x")); status.Code(err) != codes.Unavailable {
		t.Errorf("strict server and a client without ALPN: %v, want Unavailable", err)
	}

	// And through the one-port server.
	stdServer, _ := ecdsaTLS(t)
	_, auto := startServer(t, NewAutoServer(serverConfig(t), stdServer, AllowMissingALPN()), nil)
	got, _ = who(t, dial(t, auto, creds))
	mustContain(t, got, "type=tlcp", "suite=ECC_SM4_CBC_SM3", `sign="shangmi test client"`)

	st, err := echo.Bidi(ctxT(t, 10*time.Second), cc)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("from tjfoc")
	var back []byte
	if err := st.SendMsg(&msg); err != nil {
		t.Fatal(err)
	}
	if err := st.RecvMsg(&back); err != nil || string(back) != "echo:from tjfoc" {
		t.Fatalf("bidi through gmcredentials: %q, %v", back, err)
	}
}

// TestTjfocServer: our client calls a gmcredentials server.
func TestTjfocServer(t *testing.T) {
	creds := gmcredentials.NewTLS(&gmtls.Config{
		GMSupport: gmtls.NewGMSupport(),
		// SIGN first, ENC second: the order gmtls reads them in.
		Certificates:           []gmtls.Certificate{tjfocCert(t, "server_sign"), tjfocCert(t, "server_enc")},
		CipherSuites:           []uint16{ciphersuite.ECC_SM4_CBC_SM3},
		ClientAuth:             gmtls.RequireAndVerifyClientCert,
		ClientCAs:              tjfocPool(t),
		SessionTicketsDisabled: true,
	})
	_, addr := startServer(t, creds, nil)
	cfg := clientConfig(t, ciphersuite.ECC_SM4_CBC_SM3)
	cfg.ServerName = "localhost"
	cc := dial(t, addr, NewClient(cfg))
	got, server := who(t, cc)
	// The echo service cannot read gmcredentials' AuthInfo; the client's
	// view of the server is checked instead.
	mustContain(t, got, "type=gmcredentials.TLSInfo")
	a := server.(AuthInfo)
	if a.State.CipherSuite != ciphersuite.ECC_SM4_CBC_SM3 || a.State.NegotiatedProtocol != "h2" ||
		a.State.PeerSignCertificate == nil || a.State.PeerEncCertificate == nil {
		t.Errorf("our client's view of the gmcredentials server: %+v", a.State)
	}
	out, err := echo.Unary(ctxT(t, 10*time.Second), cc, []byte("hello tjfoc"))
	if err != nil || string(out) != "hello tjfoc" {
		t.Fatalf("unary: %q, %v", out, err)
	}
}
