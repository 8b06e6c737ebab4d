// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// smtool s_server / s_client: a TLCP server and client in the spirit of
// openssl s_server / s_client (Tongsuo's -enable_ntls flavour).

func init() {
	register(&command{
		name:    "s_server",
		summary: "run a TLCP server (echo or -www page), print each connection",
		run:     sServer,
	})
}

// handshakeTimeout bounds each connection's handshake, so that a client
// that connects and says nothing does not hold a goroutine forever
// (tlcp's package documentation recommends this to every server).
var handshakeTimeout = 10 * time.Second

// tlcpFlags are the options s_server and s_client share.
type tlcpFlags struct {
	signCert, signKey, encCert, encKey *string
	pass                               *string
	caFile                             *string
	cipher                             *string
	alpn                               *string
	rawCV                              *bool
}

func addTLCPFlags(fs interface {
	String(name, value, usage string) *string
	Bool(name string, value bool, usage string) *bool
}, caUsage string) *tlcpFlags {
	return &tlcpFlags{
		signCert: fs.String("sign-cert", "", "signing certificate chain (PEM `file`)"),
		signKey:  fs.String("sign-key", "", "signing private key (PEM `file`, PKCS#8 or SEC1)"),
		encCert:  fs.String("enc-cert", "", "encryption certificate (PEM `file`)"),
		encKey:   fs.String("enc-key", "", "encryption private key (PEM `file`)"),
		pass:     fs.String("pass", "", "password of encrypted private keys"),
		caFile:   fs.String("CAfile", "", caUsage),
		cipher:   fs.String("cipher", "", "comma-separated cipher suites by name or hex, in preference order (default: the standard four)"),
		alpn:     fs.String("alpn", "", "comma-separated ALPN protocols"),
		rawCV:    fs.Bool("raw-cv", false, "CertificateVerify over the raw transcript (GmSSL >= 3.2); a server then accepts both forms"),
	}
}

// pair loads the double certificate; required says whether it must exist.
func (f *tlcpFlags) pair(required bool) (*tlcp.CertificatePair, error) {
	if *f.signCert == "" && *f.encCert == "" {
		if required {
			return nil, usagef("-sign-cert, -sign-key, -enc-cert and -enc-key are required")
		}
		return nil, nil
	}
	var pw []byte
	if *f.pass != "" {
		pw = []byte(*f.pass)
	}
	var p tlcp.CertificatePair
	var err error
	if *f.signCert == "" || *f.signKey == "" {
		return nil, usagef("-sign-cert and -sign-key go together")
	}
	if p.Sign, err = tlcp.LoadX509KeyPairWithPassword(*f.signCert, *f.signKey, pw); err != nil {
		return nil, fmt.Errorf("signing certificate: %w", err)
	}
	// The handshake would find a swapped pair too, but only when a peer
	// connects; a tool should say so at startup.
	if !p.Sign.Leaf.IsTLCPSignCert() {
		return nil, fmt.Errorf("%s is not a TLCP signing certificate (key usage digitalSignature); are -sign-cert and -enc-cert swapped?", *f.signCert)
	}
	if *f.encCert != "" || *f.encKey != "" {
		if *f.encCert == "" || *f.encKey == "" {
			return nil, usagef("-enc-cert and -enc-key go together")
		}
		if p.Enc, err = tlcp.LoadX509KeyPairWithPassword(*f.encCert, *f.encKey, pw); err != nil {
			return nil, fmt.Errorf("encryption certificate: %w", err)
		}
		if !p.Enc.Leaf.IsTLCPEncCert() {
			return nil, fmt.Errorf("%s is not a TLCP encryption certificate (key usage keyEncipherment, dataEncipherment or keyAgreement); are -sign-cert and -enc-cert swapped?", *f.encCert)
		}
	} else if required {
		return nil, usagef("a TLCP server needs -enc-cert and -enc-key too")
	}
	return &p, nil
}

func (f *tlcpFlags) pool() (*smx509.CertPool, error) {
	if *f.caFile == "" {
		return nil, nil
	}
	data, err := os.ReadFile(*f.caFile)
	if err != nil {
		return nil, err
	}
	pool := smx509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s: no certificates found", *f.caFile)
	}
	return pool, nil
}

// suites parses -cipher.
func (f *tlcpFlags) suites() ([]uint16, error) {
	if *f.cipher == "" {
		return nil, nil
	}
	var ids []uint16
	for _, name := range strings.Split(*f.cipher, ",") {
		name = strings.TrimSpace(name)
		id, ok := suiteByName(name)
		if !ok {
			var known []string
			for _, s := range tlcp.CipherSuites() {
				known = append(known, s.Name)
			}
			return nil, usagef("unknown cipher suite %q (known: %s)", name, strings.Join(known, ", "))
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func suiteByName(name string) (uint16, bool) {
	norm := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	for _, s := range tlcp.CipherSuites() {
		if norm == s.Name || (s.Alias != "" && norm == s.Alias) {
			return s.ID, true
		}
	}
	if v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(name), "0x"), 16, 16); err == nil {
		if s := ciphersuite.Lookup(uint16(v)); s != nil && s.Supported {
			return uint16(v), true
		}
	}
	return 0, false
}

func (f *tlcpFlags) protos() []string {
	if *f.alpn == "" {
		return nil
	}
	return strings.Split(*f.alpn, ",")
}

func sServer(args []string, stdout io.Writer) error {
	fs := newFlagSet("s_server")
	accept := fs.String("accept", "127.0.0.1:4433", "listen `address`")
	tf := addTLCPFlags(fs, "CA certificates that verify client certificates (PEM `file`)")
	verify := fs.String("verify", "none", "client certificates: none, request, require, verify-if-given or require-verify (ECDHE suites always ask)")
	www := fs.Bool("www", false, "answer each request with an HTTP page describing the connection instead of echoing")
	once := fs.Bool("once", false, "serve one connection, then exit (same as -naccept 1)")
	naccept := fs.Int("naccept", 0, "serve `n` connections, then exit (0: serve forever)")
	rest, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("unexpected arguments %q", rest)
	}
	if *naccept < 0 {
		return usagef("-naccept: %d is negative", *naccept)
	}
	if *once {
		if *naccept > 1 {
			return usagef("-once and -naccept %d contradict each other", *naccept)
		}
		*naccept = 1
	}
	addr := *accept
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		// openssl style: a bare port listens on every interface.
		addr = ":" + addr
	}
	pair, err := tf.pair(true)
	if err != nil {
		return err
	}
	cfg := &tlcp.Config{
		Certificates:                   []tlcp.CertificatePair{*pair},
		NextProtos:                     tf.protos(),
		CertificateVerifyRawTranscript: *tf.rawCV,
	}
	if cfg.ClientCAs, err = tf.pool(); err != nil {
		return err
	}
	if cfg.CipherSuites, err = tf.suites(); err != nil {
		return err
	}
	modes := map[string]tlcp.ClientAuthType{
		"none": tlcp.NoClientCert, "request": tlcp.RequestClientCert, "require": tlcp.RequireAnyClientCert,
		"verify-if-given": tlcp.VerifyClientCertIfGiven, "require-verify": tlcp.RequireAndVerifyClientCert,
	}
	mode, ok := modes[*verify]
	if !ok {
		return usagef("-verify: unknown mode %q", *verify)
	}
	cfg.ClientAuth = mode
	if mode >= tlcp.VerifyClientCertIfGiven && cfg.ClientCAs == nil {
		return usagef("-verify %s needs -CAfile", *verify)
	}

	ln, err := tlcp.Listen("tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer ln.Close()
	// The bound address, so that "-accept 127.0.0.1:0" is usable: scripts
	// and tests read the port from this line.
	fmt.Fprintf(stdout, "ACCEPT %s\n", ln.Addr())
	var mu sync.Mutex // serialises output of concurrent connections
	var wg sync.WaitGroup
	defer wg.Wait()
	for n := 0; *naccept == 0 || n < *naccept; n++ {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		serve := func() {
			defer c.Close()
			conn := c.(*tlcp.Conn)
			ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
			err := conn.HandshakeContext(ctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("no handshake within %v: %w", handshakeTimeout, err)
			}
			mu.Lock()
			if err != nil {
				fmt.Fprintf(stdout, "%s: handshake failed: %v\n", c.RemoteAddr(), err)
				mu.Unlock()
				return
			}
			fmt.Fprintf(stdout, "--- connection from %s\n", c.RemoteAddr())
			printState(stdout, conn.ConnectionState(), "client")
			mu.Unlock()
			if *www {
				serveWWW(conn)
				return
			}
			n, err := io.Copy(conn, conn)
			mu.Lock()
			fmt.Fprintf(stdout, "%s: echoed %d bytes", c.RemoteAddr(), n)
			if err != nil {
				fmt.Fprintf(stdout, " (%v)", err)
			}
			fmt.Fprintln(stdout)
			mu.Unlock()
		}
		wg.Add(1)
		go func() { defer wg.Done(); serve() }()
	}
	// Refuse further clients while the last ones finish.
	ln.Close()
	return nil
}

// serveWWW reads one HTTP request head and answers with a page.
func serveWWW(conn *tlcp.Conn) {
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if strings.TrimSpace(line) == "" {
			break
		}
	}
	var b strings.Builder
	printState(&b, conn.ConnectionState(), "client")
	body := b.String()
	fmt.Fprintf(conn, "HTTP/1.0 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// printState prints a ConnectionState and the peer's certificates.
func printState(w io.Writer, st tlcp.ConnectionState, peer string) {
	fmt.Fprintf(w, "Protocol  : TLCP (0x%04x)\n", st.Version)
	fmt.Fprintf(w, "Cipher    : %s (0x%04X)\n", tlcp.CipherSuiteName(st.CipherSuite), st.CipherSuite)
	fmt.Fprintf(w, "Resumed   : %v\n", st.DidResume)
	if st.ServerName != "" {
		fmt.Fprintf(w, "ServerName: %s\n", st.ServerName)
	}
	if st.NegotiatedProtocol != "" {
		fmt.Fprintf(w, "ALPN      : %s\n", st.NegotiatedProtocol)
	}
	if len(st.PeerCertificates) == 0 {
		fmt.Fprintf(w, "No %s certificate\n", peer)
		return
	}
	fmt.Fprintf(w, "%s certificates (%d):\n", strings.ToUpper(peer[:1])+peer[1:], len(st.PeerCertificates))
	for i, c := range st.PeerCertificates {
		role := ""
		switch c {
		case st.PeerSignCertificate:
			role = " [sign]"
		case st.PeerEncCertificate:
			role = " [enc]"
		}
		fmt.Fprintf(w, " %d%s s:%s\n   i:%s\n   valid %s .. %s\n", i, role, c.Subject, c.Issuer,
			c.NotBefore.Format("2006-01-02"), c.NotAfter.Format("2006-01-02"))
	}
	if len(st.VerifiedChains) > 0 {
		fmt.Fprintf(w, "Verified  : yes, chain of %d\n", len(st.VerifiedChains[0]))
	} else {
		fmt.Fprintf(w, "Verified  : no\n")
	}
}

var errNoConnect = errors.New("-connect host:port is required")
