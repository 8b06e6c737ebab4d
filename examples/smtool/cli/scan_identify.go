// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"slices"
	"strings"
)

// Which implementation a server behaves like, from what the probes
// recorded. Behaviour fixed in an implementation's code (the alert for a
// malformed hello) weighs more than what a configuration changes (session
// IDs, suite order). Each clue was seen on the peers of /work/peers (RUN.md) and on
// our own server, in every configuration scan's report lists; none alone
// proves anything, so the report names every clue that fired.
//
//	shangmi  a TLCP ServerHello random ending in DOWNGRD\0 when TLS 1.3 is
//	         enabled too (TLS13.md §5; nobody else marks TLCP); server_name
//	         answered in the TLCP ServerHello with a 32-byte session ID
//	         (GmSSL answers it with none); a TLS 1.3 ticket sent only with
//	         the server's first data
//	GmSSL    ZUC suites refused with insufficient_security; no session ID;
//	         an unknown extension or renegotiation_info answered by closing
//	         the connection without an alert; its TLS 1.3 server closes
//	         every other hello the same way
//	Tongsuo  the client's suite order wins (OpenSSL's default); ordinary
//	         TLS refused with handshake_failure or spoken on the same port;
//	         its TLS 1.3 server refuses TLCP with protocol_version and sends
//	         tickets right after the handshake
//	gotlcp   32-byte session IDs that resume, server_name answered (as
//	         shangmi does); a hello without the null compression method
//	         refused with handshake_failure (shangmi: illegal_parameter,
//	         Tongsuo: decode_error, GmSSL takes it), and one in a TLS 1.2
//	         record accepted
//	tjfoc    renegotiation_info answered (crypto/tls's heritage) and no
//	         session ID; ECC_SM4_CBC_SM3 alone by default
func identify(r *ScanReport) ScanImpl {
	score := map[string]int{}
	var evidence []string
	clue := func(impl string, weight int, why string) {
		score[impl] += weight
		evidence = append(evidence, fmt.Sprintf("%s: %s", impl, why))
	}
	t, s, x := r.TLCP, r.TLS13SM, r.Extensions
	refusal := func(list []ScanSuite, prefix string) string {
		for _, ss := range list {
			if strings.HasPrefix(ss.Name, prefix) && !ss.Accepted {
				return ss.Refusal
			}
		}
		return ""
	}
	std12 := ""
	stdAccepted := false
	for _, o := range r.OrdinaryTLS {
		if o.Accepted {
			stdAccepted = true
		}
		if o.Version == "TLS 1.2" {
			std12 = o.Refusal
		}
	}
	if t.Supported {
		switch t.Sentinel {
		case `DOWNGRD\0`:
			clue("shangmi", 3, `the TLCP ServerHello random ends in DOWNGRD\0 (a TLS 1.3 server answering TLCP)`)
		case "none":
			if s.Supported {
				clue("Tongsuo", 1, "TLCP and TLS 1.3 on one port without a downgrade sentinel")
			}
		}
		switch {
		case x.SNIEchoed && t.SessionID == "32 bytes":
			clue("shangmi", 1, "server_name answered in the TLCP ServerHello, with 32-byte session IDs")
			clue("gotlcp", 1, "server_name answered in the TLCP ServerHello, with 32-byte session IDs")
		case x.SNIEchoed && t.SessionID == "none":
			clue("GmSSL", 1, "server_name answered in the TLCP ServerHello, with no session ID")
		}
		zuc := refusal(t.Suites, "ECC_ZUC")
		if zuc == "insufficient_security" {
			clue("GmSSL", 3, "ZUC suites refused with insufficient_security")
		}
		if x.UnknownAlert == "closed" {
			clue("GmSSL", 2, "an unknown extension makes it close the connection without an alert")
		}
		if strings.HasPrefix(x.Renegotiation, "secure renegotiation") {
			clue("tjfoc", 3, "renegotiation_info answered in the TLCP ServerHello")
		}
		if t.SessionID == "none" {
			clue("GmSSL", 1, "no session ID (no resumption)")
			clue("tjfoc", 1, "no session ID (no resumption)")
		}
		if t.Preference == "client" {
			clue("Tongsuo", 2, "the client's suite order wins (OpenSSL's default)")
		}
		if stdAccepted {
			clue("Tongsuo", 2, "ordinary TLS spoken on the same port")
		} else if std12 == "handshake_failure" && !strings.HasPrefix(x.Renegotiation, "secure") {
			clue("Tongsuo", 1, "ordinary TLS 1.2 refused with handshake_failure, not protocol_version")
		}
		switch x.NoNullCompression {
		case "illegal_parameter":
			clue("shangmi", 3, "a hello without the null compression method refused with illegal_parameter")
		case "handshake_failure":
			clue("gotlcp", 3, "a hello without the null compression method refused with handshake_failure")
		case "decode_error":
			clue("Tongsuo", 2, "a hello without the null compression method refused with decode_error")
		case "accepted":
			clue("GmSSL", 3, "a hello without the null compression method accepted")
		}
		if x.RecordVersionTLS12 == "accepted" && !s.Supported {
			clue("gotlcp", 1, "a TLCP hello in a TLS 1.2 record accepted by a server without TLS 1.3")
		}
		accepted := 0
		for _, ss := range t.Suites {
			if ss.Accepted {
				accepted++
			}
		}
		if accepted == 1 && slices.ContainsFunc(t.Suites, func(ss ScanSuite) bool { return ss.Name == "ECC_SM4_CBC_SM3" && ss.Accepted }) {
			clue("tjfoc", 1, "ECC_SM4_CBC_SM3 alone")
		}
	}
	if s.Supported {
		if s.TicketAfterData {
			clue("shangmi", 2, "the TLS 1.3 ticket came only with the server's first data")
		} else if s.Tickets {
			clue("Tongsuo", 1, "TLS 1.3 tickets right after the handshake")
		}
		if !t.Supported {
			switch refusal(t.Suites, "ECC_SM4") {
			case "closed":
				clue("GmSSL", 3, "a TLCP hello to its TLS 1.3 server is closed without an alert")
			case "protocol_version":
				if std12 == "protocol_version" && !s.TicketAfterData {
					clue("Tongsuo", 1, "TLCP refused with protocol_version by a TLS 1.3 server")
				}
			}
		}
		if slices.Contains(s.Groups, "curveSM2MLKEM768") {
			clue("shangmi", 1, "the hybrid curveSM2MLKEM768 group (Tongsuo 8.5 has it too when configured)")
		}
	}
	best, bestScore, tie := "unknown", 0, false
	for _, impl := range []string{"shangmi", "GmSSL", "Tongsuo", "gotlcp", "tjfoc"} {
		switch n := score[impl]; {
		case n > bestScore:
			best, bestScore, tie = impl, n, false
		case n == bestScore && n > 0:
			tie = true
		}
	}
	if evidence == nil {
		evidence = []string{}
	}
	if bestScore < 2 || tie {
		return ScanImpl{Name: "unknown", Evidence: evidence}
	}
	return ScanImpl{Name: best, Evidence: evidence}
}
