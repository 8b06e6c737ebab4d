// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/hmac"
	"hash"

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

// prf is PRF with the seed in two parts, so that callers need not concatenate the
// randoms.
func prf(dst, secret []byte, label string, seed1, seed2 []byte) {
	h := hmac.New(sm3.New, secret)
	pHash(dst, h, []byte(label), seed1, seed2)
}

// pHash fills dst with P_hash(secret, label || seed1 || seed2) using h, an HMAC keyed
// with the secret. It allocates a single buffer for A(i) and the output block.
func pHash(dst []byte, h hash.Hash, label, seed1, seed2 []byte) {
	size := h.Size()
	buf := make([]byte, 2*size)
	a, out := buf[:0:size], buf[size:size]

	// A(1) = HMAC(A(0)) with A(0) = label || seed.
	h.Write(label)
	h.Write(seed1)
	h.Write(seed2)
	a = h.Sum(a)

	for len(dst) > 0 {
		// HMAC(A(i) || label || seed) is the next output block.
		h.Reset()
		h.Write(a)
		h.Write(label)
		h.Write(seed1)
		h.Write(seed2)
		out = h.Sum(out[:0])
		n := copy(dst, out)
		dst = dst[n:]
		if len(dst) == 0 {
			break
		}
		// A(i+1) = HMAC(A(i)).
		h.Reset()
		h.Write(a)
		a = h.Sum(a[:0])
	}
	clear(buf)
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
	m, k, v := s.MACLen, s.KeyLen, s.IVLen
	kb := make([]byte, 2*(m+k+v))
	prf(kb, master, labelKeyExpansion, serverRandom, clientRandom)

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
