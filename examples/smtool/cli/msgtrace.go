// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"io"
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
	0: "HelloRequest", 1: "ClientHello", 2: "ServerHello", 4: "NewSessionTicket",
	11: "Certificate", 12: "ServerKeyExchange", 13: "CertificateRequest", 14: "ServerHelloDone",
	15: "CertificateVerify", 16: "ClientKeyExchange", 20: "Finished",
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
	45: "psk_key_exchange_modes", 50: "signature_algorithms_cert", 51: "key_share",
	0xff01: "renegotiation_info",
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

// msgLine is the header line of one traced message.
func msgLine(sent bool, contentType uint8, msg []byte) string {
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
		return fmt.Sprintf("%s TLCP Handshake [length %04x], %s", dir, len(msg), name)
	case 20:
		return fmt.Sprintf("%s TLCP ChangeCipherSpec [length %04x]", dir, len(msg))
	case 21:
		return fmt.Sprintf("%s TLCP Alert [length %04x], %s", dir, len(msg), alertString(msg[0], msg[1]))
	}
	return fmt.Sprintf("%s TLCP content type %d [length %04x]", dir, contentType, len(msg))
}

// traceFormatter writes traced messages to w.
type traceFormatter struct {
	hex    bool // -msg: a hex dump of each message
	decode bool // -trace: the fields of each message
}

func (f traceFormatter) format(w io.Writer, sent bool, contentType uint8, msg []byte) {
	fmt.Fprintln(w, msgLine(sent, contentType, msg))
	if f.decode {
		for _, l := range decodeMessage(contentType, msg) {
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

// decodeMessage returns the main fields of a message, a line each.
func decodeMessage(contentType uint8, msg []byte) []string {
	if contentType != 22 || len(msg) < 4 {
		return nil
	}
	body := cryptobyte.String(msg[4:])
	malformed := []string{"(malformed)"}
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
			c, err := smx509.ParseCertificate(der)
			if err != nil {
				lines = append(lines, fmt.Sprintf("%d: (unparsable: %v)", i, err))
				continue
			}
			lines = append(lines, fmt.Sprintf("%d: s:%s [%s]", i, nameString(c.RawSubject), tlcpRole(c)))
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
