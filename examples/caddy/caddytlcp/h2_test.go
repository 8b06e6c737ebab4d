// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// TestCaddyHTTP2: with "alpn h2 http/1.1", a client that negotiates h2
// over TLCP or TLS 1.3-SM is served HTTP/2 by Caddy (net/http's
// prior-knowledge HTTP/2, which Caddy enables for connections that
// listener wrappers terminate), and one that offers only http/1.1 still
// gets HTTP/1.1.
func TestCaddyHTTP2(t *testing.T) {
	dir := t.TempDir()
	installServerPair(t, "tlcp", dir)
	writeECDSA(t, dir)
	port := freePort(t)
	src := strings.Replace(testCaddyfile, "client_auth verify_if_given {CA}", "client_auth verify_if_given {CA}\n\t\t\t\talpn h2 http/1.1", 1)
	startCaddyWith(t, src, dir, port, backend(t).URL)
	url := "https://127.0.0.1:" + port + "/h2"
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.TLS_SM4_GCM_SM3} {
		cfg := &tlcp.Config{
			RootCAs: smRoots(t, "tlcp"), Certificates: []tlcp.CertificatePair{clientPair(t)},
			CipherSuites: []uint16{suite}, NextProtos: []string{"h2"}, ServerName: "127.0.0.1",
		}
		// net/http speaks HTTP/2 over a connection it did not make with
		// crypto/tls only as prior-knowledge ("unencrypted") HTTP/2, for
		// an http:// URL: the TLCP connection comes from DialContext.
		var protos http.Protocols
		protos.SetUnencryptedHTTP2(true)
		tr := &http.Transport{Protocols: &protos, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&tlcp.Dialer{Config: cfg}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if p := c.(*tlcp.Conn).ConnectionState().NegotiatedProtocol; p != "h2" {
				c.Close()
				t.Fatalf("negotiated %q", p)
			}
			return c, nil
		}}
		got, resp := fetch(t, &http.Client{Transport: tr, Timeout: 10 * time.Second}, strings.Replace(url, "https:", "http:", 1))
		if resp.ProtoMajor != 2 {
			t.Errorf("%s: served %s, want HTTP/2", tlcp.CipherSuiteName(suite), resp.Proto)
		}
		want(t, got, "Path", "/h2", "X-Tlcp-Suite", tlcp.CipherSuiteName(suite), "X-Tlcp-Client-Sign", clientSubject)
		tr.CloseIdleConnections()

		got, resp = fetch(t, smClient(t, suite, smRoots(t, "tlcp")), url)
		if resp.ProtoMajor != 1 {
			t.Errorf("%s: a client without h2 was served %s", tlcp.CipherSuiteName(suite), resp.Proto)
		}
		want(t, got, "X-Tlcp-Suite", tlcp.CipherSuiteName(suite))
	}
}
