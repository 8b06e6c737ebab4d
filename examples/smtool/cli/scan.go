// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

func init() {
	register(&command{
		name:    "scan",
		group:   "TLCP and TLS 1.3-SM connections",
		summary: "what a server speaks: protocols, suites, forms, resumption, certificates",
		args:    "host:port",
		about: `scan connects to the server a few dozen times at most, one connection after the other,
and reports: the protocols it speaks on that port (TLCP, TLS 1.3 with the ShangMi suites,
ordinary TLS 1.2 and 1.3), each suite it accepts and whose preference decides, the TLS 1.3
key exchange groups, the CertificateVerify forms and ECDHE ClientKeyExchange framings it
accepts and whether ECC client authentication needs the encryption certificate (these
three only with a client certificate, -sign_cert etc.), SNI and extension tolerance,
session-ID and ticket resumption, its renegotiation answer, the TLS 1.3 downgrade
sentinel, its certificates (roles, key usage, validity, chain, verification against
-CAfile, CRL and OCSP pointers), and which implementation it behaves like, with the
evidence. Each probe has a -timeout; the whole scan stops probing after -max_time, and
never makes more than -max_conns connections. -json prints the report as JSON.`,
		example: []string{
			"smtool scan localhost:4433",
			"smtool scan -CAfile ca.pem -json tlcp.example.cn:443",
			"smtool scan -sign_cert client_sign.pem -sign_key client_sign.key -enc_cert client_enc.pem -enc_key client_enc.key localhost:4433",
		},
		run: scanCmd,
	})
}

// defaultMaxConns bounds the connections of one scan: every probe below
// with a client certificate, and a few to spare.
const defaultMaxConns = 40

// fixedForms makes a probe's client use exactly the forms its switches
// name, so that what the server accepts is what the probe reports: the
// default client adapts to the server by itself (detection from its
// flight, one retry), which would hide what the server refuses.
func fixedForms(c *tlcp.Config) {
	c.DisableInteropAdaptation = true
}

// ScanReport is what scan found; -json prints it.
type ScanReport struct {
	Target      string `json:"target"`
	ServerName  string `json:"server_name,omitempty"`
	Connections int    `json:"connections"`
	ElapsedMS   int64  `json:"elapsed_ms"`

	TLCP        ScanTLCP       `json:"tlcp"`
	TLS13SM     ScanTLS13      `json:"tls13_sm"`
	OrdinaryTLS []ScanStdTLS   `json:"ordinary_tls"`
	Extensions  ScanExtensions `json:"extensions"`

	Certificates []ScanCert `json:"certificates"`
	// Verification is "ok", "not checked (no -CAfile)" or the error.
	Verification string `json:"verification"`

	Implementation ScanImpl `json:"implementation"`
	// Skipped lists the probes not run, with the reason.
	Skipped []string `json:"skipped,omitempty"`
}

// ScanSuite is one suite's probe.
type ScanSuite struct {
	Name     string `json:"name"`
	ID       string `json:"id"`
	Accepted bool   `json:"accepted"`
	Note     string `json:"note,omitempty"`
	Error    string `json:"error,omitempty"`
	// Refusal is how the server refused: the alert's name, "closed"
	// (no alert), or "local" (our side could not make the offer).
	Refusal string `json:"refusal,omitempty"`
}

// ScanTLCP is what the TLCP probes found.
type ScanTLCP struct {
	Supported bool        `json:"supported"`
	Suites    []ScanSuite `json:"suites"`
	// Preference is "server" (the server's order wins, Order lists it),
	// "client", or "" with fewer than two suites accepted.
	Preference string   `json:"preference,omitempty"`
	Order      []string `json:"order,omitempty"`
	// ClientAuth: "none", "requested" (a CertificateRequest came), or
	// "ecdhe-only" (it came on the ECDHE suites alone, whose key exchange
	// needs the client's encryption certificate whatever the server's
	// client-authentication setting).
	ClientAuth string `json:"client_auth"`
	// RefusesExtensions: the server answered a ClientHello with
	// extensions with an alert or a closed connection, and one without
	// them with a ServerHello; the TLCP probes then sent none.
	RefusesExtensions bool `json:"refuses_extensions,omitempty"`
	// CertificateVerify lists the forms accepted with a client
	// certificate: "transcript-hash" (GB/T 38636) and "raw-transcript"
	// (GmSSL ≥ 3.2).
	CertificateVerify []string `json:"certificate_verify,omitempty"`
	// ECDHEFraming lists the ClientKeyExchange forms accepted: "69"
	// (bare parameters) and "71" (u16-prefixed, GmSSL).
	ECDHEFraming []string `json:"ecdhe_framing,omitempty"`
	// NeedsEncCert says whether ECC client authentication failed without
	// the encryption certificate and succeeded with it; nil if not probed.
	NeedsEncCert *bool `json:"needs_enc_cert,omitempty"`
	// SessionID is the ServerHello's session ID length ("32 bytes",
	// "none").
	SessionID         string `json:"session_id"`
	SessionResumption bool   `json:"session_resumption"`
	// Sentinel is what the TLCP ServerHello random ends with: "DOWNGRD\\0",
	// "DOWNGRD\\1" or "none".
	Sentinel string `json:"downgrade_sentinel"`
	// ServerHelloExtensions are the extension numbers of the first
	// ServerHello, in order.
	ServerHelloExtensions []uint16 `json:"server_hello_extensions"`
}

// ScanTLS13 is what the TLS 1.3-SM probes found.
type ScanTLS13 struct {
	Supported  bool        `json:"supported"`
	Suites     []ScanSuite `json:"suites"`
	Preference string      `json:"preference,omitempty"`
	Order      []string    `json:"order,omitempty"`
	// Groups lists the key exchange groups accepted alone; Chosen is the
	// group of a handshake that offers both, hybrid first.
	Groups     []string `json:"groups"`
	Chosen     string   `json:"chosen_group,omitempty"`
	ClientAuth string   `json:"client_auth,omitempty"`
	Tickets    bool     `json:"tickets"`
	// TicketAfterData: the ticket came only after the client sent data.
	TicketAfterData bool `json:"ticket_after_data"`
	Resumption      bool `json:"ticket_resumption"`
	// CombinedHello is the protocol chosen for a ClientHello offering
	// TLCP and TLS 1.3 together.
	CombinedHello string `json:"combined_hello,omitempty"`
}

// ScanStdTLS is a probe with crypto/tls.
type ScanStdTLS struct {
	Version  string `json:"version"`
	Accepted bool   `json:"accepted"`
	Suite    string `json:"suite,omitempty"`
	Error    string `json:"error,omitempty"`
	Refusal  string `json:"refusal,omitempty"`
}

// ScanExtensions is how the server takes extensions in a TLCP ClientHello.
type ScanExtensions struct {
	// NoExtensions: a ClientHello without any extension is accepted.
	NoExtensions bool `json:"no_extensions"`
	// SNI: one with server_name alone is accepted.
	SNI bool `json:"sni"`
	// SNIEchoed: the ServerHello answered it with an empty server_name.
	SNIEchoed bool `json:"sni_echoed"`
	// Unknown: one with an unknown extension (and server_name) is
	// accepted; UnknownAlert names the alert otherwise.
	Unknown      bool   `json:"unknown_extension"`
	UnknownAlert string `json:"unknown_extension_alert,omitempty"`
	// Renegotiation is the answer to RFC 5746's renegotiation_info:
	// "secure renegotiation signalled" (echoed), "not signalled", or the
	// alert that refused it.
	Renegotiation string `json:"renegotiation"`
	// NoNullCompression and RecordVersionTLS12 are the answers
	// ("accepted" or the refusal) to a ClientHello without the null
	// compression method and to one in a TLS 1.2 record.
	NoNullCompression  string `json:"no_null_compression"`
	RecordVersionTLS12 string `json:"record_version_tls12"`
}

// ScanCert is one certificate the server sent.
type ScanCert struct {
	Protocol  string   `json:"protocol"`
	Index     int      `json:"index"`
	Role      string   `json:"role"`
	Subject   string   `json:"subject"`
	Issuer    string   `json:"issuer"`
	Serial    string   `json:"serial"`
	KeyUsage  string   `json:"key_usage,omitempty"`
	NotBefore string   `json:"not_before"`
	NotAfter  string   `json:"not_after"`
	Expired   bool     `json:"expired"`
	CRL       []string `json:"crl,omitempty"`
	OCSP      []string `json:"ocsp,omitempty"`
	DNS       []string `json:"dns,omitempty"`
}

// ScanImpl is the implementation the server behaves like.
type ScanImpl struct {
	Name     string   `json:"name"`
	Evidence []string `json:"evidence"`
}

func scanCmd(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	serverName := fs.String("servername", "", "`name` to send in SNI (default: the host unless it is an IP address)")
	caFile := fs.String("CAfile", "", "CA certificates that verify the server (PEM `FILE`)")
	signCert := fs.String("sign_cert", "", "a client signing certificate (PEM `FILE`), for the client-authentication probes")
	signKey := fs.String("sign_key", "", "its key (`FILE`; default: in -sign_cert's file)")
	encCert := fs.String("enc_cert", "", "a client encryption certificate (PEM `FILE`)")
	encKey := fs.String("enc_key", "", "its key (`FILE`; default: in -enc_cert's file)")
	pass := fs.String("pass", "", "`password` of the client keys: "+passUsage)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	timeout := fs.Duration("timeout", 3*time.Second, "bound on each probe")
	maxTime := fs.Duration("max_time", 15*time.Second, "stop probing after this long")
	maxConns := fs.Int("max_conns", defaultMaxConns, "make at most `N` connections")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want one host:port")
	}
	addr := rest[0]
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("%q: want host:port ([::1]:4433 for IPv6)", addr)
	}
	if *maxConns < 1 || *timeout <= 0 || *maxTime <= 0 {
		return usagef("-max_conns, -timeout and -max_time must be positive")
	}
	s := &scanner{addr: addr, timeout: *timeout, maxConns: *maxConns, start: time.Now()}
	s.deadline = s.start.Add(*maxTime)
	s.sni = *serverName
	if s.sni == "" && net.ParseIP(host) == nil {
		s.sni = host
	}
	if *caFile != "" {
		v := &verifier{}
		certs, err := readCertificates(*caFile)
		if err != nil {
			return err
		}
		v.roots = smx509.NewCertPool()
		for _, c := range certs {
			v.roots.AddCert(c)
		}
		s.v = v
	}
	if *signCert != "" {
		o := &tlcpOpts{signCert: signCert, signKey: signKey, encCert: encCert, encKey: encKey, cert: new(string), key: new(string),
			pass: pass, signPass: new(string), encPass: new(string)}
		if s.pair, err = o.loadPair(e, false); err != nil {
			return err
		}
	} else if *encCert != "" {
		return usagef("-enc_cert without -sign_cert")
	}
	rep := s.run()
	if *asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		printScan(e, rep)
	}
	if !rep.TLCP.Supported && !rep.TLS13SM.Supported {
		return &statusError{1}
	}
	return nil
}

// scanner runs the probes of one scan, one connection at a time.
type scanner struct {
	addr, sni string
	v         *verifier
	pair      *tlcp.CertificatePair
	timeout   time.Duration
	maxConns  int
	conns     int
	start     time.Time
	deadline  time.Time
	skipped   []string
	down      error // set when the first connection failed
	// forms sets the client-authentication forms of the first probe
	// that passed them (tlcpForms).
	forms func(*tlcp.Config)
	// noExt: the server refused a TLCP ClientHello with extensions and
	// took one without (GmSSL 3.1.1): the TLCP probes send none.
	// triedNoExt: that was asked, once per scan.
	noExt, triedNoExt bool
}

var errBudget = errors.New("scan budget spent")

// dial opens one connection within the scan's bounds.
func (s *scanner) dial(ctx context.Context) (net.Conn, error) {
	if s.conns >= s.maxConns {
		return nil, fmt.Errorf("%w: -max_conns %d", errBudget, s.maxConns)
	}
	if time.Now().After(s.deadline) {
		return nil, fmt.Errorf("%w: -max_time", errBudget)
	}
	if s.down != nil {
		return nil, s.down
	}
	// A refused connection is tried again a few times: GmSSL's servers
	// serve one connection and are restarted by a loop.
	var d net.Dialer
	for try := 0; ; try++ {
		c, err := d.DialContext(ctx, "tcp", s.addr)
		if err == nil {
			s.conns++
			return c, nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || (s.conns == 0 && try == 3) {
			if s.conns == 0 {
				// Never reached: no other probe will reach it either.
				s.down = fmt.Errorf("%w: %v", errBudget, err)
			}
			return nil, err
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			// It answered before and refuses now: most likely the
			// last probe crashed it (tjfoc's server dies of ECDHE).
			s.down = fmt.Errorf("%w: the server stopped answering after %d connections", errBudget, s.conns)
			return nil, s.down
		}
	}
}

// helloSeen is what a probe saw of the server's first flight.
type helloSeen struct {
	got         bool
	version     uint16 // ServerHello.version (0x0303 for TLS 1.3)
	random      []byte
	sessionID   []byte
	suite       uint16
	extensions  []uint16
	certRequest bool
	alert       int // the alert received, -1 if none
}

// probe is one handshake's outcome.
type probe struct {
	err   error
	state tlcp.ConnectionState
	hello helloSeen
	conn  *tlcp.Conn // open if err == nil; the caller closes it
}

// tlcpConfig is a probe's base Config: no verification (the report
// verifies), the scan's SNI, forms exactly as set.
func (s *scanner) tlcpConfig(vers uint16) *tlcp.Config {
	cfg := &tlcp.Config{InsecureSkipVerify: true, ServerName: s.sni, MinVersion: vers, MaxVersion: vers}
	if s.sni == "" {
		cfg.ServerName = ""
	}
	fixedForms(cfg)
	cfg.ClientHelloNoExtensions = s.noExt && vers == tlcp.VersionTLCP
	return cfg
}

// handshake runs one tlcp handshake with cfg; it keeps the connection
// open when keep is set.
func (s *scanner) handshake(cfg *tlcp.Config, keep bool) *probe {
	p := &probe{hello: helloSeen{alert: -1}}
	cfg.MessageTrace = func(_ *tlcp.Conn, sent bool, contentType uint8, msg []byte) {
		if sent {
			return
		}
		switch {
		case contentType == 21 && len(msg) == 2:
			p.hello.alert = int(msg[1])
		case contentType == 22 && len(msg) >= 4 && msg[0] == 2 && !p.hello.got:
			p.hello.parse(msg[4:])
		case contentType == 22 && len(msg) >= 4 && msg[0] == 13:
			p.hello.certRequest = true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	nc, err := s.dial(ctx)
	if err != nil {
		p.err = err
		return p
	}
	nc.SetDeadline(time.Now().Add(s.timeout))
	c := tlcp.Client(nc, cfg)
	if err := c.HandshakeContext(ctx); err != nil {
		c.Close()
		p.err = err
		return p
	}
	p.state = c.ConnectionState()
	if keep {
		p.conn = c
	} else {
		c.Close()
	}
	return p
}

// refusalOfForm reports whether a handshake that ended before the
// ServerHello with alert (-1: the connection closed) may have ended on
// the ClientHello's form rather than on what it offered: handshake_failure,
// insufficient_security and protocol_version speak of the offer.
func refusalOfForm(alert int) bool {
	switch alert {
	case -1, 10, 47, 50, 110: // closed, unexpected_message, illegal_parameter, decode_error, unsupported_extension
		return true
	}
	return false
}

// parse reads a ServerHello body.
func (h *helloSeen) parse(body []byte) {
	if len(body) < 2+32+1 {
		return
	}
	h.version = uint16(body[0])<<8 | uint16(body[1])
	h.random = slices.Clone(body[2:34])
	n := int(body[34])
	rest := body[35:]
	if len(rest) < n+3 {
		return
	}
	h.got = true
	h.sessionID = slices.Clone(rest[:n])
	h.suite = uint16(rest[n])<<8 | uint16(rest[n+1])
	rest = rest[n+3:]
	if len(rest) < 2 {
		return
	}
	rest = rest[2:]
	for len(rest) >= 4 {
		h.extensions = append(h.extensions, uint16(rest[0])<<8|uint16(rest[1]))
		l := int(rest[2])<<8 | int(rest[3])
		rest = rest[min(4+l, len(rest)):]
	}
}

func suiteHex(id uint16) string { return fmt.Sprintf("0x%04X", id) }

// note records a probe that could not run for the scan's bounds.
func (s *scanner) note(what string, err error) bool {
	if s.down != nil && errors.Is(err, s.down) {
		if !slices.Contains(s.skipped, "the rest: "+s.down.Error()) {
			s.skipped = append(s.skipped, "the rest: "+s.down.Error())
		}
		return true
	}
	if errors.Is(err, errBudget) {
		s.skipped = append(s.skipped, what+": "+err.Error())
		return true
	}
	return false
}

// refusal names how the server refused a handshake, "" if it did not.
func (p *probe) refusal() string {
	switch {
	case p.err == nil:
		return ""
	case p.hello.alert >= 0:
		return alertName(uint8(p.hello.alert))
	case isClosed(p.err):
		return "closed"
	case strings.Contains(p.err.Error(), "no cipher suites to offer"):
		return "local"
	}
	return "error"
}

// stdRefusal is refusal for crypto/tls, whose alerts are only in the
// error's text ("remote error: tls: handshake failure").
func stdRefusal(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "remote error: tls: "); i >= 0 {
		text := strings.ReplaceAll(msg[i+len("remote error: tls: "):], " ", "_")
		for _, name := range alertNames {
			if strings.HasPrefix(text, name) || strings.HasPrefix(name, text) {
				return name
			}
		}
		return text
	}
	if isClosed(err) {
		return "closed"
	}
	return "error"
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "connection reset")
}

func alertName(d uint8) string {
	if n, ok := alertNames[d]; ok {
		return n
	}
	return fmt.Sprintf("alert %d", d)
}

func errString(p *probe) string {
	if p.err == nil {
		return ""
	}
	return p.err.Error()
}

// run runs every probe and builds the report.
func (s *scanner) run() *ScanReport {
	rep := &ScanReport{Target: s.addr, ServerName: s.sni, OrdinaryTLS: []ScanStdTLS{}, Certificates: []ScanCert{}}
	var tlcpState, tls13State *tlcp.ConnectionState
	var firstTLCP, firstTLS13 *probe

	// TLCP: each suite alone, the ZUC ones included.
	r := &rep.TLCP
	r.ClientAuth = "none"
	r.Suites = []ScanSuite{}
	r.ServerHelloExtensions = []uint16{}
	var accepted []uint16 // full handshakes
	var chosen []uint16   // the ServerHello took them
	var lateECDHE []int   // indexes into r.Suites
	// TLCP's ECDHE needs the client's encryption certificate, so a
	// server asks for certificates on those suites whatever its
	// client-authentication setting: reported apart.
	ecdheCertRequest := false
	for _, suite := range tlcp.CipherSuites() {
		cfg := s.tlcpConfig(tlcp.VersionTLCP)
		cfg.CipherSuites = []uint16{suite.ID}
		if s.pair != nil {
			cfg.Certificates = []tlcp.CertificatePair{*s.pair}
			cfg.ClientCertIncludeEnc = true
		}
		if suite.KeyExchange == ciphersuite.KeyExchangeECDHE && (s.pair == nil || len(s.pair.Enc.Certificate) == 0) {
			// tlcp cannot offer ECDHE without a client encryption
			// certificate; the ServerHello alone says the suite is
			// taken. These go last: tjfoc's server dies of a panic
			// when it answers one (its ServerKeyExchange without an
			// ECDHE key), which would end the other probes.
			r.Suites = append(r.Suites, ScanSuite{Name: suite.Name, ID: suiteHex(suite.ID)})
			lateECDHE = append(lateECDHE, len(r.Suites)-1)
			continue
		}
		p := s.handshake(cfg, false)
		if p.err != nil && !p.hello.got && !s.triedNoExt && !errors.Is(p.err, errBudget) && refusalOfForm(p.hello.alert) {
			// No ServerHello, and an answer that speaks of the
			// hello's form rather than of the suite: a server that
			// refuses any extension (GmSSL 3.1.1) is asked again
			// without them, once in the scan (a server that just
			// closes on this suite costs one connection more).
			s.triedNoExt = true
			cfg.ClientHelloNoExtensions = true
			if q := s.handshake(cfg, false); q.hello.got {
				s.noExt, r.RefusesExtensions = true, true
				p = q
			}
		}
		if s.note("TLCP "+suite.Name, p.err) {
			continue
		}
		if p.hello.certRequest {
			if suite.KeyExchange == ciphersuite.KeyExchangeECDHE {
				ecdheCertRequest = true
			} else {
				r.ClientAuth = "requested"
			}
		}
		ss := ScanSuite{Name: suite.Name, ID: suiteHex(suite.ID), Accepted: p.err == nil}
		switch {
		case p.err == nil:
		case p.hello.got && p.hello.suite == suite.ID:
			// The server took the suite; what failed after its
			// ServerHello is client authentication, which the form
			// probes below sort out.
			ss.Accepted = true
			ss.Note = "ServerHello only: then " + p.err.Error()
			chosen = append(chosen, suite.ID)
		default:
			ss.Error, ss.Refusal = errString(p), p.refusal()
		}
		r.Suites = append(r.Suites, ss)
		if p.err == nil {
			chosen = append(chosen, suite.ID)
			accepted = append(accepted, suite.ID)
			if firstTLCP == nil {
				firstTLCP = p
				st := p.state
				tlcpState = &st
			}
		}
	}
	r.Supported = len(chosen) > 0
	if r.ClientAuth == "none" && ecdheCertRequest {
		r.ClientAuth = "ecdhe-only"
	}
	if firstTLCP == nil && len(chosen) > 0 && s.pair != nil {
		// Every handshake failed at client authentication: the form
		// probes find one that passes.
		if p := s.tlcpForms(r, chosen); p != nil {
			firstTLCP = p
			st := p.state
			tlcpState = &st
			accepted = append(accepted, p.state.CipherSuite)
		}
	} else if r.Supported {
		s.tlcpForms(r, chosen)
	}
	if firstTLCP != nil {
		h := firstTLCP.hello
		r.SessionID = fmt.Sprintf("%d bytes", len(h.sessionID))
		if len(h.sessionID) == 0 {
			r.SessionID = "none"
		}
		r.Sentinel = sentinel(h.random)
		r.ServerHelloExtensions = append(r.ServerHelloExtensions, h.extensions...)
	}
	r.Preference, r.Order = s.preference("TLCP", tlcp.VersionTLCP, chosen)
	if len(accepted) > 0 {
		r.SessionResumption = s.resumes(tlcp.VersionTLCP, accepted[0], s.forms)
	}

	// TLS 1.3-SM.
	t := &rep.TLS13SM
	t.Suites = []ScanSuite{}
	t.Groups = []string{}
	var accepted13 []uint16
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		cfg := s.tlcpConfig(tlcp.VersionTLS13)
		cfg.CipherSuites = []uint16{id}
		cfg.CurvePreferences = []tlcp.CurveID{tlcp.CurveSM2}
		if s.pair != nil {
			cfg.Certificates = []tlcp.CertificatePair{{Sign: s.pair.Sign}}
		}
		p := s.handshake(cfg, false)
		if s.note("TLS 1.3 "+ciphersuite.Name(id), p.err) {
			continue
		}
		ss := ScanSuite{Name: ciphersuite.Name(id), ID: suiteHex(id), Accepted: p.err == nil}
		switch {
		case p.err == nil:
		case p.hello.got && p.hello.suite == id:
			ss.Accepted = true
			ss.Note = "ServerHello only: then " + p.err.Error()
		default:
			ss.Error, ss.Refusal = errString(p), p.refusal()
		}
		t.Suites = append(t.Suites, ss)
		if p.hello.certRequest {
			t.ClientAuth = "requested"
		}
		if ss.Accepted {
			accepted13 = append(accepted13, id)
		}
		if p.err == nil {
			if firstTLS13 == nil {
				firstTLS13 = p
				st := p.state
				tls13State = &st
			}
		}
	}
	t.Supported = len(accepted13) > 0
	if t.Supported {
		if t.ClientAuth == "" {
			t.ClientAuth = "none"
		}
		t.Preference, t.Order = s.preference("TLS 1.3", tlcp.VersionTLS13, accepted13)
		t.Groups = append(t.Groups, tlcp.CurveSM2.String())
		cfg := s.tlcpConfig(tlcp.VersionTLS13)
		cfg.CurvePreferences = []tlcp.CurveID{tlcp.CurveSM2MLKEM768}
		if p := s.handshake(cfg, false); p.err == nil {
			t.Groups = append(t.Groups, tlcp.CurveSM2MLKEM768.String())
		} else {
			s.note("TLS 1.3 curveSM2MLKEM768", p.err)
		}
		cfg = s.tlcpConfig(tlcp.VersionTLS13)
		if p := s.handshake(cfg, false); p.err == nil {
			t.Chosen = p.state.CurveID.String()
		}
		t.Tickets, t.Resumption, t.TicketAfterData = s.ticketResumes()
	}
	if r.Supported && t.Supported {
		cfg := s.tlcpConfig(tlcp.VersionTLCP)
		cfg.MaxVersion = tlcp.VersionTLS13
		cfg.CipherSuites = []uint16{accepted13[0], chosen[0]}
		if p := s.handshake(cfg, false); p.err == nil {
			t.CombinedHello = protocolName(p.state.Version)
		} else if !s.note("combined hello", p.err) {
			t.CombinedHello = "refused: " + p.err.Error()
		}
	}

	// Ordinary TLS on the same port.
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		rep.OrdinaryTLS = append(rep.OrdinaryTLS, s.stdTLS(v))
	}

	if r.Supported {
		rep.Extensions = s.extensions()
	}

	// Certificates and their verification.
	rep.Verification = "not checked (no -CAfile)"
	for _, x := range []struct {
		proto string
		st    *tlcp.ConnectionState
	}{{"TLCP", tlcpState}, {"TLS 1.3", tls13State}} {
		if x.st == nil {
			continue
		}
		rep.Certificates = append(rep.Certificates, certReport(x.proto, *x.st)...)
		if s.v != nil {
			verdict := "ok"
			if _, err := s.v.verifyPeer(*x.st, s.sni, smx509.ExtKeyUsageServerAuth); err != nil {
				verdict = err.Error()
			}
			if rep.Verification == "not checked (no -CAfile)" || rep.Verification == "ok" {
				rep.Verification = verdict
				if verdict != "ok" {
					rep.Verification = x.proto + ": " + verdict
				}
			}
		}
	}
	if len(rep.Certificates) == 0 {
		rep.Verification = "no certificates"
	}

	for _, i := range lateECDHE {
		ss := &r.Suites[i]
		var id uint16
		fmt.Sscanf(ss.ID, "0x%04X", &id)
		var exts []rawExt
		if s.sni != "" {
			exts = []rawExt{sniExt(s.sni)}
		}
		a := s.rawSuites([]uint16{id}, exts)
		if s.note("TLCP "+ss.Name, a.err) {
			ss.Error = "not probed: " + a.err.Error()
			continue
		}
		ss.Accepted = a.hello.got && a.hello.suite == id
		if ss.Accepted {
			ss.Note = "ServerHello only: the handshake needs a client encryption certificate (-enc_cert)"
			r.Supported = true
		} else {
			ss.Error = a.String()
			ss.Refusal = a.refusal()
		}
	}

	rep.Implementation = identify(rep)
	rep.Skipped = s.skipped
	rep.Connections = s.conns
	rep.ElapsedMS = time.Since(s.start).Milliseconds()
	return rep
}

// sentinel names the end of a ServerHello random.
func sentinel(random []byte) string {
	if len(random) != 32 {
		return "none"
	}
	switch string(random[24:]) {
	case "DOWNGRD\x00":
		return `DOWNGRD\0`
	case "DOWNGRD\x01":
		return `DOWNGRD\1`
	}
	return "none"
}

// preference finds whose order wins among the accepted suites: it offers
// them in reverse order; if the server still picks its first choice, the
// order is the server's, found by taking away each choice in turn.
func (s *scanner) preference(what string, vers uint16, accepted []uint16) (string, []string) {
	if len(accepted) < 2 {
		return "", nil
	}
	pick := func(offer []uint16) (uint16, bool) {
		cfg := s.tlcpConfig(vers)
		cfg.CipherSuites = offer
		if s.pair != nil {
			if vers == tlcp.VersionTLS13 {
				cfg.Certificates = []tlcp.CertificatePair{{Sign: s.pair.Sign}}
			} else {
				cfg.Certificates = []tlcp.CertificatePair{*s.pair}
				cfg.ClientCertIncludeEnc = true
			}
		}
		if vers == tlcp.VersionTLS13 {
			cfg.CurvePreferences = []tlcp.CurveID{tlcp.CurveSM2}
		}
		p := s.handshake(cfg, false)
		if !p.hello.got {
			s.note(what+" preference", p.err)
			return 0, false
		}
		return p.hello.suite, true
	}
	first, ok := pick(accepted)
	if !ok {
		return "", nil
	}
	rev := slices.Clone(accepted)
	slices.Reverse(rev)
	second, ok := pick(rev)
	if !ok {
		return "", nil
	}
	if first != second {
		return "client", nil
	}
	order := []string{tlcp.CipherSuiteName(first)}
	left := slices.DeleteFunc(slices.Clone(accepted), func(id uint16) bool { return id == first })
	for len(left) > 1 {
		id, ok := pick(left)
		if !ok {
			break
		}
		order = append(order, tlcp.CipherSuiteName(id))
		left = slices.DeleteFunc(left, func(x uint16) bool { return x == id })
	}
	if len(left) == 1 {
		order = append(order, tlcp.CipherSuiteName(left[0]))
	}
	return "server", order
}

// tlcpForms probes the client-authentication forms, with the client
// certificate of the flags only: CertificateVerify over the transcript's
// hash or the raw transcript, each with and without the encryption
// certificate in ECC client authentication, then the ECDHE
// ClientKeyExchange framings with a CertificateVerify form that passed.
// It returns the first probe that completed, and leaves in s.forms the
// forms that did.
func (s *scanner) tlcpForms(r *ScanTLCP, chosen []uint16) *probe {
	if s.pair == nil || r.ClientAuth != "requested" {
		return nil
	}
	var ecc, ecdhe uint16
	for _, id := range chosen {
		switch ciphersuite.Lookup(id).KeyExchange {
		case ciphersuite.KeyExchangeECC:
			if ecc == 0 {
				ecc = id
			}
		case ciphersuite.KeyExchangeECDHE:
			if ecdhe == 0 {
				ecdhe = id
			}
		}
	}
	var good *probe
	try := func(what string, suite uint16, set func(*tlcp.Config)) bool {
		cfg := s.tlcpConfig(tlcp.VersionTLCP)
		cfg.CipherSuites = []uint16{suite}
		cfg.Certificates = []tlcp.CertificatePair{*s.pair}
		set(cfg)
		p := s.handshake(cfg, false)
		s.note(what, p.err)
		if p.err == nil && good == nil {
			good = p
			s.forms = set
		}
		return p.err == nil
	}
	r.CertificateVerify = []string{}
	cvForms := []struct {
		name string
		raw  bool
	}{{"transcript-hash", false}, {"raw-transcript", true}}
	rawCV := false
	if ecc != 0 {
		var with, without bool
		for _, cv := range cvForms {
			ok := false
			for _, enc := range []bool{false, true} {
				if try("ECC client authentication", ecc, func(c *tlcp.Config) {
					c.CertificateVerifyRawTranscript, c.ClientCertIncludeEnc = cv.raw, enc
				}) {
					ok = true
					if enc {
						with = true
					} else {
						without = true
					}
				}
			}
			if ok {
				r.CertificateVerify = append(r.CertificateVerify, cv.name)
			}
		}
		if with || without {
			needs := !without
			r.NeedsEncCert = &needs
		}
		rawCV = len(r.CertificateVerify) == 1 && r.CertificateVerify[0] == "raw-transcript"
	}
	if ecdhe != 0 && len(s.pair.Enc.Certificate) > 0 {
		r.ECDHEFraming = []string{}
		forms := cvForms
		if ecc != 0 && len(r.CertificateVerify) > 0 {
			forms = cvForms[:1]
			if rawCV {
				forms = cvForms[1:]
			}
		}
		for _, f71 := range []bool{false, true} {
			for _, cv := range forms {
				if try("ECDHE framing", ecdhe, func(c *tlcp.Config) {
					c.ClientECDHEFraming71, c.CertificateVerifyRawTranscript = f71, cv.raw
				}) {
					r.ECDHEFraming = append(r.ECDHEFraming, map[bool]string{false: "69", true: "71"}[f71])
					if ecc == 0 && !slices.Contains(r.CertificateVerify, cv.name) {
						r.CertificateVerify = append(r.CertificateVerify, cv.name)
					}
					break
				}
			}
		}
	}
	return good
}

// orElse returns a if it is not zero, else b.
func orElse[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// resumes makes a handshake and another offering its session.
func (s *scanner) resumes(vers, suite uint16, forms func(*tlcp.Config)) bool {
	cfg := s.tlcpConfig(vers)
	cfg.CipherSuites = []uint16{suite}
	cfg.ClientSessionCache = tlcp.NewLRUClientSessionCache(2)
	if s.pair != nil {
		cfg.Certificates = []tlcp.CertificatePair{*s.pair}
		cfg.ClientCertIncludeEnc = true
		if forms != nil && ciphersuite.Lookup(suite).KeyExchange == ciphersuite.KeyExchangeECC {
			forms(cfg)
		}
	}
	if p := s.handshake(cfg, false); p.err != nil {
		s.note("session resumption", p.err)
		return false
	}
	p := s.handshake(cfg, false)
	s.note("session resumption", p.err)
	return p.err == nil && p.state.DidResume
}

// ticketResumes makes a TLS 1.3 handshake, waits briefly for a
// NewSessionTicket, and offers it in a second handshake.
func (s *scanner) ticketResumes() (tickets, resumed, afterData bool) {
	cache := &oneSession{}
	cfg := s.tlcpConfig(tlcp.VersionTLS13)
	cfg.CurvePreferences = []tlcp.CurveID{tlcp.CurveSM2}
	cfg.ClientSessionCache = cache
	if s.pair != nil {
		cfg.Certificates = []tlcp.CertificatePair{{Sign: s.pair.Sign}}
	}
	p := s.handshake(cfg, true)
	if p.err != nil {
		s.note("ticket resumption", p.err)
		return false, false, false
	}
	// The ticket comes after the server's Finished: read until it has
	// come or a short wait ends. An echo server sends nothing else.
	// shangmi's server sends it with its first data, so if none came, a
	// line goes out (an echo server answers it, an HTTP server says 400).
	wait := min(s.timeout, 400*time.Millisecond)
	var buf [64]byte
	for _, poke := range []bool{false, true} {
		if poke {
			afterData = true
			p.conn.Write([]byte("\n"))
		}
		p.conn.SetReadDeadline(time.Now().Add(wait))
		for cache.cs == nil {
			if _, err := p.conn.Read(buf[:]); err != nil {
				break
			}
		}
		if cache.cs != nil {
			break
		}
	}
	p.conn.Close()
	if cache.cs == nil {
		return false, false, false
	}
	q := s.handshake(cfg, false)
	s.note("ticket resumption", q.err)
	return true, q.err == nil && q.state.DidResume, afterData
}

// oneSession is a client session cache of one entry.
type oneSession struct {
	cs *tlcp.ClientSessionState
}

func (o *oneSession) Get(string) (*tlcp.ClientSessionState, bool) { return o.cs, o.cs != nil }
func (o *oneSession) Put(_ string, cs *tlcp.ClientSessionState) {
	if cs == nil || cs.Version() == tlcp.VersionTLS13 {
		o.cs = cs
	}
}

// stdTLS tries ordinary TLS of one version with crypto/tls.
func (s *scanner) stdTLS(v uint16) ScanStdTLS {
	r := ScanStdTLS{Version: tls.VersionName(v)}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	nc, err := s.dial(ctx)
	if err != nil {
		s.note("ordinary "+r.Version, err)
		r.Error = err.Error()
		return r
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(s.timeout))
	c := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, ServerName: s.sni, MinVersion: v, MaxVersion: v})
	if err := c.HandshakeContext(ctx); err != nil {
		r.Error = err.Error()
		r.Refusal = stdRefusal(err)
		return r
	}
	r.Accepted = true
	r.Suite = tls.CipherSuiteName(c.ConnectionState().CipherSuite)
	return r
}

// certReport describes the certificates of one handshake.
func certReport(proto string, st tlcp.ConnectionState) []ScanCert {
	var out []ScanCert
	now := time.Now()
	for i, c := range st.PeerCertificates {
		role := "chain"
		switch c {
		case st.PeerSignCertificate:
			role = "sign"
		case st.PeerEncCertificate:
			role = "enc"
		}
		out = append(out, ScanCert{
			Protocol: proto, Index: i, Role: role,
			Subject: nameString(c.RawSubject), Issuer: nameString(c.RawIssuer),
			Serial: serialHex(c.SerialNumber), KeyUsage: keyUsageString(c.KeyUsage),
			NotBefore: opensslTime(c.NotBefore), NotAfter: opensslTime(c.NotAfter),
			Expired: now.After(c.NotAfter) || now.Before(c.NotBefore),
			CRL:     c.CRLDistributionPoints, OCSP: c.OCSPServer, DNS: c.DNSNames,
		})
	}
	return out
}

func printScan(e *env, r *ScanReport) {
	w := e.stdout
	yes := func(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }
	fmt.Fprintf(w, "scan of %s", r.Target)
	if r.ServerName != "" {
		fmt.Fprintf(w, " (SNI %s)", r.ServerName)
	}
	fmt.Fprintf(w, ": %d connections in %d ms\n\n", r.Connections, r.ElapsedMS)
	suites := func(list []ScanSuite) {
		for _, s := range list {
			if s.Accepted {
				fmt.Fprintf(w, "  %-22s %s  accepted", s.Name, s.ID)
				if s.Note != "" {
					fmt.Fprintf(w, " (%s)", s.Note)
				}
				fmt.Fprintln(w)
			} else {
				fmt.Fprintf(w, "  %-22s %s  refused (%s)\n", s.Name, s.ID, s.Error)
			}
		}
	}
	order := func(pref string, order []string) {
		switch pref {
		case "server":
			fmt.Fprintf(w, "  preference: the server's: %s\n", strings.Join(order, " > "))
		case "client":
			fmt.Fprintln(w, "  preference: the client's")
		}
	}
	t := r.TLCP
	fmt.Fprintf(w, "TLCP: %s\n", yes(t.Supported))
	suites(t.Suites)
	if t.Supported {
		order(t.Preference, t.Order)
		if t.ClientAuth == "ecdhe-only" {
			fmt.Fprintln(w, "  client authentication: requested on the ECDHE suites only (their key exchange needs the client's encryption certificate)")
		} else {
			fmt.Fprintf(w, "  client authentication: %s\n", t.ClientAuth)
		}
		if t.RefusesExtensions {
			fmt.Fprintln(w, "  ClientHello extensions: refused (as GmSSL 3.1.1 does); the TLCP probes sent none")
		}
		if t.CertificateVerify != nil {
			fmt.Fprintf(w, "  CertificateVerify forms accepted: %s\n", strings.Join(t.CertificateVerify, ", "))
		}
		if t.ECDHEFraming != nil {
			fmt.Fprintf(w, "  ECDHE ClientKeyExchange framings accepted: %s\n", strings.Join(t.ECDHEFraming, ", "))
		}
		if t.NeedsEncCert != nil {
			fmt.Fprintf(w, "  ECC client authentication needs the encryption certificate: %s\n", yes(*t.NeedsEncCert))
		}
		fmt.Fprintf(w, "  session ID: %s; resumption: %s\n", t.SessionID, yes(t.SessionResumption))
		fmt.Fprintf(w, "  downgrade sentinel: %s\n", t.Sentinel)
		var exts []string
		for _, x := range t.ServerHelloExtensions {
			exts = append(exts, extName(x))
		}
		fmt.Fprintf(w, "  ServerHello extensions: %s\n", orElse(strings.Join(exts, ", "), "none"))
		x := r.Extensions
		fmt.Fprintf(w, "  ClientHello without extensions: %s; with SNI: %s; with an unknown extension: %s",
			map[bool]string{true: "accepted", false: "refused"}[x.NoExtensions],
			map[bool]string{true: "accepted", false: "refused"}[x.SNI],
			map[bool]string{true: "accepted", false: "refused"}[x.Unknown])
		if x.UnknownAlert != "" {
			fmt.Fprintf(w, " (%s)", x.UnknownAlert)
		}
		fmt.Fprintf(w, "\n  renegotiation: %s\n", x.Renegotiation)
		fmt.Fprintf(w, "  hello without null compression: %s; hello in a TLS 1.2 record: %s\n", x.NoNullCompression, x.RecordVersionTLS12)
	}
	s := r.TLS13SM
	fmt.Fprintf(w, "\nTLS 1.3-SM: %s\n", yes(s.Supported))
	suites(s.Suites)
	if s.Supported {
		order(s.Preference, s.Order)
		fmt.Fprintf(w, "  groups: %s; chosen from both: %s\n", strings.Join(s.Groups, ", "), s.Chosen)
		fmt.Fprintf(w, "  client authentication: %s\n", s.ClientAuth)
		fmt.Fprintf(w, "  tickets: %s; resumption: %s", yes(s.Tickets), yes(s.Resumption))
		if s.TicketAfterData {
			fmt.Fprint(w, " (the ticket came only once we sent data)")
		}
		fmt.Fprintln(w)
		if s.CombinedHello != "" {
			fmt.Fprintf(w, "  a hello offering TLCP and TLS 1.3 gets: %s\n", s.CombinedHello)
		}
	}
	fmt.Fprintln(w, "\nordinary TLS:")
	for _, o := range r.OrdinaryTLS {
		if o.Accepted {
			fmt.Fprintf(w, "  %s: accepted (%s)\n", o.Version, o.Suite)
		} else {
			fmt.Fprintf(w, "  %s: refused (%s)\n", o.Version, o.Error)
		}
	}
	fmt.Fprintln(w, "\ncertificates:")
	for _, c := range r.Certificates {
		fmt.Fprintf(w, "  %s %d [%s] s:%s\n     i:%s\n     serial %s, %s .. %s", c.Protocol, c.Index, c.Role, c.Subject, c.Issuer, c.Serial, c.NotBefore, c.NotAfter)
		if c.Expired {
			fmt.Fprint(w, " (not valid now)")
		}
		fmt.Fprintln(w)
		if c.KeyUsage != "" {
			fmt.Fprintf(w, "     key usage: %s\n", c.KeyUsage)
		}
		if len(c.DNS) > 0 {
			fmt.Fprintf(w, "     DNS: %s\n", strings.Join(c.DNS, ", "))
		}
		if len(c.CRL) > 0 {
			fmt.Fprintf(w, "     CRL: %s\n", strings.Join(c.CRL, ", "))
		}
		if len(c.OCSP) > 0 {
			fmt.Fprintf(w, "     OCSP: %s\n", strings.Join(c.OCSP, ", "))
		}
	}
	fmt.Fprintf(w, "  verification: %s\n", r.Verification)
	fmt.Fprintf(w, "\nimplementation: %s\n", r.Implementation.Name)
	for _, ev := range r.Implementation.Evidence {
		fmt.Fprintf(w, "  - %s\n", ev)
	}
	for _, sk := range r.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", sk)
	}
}

func extName(x uint16) string {
	if n, ok := extensionNames[x]; ok {
		return fmt.Sprintf("%s (%d)", n, x)
	}
	return fmt.Sprintf("extension %d", x)
}
