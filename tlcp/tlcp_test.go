// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"context"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	smx "github.com/shangmi-go/shangmi/x509"
)

func certPEM(c Certificate) []byte {
	var out []byte
	for _, der := range c.Certificate {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return out
}

// TestX509KeyPair: PKCS#8, SEC1 and encrypted PKCS#8 keys; mismatches.
func TestX509KeyPair(t *testing.T) {
	p := getPKI(t)
	sign := p.server.Sign
	pkcs8, err := smx.MarshalPrivateKeyPEM(sign.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	sec1DER, err := smx.MarshalECPrivateKey(sign.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	sec1 := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1DER})
	enc, err := smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, sign.PrivateKey, []byte("secret"), &smx.PBES2Options{Iterations: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for name, key := range map[string][]byte{"pkcs8": pkcs8, "sec1": sec1} {
		c, err := X509KeyPair(certPEM(sign), key)
		if err != nil || !c.Leaf.Equal(sign.Leaf) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := X509KeyPairWithPassword(certPEM(sign), enc, []byte("secret")); err != nil {
		t.Fatalf("encrypted: %v", err)
	}
	if _, err := X509KeyPairWithPassword(certPEM(sign), enc, []byte("wrong")); err == nil {
		t.Fatal("wrong password accepted")
	}
	if _, err := X509KeyPair(certPEM(p.server.Enc), pkcs8); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("mismatched key: %v", err)
	}
	if _, err := X509KeyPair(pkcs8, pkcs8); err == nil {
		t.Fatal("no certificate accepted")
	}

	// LoadCertificatePair from files, and the role check.
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	encKey, _ := smx.MarshalPrivateKeyPEM(p.server.Enc.PrivateKey)
	sc, sk := write("sign.pem", certPEM(sign)), write("sign.key", pkcs8)
	ec, ek := write("enc.pem", certPEM(p.server.Enc)), write("enc.key", encKey)
	if _, err := LoadCertificatePair(sc, sk, ec, ek); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCertificatePair(ec, ek, sc, sk); err == nil || !strings.Contains(err.Error(), "swapped") {
		t.Fatalf("swapped pair: %v", err)
	}
}

// TestDialAndListen: Dial fills ServerName from the address; a context
// ending first aborts the handshake.
func TestDialAndListen(t *testing.T) {
	p := getPKI(t)
	ln, err := Listen("tcp", "127.0.0.1:0", testServerConfig(t))
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
			go func() {
				defer c.Close()
				c.Write([]byte("hi"))
			}()
		}
	}()
	conn, err := Dial("tcp", ln.Addr().String(), &Config{RootCAs: p.roots})
	if err != nil {
		t.Fatal(err)
	}
	if conn.ConnectionState().ServerName != "127.0.0.1" {
		t.Fatalf("ServerName %q", conn.ConnectionState().ServerName)
	}
	conn.Close()

	// A server that never answers: the context bounds the handshake.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	forgetHintsAt(t, silent.Addr().String())
	go func() {
		c, err := silent.Accept()
		if err == nil {
			time.Sleep(2 * time.Second)
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	d := &Dialer{Config: &Config{RootCAs: p.roots}}
	start := time.Now()
	if _, err := d.DialContext(ctx, "tcp", silent.Addr().String()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("DialContext: %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("context did not bound the handshake")
	}
	if _, err := Listen("tcp", "127.0.0.1:0", &Config{}); err == nil {
		t.Fatal("Listen without certificates succeeded")
	}
}

// TestCipherSuites lists the default four first and names them.
func TestCipherSuites(t *testing.T) {
	s := CipherSuites()
	want := []string{"ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"}
	for i, n := range want {
		if s[i].Name != n || CipherSuiteName(s[i].ID) != n {
			t.Fatalf("suite %d is %s", i, s[i].Name)
		}
	}
	// crypto/tls's suites, which the one-port listener can hand off, have
	// their names too; unknown values are hexadecimal.
	if CipherSuiteName(0x1301) != "TLS_AES_128_GCM_SHA256" || CipherSuiteName(0xFAFA) != "0xFAFA" {
		t.Fatal(CipherSuiteName(0x1301), CipherSuiteName(0xFAFA))
	}
}

func TestVerifyHostname(t *testing.T) {
	ccfg := testClientConfig(t)
	ccfg.InsecureSkipVerify = true
	ccfg.ServerName = ""
	client, server, cerr, serr := handshakePair(t, ccfg, testServerConfig(t))
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	if err := client.VerifyHostname("tlcp.test"); err != nil {
		t.Fatal(err)
	}
	if err := client.VerifyHostname("other.test"); err == nil {
		t.Fatal("wrong name accepted")
	}
	if err := server.VerifyHostname("tlcp.test"); err == nil {
		t.Fatal("server side accepted")
	}
}
