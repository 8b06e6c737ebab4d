// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"crypto/rand"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/x509"
)

// issuePair writes to dir a double certificate for host, issued by
// testdata/tlcp's CA, as other_{sign,enc}.{pem,key}.
func issuePair(t *testing.T, dir, host string) {
	ca, err := tlcp.LoadX509KeyPair(tlcpFile("ca.pem"), tlcpFile("ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := smx509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, role := range []string{"sign", "enc"} {
		key, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		ku := smx509.KeyUsageDigitalSignature
		if role == "enc" {
			ku = smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement
		}
		tmpl := &smx509.Certificate{
			SerialNumber: big.NewInt(int64(100 + i)), Subject: caCert.Subject,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: ku, ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth},
			DNSNames: []string{host},
		}
		tmpl.Subject.CommonName = host
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, caCert, key.Public(), ca.PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "other_"+role+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
		os.WriteFile(filepath.Join(dir, "other_"+role+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	}
}

// TestSNI: with two pairs, the client's SNI chooses the pair.
func TestSNI(t *testing.T) {
	dir := t.TempDir()
	issuePair(t, dir, "other.test")
	other := func(n string) string { return filepath.Join(dir, "other_"+n) }
	var l Listener
	err := l.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`tlcp {
		sign ` + tlcpFile("server_sign.pem") + ` ` + tlcpFile("server_sign.key") + `
		enc ` + tlcpFile("server_enc.pem") + ` ` + tlcpFile("server_enc.key") + `
		enc ` + other("enc.pem") + ` ` + other("enc.key") + `
		sign ` + other("sign.pem") + ` ` + other("sign.key") + `
	}`))
	if err != nil || len(l.Certificates) != 2 {
		t.Fatalf("two pairs from the Caddyfile: %d, %v", len(l.Certificates), err)
	}
	cfg, err := l.Config.build(caddy.NewReplacer())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { c.(*tlcp.Conn).Handshake(); c.Close() }()
		}
	}()
	for _, c := range []struct{ name, want string }{
		{"other.test", "other.test"},
		{"localhost", "shangmi test server"},
		{"127.0.0.1", "shangmi test server"}, // no SNI for an IP address
	} {
		for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.TLS_SM4_GCM_SM3} {
			conn, err := tlcp.Dial("tcp", ln.Addr().String(), &tlcp.Config{RootCAs: smRoots(t, "tlcp"), ServerName: c.name, CipherSuites: []uint16{suite}})
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, tlcp.CipherSuiteName(suite), err)
			}
			if got := conn.ConnectionState().PeerSignCertificate.Subject.CommonName; got != c.want {
				t.Errorf("%s, %s: served %q, want %q", c.name, tlcp.CipherSuiteName(suite), got, c.want)
			}
			conn.Close()
		}
	}
}
