// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"slices"

	"golang.org/x/crypto/cryptobyte"
)

// TLS 1.3 messages and hello extensions (RFC 8446 §4), with the code points
// of RFC 8998 (TLS13.md §2).

// Handshake message types that only TLS 1.3 has.
const (
	typeNewSessionTicket    uint8 = 4
	typeEndOfEarlyData      uint8 = 5
	typeEncryptedExtensions uint8 = 8
	typeKeyUpdate           uint8 = 24
	typeMessageHash         uint8 = 254
)

// Extensions of TLS 1.3 hellos (RFC 8446 §4.2).
const (
	extensionSupportedGroups         uint16 = 10
	extensionSignatureAlgorithms     uint16 = 13
	extensionPreSharedKey            uint16 = 41
	extensionEarlyData               uint16 = 42
	extensionSupportedVersions       uint16 = 43
	extensionCookie                  uint16 = 44
	extensionPSKModes                uint16 = 45
	extensionCertificateAuthorities  uint16 = 47
	extensionSignatureAlgorithmsCert uint16 = 50
	extensionKeyShare                uint16 = 51
)

// knownExtension reports whether this package knows extension typ, so
// that finding it where the RFC does not allow it is illegal_parameter
// rather than unsupported_extension (RFC 8446 §4.2).
func knownExtension(typ uint16) bool {
	switch typ {
	case extensionServerName, extensionALPN, extensionSupportedGroups, extensionSignatureAlgorithms,
		extensionPreSharedKey, extensionEarlyData, extensionSupportedVersions, extensionCookie,
		extensionPSKModes, extensionCertificateAuthorities, extensionSignatureAlgorithmsCert, extensionKeyShare,
		extensionStatusRequest:
		return true
	}
	return false
}

// RFC 8998's signature scheme and sizes (the groups are CurveID's
// constants).
const (
	signatureSM2SM3  uint16 = 0x0708
	pskModeDHE       uint8  = 1 // psk_dhe_ke, the only PSK mode this package uses
	sm2PointLen             = 65
	finishedLenTLS13        = 32 // SM3
)

// keyShare is one KeyShareEntry.
type keyShare struct {
	group uint16
	data  []byte
}

// pskIdentity is one PskIdentity of the pre_shared_key extension.
type pskIdentity struct {
	label               []byte
	obfuscatedTicketAge uint32
}

// clientHelloTLS13 holds what a ClientHello says about TLS 1.3. It is
// part of clientHelloMsg, whose parser hands it the extensions it does not
// know itself.
type clientHelloTLS13 struct {
	supportedVersions       []uint16
	supportedGroups         []uint16
	signatureAlgorithms     []uint16
	signatureAlgorithmsCert []uint16
	keyShares               []keyShare
	keyShareSeen            bool
	pskModes                []uint8
	pskIdentities           []pskIdentity
	pskBinders              [][]byte
	earlyData               bool
	cookie                  []byte
	// bindersLen is the length of the binders list with its 2-byte
	// length, the tail of the message that PSK binders do not cover.
	bindersLen int
	// pskNotLast and duplicateShare record what a well-formed hello
	// may not do, which check refuses with illegal_parameter.
	pskNotLast, duplicateShare bool
}

// check refuses what RFC 8446 forbids in a ClientHello that parses: each
// is illegal_parameter.
func (e *clientHelloTLS13) check() error {
	switch {
	case e.pskNotLast:
		return errorf(alertIllegalParameter, "tlcp: the client's pre_shared_key is not its last extension (RFC 8446 §4.2.11)")
	case len(e.pskBinders) != len(e.pskIdentities):
		return errorf(alertIllegalParameter, "tlcp: the client's pre_shared_key has %d identities and %d binders", len(e.pskIdentities), len(e.pskBinders))
	case e.duplicateShare:
		return errorf(alertIllegalParameter, "tlcp: the client sent two key shares for one group (RFC 8446 §4.2.8)")
	}
	return nil
}

// offersTLS13 reports whether the hello lists TLS 1.3 in supported_versions.
func (e *clientHelloTLS13) offersTLS13() bool {
	return slices.Contains(e.supportedVersions, VersionTLS13)
}

// marshal adds the TLS 1.3 extensions to a ClientHello's block, the
// pre_shared_key extension last as RFC 8446 §4.2.11 requires. Binders the
// caller has not computed yet are sent as zeros of the right length.
func (e *clientHelloTLS13) marshal(b *cryptobyte.Builder) {
	if len(e.supportedVersions) > 0 {
		b.AddUint16(extensionSupportedVersions)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, v := range e.supportedVersions {
					b.AddUint16(v)
				}
			})
		})
	}
	addUint16List(b, extensionSupportedGroups, e.supportedGroups)
	addUint16List(b, extensionSignatureAlgorithms, e.signatureAlgorithms)
	addUint16List(b, extensionSignatureAlgorithmsCert, e.signatureAlgorithmsCert)
	if e.keyShareSeen || len(e.keyShares) > 0 {
		b.AddUint16(extensionKeyShare)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, ks := range e.keyShares {
					b.AddUint16(ks.group)
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(ks.data) })
				}
			})
		})
	}
	if len(e.pskModes) > 0 {
		b.AddUint16(extensionPSKModes)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(e.pskModes) })
		})
	}
	if e.cookie != nil {
		b.AddUint16(extensionCookie)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(e.cookie) })
		})
	}
	if e.earlyData {
		b.AddUint16(extensionEarlyData)
		b.AddUint16(0)
	}
	if len(e.pskIdentities) > 0 {
		b.AddUint16(extensionPreSharedKey)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, id := range e.pskIdentities {
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(id.label) })
					b.AddUint32(id.obfuscatedTicketAge)
				}
			})
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for i := range e.pskIdentities {
					binder := make([]byte, finishedLenTLS13)
					if i < len(e.pskBinders) {
						binder = e.pskBinders[i]
					}
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(binder) })
				}
			})
		})
	}
}

// bindersSize is the length of the binders list marshal writes, with its
// 2-byte length.
func (e *clientHelloTLS13) bindersSize() int {
	if len(e.pskIdentities) == 0 {
		return 0
	}
	n := 2
	for i := range e.pskIdentities {
		l := finishedLenTLS13
		if i < len(e.pskBinders) {
			l = len(e.pskBinders[i])
		}
		n += 1 + l
	}
	return n
}

// parse reads one extension of a ClientHello. It reports false if the
// extension is one of RFC 8446's and is malformed; extensions it does not
// know are ignored, as TLS requires.
func (e *clientHelloTLS13) parse(typ uint16, ext cryptobyte.String) bool {
	switch typ {
	case extensionSupportedVersions:
		var list cryptobyte.String
		if !ext.ReadUint8LengthPrefixed(&list) || list.Empty() || len(list)%2 != 0 || !ext.Empty() {
			return false
		}
		e.supportedVersions = readUint16s(list)
	case extensionSupportedGroups:
		return parseUint16List(ext, &e.supportedGroups)
	case extensionSignatureAlgorithms:
		return parseUint16List(ext, &e.signatureAlgorithms)
	case extensionSignatureAlgorithmsCert:
		return parseUint16List(ext, &e.signatureAlgorithmsCert)
	case extensionKeyShare:
		var list cryptobyte.String
		if !ext.ReadUint16LengthPrefixed(&list) || !ext.Empty() {
			return false
		}
		e.keyShareSeen = true
		for !list.Empty() {
			var ks keyShare
			if !list.ReadUint16(&ks.group) || !readUint16LengthPrefixed(&list, &ks.data) || len(ks.data) == 0 {
				return false
			}
			for _, prev := range e.keyShares {
				e.duplicateShare = e.duplicateShare || prev.group == ks.group
			}
			e.keyShares = append(e.keyShares, ks)
		}
	case extensionPSKModes:
		if !readUint8LengthPrefixed(&ext, &e.pskModes) || len(e.pskModes) == 0 || !ext.Empty() {
			return false
		}
	case extensionCookie:
		if !readUint16LengthPrefixed(&ext, &e.cookie) || len(e.cookie) == 0 || !ext.Empty() {
			return false
		}
	case extensionEarlyData:
		if !ext.Empty() {
			return false
		}
		e.earlyData = true
	case extensionPreSharedKey:
		var ids, binders cryptobyte.String
		if !ext.ReadUint16LengthPrefixed(&ids) || ids.Empty() {
			return false
		}
		e.bindersLen = len(ext)
		if !ext.ReadUint16LengthPrefixed(&binders) || binders.Empty() || !ext.Empty() {
			return false
		}
		for !ids.Empty() {
			var id pskIdentity
			if !readUint16LengthPrefixed(&ids, &id.label) || len(id.label) == 0 || !ids.ReadUint32(&id.obfuscatedTicketAge) {
				return false
			}
			e.pskIdentities = append(e.pskIdentities, id)
		}
		for !binders.Empty() {
			var b []byte
			if !readUint8LengthPrefixed(&binders, &b) || len(b) < 32 {
				return false
			}
			e.pskBinders = append(e.pskBinders, b)
		}
	}
	return true
}

// serverHelloTLS13 holds the TLS 1.3 extensions of a ServerHello or
// HelloRetryRequest.
type serverHelloTLS13 struct {
	supportedVersion uint16
	serverShare      keyShare // ServerHello
	selectedGroup    uint16   // HelloRetryRequest
	selectedIdentity uint16
	selectedPSK      bool
	cookie           []byte
}

func (e *serverHelloTLS13) marshal(b *cryptobyte.Builder) {
	if e.supportedVersion != 0 {
		b.AddUint16(extensionSupportedVersions)
		b.AddUint16(2)
		b.AddUint16(e.supportedVersion)
	}
	if e.serverShare.group != 0 {
		b.AddUint16(extensionKeyShare)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16(e.serverShare.group)
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(e.serverShare.data) })
		})
	}
	if e.selectedGroup != 0 {
		b.AddUint16(extensionKeyShare)
		b.AddUint16(2)
		b.AddUint16(e.selectedGroup)
	}
	if e.selectedPSK {
		b.AddUint16(extensionPreSharedKey)
		b.AddUint16(2)
		b.AddUint16(e.selectedIdentity)
	}
	if e.cookie != nil {
		b.AddUint16(extensionCookie)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(e.cookie) })
		})
	}
}

// parse reads one ServerHello extension and reports whether it was known
// and whether it was well formed. A key_share holds a KeyShareEntry in a
// ServerHello and a bare group in a HelloRetryRequest; its length tells
// them apart.
func (e *serverHelloTLS13) parse(typ uint16, ext cryptobyte.String) (known, ok bool) {
	switch typ {
	case extensionSupportedVersions:
		return true, ext.ReadUint16(&e.supportedVersion) && ext.Empty()
	case extensionKeyShare:
		if len(ext) == 2 {
			return true, ext.ReadUint16(&e.selectedGroup) && e.selectedGroup != 0
		}
		return true, ext.ReadUint16(&e.serverShare.group) && e.serverShare.group != 0 &&
			readUint16LengthPrefixed(&ext, &e.serverShare.data) && len(e.serverShare.data) > 0 && ext.Empty()
	case extensionPreSharedKey:
		e.selectedPSK = true
		return true, ext.ReadUint16(&e.selectedIdentity) && ext.Empty()
	case extensionCookie:
		return true, readUint16LengthPrefixed(&ext, &e.cookie) && len(e.cookie) > 0 && ext.Empty()
	}
	return false, true
}

// addUint16List writes extension ext holding list, unless list is empty:
// what parseUint16List reads.
func addUint16List(b *cryptobyte.Builder, ext uint16, list []uint16) {
	if len(list) == 0 {
		return
	}
	b.AddUint16(ext)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, v := range list {
				b.AddUint16(v)
			}
		})
	})
}

// parseUint16List reads a non-empty list of 16-bit code points with a
// 16-bit length, the shape of signature_algorithms,
// signature_algorithms_cert and supported_groups.
func parseUint16List(ext cryptobyte.String, out *[]uint16) bool {
	var list cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || list.Empty() || len(list)%2 != 0 || !ext.Empty() {
		return false
	}
	*out = readUint16s(list)
	return true
}

func readUint16s(s cryptobyte.String) []uint16 {
	out := make([]uint16, 0, len(s)/2)
	for !s.Empty() {
		var v uint16
		s.ReadUint16(&v)
		out = append(out, v)
	}
	return out
}

func readUint16LengthPrefixed(s *cryptobyte.String, out *[]byte) bool {
	var v cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&v) {
		return false
	}
	*out = []byte(v)
	return true
}

// helloRetryRequestRandom is the ServerHello.random that marks a
// HelloRetryRequest: SHA-256("HelloRetryRequest") (RFC 8446 §4.1.3).
var helloRetryRequestRandom = []byte{
	0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11,
	0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
	0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E,
	0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
}

// encryptedExtensionsMsg is EncryptedExtensions (RFC 8446 §4.3.1). Only
// what this package can negotiate is kept.
type encryptedExtensionsMsg struct {
	original      []byte
	alpnProtocol  string
	serverNameAck bool
	earlyData     bool
	// unexpected is the first extension this package does not know,
	// which it cannot have offered; forbidden the first it knows that
	// may not appear here. 0 if none.
	unexpected, forbidden uint16
}

func (m *encryptedExtensionsMsg) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeEncryptedExtensions, func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			if m.serverNameAck {
				b.AddUint16(extensionServerName)
				b.AddUint16(0)
			}
			if m.alpnProtocol != "" {
				marshalSelectedALPN(b, m.alpnProtocol)
			}
			if m.earlyData {
				b.AddUint16(extensionEarlyData)
				b.AddUint16(0)
			}
		})
	})
}

func (m *encryptedExtensionsMsg) unmarshal(data []byte) bool {
	*m = encryptedExtensionsMsg{original: data}
	s, ok := readBody(data, typeEncryptedExtensions)
	if !ok {
		return false
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return false
	}
	return readExtensions(exts, func(typ uint16, ext cryptobyte.String) bool {
		switch typ {
		case extensionServerName:
			m.serverNameAck = true
			return ext.Empty()
		case extensionALPN:
			return parseSelectedALPN(ext, &m.alpnProtocol)
		case extensionEarlyData:
			m.earlyData = true
			return ext.Empty()
		case extensionSupportedGroups:
			// The server's preferences, which a client may note for
			// later connections (RFC 8446 §4.2.7); the only group here
			// is curveSM2.
		default:
			noteExtension(typ, &m.unexpected, &m.forbidden)
		}
		return true
	})
}

// noteExtension records the first unknown and the first known but
// misplaced extension of a message.
func noteExtension(typ uint16, unknown, forbidden *uint16) {
	p := unknown
	if knownExtension(typ) {
		p = forbidden
	}
	if *p == 0 {
		*p = typ
	}
}

// certificateRequestMsgTLS13 is the TLS 1.3 CertificateRequest (RFC 8446
// §4.3.2).
type certificateRequestMsgTLS13 struct {
	original                []byte
	context                 []byte
	signatureAlgorithms     []uint16
	signatureAlgorithmsCert []uint16
	certificateAuthorities  [][]byte
	// forbidden is the first extension this package knows that a
	// CertificateRequest may not carry (RFC 8446 §4.2); unknown ones
	// are ignored (§4.3.2).
	forbidden uint16
}

func (m *certificateRequestMsgTLS13) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificateRequest, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.context) })
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			addUint16List(b, extensionSignatureAlgorithms, m.signatureAlgorithms)
			if len(m.certificateAuthorities) > 0 {
				b.AddUint16(extensionCertificateAuthorities)
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { addCAList(b, m.certificateAuthorities) })
			}
		})
	})
}

func (m *certificateRequestMsgTLS13) unmarshal(data []byte) bool {
	*m = certificateRequestMsgTLS13{original: data}
	s, ok := readBody(data, typeCertificateRequest)
	if !ok {
		return false
	}
	var exts cryptobyte.String
	if !readUint8LengthPrefixed(&s, &m.context) || !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return false
	}
	// signature_algorithms is mandatory here (RFC 8446 §4.3.2); its
	// absence is missing_extension, for the client to say.
	return readExtensions(exts, func(typ uint16, ext cryptobyte.String) bool {
		switch typ {
		case extensionSignatureAlgorithms:
			return parseUint16List(ext, &m.signatureAlgorithms)
		case extensionSignatureAlgorithmsCert:
			return parseUint16List(ext, &m.signatureAlgorithmsCert)
		case extensionCertificateAuthorities:
			var ok bool
			m.certificateAuthorities, ok = readCAList(&ext)
			// At least one name (RFC 8446 §4.2.4).
			return ok && len(m.certificateAuthorities) > 0 && ext.Empty()
		case extensionStatusRequest:
			// A server may ask for the client's staple (RFC 8446
			// §4.4.2.1); this client has none to send and so ignores it.
		default:
			var unknown uint16
			noteExtension(typ, &unknown, &m.forbidden)
		}
		return true
	})
}

// certificateMsgTLS13 is the TLS 1.3 Certificate (RFC 8446 §4.4.2).
// Only the leaf's entry may carry an extension, status_request with
// the OCSP staple (§4.4.2.1): leafStatus is the extension's body, a
// CertificateStatus (nil if absent). This package requests
// no SCT; entryExtension is the type of the first other extension a
// peer sent anyway.
type certificateMsgTLS13 struct {
	original       []byte
	context        []byte
	certificates   [][]byte
	leafStatus     []byte
	entryExtension uint16
}

func (m *certificateMsgTLS13) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificate, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.context) })
		addCertificateList(b, m.certificates, true, m.leafStatus)
	})
}

func (m *certificateMsgTLS13) unmarshal(data []byte) bool {
	*m = certificateMsgTLS13{original: data}
	s, ok := readBody(data, typeCertificate)
	if !ok {
		return false
	}
	if !readUint8LengthPrefixed(&s, &m.context) {
		return false
	}
	m.certificates, m.entryExtension, m.leafStatus, ok = readCertificateList(&s, true)
	return ok && s.Empty()
}

// certificateVerifyMsgTLS13 is the TLS 1.3 CertificateVerify (RFC 8446
// §4.4.3): the scheme, then the signature.
type certificateVerifyMsgTLS13 struct {
	original  []byte
	scheme    uint16
	signature []byte
}

func (m *certificateVerifyMsgTLS13) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeCertificateVerify, func(b *cryptobyte.Builder) {
		b.AddUint16(m.scheme)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.signature) })
	})
}

func (m *certificateVerifyMsgTLS13) unmarshal(data []byte) bool {
	*m = certificateVerifyMsgTLS13{original: data}
	s, ok := readBody(data, typeCertificateVerify)
	return ok && s.ReadUint16(&m.scheme) && readUint16LengthPrefixed(&s, &m.signature) &&
		len(m.signature) > 0 && s.Empty()
}

// finishedMsgTLS13 is the TLS 1.3 Finished: HMAC-SM3 output, 32 bytes.
type finishedMsgTLS13 struct {
	original   []byte
	verifyData []byte
}

func (m *finishedMsgTLS13) marshal() ([]byte, error) {
	return marshalFinished(&m.original, m.verifyData)
}

func (m *finishedMsgTLS13) unmarshal(data []byte) bool {
	*m = finishedMsgTLS13{original: data}
	var ok bool
	m.verifyData, ok = parseFinished(data, finishedLenTLS13)
	return ok
}

// newSessionTicketMsg is NewSessionTicket (RFC 8446 §4.6.1).
type newSessionTicketMsg struct {
	original     []byte
	lifetime     uint32
	ageAdd       uint32
	nonce        []byte
	ticket       []byte
	maxEarlyData uint32 // from an early_data extension; this package never sends one
}

func (m *newSessionTicketMsg) marshal() ([]byte, error) {
	return marshalOnce(&m.original, typeNewSessionTicket, func(b *cryptobyte.Builder) {
		b.AddUint32(m.lifetime)
		b.AddUint32(m.ageAdd)
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.nonce) })
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(m.ticket) })
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			if m.maxEarlyData > 0 {
				b.AddUint16(extensionEarlyData)
				b.AddUint16(4)
				b.AddUint32(m.maxEarlyData)
			}
		})
	})
}

func (m *newSessionTicketMsg) unmarshal(data []byte) bool {
	*m = newSessionTicketMsg{original: data}
	s, ok := readBody(data, typeNewSessionTicket)
	var exts cryptobyte.String
	if !ok || !s.ReadUint32(&m.lifetime) || !s.ReadUint32(&m.ageAdd) ||
		!readUint8LengthPrefixed(&s, &m.nonce) || !readUint16LengthPrefixed(&s, &m.ticket) || len(m.ticket) == 0 ||
		!s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return false
	}
	for !exts.Empty() {
		var typ uint16
		var ext cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&ext) {
			return false
		}
		if typ == extensionEarlyData && (!ext.ReadUint32(&m.maxEarlyData) || !ext.Empty()) {
			return false
		}
	}
	return true
}

// keyUpdateMsg is KeyUpdate (RFC 8446 §4.6.3). request is request_update
// as received: a value other than keyUpdateNotRequested and
// keyUpdateRequested parses, so that the receiver can refuse it with the
// illegal_parameter that §4.6.3 names rather than decode_error.
type keyUpdateMsg struct {
	request uint8
}

// The values of request_update.
const (
	keyUpdateNotRequested = 0
	keyUpdateRequested    = 1
)

func (m *keyUpdateMsg) marshal() ([]byte, error) {
	return []byte{typeKeyUpdate, 0, 0, 1, m.request}, nil
}

func (m *keyUpdateMsg) unmarshal(data []byte) bool {
	s, ok := readBody(data, typeKeyUpdate)
	return ok && s.ReadUint8(&m.request) && s.Empty()
}

// endOfEarlyDataMsg is EndOfEarlyData, which this package never expects:
// it refuses 0-RTT.
type endOfEarlyDataMsg struct{}

func (m *endOfEarlyDataMsg) marshal() ([]byte, error)   { return marshalEmpty(typeEndOfEarlyData) }
func (m *endOfEarlyDataMsg) unmarshal(data []byte) bool { return parseEmpty(data, typeEndOfEarlyData) }

// newHandshakeMessageTLS13 returns an empty TLS 1.3 message of type typ,
// or nil.
func newHandshakeMessageTLS13(typ uint8) handshakeMessage { return newMessage(typ, true) }

// parseHandshakeMessageTLS13 unmarshals one complete TLS 1.3 message.
func parseHandshakeMessageTLS13(data []byte) (handshakeMessage, bool) {
	return parseMessage(data, true)
}

// parseHandshake parses a message by the rules of the negotiated
// protocol: TLCP's until TLS 1.3 is chosen.
func (c *Conn) parseHandshake(data []byte) (handshakeMessage, bool) {
	if c.vers == VersionTLS13 {
		return parseHandshakeMessageTLS13(data)
	}
	return parseHandshakeMessage(data)
}

// knownMessageType reports whether typ is a message type of the
// negotiated protocol, to tell an unknown message from a malformed one.
func (c *Conn) knownMessageType(typ uint8) bool {
	if c.vers == VersionTLS13 {
		return newHandshakeMessageTLS13(typ) != nil
	}
	return newHandshakeMessage(typ) != nil
}

// messageNameTLS13 names the message types only TLS 1.3 has.
func messageNameTLS13(t uint8) string {
	switch t {
	case typeNewSessionTicket:
		return "NewSessionTicket"
	case typeEndOfEarlyData:
		return "EndOfEarlyData"
	case typeEncryptedExtensions:
		return "EncryptedExtensions"
	case typeKeyUpdate:
		return "KeyUpdate"
	case typeMessageHash:
		return "message_hash"
	}
	return ""
}
