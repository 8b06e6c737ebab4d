// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"slices"

	"golang.org/x/crypto/cryptobyte"
)

// Handshake message types, GB/T 38636-2020 6.4.5.1 (INTEROP.md §3.1).
const (
	typeHelloRequest       uint8 = 0
	typeClientHello        uint8 = 1
	typeServerHello        uint8 = 2
	typeCertificate        uint8 = 11
	typeServerKeyExchange  uint8 = 12
	typeCertificateRequest uint8 = 13
	typeServerHelloDone    uint8 = 14
	typeCertificateVerify  uint8 = 15
	typeClientKeyExchange  uint8 = 16
	typeFinished           uint8 = 20
)

// Hello extensions this package understands (GM/T 0024-2023 Annex A, INTEROP.md
// §8). Everything else is parsed past and ignored.
const (
	extensionServerName uint16 = 0
	extensionALPN       uint16 = 16
)

// Certificate types in CertificateRequest (INTEROP.md §3.7). In TLCP ecdsa_sign
// means SM2.
const (
	certTypeRSASign   uint8 = 1
	certTypeECDSASign uint8 = 64
)

// ECDHE parameters (INTEROP.md §3.6): curve_type named_curve, curve 41 (curveSM2)
// and a 65-byte uncompressed point, 69 bytes in all.
const (
	curveTypeNamedCurve uint8  = 3
	curveSM2            uint16 = 41
	ecdheParamsLen             = 1 + 2 + 1 + 65
)

// Handshake message size limits, as crypto/tls has them: a Certificate
// message may hold a few chains, every other message is far smaller than
// 64 KiB (the largest, CertificateRequest, lists CA names).
const (
	maxCertificateMsg = 1 << 18
	maxOtherMsg       = 1 << 16
)

// maxMessageLen is the longest body a message of type typ may have.
func maxMessageLen(typ uint8) int {
	if typ == typeCertificate {
		return maxCertificateMsg
	}
	return maxOtherMsg
}

// handshakeMessage is implemented by every message below. marshal returns the
// whole message including its 4-byte header; unmarshal takes the same and
// reports whether it was well formed. Neither panics on any input.
type handshakeMessage interface {
	marshal() ([]byte, error)
	unmarshal([]byte) bool
}

// errMessageTooLarge is returned by marshal when a field has a length its
// encoding cannot carry; it can only follow from a misconfiguration or a
// bug, never from peer input.
var errMessageTooLarge = errors.New("tlcp: handshake message field has an invalid length")

// marshalMessage writes the 4-byte handshake header around body.
func marshalMessage(typ uint8, body func(b *cryptobyte.Builder)) ([]byte, error) {
	// Room for the usual messages up front, so that the builder does not
	// grow its buffer byte field by byte field.
	b := cryptobyte.NewBuilder(make([]byte, 0, 256))
	b.AddUint8(typ)
	b.AddUint24LengthPrefixed(body)
	out, err := b.Bytes()
	if err != nil {
		return nil, errMessageTooLarge
	}
	return out, nil
}

// marshalOnce marshals a message the first time and keeps the bytes in
// *original, where a received message keeps the bytes it came in: what a
// transcript hashes is what went over the wire.
func marshalOnce(original *[]byte, typ uint8, body func(b *cryptobyte.Builder)) ([]byte, error) {
	if *original != nil {
		return *original, nil
	}
	out, err := marshalMessage(typ, body)
	if err != nil {
		return nil, err
	}
	*original = out
	return out, nil
}

// readBody checks the handshake header of data and returns the body.
func readBody(data []byte, typ uint8) (cryptobyte.String, bool) {
	s := cryptobyte.String(data)
	var t uint8
	var body cryptobyte.String
	if !s.ReadUint8(&t) || t != typ || !s.ReadUint24LengthPrefixed(&body) || !s.Empty() {
		return nil, false
	}
	return body, true
}

// readExtensions walks an extension block, a hello's or a TLS 1.3
// message's, handing each extension to f, which reports whether its body
// is well formed. The block is malformed if it is truncated or names an
// extension twice (RFC 8446 §4.2; RFC 5246 §7.4.1.4 for TLCP's hellos).
func readExtensions(exts cryptobyte.String, f func(typ uint16, ext cryptobyte.String) bool) bool {
	seen := make(map[uint16]bool)
	for !exts.Empty() {
		var typ uint16
		var ext cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&ext) || seen[typ] {
			return false
		}
		seen[typ] = true
		if !f(typ, ext) {
			return false
		}
	}
	return true
}

// parseServerName reads the server_name extension of a ClientHello
// (RFC 6066 §3): a list in which at most one host_name may appear.
func parseServerName(ext cryptobyte.String, name *string) bool {
	var names cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&names) || names.Empty() || !ext.Empty() {
		return false
	}
	for !names.Empty() {
		var nameType uint8
		var n cryptobyte.String
		if !names.ReadUint8(&nameType) || !names.ReadUint16LengthPrefixed(&n) || n.Empty() {
			return false
		}
		if nameType != 0 {
			continue
		}
		if *name != "" {
			return false
		}
		*name = string(n)
	}
	return true
}

// parseALPN reads a ClientHello's ALPN protocol list (RFC 7301 §3.1).
func parseALPN(ext cryptobyte.String, protos *[]string) bool {
	var list cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || list.Empty() || !ext.Empty() {
		return false
	}
	for !list.Empty() {
		var p cryptobyte.String
		if !list.ReadUint8LengthPrefixed(&p) || p.Empty() {
			return false
		}
		*protos = append(*protos, string(p))
	}
	return true
}

// parseSelectedALPN reads the server's answer to ALPN, a list of exactly
// one protocol (RFC 7301 §3.1), in a ServerHello or EncryptedExtensions.
func parseSelectedALPN(ext cryptobyte.String, proto *string) bool {
	var list, p cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || !list.ReadUint8LengthPrefixed(&p) ||
		p.Empty() || !list.Empty() || !ext.Empty() {
		return false
	}
	*proto = string(p)
	return true
}

// marshalSelectedALPN writes the server's answer to ALPN.
func marshalSelectedALPN(b *cryptobyte.Builder, proto string) {
	b.AddUint16(extensionALPN)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(proto)) })
		})
	})
}

// clientHelloMsg is ClientHello (INTEROP.md §3.3). Extensions are optional; by
// default a TLCP client sends none, so hasExtensions is false unless
// serverName or alpnProtocols is set.
type clientHelloMsg struct {
	original           []byte
	vers               uint16
	random             []byte
	sessionID          []byte
	cipherSuites       []uint16
	compressionMethods []uint8
	serverName         string
	alpnProtocols      []string
	// ocspStapling is status_request with status_type ocsp (RFC 6066
	// §8); trustedAuthorities is trusted_ca_keys (§6).
	ocspStapling       bool
	trustedAuthorities []TrustedAuthority
	// hasExtensions records that an extension block was present, even an
	// empty one.
	hasExtensions bool
	// tls13 holds the TLS 1.3 extensions (handshake_messages_tls13.go).
	tls13 clientHelloTLS13
}

func (m *clientHelloMsg) marshal() ([]byte, error) {
	if m.original != nil {
		return m.original, nil
	}
	if len(m.random) != 32 || len(m.sessionID) > 32 {
		return nil, errMessageTooLarge
	}
	var exts cryptobyte.Builder
	if m.serverName != "" {
		// RFC 6066 server_name: a list with one host_name entry.
		exts.AddUint16(extensionServerName)
		exts.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				b.AddUint8(0) // name_type host_name
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					b.AddBytes([]byte(m.serverName))
				})
			})
		})
	}
	if len(m.alpnProtocols) > 0 {
		exts.AddUint16(extensionALPN)
		exts.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, p := range m.alpnProtocols {
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddBytes([]byte(p))
					})
				}
			})
		})
	}
	if len(m.trustedAuthorities) > 0 {
		addTrustedAuthorities(&exts, m.trustedAuthorities)
	}
	if m.ocspStapling {
		addStatusRequest(&exts)
	}
	m.tls13.marshal(&exts)
	return marshalHello(&m.original, typeClientHello, &exts, m.hasExtensions, func(b *cryptobyte.Builder) {
		b.AddUint16(m.vers)
		b.AddBytes(m.random)
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.sessionID) })
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, s := range m.cipherSuites {
				b.AddUint16(s)
			}
		})
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.compressionMethods) })
	})
}

// marshalHello frames a hello: fields writes what comes before the
// extensions, and the block of exts follows if it holds any or if the
// hello had an empty one (hasExtensions).
func marshalHello(original *[]byte, typ uint8, exts *cryptobyte.Builder, hasExtensions bool, fields func(b *cryptobyte.Builder)) ([]byte, error) {
	extBytes, err := exts.Bytes()
	if err != nil {
		return nil, errMessageTooLarge
	}
	return marshalOnce(original, typ, func(b *cryptobyte.Builder) {
		fields(b)
		if len(extBytes) > 0 || hasExtensions {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(extBytes) })
		}
	})
}

func (m *clientHelloMsg) unmarshal(data []byte) bool {
	*m = clientHelloMsg{original: data}
	s, ok := readBody(data, typeClientHello)
	if !ok {
		return false
	}
	var suites, exts cryptobyte.String
	if !s.ReadUint16(&m.vers) || !s.ReadBytes(&m.random, 32) ||
		!readUint8LengthPrefixed(&s, &m.sessionID) || len(m.sessionID) > 32 ||
		!s.ReadUint16LengthPrefixed(&suites) || suites.Empty() || len(suites)%2 != 0 ||
		!readUint8LengthPrefixed(&s, &m.compressionMethods) || len(m.compressionMethods) == 0 {
		return false
	}
	for !suites.Empty() {
		var id uint16
		suites.ReadUint16(&id)
		m.cipherSuites = append(m.cipherSuites, id)
	}
	if s.Empty() {
		return true // No extension block: the usual TLCP ClientHello.
	}
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return false
	}
	m.hasExtensions = true
	return readExtensions(exts, func(typ uint16, ext cryptobyte.String) bool {
		if m.tls13.pskIdentities != nil {
			// pre_shared_key must come last (RFC 8446 §4.2.11); the
			// server answers with illegal_parameter.
			m.tls13.pskNotLast = true
		}
		switch typ {
		case extensionServerName:
			return parseServerName(ext, &m.serverName)
		case extensionALPN:
			return parseALPN(ext, &m.alpnProtocols)
		case extensionStatusRequest:
			return parseStatusRequest(ext, &m.ocspStapling)
		case extensionTrustedCAKeys:
			return parseTrustedAuthorities(ext, &m.trustedAuthorities)
		}
		// TLS 1.3's extensions are kept for a TLS 1.3 handshake;
		// unknown ones (session_ticket, …) are ignored, INTEROP.md §8.
		return m.tls13.parse(typ, ext)
	})
}

// readUint8LengthPrefixed reads a vec8 into out as a byte slice (nil stays nil
// only if absent).
func readUint8LengthPrefixed(s *cryptobyte.String, out *[]byte) bool {
	var v cryptobyte.String
	if !s.ReadUint8LengthPrefixed(&v) {
		return false
	}
	*out = []byte(v)
	return true
}

// serverHelloMsg is ServerHello (INTEROP.md §3.4). Extensions are only ever
// replies to what the client sent.
type serverHelloMsg struct {
	original          []byte
	vers              uint16
	random            []byte
	sessionID         []byte
	cipherSuite       uint16
	compressionMethod uint8
	serverNameAck     bool
	alpnProtocol      string
	// ocspStapling is a status_request extension: empty (a
	// CertificateStatus follows Certificate) or, in gotlcp's form,
	// holding the CertificateStatus body, kept in ocspStatus.
	ocspStapling  bool
	ocspStatus    []byte
	hasExtensions bool
	// unknownExtension is set if the server sent an extension this
	// package does not know, forbiddenExtension if it sent one it knows
	// that no ServerHello may carry.
	unknownExtension, forbiddenExtension bool
	// tls13 holds the extensions of a TLS 1.3 ServerHello or
	// HelloRetryRequest (handshake_messages_tls13.go).
	tls13 serverHelloTLS13
}

func (m *serverHelloMsg) marshal() ([]byte, error) {
	if m.original != nil {
		return m.original, nil
	}
	if len(m.random) != 32 || len(m.sessionID) > 32 {
		return nil, errMessageTooLarge
	}
	var exts cryptobyte.Builder
	if m.serverNameAck {
		exts.AddUint16(extensionServerName)
		exts.AddUint16(0)
	}
	if m.alpnProtocol != "" {
		marshalSelectedALPN(&exts, m.alpnProtocol)
	}
	if m.ocspStapling {
		exts.AddUint16(extensionStatusRequest)
		exts.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.ocspStatus) })
	}
	m.tls13.marshal(&exts)
	return marshalHello(&m.original, typeServerHello, &exts, m.hasExtensions, func(b *cryptobyte.Builder) {
		b.AddUint16(m.vers)
		b.AddBytes(m.random)
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.sessionID) })
		b.AddUint16(m.cipherSuite)
		b.AddUint8(m.compressionMethod)
	})
}

func (m *serverHelloMsg) unmarshal(data []byte) bool {
	*m = serverHelloMsg{original: data}
	s, ok := readBody(data, typeServerHello)
	if !ok {
		return false
	}
	if !s.ReadUint16(&m.vers) || !s.ReadBytes(&m.random, 32) ||
		!readUint8LengthPrefixed(&s, &m.sessionID) || len(m.sessionID) > 32 ||
		!s.ReadUint16(&m.cipherSuite) || !s.ReadUint8(&m.compressionMethod) {
		return false
	}
	if s.Empty() {
		return true
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return false
	}
	m.hasExtensions = true
	return readExtensions(exts, func(typ uint16, ext cryptobyte.String) bool {
		switch typ {
		case extensionServerName:
			m.serverNameAck = true
			return ext.Empty()
		case extensionALPN:
			return parseSelectedALPN(ext, &m.alpnProtocol)
		case extensionStatusRequest:
			// The body is checked by the handshake, which answers a bad
			// one with bad_certificate_status_response.
			m.ocspStapling, m.ocspStatus = true, ext
			return true
		}
		known, ok := m.tls13.parse(typ, ext)
		switch {
		case known:
		case knownExtension(typ):
			m.forbiddenExtension = true
		default:
			m.unknownExtension = true
		}
		return ok
	})
}

// certificateMsg is Certificate (INTEROP.md §3.5, §3.8): vec24 of vec24 DER.
type certificateMsg struct {
	original     []byte
	certificates [][]byte
}

func (m *certificateMsg) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificate, func(b *cryptobyte.Builder) {
		addCertificateList(b, m.certificates, false, nil)
	})
}

func (m *certificateMsg) unmarshal(data []byte) bool {
	*m = certificateMsg{original: data}
	s, ok := readBody(data, typeCertificate)
	if !ok {
		return false
	}
	m.certificates, _, _, ok = readCertificateList(&s, false)
	return ok && s.Empty()
}

// addCertificateList writes the certificate list of a Certificate
// message: a vec24 of entries, each a vec24 of DER, which in TLS 1.3 a
// block of extensions follows (RFC 8446 §4.4.2): the leaf's holds
// status_request with leafStatus, a CertificateStatus body, if that is
// not nil, and every other is empty.
func addCertificateList(b *cryptobyte.Builder, certs [][]byte, tls13 bool, leafStatus []byte) {
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		for i, c := range certs {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(c) })
			if !tls13 {
				continue
			}
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				if i == 0 && leafStatus != nil {
					b.AddUint16(extensionStatusRequest)
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(leafStatus) })
				}
			})
		}
	})
}

// readCertificateList reads what addCertificateList writes. Of the
// extensions of TLS 1.3 entries it returns the first one's type other
// than status_request, or 0 (this package requests no SCT, so any is a
// response to nothing), and the body of the leaf's status_request, which
// the handshake checks (ocsp_staple.go); status_request on other entries
// is ignored.
func readCertificateList(s *cryptobyte.String, tls13 bool) (certs [][]byte, firstExtension uint16, leafStatus []byte, ok bool) {
	var list cryptobyte.String
	if !s.ReadUint24LengthPrefixed(&list) {
		return nil, 0, nil, false
	}
	for !list.Empty() {
		var cert, exts cryptobyte.String
		if !list.ReadUint24LengthPrefixed(&cert) || cert.Empty() {
			return nil, 0, nil, false
		}
		leaf := len(certs) == 0
		if tls13 && (!list.ReadUint16LengthPrefixed(&exts) ||
			!readExtensions(exts, func(typ uint16, ext cryptobyte.String) bool {
				switch {
				case typ == extensionStatusRequest && leaf:
					leafStatus = slices.Clip([]byte(ext))
					if leafStatus == nil {
						leafStatus = []byte{}
					}
				case typ == extensionStatusRequest:
				case firstExtension == 0:
					firstExtension = typ
				}
				return true
			})) {
			return nil, 0, nil, false
		}
		certs = append(certs, cert)
	}
	return certs, firstExtension, leafStatus, true
}

// addCAList writes a list of distinguished names, each a vec16, in a
// vec16: TLCP's CertificateRequest and TLS 1.3's certificate_authorities.
func addCAList(b *cryptobyte.Builder, cas [][]byte) {
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, ca := range cas {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(ca) })
		}
	})
}

// readCAList reads what addCAList writes; no name may be empty.
func readCAList(s *cryptobyte.String) ([][]byte, bool) {
	var list cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&list) {
		return nil, false
	}
	var cas [][]byte
	for !list.Empty() {
		var ca cryptobyte.String
		if !list.ReadUint16LengthPrefixed(&ca) || ca.Empty() {
			return nil, false
		}
		cas = append(cas, ca)
	}
	return cas, true
}

// serverKeyExchangeMsg is ServerKeyExchange (INTEROP.md §3.6). For ECC suites
// params is nil and the body is just the signature; for ECDHE suites params
// holds the 69-byte ServerECDHParams. The two layouts cannot be confused: an
// ECC body starts with the high byte of a signature length (0 for any SM2
// signature), an ECDHE body with curve_type 3.
type serverKeyExchangeMsg struct {
	original  []byte
	params    []byte // 69 bytes, ECDHE only
	signature []byte
}

func (m *serverKeyExchangeMsg) marshal() ([]byte, error) {
	if m.original != nil {
		return m.original, nil
	}
	if m.params != nil && len(m.params) != ecdheParamsLen {
		return nil, errMessageTooLarge
	}
	return marshalOnce(&m.original, typeServerKeyExchange, func(b *cryptobyte.Builder) {
		b.AddBytes(m.params)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.signature) })
	})
}

func (m *serverKeyExchangeMsg) unmarshal(data []byte) bool {
	*m = serverKeyExchangeMsg{original: data}
	s, ok := readBody(data, typeServerKeyExchange)
	if !ok {
		return false
	}
	if len(s) > 0 && s[0] == curveTypeNamedCurve {
		if !s.ReadBytes(&m.params, ecdheParamsLen) {
			return false
		}
		if _, _, ok := parseECDHEParams(m.params); !ok {
			return false
		}
	}
	var sig cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&sig) || sig.Empty() || !s.Empty() {
		return false
	}
	m.signature = sig
	return true
}

// marshalECDHEParams returns ServerECDHParams/ClientECDHEParams for a 65-byte
// uncompressed point.
func marshalECDHEParams(point []byte) []byte {
	out := make([]byte, 0, ecdheParamsLen)
	out = append(out, curveTypeNamedCurve, byte(curveSM2>>8), byte(curveSM2), byte(len(point)))
	return append(out, point...)
}

// parseECDHEParams splits 69 bytes of ECDHE parameters. The named curve is
// returned but not checked: GB/T 38636 says it is ignored with SM2, and GmSSL
// 2 sent 30 (INTEROP.md D7). The point must be 65 bytes starting 04; that it
// lies on the curve is checked by sm2.NewPublicKey.
func parseECDHEParams(p []byte) (curve uint16, point []byte, ok bool) {
	s := cryptobyte.String(p)
	var typ, n uint8
	if !s.ReadUint8(&typ) || typ != curveTypeNamedCurve || !s.ReadUint16(&curve) ||
		!s.ReadUint8(&n) || n != 65 || !s.ReadBytes(&point, 65) || !s.Empty() || point[0] != 4 {
		return 0, nil, false
	}
	return curve, point, true
}

// certificateRequestMsg is CertificateRequest (INTEROP.md §3.7), TLS 1.1 layout
// with no signature algorithms.
type certificateRequestMsg struct {
	original               []byte
	certificateTypes       []byte
	certificateAuthorities [][]byte
}

func (m *certificateRequestMsg) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificateRequest, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.certificateTypes) })
		addCAList(b, m.certificateAuthorities)
	})
}

func (m *certificateRequestMsg) unmarshal(data []byte) bool {
	*m = certificateRequestMsg{original: data}
	s, ok := readBody(data, typeCertificateRequest)
	if !ok {
		return false
	}
	if !readUint8LengthPrefixed(&s, &m.certificateTypes) || len(m.certificateTypes) == 0 {
		return false
	}
	m.certificateAuthorities, ok = readCAList(&s)
	return ok && s.Empty()
}

// serverHelloDoneMsg is ServerHelloDone: an empty body.
type serverHelloDoneMsg struct{}

func (m *serverHelloDoneMsg) marshal() ([]byte, error) { return marshalEmpty(typeServerHelloDone) }
func (m *serverHelloDoneMsg) unmarshal(data []byte) bool {
	return parseEmpty(data, typeServerHelloDone)
}

// marshalEmpty and parseEmpty are for the messages with an empty body.
func marshalEmpty(typ uint8) ([]byte, error) { return []byte{typ, 0, 0, 0}, nil }

func parseEmpty(data []byte, typ uint8) bool {
	s, ok := readBody(data, typ)
	return ok && s.Empty()
}

// helloRequestMsg is HelloRequest, which TLCP never acts on (§6.2).
type helloRequestMsg struct{}

func (m *helloRequestMsg) marshal() ([]byte, error)   { return marshalEmpty(typeHelloRequest) }
func (m *helloRequestMsg) unmarshal(data []byte) bool { return parseEmpty(data, typeHelloRequest) }

// clientKeyExchangeMsg is ClientKeyExchange (INTEROP.md §3.9). For ECC suites
// ciphertext is the DER SM2 ciphertext (sent with a u16 prefix). For ECDHE
// suites params is the 69-byte ClientECDHEParams, sent bare (the deployed
// form) or, if vector is set, with a u16 prefix (the literal reading of GB/T
// 38636 6.4.5.8, 71 bytes). unmarshal accepts both (D2).
type clientKeyExchangeMsg struct {
	original   []byte
	ciphertext []byte
	params     []byte
	vector     bool
}

func (m *clientKeyExchangeMsg) marshal() ([]byte, error) {
	if m.original != nil {
		return m.original, nil
	}
	if m.params != nil && len(m.params) != ecdheParamsLen {
		return nil, errMessageTooLarge
	}
	return marshalOnce(&m.original, typeClientKeyExchange, func(b *cryptobyte.Builder) {
		switch {
		case m.params != nil && !m.vector:
			b.AddBytes(m.params)
		case m.params != nil:
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.params) })
		default:
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.ciphertext) })
		}
	})
}

func (m *clientKeyExchangeMsg) unmarshal(data []byte) bool {
	*m = clientKeyExchangeMsg{original: data}
	s, ok := readBody(data, typeClientKeyExchange)
	if !ok {
		return false
	}
	if len(s) == ecdheParamsLen && s[0] == curveTypeNamedCurve {
		m.params = s
		_, _, ok := parseECDHEParams(m.params)
		return ok
	}
	var v cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&v) || v.Empty() || !s.Empty() {
		return false
	}
	if len(v) == ecdheParamsLen && v[0] == curveTypeNamedCurve {
		m.params, m.vector = v, true
		_, _, ok := parseECDHEParams(m.params)
		return ok
	}
	m.ciphertext = v
	return true
}

// certificateVerifyMsg is CertificateVerify (INTEROP.md §3.10): u16 + DER
// signature, no algorithm field.
type certificateVerifyMsg struct {
	original  []byte
	signature []byte
}

func (m *certificateVerifyMsg) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificateVerify, func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.signature) })
	})
}

func (m *certificateVerifyMsg) unmarshal(data []byte) bool {
	*m = certificateVerifyMsg{original: data}
	s, ok := readBody(data, typeCertificateVerify)
	if !ok {
		return false
	}
	var sig cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&sig) || sig.Empty() || !s.Empty() {
		return false
	}
	m.signature = sig
	return true
}

// finishedMsg is Finished (INTEROP.md §3.11): 12 bytes of verify_data.
type finishedMsg struct {
	original   []byte
	verifyData []byte
}

func (m *finishedMsg) marshal() ([]byte, error) { return marshalFinished(&m.original, m.verifyData) }

func (m *finishedMsg) unmarshal(data []byte) bool {
	*m = finishedMsg{original: data}
	var ok bool
	m.verifyData, ok = parseFinished(data, 12)
	return ok
}

// marshalFinished marshals the Finished of either protocol. Small and
// fixed, it is built directly, without a cryptobyte.Builder.
func marshalFinished(original *[]byte, verifyData []byte) ([]byte, error) {
	if *original != nil {
		return *original, nil
	}
	n := len(verifyData)
	if n > 0xff {
		return nil, errMessageTooLarge
	}
	out := append(make([]byte, 0, 4+n), typeFinished, 0, 0, byte(n))
	out = append(out, verifyData...)
	*original = out
	return out, nil
}

// parseFinished returns the verify_data of a Finished, which must be n
// bytes long.
func parseFinished(data []byte, n int) ([]byte, bool) {
	s, ok := readBody(data, typeFinished)
	return s, ok && len(s) == n
}

// newHandshakeMessage returns an empty TLCP message of type typ, or nil.
func newHandshakeMessage(typ uint8) handshakeMessage { return newMessage(typ, false) }

// newMessage returns an empty message of type typ in TLCP or, with
// tls13, in TLS 1.3, or nil for a type the protocol does not have.
func newMessage(typ uint8, tls13 bool) handshakeMessage {
	switch {
	case typ == typeClientHello:
		return new(clientHelloMsg) // the same in both
	case typ == typeServerHello:
		return new(serverHelloMsg)
	case typ == typeCertificate && tls13:
		return new(certificateMsgTLS13)
	case typ == typeCertificate:
		return new(certificateMsg)
	case typ == typeCertificateRequest && tls13:
		return new(certificateRequestMsgTLS13)
	case typ == typeCertificateRequest:
		return new(certificateRequestMsg)
	case typ == typeCertificateVerify && tls13:
		return new(certificateVerifyMsgTLS13)
	case typ == typeCertificateVerify:
		return new(certificateVerifyMsg)
	case typ == typeFinished && tls13:
		return new(finishedMsgTLS13)
	case typ == typeFinished:
		return new(finishedMsg)
	case tls13:
		return newMessageTLS13Only(typ)
	}
	switch typ {
	case typeHelloRequest:
		return new(helloRequestMsg)
	case typeCertificateStatus:
		return new(certificateStatusMsg)
	case typeServerKeyExchange:
		return new(serverKeyExchangeMsg)
	case typeServerHelloDone:
		return new(serverHelloDoneMsg)
	case typeClientKeyExchange:
		return new(clientKeyExchangeMsg)
	}
	return nil
}

// newMessageTLS13Only returns an empty message of a type that only TLS
// 1.3 has, or nil.
func newMessageTLS13Only(typ uint8) handshakeMessage {
	switch typ {
	case typeNewSessionTicket:
		return new(newSessionTicketMsg)
	case typeEndOfEarlyData:
		return new(endOfEarlyDataMsg)
	case typeEncryptedExtensions:
		return new(encryptedExtensionsMsg)
	case typeKeyUpdate:
		return new(keyUpdateMsg)
	}
	return nil
}

// parseHandshakeMessage unmarshals one complete TLCP message (header
// included). data is kept by the message; the caller must not reuse it.
func parseHandshakeMessage(data []byte) (handshakeMessage, bool) { return parseMessage(data, false) }

// parseMessage unmarshals one complete message of TLCP or, with tls13,
// of TLS 1.3.
func parseMessage(data []byte, tls13 bool) (handshakeMessage, bool) {
	if len(data) < 4 {
		return nil, false
	}
	m := newMessage(data[0], tls13)
	if m == nil || !m.unmarshal(slices.Clip(data)) {
		return nil, false
	}
	return m, true
}
