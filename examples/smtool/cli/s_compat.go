// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// The s_client and s_server flags of OpenSSL and Tongsuo that users type
// out of habit: -brief, -state, -no_ticket and s_client's
// -verify_hostname.

// compatOpts are those flags.
type compatOpts struct {
	brief, state, noTicket *bool
	verifyHostname         *string
}

func (o *tlcpOpts) addCompatFlags(fs *flagSet, server bool) {
	o.server = server
	o.compat.brief = fs.Bool("brief", false, "print only the protocol, suite, group, peer certificate and verification result, to standard error, as openssl -brief (implies -quiet)")
	o.compat.state = fs.Bool("state", false, "print each handshake step as openssl -state names it (SSL_connect:SSLv3/TLS write client hello)")
	o.compat.noTicket = fs.Bool("no_ticket", false, map[bool]string{
		true:  "send no TLS 1.3 session tickets",
		false: "do not keep the server's TLS 1.3 tickets, so no ticket is offered on -reconnect (TLCP session IDs still resume)",
	}[server])
	if !server {
		o.compat.verifyHostname = fs.String("verify_hostname", "", "verify the server's certificate for `name` instead of the -servername/-connect host (SNI is unchanged)")
	}
}

// applyCompat applies s_client's compatibility flags to its Config.
func (r *clientRun) applyCompat() {
	c := r.o.compat
	if *c.brief {
		r.quiet = true
	}
	if *c.noTicket && r.cfg.ClientSessionCache != nil {
		r.cfg.ClientSessionCache = noTickets{r.cfg.ClientSessionCache}
	}
	if name := *c.verifyHostname; name != "" {
		r.verifyName = name
		if r.strict {
			// tlcp verifies the host it connects to; this name is
			// another, so the whole check is ours.
			r.cfg.InsecureSkipVerify = true
			r.cfg.RootCAs = nil
			r.cfg.VerifyConnection = func(st tlcp.ConnectionState) error {
				_, err := r.v.verifyPeer(st, name, smx509.ExtKeyUsageServerAuth)
				return err
			}
		}
	}
}

// applyServerCompat applies s_server's compatibility flags.
func (o *tlcpOpts) applyServerCompat(cfg *tlcp.Config) {
	if *o.compat.noTicket {
		cfg.SessionTicketsDisabled = true
	}
}

// noTickets is a client session cache that keeps TLCP sessions only.
type noTickets struct{ tlcp.ClientSessionCache }

func (n noTickets) Put(key string, cs *tlcp.ClientSessionState) {
	if cs == nil || cs.Version() != tlcp.VersionTLS13 {
		n.ClientSessionCache.Put(key, cs)
	}
}

// printBrief prints a connection as openssl -brief does.
func printBrief(w io.Writer, st tlcp.ConnectionState, verification string) {
	fmt.Fprintln(w, "CONNECTION ESTABLISHED")
	fmt.Fprintf(w, "Protocol version: %s\n", protocolName(st.Version))
	fmt.Fprintf(w, "Ciphersuite: %s\n", tlcp.CipherSuiteName(st.CipherSuite))
	if st.CurveID != 0 {
		fmt.Fprintf(w, "Negotiated group: %s\n", st.CurveID)
	}
	if st.DidResume {
		fmt.Fprintln(w, "Reused session")
	}
	if c := st.PeerSignCertificate; c != nil {
		fmt.Fprintf(w, "Peer certificate: %s\n", nameString(c.RawSubject))
	} else {
		fmt.Fprintln(w, "No peer certificate")
	}
	if verification != "" {
		fmt.Fprintf(w, "Verification: %s\n", verification)
	}
}

// briefVerification is the verification line of -brief.
func briefVerification(insecure bool, chain []*smx509.Certificate, err error) string {
	switch {
	case insecure:
		return "skipped (-insecure)"
	case err != nil:
		return "error: " + err.Error()
	case chain != nil:
		return "OK"
	}
	return "not done (no -CAfile)"
}

// stateLine is the -state line for one handshake message, as OpenSSL's
// SSL_state_string_long names the step, or "".
func stateLine(server, sent bool, tls13 bool, contentType uint8, msg []byte) string {
	fn := "SSL_connect"
	if server {
		fn = "SSL_accept"
	}
	dir := "read"
	if sent {
		dir = "write"
	}
	fromServer := sent == server
	party := map[bool]string{true: "server", false: "client"}[fromServer]
	var step string
	switch contentType {
	case 20:
		step = "SSLv3/TLS " + dir + " change cipher spec"
	case 22:
		names := map[uint8]string{
			1: "client hello", 2: "server hello", 4: "session ticket", 11: party + " certificate",
			12: "key exchange", 13: "certificate request", 14: "server done", 15: "certificate verify",
			16: "client key exchange", 20: "finished",
		}
		switch {
		case msg[0] == 8:
			step = "TLSv1.3 " + dir + " encrypted extensions"
		case msg[0] == 24:
			step = "TLSv1.3 " + dir + " key update"
		case msg[0] == 15 && tls13:
			step = "TLSv1.3 " + dir + " " + party + " certificate verify"
		case names[msg[0]] != "":
			step = "SSLv3/TLS " + dir + " " + names[msg[0]]
		default:
			return ""
		}
	default:
		return ""
	}
	return fn + ":" + step
}
