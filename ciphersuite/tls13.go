// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// The TLS 1.3 cipher suites of RFC 8998. They name only the record
// protection and the hash of the key schedule: in TLS 1.3 the key exchange
// (curveSM2 key shares) and the signature scheme (sm2sig_sm3) are negotiated
// separately.
const (
	TLS_SM4_GCM_SM3 ID = 0x00C6
	TLS_SM4_CCM_SM3 ID = 0x00C7
)

// TLS13Suite describes a TLS 1.3 cipher suite. The values returned by
// LookupTLS13 and TLS13Suites point into the package's table and must not be
// modified.
type TLS13Suite struct {
	ID     ID
	Name   string // RFC 8998 name, e.g. "TLS_SM4_GCM_SM3"
	Cipher Cipher // CipherSM4GCM or CipherSM4CCM, both with a 16-byte tag
	Hash   Hash   // HashSM3: HKDF-SM3 key schedule and SM3 transcript hash
	// KeyLen and IVLen are the lengths of the traffic key and the
	// per-record nonce base that each traffic secret expands into.
	KeyLen, IVLen int
}

func (s *TLS13Suite) String() string { return s.Name }

var tls13Suites = [...]TLS13Suite{
	{ID: TLS_SM4_GCM_SM3, Name: "TLS_SM4_GCM_SM3", Cipher: CipherSM4GCM, Hash: HashSM3, KeyLen: 16, IVLen: 12},
	{ID: TLS_SM4_CCM_SM3, Name: "TLS_SM4_CCM_SM3", Cipher: CipherSM4CCM, Hash: HashSM3, KeyLen: 16, IVLen: 12},
}

// LookupTLS13 returns the TLS 1.3 suite with the given code point, or nil.
// TLCP code points are not TLS 1.3 suites (see Lookup).
func LookupTLS13(id ID) *TLS13Suite {
	for i := range tls13Suites {
		if tls13Suites[i].ID == id {
			return &tls13Suites[i]
		}
	}
	return nil
}

// TLS13Suites returns the TLS 1.3 suites, most preferred first: SM4-GCM,
// then SM4-CCM. The returned slice is a fresh copy.
func TLS13Suites() []*TLS13Suite {
	out := make([]*TLS13Suite, len(tls13Suites))
	for i := range tls13Suites {
		out[i] = &tls13Suites[i]
	}
	return out
}

// TLS13DefaultPreference returns the code points of TLS13Suites, in the same
// order. The returned slice is a fresh copy.
func TLS13DefaultPreference() []ID { return []ID{TLS_SM4_GCM_SM3, TLS_SM4_CCM_SM3} }

// TrafficKey expands a traffic secret into the suite's record key and nonce
// base (RFC 8446 §7.3): HKDF-Expand-Label(secret, "key", "", KeyLen) and
// HKDF-Expand-Label(secret, "iv", "", IVLen).
func (s *TLS13Suite) TrafficKey(trafficSecret []byte) (key, iv []byte) {
	x := newExpander(trafficSecret)
	return x.expandLabel("key", nil, s.KeyLen), x.expandLabel("iv", nil, s.IVLen)
}

// The HKDF-SM3 key schedule of TLS 1.3 (RFC 8446 §7.1 with RFC 8998's hash).
//
// Both RFC 8998 suites use SM3, so the functions below fix the hash: every
// secret is 32 bytes, HKDF is RFC 5869 over HMAC-SM3, and Derive-Secret
// hashes the transcript with SM3. The stages are types, so that a secret of
// one stage cannot be passed where another is meant:
//
//	early     := NewTLS13EarlySecret(psk)               // nil psk: no PSK
//	handshake := early.HandshakeSecret(ecdheSharedSecret)
//	master    := handshake.MasterSecret()

// TLS13SecretLen is the length of every secret of the key schedule, the
// SM3 output length.
const TLS13SecretLen = sm3.Size

// emptyHash is SM3 of the empty string, the context of Derive-Secret(…, "").
var emptyHash = sm3.Sum(nil)

// TLS13Extract returns HKDF-Extract(salt, ikm) over HMAC-SM3. A nil or empty
// salt means 32 zero bytes (which HMAC treats alike), as does a nil ikm where
// RFC 8446 extracts from "0".
func TLS13Extract(salt, ikm []byte) []byte {
	if ikm == nil {
		ikm = make([]byte, TLS13SecretLen)
	}
	var k sm3.HMACKey
	k.SetKey(salt)
	return k.MAC(make([]byte, 0, TLS13SecretLen), ikm)
}

// TLS13ExpandLabel returns HKDF-Expand-Label(secret, label, context, length)
// (RFC 8446 §7.1) over HMAC-SM3; label is given without the "tls13 "
// prefix. It panics if length exceeds 255 × 32 bytes or label and context
// do not fit their one-byte lengths: callers pass constants.
func TLS13ExpandLabel(secret []byte, label string, context []byte, length int) []byte {
	return newExpander(secret).expandLabel(label, context, length)
}

// expander is HKDF-Expand keyed with one secret. The key schedule expands
// each secret several times; the prepared HMAC key (its ipad and opad
// blocks compressed once) spares rehashing the key every time.
type expander struct{ key sm3.HMACKey }

func newExpander(secret []byte) *expander {
	x := new(expander)
	x.key.SetKey(secret)
	return x
}

func (x *expander) expandLabel(label string, context []byte, length int) []byte {
	const prefix = "tls13 "
	if length < 0 || length > 255*TLS13SecretLen || len(prefix)+len(label) > 255 || len(context) > 255 {
		panic(fmt.Sprintf("ciphersuite: invalid HKDF-Expand-Label(%q, %d context bytes, %d)", label, len(context), length))
	}
	// HkdfLabel = uint16 length ‖ opaque label<7..255> ‖ opaque context<0..255>.
	info := make([]byte, 0, 2+1+len(prefix)+len(label)+1+len(context))
	info = binary.BigEndian.AppendUint16(info, uint16(length))
	info = append(info, byte(len(prefix)+len(label)))
	info = append(info, prefix...)
	info = append(info, label...)
	info = append(info, byte(len(context)))
	info = append(info, context...)
	return x.expand(info, length)
}

// expand is HKDF-Expand (RFC 5869 §2.3) over HMAC-SM3:
// T(i) = HMAC(prk, T(i-1) ‖ info ‖ i), output T(1) ‖ T(2) ‖ … cut to length.
func (x *expander) expand(info []byte, length int) []byte {
	out := make([]byte, 0, length+TLS13SecretLen)
	var counter [1]byte
	var prev []byte // T(i-1), empty for T(1)
	for len(out) < length {
		counter[0]++
		out = x.key.MAC(out, prev, info, counter[:])
		prev = out[len(out)-TLS13SecretLen:]
	}
	return out[:length:length]
}

// hkdfExpand is HKDF-Expand with a fresh key.
func hkdfExpand(prk, info []byte, length int) []byte { return newExpander(prk).expand(info, length) }

// deriveSecret is Derive-Secret(secret, label, messages) with the SM3 hash of
// the messages already computed.
func (x *expander) deriveSecret(label string, transcriptHash []byte) []byte {
	return x.expandLabel(label, transcriptHash, TLS13SecretLen)
}

// stage is one secret of the key schedule with its expander, made when
// first needed. A stage belongs to one handshake: it is not safe for
// concurrent use.
type stage struct {
	secret []byte
	x      *expander
}

func (s *stage) deriveSecret(label string, transcriptHash []byte) []byte {
	if s.x == nil {
		s.x = newExpander(s.secret)
	}
	return s.x.deriveSecret(label, transcriptHash)
}

// TLS13EarlySecret is the first stage of the key schedule: HKDF-Extract of
// the PSK (a resumption secret) or, without one, of 32 zero bytes. Each
// stage value belongs to one handshake and is not safe for concurrent use.
type TLS13EarlySecret struct{ stage }

// noPSK holds the early secret without a PSK and the salt of its handshake
// secret, the same for every full handshake.
var noPSK = sync.OnceValues(func() (secret, derived []byte) {
	secret = TLS13Extract(nil, nil)
	return secret, newExpander(secret).deriveSecret("derived", emptyHash[:])
})

// NewTLS13EarlySecret starts the key schedule. psk is nil for a full
// handshake.
func NewTLS13EarlySecret(psk []byte) *TLS13EarlySecret {
	if psk == nil {
		secret, _ := noPSK()
		return &TLS13EarlySecret{stage{secret: secret}}
	}
	return &TLS13EarlySecret{stage{secret: TLS13Extract(nil, psk)}}
}

// ResumptionBinderKey returns binder_key for a resumption PSK,
// Derive-Secret(early, "res binder", ""), the base key of the PSK binders.
func (s *TLS13EarlySecret) ResumptionBinderKey() []byte {
	return s.deriveSecret("res binder", emptyHash[:])
}

// HandshakeSecret mixes in the (EC)DHE shared secret: HKDF-Extract(
// Derive-Secret(early, "derived", ""), shared).
func (s *TLS13EarlySecret) HandshakeSecret(sharedSecret []byte) *TLS13HandshakeSecret {
	var salt []byte
	if zero, derived := noPSK(); &s.secret[0] == &zero[0] {
		salt = derived
	} else {
		salt = s.deriveSecret("derived", emptyHash[:])
	}
	return &TLS13HandshakeSecret{stage{secret: TLS13Extract(salt, sharedSecret)}}
}

// TLS13HandshakeSecret is the second stage of the key schedule.
type TLS13HandshakeSecret struct{ stage }

// ClientHandshakeTrafficSecret returns client_handshake_traffic_secret for
// the hash of ClientHello…ServerHello.
func (s *TLS13HandshakeSecret) ClientHandshakeTrafficSecret(transcriptHash []byte) []byte {
	return s.deriveSecret("c hs traffic", transcriptHash)
}

// ServerHandshakeTrafficSecret returns server_handshake_traffic_secret for
// the hash of ClientHello…ServerHello.
func (s *TLS13HandshakeSecret) ServerHandshakeTrafficSecret(transcriptHash []byte) []byte {
	return s.deriveSecret("s hs traffic", transcriptHash)
}

// MasterSecret derives the last stage: HKDF-Extract(Derive-Secret(
// handshake, "derived", ""), 0).
func (s *TLS13HandshakeSecret) MasterSecret() *TLS13MasterSecret {
	salt := s.deriveSecret("derived", emptyHash[:])
	return &TLS13MasterSecret{stage{secret: TLS13Extract(salt, nil)}}
}

// TLS13MasterSecret is the last stage of the key schedule.
type TLS13MasterSecret struct{ stage }

// ClientApplicationTrafficSecret returns client_application_traffic_secret_0
// for the hash of ClientHello…server Finished.
func (s *TLS13MasterSecret) ClientApplicationTrafficSecret(transcriptHash []byte) []byte {
	return s.deriveSecret("c ap traffic", transcriptHash)
}

// ServerApplicationTrafficSecret returns server_application_traffic_secret_0
// for the hash of ClientHello…server Finished.
func (s *TLS13MasterSecret) ServerApplicationTrafficSecret(transcriptHash []byte) []byte {
	return s.deriveSecret("s ap traffic", transcriptHash)
}

// ExporterMasterSecret returns exporter_master_secret for the hash of
// ClientHello…server Finished.
func (s *TLS13MasterSecret) ExporterMasterSecret(transcriptHash []byte) []byte {
	return s.deriveSecret("exp master", transcriptHash)
}

// ResumptionMasterSecret returns resumption_master_secret for the hash of
// ClientHello…client Finished.
func (s *TLS13MasterSecret) ResumptionMasterSecret(transcriptHash []byte) []byte {
	return s.deriveSecret("res master", transcriptHash)
}

// TLS13ResumptionPSK returns the PSK that a NewSessionTicket with the given
// ticket_nonce makes (RFC 8446 §4.6.1): HKDF-Expand-Label(
// resumption_master_secret, "resumption", nonce, 32).
func TLS13ResumptionPSK(resumptionMasterSecret, ticketNonce []byte) []byte {
	return TLS13ExpandLabel(resumptionMasterSecret, "resumption", ticketNonce, TLS13SecretLen)
}

// TLS13FinishedVerifyData returns the verify_data of a Finished message or
// a PSK binder (RFC 8446 §4.4.4): HMAC-SM3(finished_key, transcriptHash)
// with finished_key = HKDF-Expand-Label(baseKey, "finished", "", 32).
// baseKey is the sender's handshake traffic secret for Finished, the
// binder key for a binder. Compare received values with hmac.Equal.
func TLS13FinishedVerifyData(baseKey, transcriptHash []byte) []byte {
	finishedKey := TLS13ExpandLabel(baseKey, "finished", nil, TLS13SecretLen)
	var k sm3.HMACKey
	k.SetKey(finishedKey)
	clear(finishedKey)
	return k.MAC(make([]byte, 0, TLS13SecretLen), transcriptHash)
}

// TLS13NextTrafficSecret returns the traffic secret that follows a
// KeyUpdate (RFC 8446 §7.2): HKDF-Expand-Label(secret, "traffic upd", "",
// 32).
func TLS13NextTrafficSecret(trafficSecret []byte) []byte {
	return TLS13ExpandLabel(trafficSecret, "traffic upd", nil, TLS13SecretLen)
}

// TLS13Exporter returns length bytes of keying material for label and
// context from an exporter master secret (RFC 8446 §7.5).
func TLS13Exporter(exporterMasterSecret []byte, label string, context []byte, length int) []byte {
	secret := newExpander(exporterMasterSecret).deriveSecret(label, emptyHash[:])
	h := sm3.Sum(context)
	return TLS13ExpandLabel(secret, "exporter", h[:], length)
}
