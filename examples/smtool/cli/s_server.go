// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

func init() {
	register(&command{
		name:    "s_server",
		group:   "TLCP and TLS 1.3-SM connections",
		summary: "run a TLCP and TLS 1.3-SM server (echo, -www, -rev, -stdio)",
		about: `A bare -accept PORT listens on localhost only; give a host (0.0.0.0:4433, [::]:4433) or
*:PORT to listen on other interfaces. Each connection's handshake (with -msg or -trace),
its parameters, the client's certificates and their verification are printed as one
block once the handshake ends. Client certificates are asked for with -verify N (any,
verified if sent), -Verify N (required) or GmSSL's -cert_request; their verification
result is printed and the connection goes on unless -verify_return_error is given, as
openssl does. -verify also takes this package's policies by name: none, request, require,
verify-if-given, require-verify (which always refuse bad certificates). ECDHE suites
always ask for the client's two certificates.

` + peerAbout,
		example: []string{
			"smtool s_server -accept 4433 -sign_cert server_sign.pem -sign_key server_sign.key -enc_cert server_enc.pem -enc_key server_enc.key",
			"smtool s_server -port 4433 -cert tlcp_server_certs.pem -key tlcp_server_keys.pem -pass P@ssw0rd -msg",
			"smtool s_server -accept 4433 -sign_cert s.pem -sign_key s.key -enc_cert e.pem -enc_key e.key -Verify 1 -CAfile ca.pem -www",
		},
		run: sServer,
	})
}

// handshakeTimeout bounds each connection's handshake, so that a client
// that connects and says nothing does not hold a goroutine forever
// (tlcp's package documentation recommends this to every server).
var handshakeTimeout = 10 * time.Second

// srvConn is one accepted connection's output, collected while its
// handshake runs so that concurrent connections do not interleave.
type srvConn struct {
	n       int
	addr    string
	buf     bytes.Buffer
	flushed bool
	random  []byte // the ClientHello's, for the key log's group line
	trace   traceFormatter
}

type serverRun struct {
	e       *env
	o       *tlcpOpts
	out     *outputs
	v       *verifier
	strict  bool
	quiet   bool
	profile string

	mu    sync.Mutex // serialises output and guards conns
	conns map[*tlcp.Conn]*srvConn
}

func sServer(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	accept := fs.String("accept", "4433", "listen on `[host:]port`; a bare port listens on localhost only")
	port := fs.String("port", "", "listen on this `port` of localhost (Tongsuo, GmSSL)")
	o := addTLCPFlags(fs, true)
	verify := fs.String("verify", "", "ask for a client certificate and verify one if sent (`N`, the depth, as Tongsuo), or a policy: none, request, require, verify-if-given, require-verify")
	verifyReq := fs.String("Verify", "", "require a client certificate (`N`, the depth, as Tongsuo) and verify it")
	certRequest := fs.Bool("cert_request", false, "require a client certificate (GmSSL), verified against -CAfile")
	www := fs.Bool("www", false, "answer each request with an HTTP page describing the connection instead of echoing")
	fs.alias("www", "WWW", "HTTP")
	rev := fs.Bool("rev", false, "echo each line reversed (Tongsuo)")
	stdio := fs.Bool("stdio", false, "send standard input line by line to the client and print what it sends; one connection at a time; the end of standard input closes the connection and the server")
	once := fs.Bool("once", false, "serve one connection, then exit (same as -naccept 1)")
	naccept := fs.Int("naccept", 0, "serve `N` connections, then exit (0: serve until killed)")
	noCache := fs.Bool("no_cache", false, "keep no sessions: every handshake is a full one")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
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
	modes := 0
	for _, m := range []bool{*www, *rev, *stdio} {
		if m {
			modes++
		}
	}
	if modes > 1 {
		return usagef("-www, -rev and -stdio exclude each other")
	}
	addr, err := listenAddress(*accept, *port, fs.isSet("accept"))
	if err != nil {
		return err
	}
	r := &serverRun{e: e, o: o, strict: *o.verifyReturnError, quiet: *o.quiet, conns: map[*tlcp.Conn]*srvConn{}}
	pair, err := o.loadPair(e, true)
	if err != nil {
		return err
	}
	cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{*pair}, NextProtos: o.alpn.values}
	if *noCache {
		cfg.SessionCacheSize = -1
	}
	if r.profile, err = o.profile(cfg, true); err != nil {
		return err
	}
	if cfg.CipherSuites, err = o.suites(); err != nil {
		return err
	}
	if err := o.protocol(cfg); err != nil {
		return err
	}
	o.applyServerCompat(cfg) // s_compat.go
	if *o.compat.brief {
		r.quiet = true
	}
	if r.v, err = o.verifier(); err != nil {
		return err
	}
	cfg.ClientCAs = r.v.roots
	if cfg.ClientAuth, err = r.clientAuth(*verify, *verifyReq, *certRequest); err != nil {
		return err
	}
	if cfg.ClientAuth >= tlcp.VerifyClientCertIfGiven && cfg.ClientCAs == nil {
		return usagef("verifying client certificates needs -CAfile")
	}
	if len(r.v.crls) > 0 && cfg.ClientAuth >= tlcp.VerifyClientCertIfGiven {
		cfg.VerifyConnection = func(st tlcp.ConnectionState) error {
			if st.PeerSignCertificate == nil {
				return nil
			}
			_, err := r.v.verifyPeer(st, "", smx509.ExtKeyUsageClientAuth)
			return err
		}
	}
	if r.out, err = o.openOutputs(e); err != nil {
		return err
	}
	defer r.out.close()
	cfg.KeyLogWriter = r.out.keylog
	cfg.MessageTrace = func(c *tlcp.Conn, sent bool, contentType uint8, msg []byte) {
		f := o.formatter()
		if r.out.msg == nil && r.out.keylog == nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		sc := r.conns[c]
		if sc != nil && !sent && contentType == 22 && len(msg) >= 38 && msg[0] == 1 {
			sc.random = slices.Clone(msg[6:38])
		}
		if r.out.msg == nil {
			return
		}
		if sc != nil {
			f = sc.trace // msgtrace.go: each connection's own
		}
		if sc != nil && !sc.flushed {
			f.format(&sc.buf, sent, contentType, msg)
			return
		}
		// After the handshake: at once, naming the connection.
		var b bytes.Buffer
		f.format(&b, sent, contentType, msg)
		prefix := ""
		if sc != nil {
			prefix = sc.addr + ": "
		}
		for _, l := range strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n") {
			fmt.Fprint(r.out.msg, prefix+strings.TrimSuffix(l, "\n")+"\n")
		}
	}

	ln, err := r.listen(addr, cfg) // s_dtlcp.go
	if err != nil {
		return err
	}
	defer ln.Close()
	// The bound address, so that "-accept 127.0.0.1:0" is usable: scripts
	// and tests read the port from this line.
	fmt.Fprintf(e.stdout, "ACCEPT %s\n", ln.Addr())
	var input <-chan chunk
	if *stdio {
		input = readLines(e.stdin)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for n := 1; *naccept == 0 || n <= *naccept; n++ {
		raw, err := ln.Accept()
		if err != nil {
			return err
		}
		conn := r.serverConn(raw, cfg)
		sc := &srvConn{n: n, addr: raw.RemoteAddr().String(), trace: o.formatter()}
		r.mu.Lock()
		r.conns[conn] = sc
		r.mu.Unlock()
		// serve reports whether standard input has ended (-stdio).
		serve := func() (inputEnded bool) {
			defer func() {
				conn.Close()
				r.mu.Lock()
				delete(r.conns, conn)
				r.mu.Unlock()
			}()
			if !r.handshake(conn, sc) {
				return false
			}
			switch {
			case *www:
				serveWWW(conn)
			case *rev:
				r.echo(conn, sc, true)
			case *stdio:
				return r.stdio(conn, sc, input)
			default:
				r.echo(conn, sc, false)
			}
			return false
		}
		if *stdio {
			// One at a time: standard input has one reader. Its end
			// ends the server, as openssl's.
			if serve() {
				break
			}
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); serve() }()
	}
	// Refuse further clients while the last ones finish.
	ln.Close()
	return nil
}

// listenAddress turns -accept / -port into a listen address: a bare port
// is localhost's; "*:PORT" is every interface's, as openssl writes it.
func listenAddress(accept, port string, acceptSet bool) (string, error) {
	if port != "" {
		if acceptSet {
			return "", usagef("-accept and -port exclude each other")
		}
		accept = port
	}
	if _, err := strconv.ParseUint(accept, 10, 16); err == nil {
		return net.JoinHostPort("localhost", accept), nil
	}
	host, p, err := net.SplitHostPort(accept)
	if err != nil {
		return "", usagef("-accept %q: want PORT or HOST:PORT", accept)
	}
	if host == "*" {
		host = ""
	}
	return net.JoinHostPort(host, p), nil
}

// clientAuth maps -verify, -Verify and -cert_request to a policy. The
// Tongsuo forms verify after the handshake (and go on) unless
// -verify_return_error; the named policies are tlcp's own.
func (r *serverRun) clientAuth(verify, verifyReq string, certRequest bool) (tlcp.ClientAuthType, error) {
	given := 0
	for _, g := range []bool{verify != "", verifyReq != "", certRequest} {
		if g {
			given++
		}
	}
	if given > 1 {
		return 0, usagef("-verify, -Verify and -cert_request exclude each other")
	}
	isNum := func(s string) bool { _, err := strconv.Atoi(s); return err == nil }
	switch {
	case verifyReq != "":
		if !isNum(verifyReq) {
			return 0, usagef("-Verify %q: want a depth such as 1", verifyReq)
		}
		if r.strict {
			return tlcp.RequireAndVerifyClientCert, nil
		}
		return tlcp.RequireAnyClientCert, nil
	case certRequest:
		if r.v.roots != nil {
			return tlcp.RequireAndVerifyClientCert, nil
		}
		return tlcp.RequireAnyClientCert, nil
	case verify == "":
		return tlcp.NoClientCert, nil
	case isNum(verify):
		if r.strict {
			return tlcp.VerifyClientCertIfGiven, nil
		}
		return tlcp.RequestClientCert, nil
	}
	modes := map[string]tlcp.ClientAuthType{
		"none": tlcp.NoClientCert, "request": tlcp.RequestClientCert, "require": tlcp.RequireAnyClientCert,
		"verify-if-given": tlcp.VerifyClientCertIfGiven, "require-verify": tlcp.RequireAndVerifyClientCert,
	}
	mode, ok := modes[verify]
	if !ok {
		return 0, usagef("-verify: unknown mode %q (want a depth N, or none, request, require, verify-if-given, require-verify)", verify)
	}
	return mode, nil
}

// handshake runs the handshake of conn and prints the connection's block.
func (r *serverRun) handshake(conn *tlcp.Conn, sc *srvConn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	err := conn.HandshakeContext(ctx)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no handshake within %v: %w", handshakeTimeout, err)
	}
	var block bytes.Buffer
	var st tlcp.ConnectionState
	var chain []*smx509.Certificate
	var verr error
	if err == nil {
		st = conn.ConnectionState()
		if len(st.PeerCertificates) > 0 {
			if len(st.VerifiedChains) > 0 {
				chain = st.VerifiedChains[0]
			} else if r.v.roots != nil {
				chain, verr = r.v.verifyPeer(st, "", smx509.ExtKeyUsageClientAuth)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.e.stdout
	if !r.quiet || err != nil {
		fmt.Fprintf(&block, "--- connection %d from %s\n", sc.n, sc.addr)
	}
	if r.out.msg != nil && r.out.msg != out {
		r.out.msg.Write(sc.buf.Bytes())
	} else {
		block.Write(sc.buf.Bytes())
	}
	sc.flushed = true
	if err == nil {
		logGroup(r.out.keylog, sc.random, st)
	}
	if err != nil {
		fmt.Fprintf(&block, "%s: handshake failed: %v\n", sc.addr, err)
		out.Write(block.Bytes())
		return false
	}
	if !r.quiet {
		if r.profile != "" {
			fmt.Fprintf(&block, "Peer      : %s\n", r.profile)
		}
		printState(&block, st, "client", nil, false)
		r.o.extras.print(&block, st)
		switch {
		case len(st.PeerCertificates) == 0:
		case verr != nil:
			fmt.Fprintf(&block, "Verification error: %v (going on; -verify_return_error stops here)\n", verr)
		case chain != nil:
			fmt.Fprintf(&block, "Verification: OK (chain: %s)\n", chainString(chain))
		default:
			fmt.Fprintln(&block, "Verification: not done (no -CAfile)")
		}
	} else if verr != nil {
		fmt.Fprintf(&block, "%s: the client's certificates do not verify: %v\n", sc.addr, verr)
	}
	out.Write(block.Bytes())
	if *r.o.compat.brief {
		printBrief(r.e.stderr, st, briefVerification(false, chain, verr))
	}
	return true
}

// closeNote describes how a client ended its data: "" for close_notify.
func closeNote(err error) string {
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return ""
	case errors.Is(err, io.ErrUnexpectedEOF):
		return " (the client closed without close_notify)"
	}
	return fmt.Sprintf(" (%v)", err)
}

// echo sends back what the client sends, reversed line by line with rev.
func (r *serverRun) echo(conn *tlcp.Conn, sc *srvConn, rev bool) {
	var n int64
	var err error
	if rev {
		br := bufio.NewReader(conn)
		for {
			var line string
			line, err = br.ReadString('\n')
			if line != "" {
				body := strings.TrimRight(line, "\r\n")
				runes := []rune(body)
				for i, j := 0, len(runes)-1; i < j; i, j = i+1, j-1 {
					runes[i], runes[j] = runes[j], runes[i]
				}
				m, werr := conn.Write([]byte(string(runes) + line[len(body):]))
				n += int64(m)
				if werr != nil {
					err = werr
					break
				}
			}
			if err != nil {
				break
			}
		}
	} else {
		n, err = io.Copy(conn, conn)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.quiet || closeNote(err) != "" {
		fmt.Fprintf(r.e.stdout, "%s: echoed %d bytes%s\n", sc.addr, n, closeNote(err))
	}
}

// chunk is a piece of standard input, or its end.
type chunk struct {
	data []byte
	err  error
}

// readLines reads r line by line into a channel, which it closes after
// the end or an error.
func readLines(r io.Reader) <-chan chunk {
	ch := make(chan chunk)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			s, err := br.ReadString('\n')
			ch <- chunk{[]byte(s), err}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// stdio relays standard input to the client and its data to standard
// output, until the client closes or standard input ends; it reports
// whether standard input ended.
func (r *serverRun) stdio(conn *tlcp.Conn, sc *srvConn, input <-chan chunk) bool {
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(r.e.stdout, conn)
		done <- err
	}()
	for {
		select {
		case err := <-done:
			r.mu.Lock()
			fmt.Fprintf(r.e.stdout, "%s: closed%s\n", sc.addr, closeNote(err))
			r.mu.Unlock()
			return false
		case c, ok := <-input:
			if !ok {
				return true
			}
			if len(c.data) > 0 {
				if _, err := conn.Write(c.data); err != nil {
					return false
				}
			}
			if c.err != nil {
				conn.CloseWrite()
				select {
				case <-done:
				case <-time.After(defaultCloseWait):
				}
				return true
			}
		}
	}
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
	printState(&b, conn.ConnectionState(), "client", nil, false)
	body := b.String()
	fmt.Fprintf(conn, "HTTP/1.0 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}
