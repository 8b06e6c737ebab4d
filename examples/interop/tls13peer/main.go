// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command tls13peer is this project's end of the manual TLS 1.3-SM (RFC
// 8998) interoperability runs against Tongsuo and GmSSL that
// ../tls13.sh drives. It is a small client or server over package tlcp:
//
//	tls13peer -server -addr 127.0.0.1:4433 -cert server_sign.pem -key server_sign.key [-ca ca.pem -verify]
//	tls13peer -addr 127.0.0.1:4433 -ca ca.pem -servername localhost [-cert … -key …] [-n 2]
//
// The server echoes what each connection sends, line by line, prefixed
// with "shangmi: ", until the client closes; the client sends -send, reads
// the answer until the server closes or goes quiet, and with -n > 1
// connects again with the same session cache, to resume. Each connection
// prints one line: protocol, suite, whether it resumed, the peer's
// certificate and the bytes exchanged. The exit status is non-zero if any
// connection failed, or, with -want-resume, if a later one did not resume.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"github.com/shangmi-go/shangmi/x509"
)

var (
	server     = flag.Bool("server", false, "act as the server (default: client)")
	addr       = flag.String("addr", "127.0.0.1:4433", "address to listen on or connect to")
	certFile   = flag.String("cert", "", "signing certificate (chain) PEM; the server's, or the client's for client authentication")
	keyFile    = flag.String("key", "", "private key PEM of -cert")
	encCert    = flag.String("enc-cert", "", "encryption certificate PEM, for TLCP")
	encKey     = flag.String("enc-key", "", "private key PEM of -enc-cert")
	pass       = flag.String("pass", "", "password of encrypted keys")
	caFile     = flag.String("ca", "", "root certificates PEM: the server's (client) or the clients' (server)")
	verify     = flag.Bool("verify", false, "server: require and verify a client certificate")
	request    = flag.Bool("request", false, "server: request a client certificate without requiring one")
	serverName = flag.String("servername", "localhost", "client: the name to send and verify")
	insecure   = flag.Bool("insecure", false, "client: do not verify the server")
	suites     = flag.String("suites", "", "comma-separated suites (e.g. TLS_SM4_GCM_SM3,TLS_SM4_CCM_SM3,ECC_SM4_GCM_SM3); default: all")
	trace      = flag.Bool("trace", false, "print each handshake message sent and received (HelloRetryRequest named as such)")
	groups     = flag.String("groups", "", "TLS 1.3 key exchange groups, most preferred first, colon-separated as OpenSSL's -groups (curveSM2MLKEM768:curveSM2); default: both, the hybrid first")
	versions   = flag.String("versions", "tls13", "tls13, tlcp or both")
	n          = flag.Int("n", 1, "connections to make (client) or serve (server, 0 = forever)")
	send       = flag.String("send", "hello from shangmi\n", "client: data to send (\\n and \\r are unescaped)")
	noCompat   = flag.Bool("nocompat", false, "no middlebox-compatibility ChangeCipherSpec (GmSSL)")
	defaultID  = flag.Bool("defaultid", false, "sign CertificateVerify with the default SM2 ID 1234567812345678")
	noTickets  = flag.Bool("notickets", false, "server: send no session tickets")
	keyLog     = flag.String("keylog", "", "append NSS key log lines to this file")
	alpn       = flag.String("alpn", "", "comma-separated ALPN protocols")
	wantResume = flag.Bool("want-resume", false, "client: fail unless every connection after the first resumed")
	timeout    = flag.Duration("timeout", 10*time.Second, "bound on each connection")
	encryptKey = flag.String("encrypt-key", "", "instead of connecting: write the key in this PEM file to -out, encrypted with -pass the way GmSSL reads keys (PBES2, HMAC-SM3, SM4-CBC)")
	out        = flag.String("out", "", "output file of -encrypt-key")
	captureTo  = flag.String("capture", "", "record the first connection (key log and raw bytes) to this file, for tlcp's golden tests")
	genPKIDir  = flag.String("gen-pki", "", "instead of connecting: write a fresh test PKI to this directory (see genPKI); keys for GmSSL are encrypted with -pass")
	idle       = flag.Duration("idle", time.Second, "client: stop reading after this long without data")
	pause      = flag.Duration("pause", 100*time.Millisecond, "client: wait between connections")
	keyUpdates = flag.Int("keyupdates", 0, "client, TLS 1.3: after -send and its answer, this many rounds of a KeyUpdate (update_requested in the odd ones), -send and its answer (keyupdate.go)")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tls13peer: ")
	flag.Parse()
	if *genPKIDir != "" {
		if err := genPKI(*genPKIDir, *pass); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *encryptKey != "" {
		if err := encryptKeyFile(); err != nil {
			log.Fatal(err)
		}
		return
	}
	cfg, err := config()
	if err != nil {
		log.Fatal(err)
	}
	if *server {
		err = serve(cfg)
	} else {
		err = dial(cfg)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func config() (*tlcp.Config, error) {
	cfg := &tlcp.Config{
		ServerName:             *serverName,
		InsecureSkipVerify:     *insecure,
		TLS13NoMiddleboxCompat: *noCompat,
		TLS13DefaultSM2ID:      *defaultID,
		SessionTicketsDisabled: *noTickets,
	}
	switch *versions {
	case "tls13":
		cfg.MinVersion, cfg.MaxVersion = tlcp.VersionTLS13, tlcp.VersionTLS13
	case "tlcp":
		cfg.MinVersion, cfg.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
	case "both":
		cfg.MinVersion, cfg.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLS13
	default:
		return nil, fmt.Errorf("-versions %q: want tls13, tlcp or both", *versions)
	}
	if *suites != "" {
		for _, name := range strings.Split(*suites, ",") {
			id, ok := suiteID(name)
			if !ok {
				return nil, fmt.Errorf("unknown suite %q", name)
			}
			cfg.CipherSuites = append(cfg.CipherSuites, id)
		}
	}
	if *trace {
		cfg.MessageTrace = traceMessage
	}
	if *groups != "" {
		for _, name := range strings.Split(*groups, ":") {
			id, ok := groupID(name)
			if !ok {
				return nil, fmt.Errorf("unknown group %q (want curveSM2MLKEM768 or curveSM2)", name)
			}
			cfg.CurvePreferences = append(cfg.CurvePreferences, id)
		}
	}
	if *alpn != "" {
		cfg.NextProtos = strings.Split(*alpn, ",")
	}
	if *certFile != "" {
		var pair tlcp.CertificatePair
		var err error
		if pair.Sign, err = tlcp.LoadX509KeyPairWithPassword(*certFile, *keyFile, []byte(*pass)); err != nil {
			return nil, fmt.Errorf("-cert/-key: %w", err)
		}
		if *encCert != "" {
			if pair.Enc, err = tlcp.LoadX509KeyPairWithPassword(*encCert, *encKey, []byte(*pass)); err != nil {
				return nil, fmt.Errorf("-enc-cert/-enc-key: %w", err)
			}
		}
		cfg.Certificates = []tlcp.CertificatePair{pair}
	}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return nil, err
		}
		pool := smx509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no certificates", *caFile)
		}
		cfg.RootCAs, cfg.ClientCAs = pool, pool
	}
	switch {
	case *verify:
		cfg.ClientAuth = tlcp.RequireAndVerifyClientCert
	case *request:
		cfg.ClientAuth = tlcp.VerifyClientCertIfGiven
	}
	if !*server {
		cfg.ClientSessionCache = tlcp.NewLRUClientSessionCache(4)
	}
	if *captureTo != "" {
		f, err := os.Create(*captureTo)
		if err != nil {
			return nil, err
		}
		theCapture = &capture{w: f}
		fmt.Fprintf(f, "# tls13peer %s\n", strings.Join(os.Args[1:], " "))
		cfg.KeyLogWriter = theCapture
	}
	if *keyLog != "" {
		f, err := os.OpenFile(*keyLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		cfg.KeyLogWriter = f
	}
	return cfg, nil
}

// theCapture is set by -capture; only the first connection is recorded.
var theCapture *capture

// record wraps the first connection for -capture.
func record(c net.Conn) net.Conn {
	if theCapture == nil {
		return c
	}
	cc := &capturedConn{Conn: c, c: theCapture}
	theCapture = nil
	return cc
}

func suiteID(name string) (uint16, bool) {
	for _, s := range ciphersuite.TLS13Suites() {
		if s.Name == name {
			return s.ID, true
		}
	}
	for _, s := range ciphersuite.All() {
		if s.Name == name && s.Supported {
			return s.ID, true
		}
	}
	return 0, false
}

// describe is the one line printed per connection.
func describe(i int, c *tlcp.Conn, sent, got int) string {
	st := c.ConnectionState()
	vers := "TLCP"
	if st.Version == tlcp.VersionTLS13 {
		vers = "TLS 1.3"
	}
	peer := "no certificate"
	if st.PeerSignCertificate != nil {
		peer = fmt.Sprintf("peer %q", st.PeerSignCertificate.Subject.CommonName)
		if st.VerifiedChains != nil {
			peer += " (verified)"
		}
	}
	return fmt.Sprintf("conn %d: %s %s resumed=%v group=%v alpn=%q %s, sent %d got %d bytes",
		i, vers, tlcp.CipherSuiteName(st.CipherSuite), st.DidResume, st.CurveID, st.NegotiatedProtocol, peer, sent, got)
}

// groupID is the group OpenSSL calls name.
func groupID(name string) (tlcp.CurveID, bool) {
	for _, id := range []tlcp.CurveID{tlcp.CurveSM2MLKEM768, tlcp.CurveSM2} {
		if strings.EqualFold(name, id.String()) {
			return id, true
		}
	}
	return 0, false
}

func serve(cfg *tlcp.Config) error {
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Printf("listening on %s\n", ln.Addr())
	var failed error
	for i := 1; *n == 0 || i <= *n; i++ {
		raw, err := ln.Accept()
		if err != nil {
			return err
		}
		if err := serveOne(i, tlcp.Server(record(raw), cfg)); err != nil {
			fmt.Printf("conn %d: FAILED: %v\n", i, err)
			failed = errors.New("a connection failed")
		}
	}
	return failed
}

func serveOne(i int, c *tlcp.Conn) error {
	defer c.Close()
	c.SetDeadline(time.Now().Add(*timeout))
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := c.HandshakeContext(ctx); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	sent, got := 0, 0
	for {
		line, err := r.ReadString('\n')
		got += len(line)
		if len(line) > 0 {
			m, werr := io.WriteString(c, "shangmi: "+line)
			sent += m
			if werr != nil {
				return werr
			}
			if strings.HasPrefix(line, "GET ") {
				break // an HTTP client waits for the close
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	fmt.Println(describe(i, c, sent, got))
	return nil
}

func dial(cfg *tlcp.Config) error {
	msg := strings.NewReplacer(`\n`, "\n", `\r`, "\r").Replace(*send)
	var failed error
	for i := 1; i <= *n; i++ {
		raw, err := net.DialTimeout("tcp", *addr, *timeout)
		if err != nil {
			fmt.Printf("conn %d: FAILED: %v\n", i, err)
			failed = errors.New("a connection failed")
			continue
		}
		c := tlcp.Client(record(raw), cfg)
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		err = c.HandshakeContext(ctx)
		cancel()
		if err != nil {
			raw.Close()
			fmt.Printf("conn %d: FAILED: %v\n", i, err)
			failed = errors.New("a connection failed")
			continue
		}
		sent, werr := io.WriteString(c, msg)
		got, rerr := readAll(c)
		if *keyUpdates > 0 && werr == nil && rerr == nil {
			s, g, err := keyUpdateRounds(c, msg)
			sent, got, rerr = sent+s, got+g, err
		}
		if werr != nil || rerr != nil {
			fmt.Printf("conn %d: FAILED after the handshake: write %v, read %v\n", i, werr, rerr)
			failed = errors.New("a connection failed")
		}
		fmt.Println(describe(i, c, sent, got))
		if *wantResume && i > 1 && !c.ConnectionState().DidResume {
			failed = errors.New("a later connection did not resume")
		}
		c.Close()
		time.Sleep(*pause)
	}
	return failed
}

// readAll prints what the server sends until it closes or goes quiet.
func readAll(c *tlcp.Conn) (int, error) {
	buf := make([]byte, 4096)
	total := 0
	for {
		c.SetReadDeadline(time.Now().Add(*idle))
		m, err := c.Read(buf)
		os.Stdout.Write(buf[:m])
		total += m
		var ne net.Error
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF), errors.As(err, &ne) && ne.Timeout():
			return total, nil
		}
		return total, err
	}
}

// encryptKeyFile rewrites a key for GmSSL, which reads only encrypted
// PKCS #8 keys.
func encryptKeyFile() error {
	in, err := os.ReadFile(*encryptKey)
	if err != nil {
		return err
	}
	key, err := x509.ParsePrivateKeyPEM(in, nil)
	if err != nil {
		return err
	}
	if *out == "" || *pass == "" {
		return errors.New("-encrypt-key needs -out and -pass")
	}
	pemBytes, err := x509.MarshalPrivateKeyPEMWithPassword(rand.Reader, key, []byte(*pass), nil)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, pemBytes, 0o600)
}

// helloRetryRequestRandom is the random of a HelloRetryRequest, SHA-256 of
// "HelloRetryRequest" (RFC 8446 §4.1.3).
var helloRetryRequestRandom = []byte{
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
}

// traceMessage prints one handshake message of -trace: its direction,
// type and length.
func traceMessage(_ *tlcp.Conn, sent bool, contentType uint8, msg []byte) {
	if contentType != 22 || len(msg) < 4 {
		return
	}
	dir := "<<<"
	if sent {
		dir = ">>>"
	}
	name := fmt.Sprintf("handshake type %d", msg[0])
	switch msg[0] {
	case 1:
		name = "ClientHello"
	case 2:
		name = "ServerHello"
		if len(msg) >= 38 && bytes.Equal(msg[6:38], helloRetryRequestRandom) {
			name = "HelloRetryRequest"
		}
	}
	fmt.Printf("%s %s, %d bytes\n", dir, name, len(msg))
}
