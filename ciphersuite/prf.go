// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"unsafe"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// Sizes of the key-schedule values (tlcp/INTEROP.md §4, §3.11).
const (
	MasterSecretLen = 48
	VerifyDataLen   = 12
)

// Labels of the TLCP PRF (the same ASCII strings as TLS 1.2, without a NUL).
const (
	labelMasterSecret   = "master secret"
	labelKeyExpansion   = "key expansion"
	LabelClientFinished = "client finished"
	LabelServerFinished = "server finished"
)

// PRF fills dst with PRF(secret, label, seed) = P_SM3(secret, label || seed), the
// TLS 1.2 construction (RFC 5246 §5) over HMAC-SM3 (tlcp/INTEROP.md §4.2).
func PRF(dst, secret []byte, label string, seed []byte) {
	prf(dst, secret, label, seed, nil)
}

// prf is PRF with the seed in two parts, so that callers need not
// concatenate the randoms.
func prf(dst, secret []byte, label string, seed1, seed2 []byte) {
	var k sm3.HMACKey
	k.SetKey(secret)
	pSM3(dst, &k, label, seed1, seed2)
	k = sm3.HMACKey{}
}

// pSM3 fills dst with P_SM3(secret, label || seed1 || seed2) for the secret
// k was set to (RFC 5246 §5, GB/T 38636-2020 5.4.2):
//
//	A(0) = label || seed, A(i) = HMAC(secret, A(i-1))
//	P_SM3 = HMAC(secret, A(1) || label || seed) || HMAC(secret, A(2) || label || seed) || ...
//
// k holds the secret's inner and outer chaining values, so each HMAC costs
// only its message blocks and one outer block; HMACKey.Sum takes the
// message in parts, so label and seed are never concatenated. A(i) stays
// in an array on the stack, and whole output blocks are written straight
// into dst. pSM3 does not allocate.
func pSM3(dst []byte, k *sm3.HMACKey, label string, seed1, seed2 []byte) {
	if len(dst) == 0 {
		return
	}
	var a [sm3.Size]byte
	// A(i) || label || seed. Sum only reads its parts, so the label is
	// viewed in place rather than copied.
	msg := [...][]byte{a[:], unsafe.Slice(unsafe.StringData(label), len(label)), seed1, seed2}
	k.Sum(&a, msg[1:]...) // A(1)
	for len(dst) >= sm3.Size {
		k.Sum((*[sm3.Size]byte)(dst), msg[:]...)
		dst = dst[sm3.Size:]
		if len(dst) > 0 {
			k.Sum(&a, msg[0]) // A(i+1)
		}
	}
	if len(dst) > 0 {
		k.Sum(&a, msg[:]...) // A(i) is not needed after the last block
		copy(dst, a[:])
	}
	clear(a[:])
}

// A Master is a master secret prepared for the PRF: the HMAC-SM3 key
// schedule of the secret (two SM3 compressions) runs once, for the key
// block and both Finished messages of a handshake, instead of for each.
// Its methods give what KeyBlock and FinishedVerifyData give for the same
// secret. A Master is read-only once made and safe for concurrent use.
type Master struct {
	key sm3.HMACKey
}

// NewMaster prepares the 48-byte master secret master.
func NewMaster(master []byte) *Master {
	m := new(Master)
	m.key.SetKey(master)
	return m
}

// KeyBlock is Suite.KeyBlock for this master secret.
func (m *Master) KeyBlock(s *Suite, clientRandom, serverRandom []byte) (client, server Keys) {
	kb := s.newKeyBlock()
	pSM3(kb, &m.key, labelKeyExpansion, serverRandom, clientRandom)
	return s.splitKeyBlock(kb)
}

// NewRecordProtections returns s's record protection of each direction
// under the key block of this master secret: what NewRecordProtection
// returns for the two halves of KeyBlock.
func (m *Master) NewRecordProtections(s *Suite, clientRandom, serverRandom []byte) (client, server RecordProtection, err error) {
	kb := s.newKeyBlock()
	pSM3(kb, &m.key, labelKeyExpansion, serverRandom, clientRandom)
	return s.newRecordProtections(kb)
}

// newRecordProtections returns s's record protection of each direction
// under the key block kb.
func (s *Suite) newRecordProtections(kb []byte) (client, server RecordProtection, err error) {
	ck, sk := s.splitKeyBlock(kb)
	if client, err = s.NewRecordProtection(ck); err != nil {
		return nil, nil, err
	}
	if server, err = s.NewRecordProtection(sk); err != nil {
		return nil, nil, err
	}
	return client, server, nil
}

// ExportKeyingMaterial returns length bytes of RFC 5705 keying material
// for label: PRF(master_secret, label, client_random || server_random),
// followed in the seed by the context's 2-byte length and the context if
// context is not nil. Callers refuse the key schedule's own labels and
// bound length and the context (tlcp.Conn.ExportKeyingMaterial).
func (m *Master) ExportKeyingMaterial(label string, clientRandom, serverRandom, context []byte, length int) []byte {
	rest := serverRandom
	if context != nil {
		rest = make([]byte, 0, len(serverRandom)+2+len(context))
		rest = append(append(append(rest, serverRandom...), byte(len(context)>>8), byte(len(context))), context...)
	}
	out := make([]byte, length)
	pSM3(out, &m.key, label, clientRandom, rest)
	return out
}

// FinishedVerifyData is FinishedVerifyData for this master secret.
func (m *Master) FinishedVerifyData(label string, transcriptHash []byte) []byte {
	vd := make([]byte, VerifyDataLen)
	pSM3(vd, &m.key, label, transcriptHash, nil)
	return vd
}

// MasterSecret returns the 48-byte master secret (tlcp/INTEROP.md §4.2):
//
//	PRF(premaster, "master secret", client_random || server_random)[0:48]
//
// TLCP has no extended master secret.
func MasterSecret(premaster, clientRandom, serverRandom []byte) []byte {
	ms := make([]byte, MasterSecretLen)
	prf(ms, premaster, labelMasterSecret, clientRandom, serverRandom)
	return ms
}

// Keys are the key-block parts one side uses to protect the records it sends: the
// client's write keys protect client-to-server records.
type Keys struct {
	MAC []byte // MAC key; empty for GCM
	Key []byte // encryption key
	IV  []byte // GCM implicit nonce, ZUC IV; derived but unused by CBC
}

// KeyBlock expands the master secret into the client's and the server's write keys
// (tlcp/INTEROP.md §4.2, ZUC.md):
//
//	key_block = PRF(master, "key expansion", server_random || client_random)
//
// consumed as client MAC, server MAC, client key, server key, client IV, server IV,
// with the lengths in s. Note the order of the randoms, swapped from MasterSecret.
func (s *Suite) KeyBlock(master, clientRandom, serverRandom []byte) (client, server Keys) {
	kb := s.newKeyBlock()
	prf(kb, master, labelKeyExpansion, serverRandom, clientRandom)
	return s.splitKeyBlock(kb)
}

// newKeyBlock allocates the key block of s.
func (s *Suite) newKeyBlock() []byte { return make([]byte, 2*(s.MACLen+s.KeyLen+s.IVLen)) }

// splitKeyBlock cuts the key block kb into the keys of both sides, in the
// order client MAC, server MAC, client key, server key, client IV, server
// IV. Full slice expressions keep an append to one key from overwriting the
// next.
func (s *Suite) splitKeyBlock(kb []byte) (client, server Keys) {
	m, k, v := s.MACLen, s.KeyLen, s.IVLen
	client.MAC, server.MAC = kb[:m:m], kb[m:2*m:2*m]
	kb = kb[2*m:]
	client.Key, server.Key = kb[:k:k], kb[k:2*k:2*k]
	kb = kb[2*k:]
	client.IV, server.IV = kb[:v:v], kb[v:2*v:2*v]
	return client, server
}

// FinishedVerifyData returns the 12-byte verify_data of a Finished message
// (tlcp/INTEROP.md §3.11): PRF(master, label, transcriptHash)[0:12], where label is
// LabelClientFinished or LabelServerFinished and transcriptHash is the SM3 hash of
// the handshake messages so far. Compare received values with hmac.Equal.
func FinishedVerifyData(master []byte, label string, transcriptHash []byte) []byte {
	vd := make([]byte, VerifyDataLen)
	prf(vd, master, label, transcriptHash, nil)
	return vd
}
