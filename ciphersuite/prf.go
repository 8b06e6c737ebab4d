// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"sync"

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

// prfBatches holds the HMACBatch values prf works with: large (a few KiB,
// for sixteen lanes), so neither on the stack of every handshake nor
// allocated per call.
var prfBatches = sync.Pool{New: func() any { return new(prfState) }}

// prfState is the scratch of one PRF computation. The HMACBatch keeps the
// slices it is given until Sum, so everything handed to it lives here, the
// key and A(i) included, and the caller's seeds are copied in: nothing of
// the caller's escapes, and nothing is allocated.
type prfState struct {
	b    sm3.HMACBatch
	key  sm3.HMACKey
	a    [sm3.Size]byte
	macs [2][sm3.Size]byte
	seed [2 * 32]byte // the two randoms, or one transcript hash
}

// prf is PRF with the seed in two parts, so that callers need not concatenate the
// randoms. The secret is prepared once as an sm3.HMACKey (the ipad and opad
// blocks compressed once, not for every HMAC), and each step's two HMACs,
// the output block HMAC(A(i) || label || seed) and the next A(i+1) =
// HMAC(A(i)), which both need only A(i), are computed together.
func prf(dst, secret []byte, label string, seed1, seed2 []byte) {
	st := prfBatches.Get().(*prfState)
	st.key.SetKey(secret)
	st.run(dst, &st.key, label, seed1, seed2)
	st.key = sm3.HMACKey{}
	prfBatches.Put(st)
}

// run computes P_SM3 under key into dst.
func (st *prfState) run(dst []byte, key *sm3.HMACKey, label string, seed1, seed2 []byte) {
	b := &st.b
	lb := labelBytes(label)
	seed := st.seed[:0]
	if len(seed1)+len(seed2) > len(st.seed) {
		seed = make([]byte, 0, len(seed1)+len(seed2))
	}
	seed = append(append(seed, seed1...), seed2...)

	// A(1) = HMAC(A(0)) with A(0) = label || seed.
	b.Add(key, lb, seed)
	b.Sum(st.macs[1:])
	for len(dst) > 0 {
		st.a = st.macs[1] // A(i)
		b.Add(key, st.a[:], lb, seed)
		last := len(dst) <= sm3.Size
		if !last {
			b.Add(key, st.a[:])
		}
		b.Sum(st.macs[:])
		dst = dst[copy(dst, st.macs[0][:]):]
	}
	clear(st.macs[:])
	clear(st.a[:])
	clear(st.seed[:])
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

func (m *Master) prf(dst []byte, label string, seed1, seed2 []byte) {
	st := prfBatches.Get().(*prfState)
	st.run(dst, &m.key, label, seed1, seed2)
	prfBatches.Put(st)
}

// KeyBlock is Suite.KeyBlock for this master secret.
func (m *Master) KeyBlock(s *Suite, clientRandom, serverRandom []byte) (client, server Keys) {
	return s.keyBlock(m.prf, clientRandom, serverRandom)
}

// FinishedVerifyData is FinishedVerifyData for this master secret.
func (m *Master) FinishedVerifyData(label string, transcriptHash []byte) []byte {
	vd := make([]byte, VerifyDataLen)
	m.prf(vd, label, transcriptHash, nil)
	return vd
}

// labelBytes returns label as bytes without a copy for the labels of this
// package, which are all there is in a TLCP handshake.
func labelBytes(label string) []byte {
	switch label {
	case labelMasterSecret:
		return labelMasterSecretBytes
	case labelKeyExpansion:
		return labelKeyExpansionBytes
	case LabelClientFinished:
		return labelClientFinishedBytes
	case LabelServerFinished:
		return labelServerFinishedBytes
	}
	return []byte(label)
}

var (
	labelMasterSecretBytes   = []byte(labelMasterSecret)
	labelKeyExpansionBytes   = []byte(labelKeyExpansion)
	labelClientFinishedBytes = []byte(LabelClientFinished)
	labelServerFinishedBytes = []byte(LabelServerFinished)
)

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
	return s.keyBlock(func(dst []byte, label string, seed1, seed2 []byte) {
		prf(dst, master, label, seed1, seed2)
	}, clientRandom, serverRandom)
}

func (s *Suite) keyBlock(prf func(dst []byte, label string, seed1, seed2 []byte), clientRandom, serverRandom []byte) (client, server Keys) {
	m, k, v := s.MACLen, s.KeyLen, s.IVLen
	kb := make([]byte, 2*(m+k+v))
	prf(kb, labelKeyExpansion, serverRandom, clientRandom)

	// Full slice expressions keep an append to one key from overwriting the next.
	next := func(n int) []byte {
		p := kb[:n:n]
		kb = kb[n:]
		return p
	}
	client.MAC, server.MAC = next(m), next(m)
	client.Key, server.Key = next(k), next(k)
	client.IV, server.IV = next(v), next(v)
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
