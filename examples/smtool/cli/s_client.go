// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bufio"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

func init() {
	register(&command{
		name:    "s_client",
		group:   "TLCP and TLS 1.3-SM connections",
		summary: "connect to a TLCP or TLS 1.3-SM server, show the handshake, relay data",
		args:    "[host:port]",
		about: `After the handshake, s_client prints the connection and the result of verifying the
server's certificates (and goes on even if they fail, as openssl does, unless
-verify_return_error is given). Then it sends standard input line by line to the server
and copies what the server sends to standard output, until either side closes. At the end
of standard input it sends close_notify and waits -close_wait for the server to finish;
the exit status is 0 when the data went through, and a missing or late close_notify from
the server is only a warning. SNI carries the -connect host unless it is an IP address,
-noservername is given, or -peer gmssl. A handshake that fails names, where it can
tell, the -peer switch that would likely help.

-sess_out writes the session in OpenSSL's format, which Tongsuo's sess_id reads and
its s_client -sess_in resumes, followed by the session as tlcp keeps it, which
-sess_in reads (-reconnect N resumes within one run).

` + peerAbout,
		example: []string{
			"smtool s_client -connect localhost:4433 -CAfile ca.pem -msg",
			"echo hello | smtool s_client -connect localhost:4433 -CAfile ca.pem -quiet",
			"smtool s_client -connect localhost:4433 -CAfile ca.pem -cipher ECDHE-SM2-SM4-GCM-SM3 -sign_cert client_sign.pem -sign_key client_sign.key -enc_cert client_enc.pem -enc_key client_enc.key",
			"smtool s_client -connect localhost:4433 -CAfile ca.pem -n 200 -c 2",
		},
		run: sClient,
	})
}

// closeWait is how long s_client waits for the server to finish after its
// own close_notify; -close_wait sets it.
const defaultCloseWait = 2 * time.Second

type clientRun struct {
	e                  *env
	o                  *tlcpOpts
	out                *outputs
	cfg                *tlcp.Config
	v                  *verifier
	addr, verifyName   string
	sniNote            string
	sniSent            bool // whether the ClientHello carries server_name
	profile            string
	strict, insecure   bool
	quiet, showcerts   bool
	timeout, closeWait time.Duration
	msgMu              sync.Mutex
}

// connInfo is what one connection's trace and key log showed.
type connInfo struct {
	sessionID []byte
	keys      *keyCapture
	took      time.Duration
	state     tlcp.ConnectionState
	verified  []*smx509.Certificate // chain, if verified
	verifyErr error
	seen      handshakeSeen
}

// handshakeSeen is what the trace saw of a handshake, for the hints of a
// failed one.
type handshakeSeen struct {
	suite          uint16
	certRequest    bool // the server asked for a client certificate
	sentCerts      int  // in our Certificate message, -1 if none sent
	sentCKE        int  // body length of our ClientKeyExchange
	sentCV         bool
	serverFinished bool
}

func (h *handshakeSeen) note(sent bool, contentType uint8, msg []byte) {
	if contentType != 22 || len(msg) < 4 {
		return
	}
	body := msg[4:]
	switch {
	case !sent && msg[0] == 2 && len(body) > 35 && len(body) >= 35+int(body[34])+2:
		n := int(body[34])
		h.suite = uint16(body[35+n])<<8 | uint16(body[36+n])
	case !sent && msg[0] == 13:
		h.certRequest = true
	case !sent && msg[0] == 20:
		h.serverFinished = true
	case sent && msg[0] == 11:
		h.sentCerts = 0
		for list := body[min(3, len(body)):]; len(list) >= 3; h.sentCerts++ {
			n := int(list[0])<<16 | int(list[1])<<8 | int(list[2])
			list = list[min(3+n, len(list)):]
		}
	case sent && msg[0] == 16:
		h.sentCKE = len(body)
	case sent && msg[0] == 15:
		h.sentCV = true
	}
}

// hint suggests the interop switch that a failed handshake most likely
// needed (tlcp/INTEROP.md D1-D3), from what was sent and how the server
// refused it, or "".
func (h *handshakeSeen) hint(cfg *tlcp.Config, err error) string {
	if h.serverFinished {
		return ""
	}
	ecdhe := h.suite == 0xE011 || h.suite == 0xE051 || h.suite == 0xFF11
	msg := err.Error()
	switch {
	case h.certRequest && h.sentCerts <= 0:
		return "the server asked for a client certificate: give -sign_cert and -sign_key (for ECDHE -enc_cert and -enc_key too)"
	case ecdhe && h.sentCKE == 69:
		return "a GmSSL server wants the 71-byte ECDHE ClientKeyExchange and (≥ 3.2) CertificateVerify over the raw transcript: try -peer gmssl"
	case !ecdhe && h.certRequest && h.sentCerts == 1 && !cfg.ClientCertIncludeEnc && strings.Contains(msg, "handshake failure"):
		return "a Tongsuo server wants the encryption certificate too: try -peer tongsuo (or -include-enc)"
	case h.sentCV && !cfg.CertificateVerifyRawTranscript:
		return "a GmSSL ≥ 3.2 server wants CertificateVerify over the raw transcript: try -peer gmssl (or -raw-cv)"
	case h.sentCV && cfg.CertificateVerifyRawTranscript:
		return "this server may want the standard CertificateVerify (over the transcript's hash): drop -peer gmssl / -raw-cv"
	}
	return ""
}

func sClient(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	connect := fs.String("connect", "", "the server, `host:port` (default localhost:4433)")
	host := fs.String("host", "", "the server's `host`, GmSSL style (with -port)")
	port := fs.String("port", "", "the server's `port`, GmSSL style (with -host)")
	serverName := fs.String("servername", "", "`name` to send in SNI and to verify (default: the -connect host)")
	fs.alias("servername", "server_name")
	noSNI := fs.Bool("noservername", false, "send no server_name extension (the host is still verified)")
	insecure := fs.Bool("insecure", false, "do not verify the server's certificates at all")
	verifyDepth := fs.String("verify", "", "openssl's -verify `N`: accepted for copied commands; the certificates are always verified")
	o := addTLCPFlags(fs, false)
	reconnect := &countFlag{def: 5}
	fs.Var(reconnect, "reconnect", "after the first handshake, reconnect N times (alone: 5, as openssl) resuming the session; the data goes over the last connection")
	n := fs.Int("n", 0, "make `N` handshakes and print their rate and latency percentiles, instead of sending data")
	conc := fs.Int("c", 1, "with -n: `N` connections at a time")
	in := fs.String("in", "", "send this `FILE` (\"-\" or \"stdin\": standard input) instead of standard input line by line")
	crlf := fs.Bool("crlf", false, "send line ends as CRLF")
	ignEOF := fs.Bool("ign_eof", false, "at the end of standard input do not close; wait for the server to close")
	showcerts := fs.Bool("showcerts", false, "print the server's certificates in PEM")
	outcerts := fs.String("outcerts", "", "write the server's certificates to `DIR` as sign.pem, enc.pem and chain.pem")
	certout := fs.String("certout", "", "write the server's certificates to one PEM `FILE` (GmSSL's -certout)")
	sessOut := fs.String("sess_out", "", "write the session to `FILE` (OpenSSL's SSL SESSION PARAMETERS PEM, which Tongsuo's sess_id and s_client -sess_in read)")
	sessIn := fs.String("sess_in", "", "resume the session in `FILE`, as -sess_out wrote it")
	timeout := fs.Duration("timeout", 10*time.Second, "bound on connecting and each handshake")
	closeWait := fs.Duration("close_wait", defaultCloseWait, "after our close_notify, how long to wait for the server to finish")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	_ = verifyDepth
	addr := *connect
	switch {
	case len(rest) == 1 && addr == "":
		addr = rest[0]
	case len(rest) > 0:
		return usagef("unexpected arguments %q", rest)
	}
	if *host != "" || *port != "" {
		if addr != "" {
			return usagef("-connect and -host/-port exclude each other")
		}
		addr = net.JoinHostPort(first(*host, "localhost"), first(*port, "443"))
	}
	if addr == "" {
		addr = "localhost:4433"
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		if strings.Count(addr, ":") == 0 {
			addr += ":4433" // openssl's default port
		} else {
			return usagef("-connect %q: want host:port ([::1]:4433 for IPv6)", addr)
		}
	}
	if *n < 0 || *conc < 1 {
		return usagef("-n must not be negative and -c must be at least 1")
	}
	if *n > 0 && (reconnect.n > 0 || *in != "" || *sessOut != "") {
		return usagef("-n makes bare handshakes; it excludes -reconnect, -in and -sess_out")
	}
	r := &clientRun{e: e, o: o, addr: addr, insecure: *insecure, strict: *o.verifyReturnError,
		quiet: *o.quiet, showcerts: *showcerts, timeout: *timeout, closeWait: *closeWait}
	if r.strict && r.insecure {
		return usagef("-verify_return_error and -insecure contradict each other")
	}
	if err := r.configure(*serverName, *noSNI); err != nil {
		return err
	}
	r.applyCompat() // s_compat.go
	if *sessIn != "" {
		cs, err := readSession(*sessIn)
		if err != nil {
			return err
		}
		// tlcp looks a client's session up by its ServerName.
		r.cfg.ClientSessionCache.Put(r.cfg.ServerName, cs)
	}
	if r.out, err = o.openOutputs(e); err != nil {
		return err
	}
	defer r.out.close()
	if *n > 0 {
		return r.load(*n, *conc)
	}

	var conn *tlcp.Conn
	var info *connInfo
	for i := 0; i <= reconnect.n; i++ {
		if i > 0 && !r.quiet {
			fmt.Fprintf(e.stdout, "--- reconnect %d of %d\n", i, reconnect.n)
		}
		if conn, info, err = r.connect(); err != nil {
			return err
		}
		if i > 0 && !info.state.DidResume {
			e.warnf("the session was not resumed on reconnect %d (a new full handshake)", i)
		}
		if !r.quiet {
			r.printConnection(conn, info, i > 0)
		}
		if *o.compat.brief {
			printBrief(e.stderr, info.state, briefVerification(r.insecure, info.verified, info.verifyErr))
		}
		if err := r.saveCerts(info.state, *outcerts, *certout); err != nil {
			conn.Close()
			return err
		}
		if *sessOut != "" && info.state.Version != tlcp.VersionTLS13 { // TLS 1.3: once the ticket came, below
			cs, _ := r.cfg.ClientSessionCache.Get(r.cfg.ServerName)
			if err := writeSession(*sessOut, info, cs, r.cfg.ServerName, r.sniSent); err != nil {
				conn.Close()
				return err
			}
		}
		if i < reconnect.n {
			r.shutdown(conn)
			if *sessOut != "" && info.state.Version == tlcp.VersionTLS13 {
				if err := writeTicket(*sessOut, r.cfg.ClientSessionCache, r.cfg.ServerName); err != nil {
					return err
				}
			}
		}
	}
	defer conn.Close()
	var src io.Reader = e.stdin
	lineByLine := true
	switch *in {
	case "", "-", "stdin":
		lineByLine = *in == ""
	default:
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		src, lineByLine = f, false
	}
	err = r.relay(conn, src, lineByLine, *crlf, *ignEOF)
	if *sessOut != "" && info.state.Version == tlcp.VersionTLS13 {
		// The server's tickets come after the handshake, so the session
		// is written once the connection is over (as openssl does).
		if werr := writeTicket(*sessOut, r.cfg.ClientSessionCache, r.cfg.ServerName); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// configure builds the client Config from the flags.
func (r *clientRun) configure(serverName string, noSNI bool) error {
	o := r.o
	cfg := &tlcp.Config{ClientSessionCache: tlcp.NewLRUClientSessionCache(4), NextProtos: o.alpn.values}
	var err error
	if r.profile, err = o.profile(cfg, false); err != nil {
		return err
	}
	if cfg.CipherSuites, err = o.suites(); err != nil {
		return err
	}
	if err := o.protocol(cfg); err != nil {
		return err
	}
	pair, err := o.loadPair(r.e, false)
	if err != nil {
		return err
	}
	if pair != nil {
		cfg.Certificates = []tlcp.CertificatePair{*pair}
	}
	if r.v, err = o.verifier(); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(r.addr)
	name := serverName
	// tlcp sends server_name whenever ServerName is a host name; the only
	// way not to send it is a ClientHello without extensions (which drops
	// ALPN too).
	switch {
	case noSNI:
		if len(o.alpn.values) > 0 {
			return usagef("-noservername sends a ClientHello without extensions, so it cannot offer -alpn")
		}
		cfg.ClientHelloNoExtensions = true
		r.sniNote = "not sent (-noservername), nor any other extension"
	case name != "":
		r.sniSent = net.ParseIP(name) == nil
	case net.ParseIP(host) != nil:
		r.sniNote = "not sent (" + host + " is an IP address)"
	case strings.EqualFold(*o.peer, "gmssl") && len(o.alpn.values) == 0:
		cfg.ClientHelloNoExtensions = true
		r.sniNote = "not sent (-peer gmssl: GmSSL 3.1 refuses any extension; give -servername to send it)"
	default:
		name = host
		r.sniSent = true
	}
	r.verifyName = first(name, host)
	cfg.ServerName = r.verifyName
	if r.sniSent {
		r.sniNote = fmt.Sprintf("sent %q", cfg.ServerName)
	} else if r.sniNote == "" {
		r.sniNote = "not sent (" + name + " is an IP address)"
	}
	switch {
	case r.insecure:
		cfg.InsecureSkipVerify = true
	case r.strict:
		if r.v.roots == nil {
			return usagef("-verify_return_error needs -CAfile (there are no built-in SM2 roots)")
		}
		cfg.RootCAs = r.v.roots
		if len(r.v.crls) > 0 {
			cfg.VerifyConnection = func(st tlcp.ConnectionState) error {
				_, err := r.v.verifyPeer(st, r.verifyName, smx509.ExtKeyUsageServerAuth)
				return err
			}
		}
	default:
		// Verified after the handshake, so that a failure is reported and
		// the connection goes on, as openssl's s_client does.
		cfg.InsecureSkipVerify = true
	}
	r.cfg = cfg
	return nil
}

// connect dials and runs one handshake, with the per-connection trace and
// key capture.
func (r *clientRun) connect() (*tlcp.Conn, *connInfo, error) {
	info := &connInfo{keys: &keyCapture{next: r.out.keylog}, seen: handshakeSeen{sentCerts: -1}}
	cfg := r.cfg.Clone()
	cfg.KeyLogWriter = info.keys
	f := r.o.formatter()
	cfg.MessageTrace = func(_ *tlcp.Conn, sent bool, contentType uint8, msg []byte) {
		info.seen.note(sent, contentType, msg)
		if !sent && contentType == 22 && msg[0] == 2 && len(msg) >= 4+2+32+1 {
			if n := int(msg[4+2+32]); len(msg) >= 4+2+32+1+n {
				info.sessionID = slices.Clone(msg[4+2+32+1 : 4+2+32+1+n])
			}
		}
		if r.out.msg != nil {
			r.msgMu.Lock()
			f.format(r.out.msg, sent, contentType, msg)
			r.msgMu.Unlock()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	start := time.Now()
	nc, err := r.dial(ctx, cfg) // s_dtlcp.go
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no connection and handshake within %v (-timeout): %w", r.timeout, err)
		}
		if h := info.seen.hint(cfg, err); h != "" {
			err = fmt.Errorf("%w; hint: %s", err, h)
		}
		return nil, nil, err
	}
	info.took = time.Since(start)
	conn := nc.(*tlcp.Conn)
	info.state = conn.ConnectionState()
	logGroup(r.out.keylog, info.keys.random(), info.state)
	switch {
	case r.insecure:
	case r.strict && len(info.state.VerifiedChains) > 0:
		info.verified = info.state.VerifiedChains[0]
	default:
		info.verified, info.verifyErr = r.v.verifyPeer(info.state, r.verifyName, smx509.ExtKeyUsageServerAuth)
	}
	if info.verifyErr != nil && r.quiet {
		r.e.warnf("the server's certificates do not verify: %v", info.verifyErr)
	}
	return conn, info, nil
}

func (r *clientRun) printConnection(conn *tlcp.Conn, info *connInfo, brief bool) {
	w := r.e.stdout
	fmt.Fprintf(w, "CONNECTED %s (handshake %v)\n", conn.RemoteAddr(), info.took.Round(time.Microsecond))
	fmt.Fprintf(w, "SNI       : %s\n", r.sniNote)
	if r.profile != "" {
		fmt.Fprintf(w, "Peer      : %s\n", r.profile)
	}
	sid := info.sessionID
	if info.state.Version == tlcp.VersionTLS13 {
		sid = nil // TLS 1.3's is the legacy echo of ours, not a session
	}
	printState(w, info.state, "server", sid, brief)
	r.o.extras.print(w, info.state)
	switch {
	case r.insecure:
		fmt.Fprintln(w, "Verification: skipped (-insecure)")
	case info.verifyErr != nil:
		fmt.Fprintf(w, "Verification error: %v (going on; -verify_return_error stops here)\n", info.verifyErr)
	default:
		fmt.Fprintf(w, "Verification: OK (chain: %s)\n", chainString(info.verified))
	}
	if r.showcerts {
		for _, c := range info.state.PeerCertificates {
			pem.Encode(w, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
		}
	}
	fmt.Fprintln(w, "---")
}

// printState prints a ConnectionState and the peer's certificates.
func printState(w io.Writer, st tlcp.ConnectionState, peer string, sessionID []byte, brief bool) {
	fmt.Fprintf(w, "Protocol  : %s (0x%04x)\n", protocolName(st.Version), st.Version)
	fmt.Fprintf(w, "Cipher    : %s (0x%04X)\n", tlcp.CipherSuiteName(st.CipherSuite), st.CipherSuite)
	if st.CurveID != 0 {
		fmt.Fprintf(w, "Group     : %s (0x%04X)\n", st.CurveID, uint16(st.CurveID))
	}
	fmt.Fprintf(w, "Resumed   : %v\n", st.DidResume)
	switch {
	case sessionID == nil:
	case len(sessionID) == 0:
		fmt.Fprintln(w, "Session-ID: none (the server will not resume this session)")
	default:
		fmt.Fprintf(w, "Session-ID: %X\n", sessionID)
	}
	if st.ServerName != "" && peer == "client" {
		fmt.Fprintf(w, "ServerName: %s\n", st.ServerName)
	}
	if st.NegotiatedProtocol != "" {
		fmt.Fprintf(w, "ALPN      : %s\n", st.NegotiatedProtocol)
	}
	if brief {
		return
	}
	if len(st.PeerCertificates) == 0 {
		fmt.Fprintf(w, "No %s certificate\n", peer)
		return
	}
	fmt.Fprintf(w, "%s certificates (%d):\n", upperFirst(peer), len(st.PeerCertificates))
	for i, c := range st.PeerCertificates {
		role := ""
		switch c {
		case st.PeerSignCertificate:
			role = " [sign]"
		case st.PeerEncCertificate:
			role = " [enc]"
		}
		fmt.Fprintf(w, " %d%s s:%s\n   i:%s\n   v:%s .. %s\n", i, role, nameString(c.RawSubject), nameString(c.RawIssuer),
			opensslTime(c.NotBefore), opensslTime(c.NotAfter))
	}
}

// shutdown closes conn both ways before a reconnect: close_notify, then
// the server's (up to -close_wait). A server answers only once it is done
// with the handshake, and so has cached the session the reconnect offers.
func (r *clientRun) shutdown(conn *tlcp.Conn) {
	if conn.CloseWrite() == nil {
		conn.SetReadDeadline(time.Now().Add(r.closeWait))
		io.Copy(io.Discard, conn)
	}
	conn.Close()
}

// saveCerts writes -outcerts and -certout.
func (r *clientRun) saveCerts(st tlcp.ConnectionState, dir, file string) error {
	enc := func(cs ...*smx509.Certificate) []byte {
		var b []byte
		for _, c := range cs {
			if c != nil {
				b = append(b, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
			}
		}
		return b
	}
	if file != "" {
		if err := os.WriteFile(file, enc(st.PeerCertificates...), 0o644); err != nil {
			return err
		}
	}
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var chain []*smx509.Certificate
	for _, c := range st.PeerCertificates {
		if c != st.PeerSignCertificate && c != st.PeerEncCertificate {
			chain = append(chain, c)
		}
	}
	files := map[string][]byte{"sign.pem": enc(st.PeerSignCertificate), "enc.pem": enc(st.PeerEncCertificate)}
	if len(chain) > 0 {
		files["chain.pem"] = enc(chain...)
	}
	for name, data := range files {
		if len(data) == 0 {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// relay sends src to the server and the server's data to standard output
// until either side closes. It returns nil when everything read from src
// was sent; the server's way of closing only draws warnings.
func (r *clientRun) relay(conn *tlcp.Conn, src io.Reader, lineByLine, crlf, ignEOF bool) error {
	e := r.e
	var closing atomic.Bool // our close_notify is out: bound the wait
	readDone := make(chan error, 1)
	go func() {
		buf := make([]byte, 16<<10)
		for {
			n, err := conn.Read(buf)
			if n > 0 {
				e.stdout.Write(buf[:n])
				if closing.Load() {
					conn.SetReadDeadline(time.Now().Add(r.closeWait))
				}
			}
			if err != nil {
				readDone <- err
				return
			}
		}
	}()

	// Standard input is read in its own goroutine: a read of a terminal
	// cannot be interrupted when the server closes first.
	type chunk struct {
		data []byte
		err  error
	}
	chunks := make(chan chunk)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		br := bufio.NewReader(src)
		for {
			var data []byte
			var err error
			if lineByLine {
				var s string
				s, err = br.ReadString('\n')
				data = []byte(s)
			} else {
				buf := make([]byte, 16<<10)
				var n int
				n, err = br.Read(buf)
				data = buf[:n]
			}
			if crlf && len(data) > 0 {
				data = []byte(strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n", "\r\n"))
			}
			select {
			case chunks <- chunk{data, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	for {
		select {
		case err := <-readDone:
			// The server closed first; what we had read was sent.
			return r.serverClosed(err, false)
		case c := <-chunks:
			if len(c.data) > 0 {
				if _, err := conn.Write(c.data); err != nil {
					return fmt.Errorf("sending to the server: %w", err)
				}
			}
			if c.err == nil {
				continue
			}
			if !errors.Is(c.err, io.EOF) {
				return fmt.Errorf("reading the input: %w", c.err)
			}
			if ignEOF {
				return r.serverClosed(<-readDone, false)
			}
			closing.Store(true)
			conn.SetReadDeadline(time.Now().Add(r.closeWait))
			if err := conn.CloseWrite(); err != nil {
				// Most likely the reading side failed first and broke
				// the connection: its error is the one that explains.
				select {
				case rerr := <-readDone:
					return r.serverClosed(rerr, true)
				case <-time.After(100 * time.Millisecond):
				}
				return fmt.Errorf("sending close_notify: %w", err)
			}
			return r.serverClosed(<-readDone, true)
		}
	}
}

// serverClosed judges how the server ended the connection: close_notify
// is the proper way; a bare close, a reset after our close_notify or no
// answer in time are warnings; an alert or a reset mid-stream is an error.
func (r *clientRun) serverClosed(err error, weClosed bool) error {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		r.e.warnf("the server closed the connection without close_notify (its data may have been cut short)")
		return nil
	case weClosed && errors.As(err, &ne) && ne.Timeout():
		r.e.warnf("no close_notify from the server within %v of ours (-close_wait)", r.closeWait)
		return nil
	case weClosed && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)):
		r.e.warnf("the server reset the connection after our close_notify instead of sending its own")
		return nil
	}
	return fmt.Errorf("receiving from the server: %w", err)
}

// load makes n handshakes, c at a time, and prints their rate and
// latency percentiles.
func (r *clientRun) load(n, c int) error {
	r.cfg.ClientSessionCache = nil // every handshake a full one
	var mu sync.Mutex
	var lat []time.Duration
	var failures int
	var firstErr error
	var next atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				conn, info, err := r.connect()
				mu.Lock()
				if err != nil {
					failures++
					if firstErr == nil {
						firstErr = err
					}
				} else {
					lat = append(lat, info.took)
				}
				mu.Unlock()
				if conn != nil {
					conn.Close()
				}
			}
		}()
	}
	wg.Wait()
	total := time.Since(start)
	if len(lat) == 0 {
		return fmt.Errorf("all %d handshakes failed; the first: %w", n, firstErr)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		i := int(p*float64(len(lat))+0.5) - 1
		return lat[max(0, min(i, len(lat)-1))].Round(10 * time.Microsecond)
	}
	suite := "default suites"
	if r.cfg.MinVersion == tlcp.VersionTLS13 {
		suite = "default TLS 1.3 suites"
	}
	if len(r.cfg.CipherSuites) > 0 {
		suite = tlcp.CipherSuiteName(r.cfg.CipherSuites[0])
	}
	fmt.Fprintf(r.e.stdout, "%d handshakes with %s (%s), %d at a time: %.1f/s in %v\n",
		len(lat), r.addr, suite, c, float64(len(lat))/total.Seconds(), total.Round(time.Millisecond))
	fmt.Fprintf(r.e.stdout, "latency: p50 %v  p90 %v  p99 %v  max %v\n", pct(0.5), pct(0.9), pct(0.99), lat[len(lat)-1].Round(10*time.Microsecond))
	if failures > 0 {
		fmt.Fprintf(r.e.stdout, "%d failed; the first: %v\n", failures, firstErr)
		return &statusError{1}
	}
	return nil
}
