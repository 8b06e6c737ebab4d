// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"encoding/json"
	"io"
	"net"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/cryptobyte"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

// scanServer runs an echo server of ours with cfg (its certificates
// filled in) and returns its address and a count of the connections it
// accepted.
func scanServer(t *testing.T, cfg *tlcp.Config) (string, *atomic.Int64) {
	t.Helper()
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	pair, err := tlcp.LoadCertificatePair(tl("server_sign.pem"), tl("server_sign.key"), tl("server_enc.pem"), tl("server_enc.key"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Certificates = []tlcp.CertificatePair{pair}
	if cfg.ClientAuth != tlcp.NoClientCert {
		v, err := (&tlcpOpts{caFile: new(tl("ca.pem")), crls: &listFlag{}, crlAll: new(bool)}).verifier()
		if err != nil {
			t.Fatal(err)
		}
		cfg.ClientCAs = v.roots
	}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inner.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			nc, err := inner.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				c := tlcp.Server(nc, cfg)
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return inner.Addr().String(), &accepted
}

// runScan runs smtool scan -json and decodes the report.
func runScan(t *testing.T, args ...string) *ScanReport {
	t.Helper()
	code, out, errOut := smtool(append([]string{"scan", "-json"}, args...)...)
	if code != 0 && code != 1 {
		t.Fatalf("scan: exit %d: %s", code, errOut)
	}
	var r ScanReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("scan -json: %v\n%s", err, out)
	}
	return &r
}

func suiteVerdicts(list []ScanSuite) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s.Name] = s.Accepted
	}
	return m
}

func eq[T any](t *testing.T, field string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", field, got, want)
	}
}

// TestScanDefaultServer: our server as s_server runs it (TLCP and TLS
// 1.3, both groups, sessions and tickets), scanned with -CAfile; every
// field of the report.
func TestScanDefaultServer(t *testing.T) {
	addr, accepted := scanServer(t, &tlcp.Config{})
	_, port, _ := net.SplitHostPort(addr)
	target := "localhost:" + port
	r := runScan(t, "-CAfile", moduleTestdata(t, "tlcp", "ca.pem"), target)

	eq(t, "target", r.Target, target)
	eq(t, "server_name", r.ServerName, "localhost")
	if r.Connections < 15 || r.Connections > defaultMaxConns {
		t.Errorf("connections = %d, want a few dozen at most", r.Connections)
	}
	eq(t, "connections (the server's count)", int64(r.Connections), accepted.Load())
	eq(t, "skipped", r.Skipped, []string(nil))

	c := r.TLCP
	eq(t, "tlcp.supported", c.Supported, true)
	eq(t, "tlcp.suites", suiteVerdicts(c.Suites), map[string]bool{
		"ECC_SM4_GCM_SM3": true, "ECC_SM4_CBC_SM3": true, "ECDHE_SM4_GCM_SM3": true, "ECDHE_SM4_CBC_SM3": true,
		"ECDHE_ZUC128_SM3": false, "ECC_ZUC128_SM3": false})
	for _, s := range c.Suites {
		switch {
		case strings.HasPrefix(s.Name, "ECDHE_SM4"):
			if !strings.Contains(s.Note, "ServerHello only") {
				t.Errorf("%s note %q", s.Name, s.Note)
			}
		case strings.Contains(s.Name, "ZUC"):
			eq(t, s.Name+" refusal", s.Refusal, "handshake_failure")
		}
	}
	eq(t, "tlcp.preference", c.Preference, "server")
	eq(t, "tlcp.order", c.Order, []string{"ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3"})
	eq(t, "tlcp.client_auth", c.ClientAuth, "none")
	eq(t, "tlcp.certificate_verify", c.CertificateVerify, []string(nil))
	eq(t, "tlcp.ecdhe_framing", c.ECDHEFraming, []string(nil))
	eq(t, "tlcp.needs_enc_cert", c.NeedsEncCert, (*bool)(nil))
	eq(t, "tlcp.session_id", c.SessionID, "32 bytes")
	eq(t, "tlcp.session_resumption", c.SessionResumption, true)
	eq(t, "tlcp.downgrade_sentinel", c.Sentinel, `DOWNGRD\0`)
	eq(t, "tlcp.server_hello_extensions", c.ServerHelloExtensions, []uint16{0})

	s := r.TLS13SM
	eq(t, "tls13_sm.supported", s.Supported, true)
	eq(t, "tls13_sm.suites", suiteVerdicts(s.Suites), map[string]bool{"TLS_SM4_GCM_SM3": true, "TLS_SM4_CCM_SM3": true})
	eq(t, "tls13_sm.preference", s.Preference, "server")
	eq(t, "tls13_sm.order", s.Order, []string{"TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"})
	eq(t, "tls13_sm.groups", s.Groups, []string{"curveSM2", "curveSM2MLKEM768"})
	eq(t, "tls13_sm.chosen_group", s.Chosen, "curveSM2MLKEM768")
	eq(t, "tls13_sm.client_auth", s.ClientAuth, "none")
	eq(t, "tls13_sm.tickets", s.Tickets, true)
	eq(t, "tls13_sm.ticket_after_data", s.TicketAfterData, true)
	eq(t, "tls13_sm.ticket_resumption", s.Resumption, true)
	eq(t, "tls13_sm.combined_hello", s.CombinedHello, "TLSv1.3")

	eq(t, "ordinary_tls", r.OrdinaryTLS, []ScanStdTLS{
		{Version: "TLS 1.2", Error: r.OrdinaryTLS[0].Error, Refusal: "protocol_version"},
		{Version: "TLS 1.3", Error: r.OrdinaryTLS[1].Error, Refusal: "handshake_failure"},
	})

	x := r.Extensions
	eq(t, "extensions.no_extensions", x.NoExtensions, true)
	eq(t, "extensions.sni", x.SNI, true)
	eq(t, "extensions.sni_echoed", x.SNIEchoed, true)
	eq(t, "extensions.unknown_extension", x.Unknown, true)
	eq(t, "extensions.unknown_extension_alert", x.UnknownAlert, "")
	eq(t, "extensions.renegotiation", x.Renegotiation, "not signalled (renegotiation_info ignored)")
	eq(t, "extensions.no_null_compression", x.NoNullCompression, "illegal_parameter")
	eq(t, "extensions.record_version_tls12", x.RecordVersionTLS12, "accepted")

	if len(r.Certificates) != 3 {
		t.Fatalf("certificates: %+v", r.Certificates)
	}
	for i, want := range []struct{ proto, role, ku string }{
		{"TLCP", "sign", "Digital Signature"},
		{"TLCP", "enc", "Key Encipherment, Data Encipherment, Key Agreement"},
		{"TLS 1.3", "sign", "Digital Signature"},
	} {
		got := r.Certificates[i]
		eq(t, "certificate protocol", got.Protocol, want.proto)
		eq(t, "certificate role", got.Role, want.role)
		eq(t, "certificate key usage", got.KeyUsage, want.ku)
		eq(t, "certificate subject", got.Subject, "C=CN, O=shangmi, CN=shangmi test server")
		eq(t, "certificate issuer", got.Issuer, "C=CN, O=shangmi, CN=shangmi Test Root CA")
		eq(t, "certificate dates", got.NotBefore+" .. "+got.NotAfter, "Jan  1 00:00:00 2026 GMT .. Jan  1 00:00:00 2046 GMT")
		eq(t, "certificate expired", got.Expired, false)
		eq(t, "certificate DNS", got.DNS, []string{"localhost"})
		if len(got.Serial)%2 != 0 || got.Serial == "" {
			t.Errorf("serial %q", got.Serial)
		}
	}
	eq(t, "verification", r.Verification, "ok")
	eq(t, "implementation", r.Implementation.Name, "shangmi")
	if !strings.Contains(strings.Join(r.Implementation.Evidence, "\n"), `DOWNGRD\0`) {
		t.Errorf("evidence %q lacks the sentinel", r.Implementation.Evidence)
	}

	// The readable report says the same.
	_, out, _ := smtool("scan", target)
	mustContain(t, "report", out, "TLCP: yes", "preference: the server's: ECC_SM4_GCM_SM3 > ECC_SM4_CBC_SM3",
		`downgrade sentinel: DOWNGRD\0`, "TLS 1.3-SM: yes", "groups: curveSM2, curveSM2MLKEM768", "implementation: shangmi",
		"verification: not checked (no -CAfile)")
}

// TestScanTLCPOnly: a TLCP-only server with its own suite order and no
// session cache, by IP address (no SNI).
func TestScanTLCPOnly(t *testing.T) {
	addr, _ := scanServer(t, &tlcp.Config{MaxVersion: tlcp.VersionTLCP, SessionCacheSize: -1,
		CipherSuites: []uint16{ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECC_SM4_GCM_SM3}})
	r := runScan(t, addr)
	eq(t, "server_name", r.ServerName, "")
	eq(t, "tlcp.supported", r.TLCP.Supported, true)
	eq(t, "tlcp.suites", suiteVerdicts(r.TLCP.Suites), map[string]bool{
		"ECC_SM4_GCM_SM3": true, "ECC_SM4_CBC_SM3": true, "ECDHE_SM4_GCM_SM3": false, "ECDHE_SM4_CBC_SM3": false,
		"ECDHE_ZUC128_SM3": false, "ECC_ZUC128_SM3": false})
	eq(t, "tlcp.order", r.TLCP.Order, []string{"ECC_SM4_CBC_SM3", "ECC_SM4_GCM_SM3"})
	eq(t, "tlcp.session_resumption", r.TLCP.SessionResumption, false)
	eq(t, "tlcp.downgrade_sentinel", r.TLCP.Sentinel, "none")
	eq(t, "tlcp.server_hello_extensions", r.TLCP.ServerHelloExtensions, []uint16{})
	eq(t, "tls13_sm.supported", r.TLS13SM.Supported, false)
	for _, s := range r.TLS13SM.Suites {
		eq(t, s.Name+" refusal", s.Refusal, "protocol_version")
	}
	eq(t, "extensions.record_version_tls12", r.Extensions.RecordVersionTLS12, "protocol_version")
	eq(t, "verification", r.Verification, "not checked (no -CAfile)")
	eq(t, "implementation", r.Implementation.Name, "shangmi")
}

// TestScanTLS13Only: a TLS 1.3-only server with curveSM2 alone and no
// tickets.
func TestScanTLS13Only(t *testing.T) {
	addr, _ := scanServer(t, &tlcp.Config{MinVersion: tlcp.VersionTLS13, CurvePreferences: []tlcp.CurveID{tlcp.CurveSM2},
		SessionTicketsDisabled: true})
	r := runScan(t, addr)
	eq(t, "tlcp.supported", r.TLCP.Supported, false)
	for _, s := range r.TLCP.Suites {
		if s.Accepted || (s.Refusal != "protocol_version" && s.Refusal != "local") {
			t.Errorf("TLCP %s: %+v", s.Name, s)
		}
	}
	eq(t, "tls13_sm.supported", r.TLS13SM.Supported, true)
	eq(t, "tls13_sm.groups", r.TLS13SM.Groups, []string{"curveSM2"})
	eq(t, "tls13_sm.chosen_group", r.TLS13SM.Chosen, "curveSM2")
	eq(t, "tls13_sm.tickets", r.TLS13SM.Tickets, false)
	eq(t, "tls13_sm.ticket_resumption", r.TLS13SM.Resumption, false)
	eq(t, "tls13_sm.combined_hello", r.TLS13SM.CombinedHello, "")
	if len(r.Certificates) != 1 || r.Certificates[0].Protocol != "TLS 1.3" {
		t.Errorf("certificates %+v", r.Certificates)
	}
}

// TestScanClientAuth: a server that requires client certificates, scanned
// with a client double certificate: the forms it accepts.
func TestScanClientAuth(t *testing.T) {
	addr, _ := scanServer(t, &tlcp.Config{ClientAuth: tlcp.RequireAndVerifyClientCert})
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	r := runScan(t, "-sign_cert", tl("client_sign.pem"), "-sign_key", tl("client_sign.key"),
		"-enc_cert", tl("client_enc.pem"), "-enc_key", tl("client_enc.key"), addr)
	eq(t, "tlcp.suites", suiteVerdicts(r.TLCP.Suites), map[string]bool{
		"ECC_SM4_GCM_SM3": true, "ECC_SM4_CBC_SM3": true, "ECDHE_SM4_GCM_SM3": true, "ECDHE_SM4_CBC_SM3": true,
		"ECDHE_ZUC128_SM3": false, "ECC_ZUC128_SM3": false})
	for _, s := range r.TLCP.Suites {
		eq(t, s.Name+" note", s.Note, "")
	}
	eq(t, "tlcp.client_auth", r.TLCP.ClientAuth, "requested")
	eq(t, "tlcp.certificate_verify", r.TLCP.CertificateVerify, []string{"transcript-hash", "raw-transcript"})
	eq(t, "tlcp.ecdhe_framing", r.TLCP.ECDHEFraming, []string{"69", "71"})
	eq(t, "tlcp.needs_enc_cert", r.TLCP.NeedsEncCert, new(false))
	eq(t, "tlcp.session_resumption", r.TLCP.SessionResumption, true)
	eq(t, "tls13_sm.client_auth", r.TLS13SM.ClientAuth, "requested")
	eq(t, "tls13_sm.ticket_resumption", r.TLS13SM.Resumption, true)
	if r.Connections > defaultMaxConns {
		t.Errorf("%d connections", r.Connections)
	}
	// Without a client certificate the handshakes fail, and the scan says
	// why rather than that the suites are refused.
	r = runScan(t, addr)
	eq(t, "tlcp.client_auth without a certificate", r.TLCP.ClientAuth, "requested")
	eq(t, "tlcp.supported without a certificate", r.TLCP.Supported, true)
	for _, s := range r.TLCP.Suites {
		if s.Accepted && !strings.HasPrefix(s.Note, "ServerHello only") {
			t.Errorf("without a certificate, %s: %+v", s.Name, s)
		}
	}
	eq(t, "tlcp.certificate_verify without a certificate", r.TLCP.CertificateVerify, []string(nil))
	eq(t, "tls13_sm.supported without a certificate", r.TLS13SM.Supported, true)
	eq(t, "tls13_sm.client_auth without a certificate", r.TLS13SM.ClientAuth, "requested")
}

// TestScanECDHEOnlyCertificateRequest: a server without client
// authentication still asks for certificates on the TLCP ECDHE suites
// (their key exchange needs the client's encryption certificate); the scan
// says so rather than that the server requires client authentication.
func TestScanECDHEOnlyCertificateRequest(t *testing.T) {
	addr, _ := scanServer(t, &tlcp.Config{})
	tl := func(n string) string { return moduleTestdata(t, "tlcp", n) }
	r := runScan(t, "-sign_cert", tl("client_sign.pem"), "-sign_key", tl("client_sign.key"),
		"-enc_cert", tl("client_enc.pem"), "-enc_key", tl("client_enc.key"), addr)
	eq(t, "tlcp.client_auth", r.TLCP.ClientAuth, "ecdhe-only")
	eq(t, "tls13_sm.client_auth", r.TLS13SM.ClientAuth, "none")
}

// extensionRefuser stands before the server at backend as GmSSL 3.1.1's
// server behaves: a ClientHello with any extension gets an
// unexpected_message alert and a closed connection; one without goes
// through.
func extensionRefuser(t *testing.T, backend string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				hdr := make([]byte, 5)
				if _, err := io.ReadFull(c, hdr); err != nil {
					return
				}
				body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
				if _, err := io.ReadFull(c, body); err != nil {
					return
				}
				if helloHasExtensions(body) {
					c.Write([]byte{21, 1, 1, 0, 2, 2, 10})
					return
				}
				b, err := net.Dial("tcp", backend)
				if err != nil {
					return
				}
				defer b.Close()
				b.Write(append(hdr, body...))
				go io.Copy(b, c)
				io.Copy(c, b)
			}()
		}
	}()
	return ln.Addr().String()
}

// helloHasExtensions reports whether the handshake record body b holds a
// ClientHello with at least one extension (read as -msg reads them).
func helloHasExtensions(b []byte) bool {
	if len(b) < 4 || b[0] != 1 {
		return false
	}
	n := 0
	forExtensions(b[4:], true, func(uint16, cryptobyte.String) { n++ })
	return n > 0
}

// TestScanExtensionRefuser: a server that refuses every ClientHello
// extension (GmSSL 3.1.1) is found out, and its suites are scanned with
// hellos that carry none.
func TestScanExtensionRefuser(t *testing.T) {
	backend, _ := scanServer(t, &tlcp.Config{})
	r := runScan(t, "-servername", "localhost", extensionRefuser(t, backend))
	eq(t, "tlcp.refuses_extensions", r.TLCP.RefusesExtensions, true)
	eq(t, "tlcp.supported", r.TLCP.Supported, true)
	eq(t, "tlcp.suites", suiteVerdicts(r.TLCP.Suites)["ECC_SM4_CBC_SM3"], true)
	eq(t, "extensions.no_extensions", r.Extensions.NoExtensions, true)
	eq(t, "tls13_sm.supported", r.TLS13SM.Supported, false)
}

// TestScanBounds: -max_conns caps the connections, and the report says
// what was skipped; a port where nothing listens costs one connection
// attempt's worth of time and reports every probe skipped.
func TestScanBounds(t *testing.T) {
	addr, accepted := scanServer(t, &tlcp.Config{})
	r := runScan(t, "-max_conns", "5", addr)
	eq(t, "connections", r.Connections, 5)
	eq(t, "accepted by the server", accepted.Load(), int64(5))
	if len(r.Skipped) == 0 || !strings.Contains(r.Skipped[0], "-max_conns 5") {
		t.Errorf("skipped %q", r.Skipped)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	code, out, _ := smtool("scan", "-json", "-timeout", "1s", dead)
	eq(t, "exit status for a dead port", code, 1)
	var d ScanReport
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	eq(t, "connections to a dead port", d.Connections, 0)
	if d.ElapsedMS > 3000 || len(d.Skipped) != 1 || !strings.HasPrefix(d.Skipped[0], "the rest: ") {
		t.Errorf("dead port: %d ms, skipped %q", d.ElapsedMS, d.Skipped)
	}

	for _, bad := range [][]string{{"scan"}, {"scan", "nohost"}, {"scan", "-max_conns", "0", addr}} {
		if code, _, _ := smtool(bad...); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
