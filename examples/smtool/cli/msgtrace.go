// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"golang.org/x/crypto/cryptobyte"
)

// The -msg and -trace output of s_client and s_server, from
// tlcp.Config.MessageTrace: one header line per handshake message,
// ChangeCipherSpec and alert, as openssl's -msg prints them,
//
//	>>> TLCP Handshake [length 0031], ClientHello
//
// followed by a hex dump (-msg) or by the decoded fields (-trace).

var handshakeNames = map[uint8]string{
	0: "HelloRequest", 1: "ClientHello", 2: "ServerHello", 4: "NewSessionTicket", 5: "EndOfEarlyData",
	8: "EncryptedExtensions", 11: "Certificate", 12: "ServerKeyExchange", 13: "CertificateRequest",
	14: "ServerHelloDone", 15: "CertificateVerify", 16: "ClientKeyExchange", 20: "Finished", 24: "KeyUpdate",
}

// alertNames are openssl's spellings, GM/T 0024's for 200-205.
var alertNames = map[uint8]string{
	0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 21: "decryption_failed",
	22: "record_overflow", 30: "decompression_failure", 40: "handshake_failure", 41: "no_certificate",
	42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked",
	45: "certificate_expired", 46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca",
	49: "access_denied", 50: "decode_error", 51: "decrypt_error", 60: "export_restriction",
	70: "protocol_version", 71: "insufficient_security", 80: "internal_error", 90: "user_canceled",
	100: "no_renegotiation", 200: "unsupported_site2site", 201: "no_area", 202: "unsupported_areatype",
	203: "bad_ibcparam", 204: "unsupported_ibcparam", 205: "identity_need",
}

var extensionNames = map[uint16]string{
	0: "server_name", 3: "trusted_ca_keys", 5: "status_request", 10: "supported_groups",
	11: "ec_point_formats", 13: "signature_algorithms", 16: "application_layer_protocol_negotiation",
	22: "encrypt_then_mac", 23: "extended_master_secret", 35: "session_ticket", 66: "client_id",
	41: "pre_shared_key", 42: "early_data", 43: "supported_versions", 44: "cookie",
	45: "psk_key_exchange_modes", 47: "certificate_authorities", 49: "post_handshake_auth",
	50: "signature_algorithms_cert", 51: "key_share", 0xff01: "renegotiation_info",
}

// signatureSchemeNames are the TLS 1.3 signature schemes a ShangMi peer
// may list, as OpenSSL names them.
var signatureSchemeNames = map[uint16]string{
	0x0708: "sm2sig_sm3", 0x0403: "ecdsa_secp256r1_sha256", 0x0503: "ecdsa_secp384r1_sha384",
	0x0804: "rsa_pss_rsae_sha256", 0x0805: "rsa_pss_rsae_sha384", 0x0401: "rsa_pkcs1_sha256",
	0x0807: "ed25519",
}

func schemeName(id uint16) string {
	if n, ok := signatureSchemeNames[id]; ok {
		return n
	}
	return fmt.Sprintf("0x%04x", id)
}

// versionName is protocolName for what a supported_versions extension
// may list.
func versionName(v uint16) string {
	if v == 0x0303 {
		return "TLSv1.2"
	}
	return protocolName(v)
}

func alertString(level, desc uint8) string {
	l := fmt.Sprintf("level %d", level)
	switch level {
	case 1:
		l = "warning"
	case 2:
		l = "fatal"
	}
	d, ok := alertNames[desc]
	if !ok {
		d = fmt.Sprintf("alert %d", desc)
	}
	return l + " " + d
}

// msgLine is the header line of one traced message; proto is the
// protocol the connection speaks (TLCP until a ServerHello says TLS 1.3).
func msgLine(proto string, sent bool, contentType uint8, msg []byte) string {
	dir := "<<<"
	if sent {
		dir = ">>>"
	}
	switch contentType {
	case 22:
		name, ok := handshakeNames[msg[0]]
		if !ok {
			name = fmt.Sprintf("type %d", msg[0])
		}
		return fmt.Sprintf("%s %s Handshake [length %04x], %s", dir, proto, len(msg), name)
	case 20:
		return fmt.Sprintf("%s %s ChangeCipherSpec [length %04x]", dir, proto, len(msg))
	case 21:
		return fmt.Sprintf("%s %s Alert [length %04x], %s", dir, proto, len(msg), alertString(msg[0], msg[1]))
	}
	return fmt.Sprintf("%s %s content type %d [length %04x]", dir, proto, contentType, len(msg))
}

// traceFormatter writes one connection's traced messages to w. It keeps
// what the ServerHello said, as TLS 1.3's messages look like TLCP's and
// differ in their fields: each connection needs its own (formatter()).
type traceFormatter struct {
	hex     bool // -msg: a hex dump of each message
	decode  bool // -trace: the fields of each message
	headers bool // -msg or -trace: a line for each message
	state   bool // -state: OpenSSL's name of each step (s_compat.go)
	server  bool
	st      *traceState
}

// traceState is what a connection's messages so far said.
type traceState struct {
	tls13 bool // the ServerHello (or a HelloRetryRequest) chose TLS 1.3
	hello string
}

func (f traceFormatter) format(w io.Writer, sent bool, contentType uint8, msg []byte) {
	st := f.st
	if st == nil {
		st = &traceState{}
	}
	proto := "TLCP"
	if contentType == 22 && len(msg) >= 4 {
		switch msg[0] {
		case 1:
			st.hello = helloProtocol(msg[4:])
			proto = st.hello
		case 2:
			st.tls13 = serverHelloIsTLS13(msg[4:])
		}
	}
	if st.tls13 {
		proto = "TLSv1.3"
	}
	if f.state {
		if l := stateLine(f.server, sent, st.tls13, contentType, msg); l != "" {
			fmt.Fprintln(w, l)
		}
	}
	if !f.headers {
		return
	}
	fmt.Fprintln(w, msgLine(proto, sent, contentType, msg))
	if f.decode {
		for _, l := range decodeMessage(contentType, msg, st.tls13) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if f.hex {
		for i := 0; i < len(msg); i += 16 {
			var parts []string
			for _, b := range msg[i:min(i+16, len(msg))] {
				parts = append(parts, fmt.Sprintf("%02x", b))
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(parts, " "))
		}
	}
}

func suiteList(s *cryptobyte.String) []string {
	var names []string
	for !s.Empty() {
		var id uint16
		if !s.ReadUint16(&id) {
			return append(names, "(truncated)")
		}
		names = append(names, fmt.Sprintf("%s (0x%04X)", tlcp.CipherSuiteName(id), id))
	}
	return names
}

func extensionList(s *cryptobyte.String) []string {
	var names []string
	for !s.Empty() {
		var typ uint16
		var body cryptobyte.String
		if !s.ReadUint16(&typ) || !s.ReadUint16LengthPrefixed(&body) {
			return append(names, "(malformed)")
		}
		name, ok := extensionNames[typ]
		if !ok {
			name = fmt.Sprintf("extension %d", typ)
		}
		switch typ {
		case 0:
			var list, host cryptobyte.String
			var nameType uint8
			if body.ReadUint16LengthPrefixed(&list) && list.ReadUint8(&nameType) && list.ReadUint16LengthPrefixed(&host) {
				name += fmt.Sprintf(" %q", string(host))
			}
		case 10: // supported_groups
			var list cryptobyte.String
			var groups []string
			if body.ReadUint16LengthPrefixed(&list) {
				for !list.Empty() {
					var g uint16
					if !list.ReadUint16(&g) {
						break
					}
					groups = append(groups, groupName(g))
				}
			}
			name += " " + strings.Join(groups, ":")
		case 51: // key_share: a list (ClientHello), one entry (ServerHello) or a group (HelloRetryRequest)
			name += " " + keyShareString(body)
		case 43: // supported_versions: a list (ClientHello) or the one chosen
			var vs []string
			var list cryptobyte.String
			if len(body) == 2 {
				vs = append(vs, versionName(uint16(body[0])<<8|uint16(body[1])))
			} else if body.ReadUint8LengthPrefixed(&list) {
				for !list.Empty() {
					var v uint16
					if !list.ReadUint16(&v) {
						break
					}
					vs = append(vs, versionName(v))
				}
			}
			name += " " + strings.Join(vs, ":")
		case 13, 50: // signature_algorithms(_cert)
			var list cryptobyte.String
			var ss []string
			if body.ReadUint16LengthPrefixed(&list) {
				for !list.Empty() {
					var v uint16
					if !list.ReadUint16(&v) {
						break
					}
					ss = append(ss, schemeName(v))
				}
			}
			name += " " + strings.Join(ss, ":")
		case 45: // psk_key_exchange_modes
			var list cryptobyte.String
			var ms []string
			if body.ReadUint8LengthPrefixed(&list) {
				for _, m := range list {
					ms = append(ms, map[uint8]string{0: "psk_ke", 1: "psk_dhe_ke"}[m])
				}
			}
			name += " " + strings.Join(ms, ":")
		case 41: // pre_shared_key: identities (ClientHello) or the one chosen
			if len(body) == 2 {
				name += fmt.Sprintf(" identity %d chosen", int(body[0])<<8|int(body[1]))
			} else {
				name += fmt.Sprintf(" (%d bytes)", len(body))
			}
		case 16:
			var list cryptobyte.String
			var protos []string
			if body.ReadUint16LengthPrefixed(&list) {
				for !list.Empty() {
					var p cryptobyte.String
					if !list.ReadUint8LengthPrefixed(&p) {
						break
					}
					protos = append(protos, string(p))
				}
			}
			name += " " + strings.Join(protos, ",")
		default:
			if len(body) > 0 {
				name += fmt.Sprintf(" (%d bytes)", len(body))
			}
		}
		names = append(names, name)
	}
	return names
}

// keyShareString describes a key_share extension's body, which has three
// shapes told apart by their lengths: a list of KeyShareEntry, one entry,
// or a bare group.
func keyShareString(body cryptobyte.String) string {
	if len(body) == 2 {
		return "HelloRetryRequest for " + groupName(uint16(body[0])<<8|uint16(body[1]))
	}
	entries := func(s cryptobyte.String) ([]string, bool) {
		var out []string
		for !s.Empty() {
			var g uint16
			var data cryptobyte.String
			if !s.ReadUint16(&g) || !s.ReadUint16LengthPrefixed(&data) {
				return nil, false
			}
			out = append(out, fmt.Sprintf("%s (%d bytes)", groupName(g), len(data)))
		}
		return out, true
	}
	list := body
	var inner cryptobyte.String
	if list.ReadUint16LengthPrefixed(&inner) && list.Empty() {
		if e, ok := entries(inner); ok {
			return strings.Join(e, ", ")
		}
	}
	if e, ok := entries(body); ok && len(e) == 1 {
		return e[0]
	}
	return "(malformed)"
}

// helloProtocol names what a ClientHello offers, for its header line.
func helloProtocol(body []byte) string {
	offers := helloVersions(body)
	switch {
	case len(offers) == 0:
		return "TLCP"
	case slices.Contains(offers, tlcp.VersionTLCP):
		return "TLCP+TLSv1.3"
	}
	return "TLSv1.3"
}

// helloVersions returns the versions of a ClientHello's
// supported_versions extension.
func helloVersions(body []byte) []uint16 {
	var out []uint16
	forExtensions(body, true, func(typ uint16, data cryptobyte.String) {
		var list cryptobyte.String
		if typ != 43 || !data.ReadUint8LengthPrefixed(&list) {
			return
		}
		for !list.Empty() {
			var v uint16
			if !list.ReadUint16(&v) {
				return
			}
			out = append(out, v)
		}
	})
	return out
}

// serverHelloIsTLS13 reports whether a ServerHello (or HelloRetryRequest)
// chose TLS 1.3 in supported_versions.
func serverHelloIsTLS13(body []byte) bool {
	is13 := false
	forExtensions(body, false, func(typ uint16, data cryptobyte.String) {
		if typ == 43 && len(data) == 2 && uint16(data[0])<<8|uint16(data[1]) == tlcp.VersionTLS13 {
			is13 = true
		}
	})
	return is13
}

// forExtensions calls f for each extension of a hello's body.
func forExtensions(body []byte, client bool, f func(typ uint16, data cryptobyte.String)) {
	s := cryptobyte.String(body)
	var sid, suites, comp, exts cryptobyte.String
	if !s.Skip(2+32) || !s.ReadUint8LengthPrefixed(&sid) {
		return
	}
	if client {
		if !s.ReadUint16LengthPrefixed(&suites) || !s.ReadUint8LengthPrefixed(&comp) {
			return
		}
	} else if !s.Skip(3) {
		return
	}
	if !s.ReadUint16LengthPrefixed(&exts) {
		return
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return
		}
		f(typ, data)
	}
}

// certEntry describes one certificate of a Certificate message.
func certEntry(i int, der []byte) string {
	c, err := smx509.ParseCertificate(der)
	if err != nil {
		return fmt.Sprintf("%d: (unparsable: %v)", i, err)
	}
	return fmt.Sprintf("%d: s:%s [%s]", i, nameString(c.RawSubject), tlcpRole(c))
}

// decodeTLS13 decodes the messages whose form TLS 1.3 changed, or returns
// nil for the others.
func decodeTLS13(typ uint8, body cryptobyte.String) []string {
	malformed := []string{"(malformed)"}
	switch typ {
	case 8: // EncryptedExtensions
		var exts cryptobyte.String
		if !body.ReadUint16LengthPrefixed(&exts) {
			return malformed
		}
		if exts.Empty() {
			return []string{"extensions: none"}
		}
		return []string{"extensions: " + strings.Join(extensionList(&exts), ", ")}
	case 11: // Certificate: context, then entries with extensions
		var ctx, list cryptobyte.String
		if !body.ReadUint8LengthPrefixed(&ctx) || !body.ReadUint24LengthPrefixed(&list) {
			return malformed
		}
		var lines []string
		if len(ctx) > 0 {
			lines = append(lines, fmt.Sprintf("certificate_request_context %x", []byte(ctx)))
		}
		for i := 0; !list.Empty(); i++ {
			var der, exts cryptobyte.String
			if !list.ReadUint24LengthPrefixed(&der) || !list.ReadUint16LengthPrefixed(&exts) {
				return append(lines, "(malformed)")
			}
			l := certEntry(i, der)
			if !exts.Empty() {
				l += " extensions: " + strings.Join(extensionList(&exts), ", ")
			}
			lines = append(lines, l)
		}
		if len(lines) == 0 {
			return []string{"(no certificates)"}
		}
		return lines
	case 13: // CertificateRequest: context and extensions
		var ctx, exts cryptobyte.String
		if !body.ReadUint8LengthPrefixed(&ctx) || !body.ReadUint16LengthPrefixed(&exts) {
			return malformed
		}
		return []string{fmt.Sprintf("certificate_request_context (%d bytes)", len(ctx)),
			"extensions: " + strings.Join(extensionList(&exts), ", ")}
	case 15: // CertificateVerify: scheme and signature
		var scheme uint16
		var sig cryptobyte.String
		if !body.ReadUint16(&scheme) || !body.ReadUint16LengthPrefixed(&sig) {
			return malformed
		}
		return []string{fmt.Sprintf("%s signature (%d bytes)", schemeName(scheme), len(sig))}
	case 4: // NewSessionTicket
		var lifetime, ageAdd uint32
		var nonce, ticket, exts cryptobyte.String
		if !body.ReadUint32(&lifetime) || !body.ReadUint32(&ageAdd) || !body.ReadUint8LengthPrefixed(&nonce) ||
			!body.ReadUint16LengthPrefixed(&ticket) || !body.ReadUint16LengthPrefixed(&exts) {
			return malformed
		}
		l := fmt.Sprintf("lifetime %d s, ticket of %d bytes", lifetime, len(ticket))
		if !exts.Empty() {
			l += ", extensions: " + strings.Join(extensionList(&exts), ", ")
		}
		return []string{l}
	case 24: // KeyUpdate
		var req uint8
		if !body.ReadUint8(&req) {
			return malformed
		}
		return []string{map[uint8]string{0: "update_not_requested", 1: "update_requested"}[req]}
	}
	return nil
}

// decodeMessage returns the main fields of a message, a line each; tls13
// says the connection speaks TLS 1.3.
func decodeMessage(contentType uint8, msg []byte, tls13 bool) []string {
	if contentType != 22 || len(msg) < 4 {
		return nil
	}
	body := cryptobyte.String(msg[4:])
	malformed := []string{"(malformed)"}
	if tls13 || msg[0] == 8 || msg[0] == 24 {
		if lines := decodeTLS13(msg[0], body); lines != nil {
			return lines
		}
	}
	switch msg[0] {
	case 1, 2: // ClientHello, ServerHello
		var vers uint16
		var random, sid cryptobyte.String
		if !body.ReadUint16(&vers) || !body.ReadBytes((*[]byte)(&random), 32) || !body.ReadUint8LengthPrefixed(&sid) {
			return malformed
		}
		lines := []string{fmt.Sprintf("version 0x%04x", vers), fmt.Sprintf("random %x", []byte(random))}
		if len(sid) == 0 {
			lines = append(lines, "session ID: none")
		} else {
			lines = append(lines, fmt.Sprintf("session ID (%d bytes) %x", len(sid), []byte(sid)))
		}
		if msg[0] == 1 {
			var suites, comp cryptobyte.String
			if !body.ReadUint16LengthPrefixed(&suites) || !body.ReadUint8LengthPrefixed(&comp) {
				return append(lines, "(malformed)")
			}
			lines = append(lines, "cipher suites: "+strings.Join(suiteList(&suites), ", "))
		} else {
			var suite uint16
			var comp uint8
			if !body.ReadUint16(&suite) || !body.ReadUint8(&comp) {
				return append(lines, "(malformed)")
			}
			lines = append(lines, fmt.Sprintf("cipher suite: %s (0x%04X)", tlcp.CipherSuiteName(suite), suite))
		}
		var exts cryptobyte.String
		switch {
		case body.Empty():
			lines = append(lines, "extensions: none")
		case body.ReadUint16LengthPrefixed(&exts):
			lines = append(lines, "extensions: "+strings.Join(extensionList(&exts), ", "))
		default:
			lines = append(lines, "extensions: (malformed)")
		}
		return lines
	case 11: // Certificate
		var list cryptobyte.String
		if !body.ReadUint24LengthPrefixed(&list) {
			return malformed
		}
		var lines []string
		for i := 0; !list.Empty(); i++ {
			var der cryptobyte.String
			if !list.ReadUint24LengthPrefixed(&der) {
				return append(lines, "(malformed)")
			}
			lines = append(lines, certEntry(i, der))
		}
		if len(lines) == 0 {
			return []string{"(no certificates)"}
		}
		return lines
	case 12: // ServerKeyExchange
		if len(body) >= 69+2 && body[0] == 3 {
			return []string{"ECDHE parameters: named curve " + fmt.Sprint(int(body[1])<<8|int(body[2])) + ", point of 65 bytes",
				fmt.Sprintf("signature (%d bytes)", len(body)-69-2)}
		}
		return []string{fmt.Sprintf("signature (%d bytes) over the randoms and the encryption certificate", len(body)-2)}
	case 13: // CertificateRequest
		var types, cas cryptobyte.String
		if !body.ReadUint8LengthPrefixed(&types) || !body.ReadUint16LengthPrefixed(&cas) {
			return malformed
		}
		var ts []string
		for _, t := range types {
			ts = append(ts, fmt.Sprint(t))
		}
		lines := []string{"certificate types: " + strings.Join(ts, ", ")}
		n := 0
		for !cas.Empty() {
			var dn cryptobyte.String
			if !cas.ReadUint16LengthPrefixed(&dn) {
				break
			}
			n++
			lines = append(lines, "acceptable CA: "+nameString(dn))
		}
		if n == 0 {
			lines = append(lines, "acceptable CAs: any")
		}
		return lines
	case 16: // ClientKeyExchange
		switch {
		case len(body) == 69 && body[0] == 3:
			return []string{"ECDHE: the bare 69-byte parameters (Tongsuo, gotlcp form)"}
		case len(body) == 71 && body[2] == 3:
			return []string{"ECDHE: the 71-byte u16-prefixed parameters (GmSSL form)"}
		}
		return []string{fmt.Sprintf("ECC: SM2 ciphertext of the premaster (%d bytes)", len(body)-2)}
	case 15:
		return []string{fmt.Sprintf("signature (%d bytes)", len(body)-2)}
	case 20:
		return []string{fmt.Sprintf("verify_data %x", []byte(body))}
	}
	return nil
}
