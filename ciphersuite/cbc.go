// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"hash"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// cbcRecord is SM4-CBC + HMAC-SM3 record protection (tlcp/INTEROP.md §1.5), the TLS 1.1
// layout: IV || CBC(plaintext || MAC || padding), MAC-then-encrypt.
type cbcRecord struct {
	block cipher.Block
	enc   cipher.BlockMode
	dec   cipher.BlockMode
	mac   hash.Hash
	key   sm3.HMACKey // the MAC key again, for SealBatch and for Open's secret-length MAC
	seq   seqNum

	// chain is the last ciphertext block enc produced: the CBC state it carries
	// into the next Seal (see Seal).
	chain [sm4.BlockSize]byte
	iv    [sm4.BlockSize]byte // this record's explicit IV
	hdr   [13]byte
	local [cbcMACLen]byte // the MAC we compute
	peer  [cbcMACLen]byte // the MAC the record carries, extracted in constant time

	batch *batchScratch // allocated by the first SealBatch of several records
}

const (
	cbcBlock = sm4.BlockSize
	// cbcOverhead is IV + MAC + the most padding Seal adds (a full block).
	cbcOverhead = cbcBlock + cbcMACLen + cbcBlock
	// cbcMinFragment is IV + MAC rounded up to whole blocks with at least one
	// padding byte.
	cbcMinFragment = cbcBlock + (cbcMACLen/cbcBlock+1)*cbcBlock

	// Padding of up to 255 bytes plus its length byte may hide the end of the data.
	maxPaddingLen = 255
)

func newCBC(k Keys, newHash func() hash.Hash) (*cbcRecord, error) {
	b, err := sm4.NewCipher(k.Key)
	if err != nil {
		return nil, err
	}
	// Each record carries its own IV, so the modes are created once with a zero
	// IV and steered per record (see Seal and Open) instead of re-created.
	var zero [cbcBlock]byte
	c := &cbcRecord{
		block: b,
		enc:   cipher.NewCBCEncrypter(b, zero[:]),
		dec:   cipher.NewCBCDecrypter(b, zero[:]),
		mac:   newHMAC(newHash, k.MAC),
	}
	c.key.SetKey(k.MAC)
	return c, nil
}

func (c *cbcRecord) Overhead() int { return cbcOverhead }

func (c *cbcRecord) Sequence() uint64 { return uint64(c.seq) }

// cbcPadLen is the minimal padding value Seal uses for an n-byte plaintext:
// 1 to 16 bytes, each holding padLen (the count minus one).
func cbcPadLen(n int) int { return cbcBlock - 1 - (n+cbcMACLen)%cbcBlock }

func (c *cbcRecord) SealedLen(n int) int { return cbcBlock + n + cbcMACLen + cbcPadLen(n) + 1 }

func (c *cbcRecord) Seal(dst []byte, typ uint8, plaintext []byte, rnd io.Reader) ([]byte, error) {
	n := len(plaintext)
	if n > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	if err := c.seq.check(); err != nil {
		return nil, err
	}
	if rnd == nil {
		rnd = rand.Reader
	}

	// Read the IV before touching dst, so that a failing reader leaves an
	// in-place plaintext as it was.
	if _, err := io.ReadFull(rnd, c.iv[:]); err != nil {
		return nil, err
	}

	padLen := cbcPadLen(n)
	size := c.SealedLen(n)
	ret, out := appendSpace(dst, size)
	data := out[cbcBlock : cbcBlock+n]
	moveTo(data, plaintext)

	putHeader(&c.hdr, c.seq, typ, n)
	c.mac.Reset()
	c.mac.Write(c.hdr[:])
	c.mac.Write(data)
	c.mac.Sum(data[n:n]) // lands right after the data, in out
	pad := out[cbcBlock+n+cbcMACLen:]
	for i := range pad {
		pad[i] = byte(padLen)
	}

	// enc continues the CBC chain from the previous record (cipher.BlockMode
	// behaves as if all its inputs were one). To make the record's first
	// ciphertext block come out as the chosen IV, encrypt D(IV) ⊕ chain in its
	// place: E(D(IV) ⊕ chain ⊕ chain) = IV. The rest of the record then chains
	// from IV, exactly as a fresh CBC encryption under IV would.
	first := out[:cbcBlock]
	c.block.Decrypt(first, c.iv[:])
	subtle.XORBytes(first, first, c.chain[:])
	c.enc.CryptBlocks(out, out)
	copy(c.chain[:], out[size-cbcBlock:])

	c.seq++
	return ret, nil
}

func (c *cbcRecord) Open(typ uint8, fragment []byte) (uint8, []byte, error) {
	pt, err := c.open(nil, typ, fragment)
	return typ, pt, err
}

// open is Open, decrypting into dst (at least len(fragment)-16 bytes, not
// overlapping fragment) instead of in place if dst is not nil.
func (c *cbcRecord) open(dst []byte, typ uint8, fragment []byte) ([]byte, error) {
	if len(fragment) > MaxCiphertext {
		return nil, ErrRecordOverflow
	}
	if len(fragment) < cbcMinFragment || len(fragment)%cbcBlock != 0 {
		return nil, ErrBadRecordMAC
	}
	if err := c.seq.check(); err != nil {
		return nil, err
	}

	// Decrypting the IV block too lets dec chain from the record's IV without
	// being told it: the first output block is garbage and the rest is the
	// plaintext of a CBC decryption under IV.
	var payload []byte
	if dst == nil {
		c.dec.CryptBlocks(fragment, fragment)
		payload = fragment[cbcBlock:]
	} else {
		// The same in two calls, the garbage block landing where the
		// plaintext then overwrites it.
		payload = dst[:len(fragment)-cbcBlock]
		c.dec.CryptBlocks(payload[:cbcBlock], fragment[:cbcBlock])
		c.dec.CryptBlocks(payload, fragment[cbcBlock:])
	}

	toRemove, good := cbcPadding(payload, cbcMACLen)
	n := len(payload) - cbcMACLen - toRemove // ≥ 0, see cbcPadding

	// Everything from here to the comparison must take the same time whatever
	// toRemove is (Lucky13): n is secret until the MAC has been checked.
	maxN := len(payload) - cbcMACLen - 1
	putHeader(&c.hdr, c.seq, typ, n)
	body, minN := payload[:maxN], max(0, maxN-maxPaddingLen)
	if testHookSecretMAC != nil {
		testHookSecretMAC(c.hdr[:], body, minN)
	}
	c.key.SumSecretLength(&c.local, c.hdr[:], body, n, minN)
	c.extractMAC(payload, n)
	good &= subtle.ConstantTimeCompare(c.local[:], c.peer[:])
	if good != 1 {
		return nil, ErrBadRecordMAC
	}
	if n > MaxPlaintext {
		return nil, ErrRecordOverflow
	}
	c.seq++
	return payload[:n], nil
}

// cbcPadding checks the CBC padding at the end of payload in constant time. It
// returns the number of bytes to remove (padding and its length byte) and good = 1
// if the padding is well formed and leaves room for a MAC of macLen bytes. If not,
// it returns good = 0 and toRemove = 1, so that the caller still authenticates as
// much data as a well-padded record would carry and the MAC check fails alike.
// len(payload) must be at least macLen+1.
func cbcPadding(payload []byte, macLen int) (toRemove, good int) {
	last := len(payload) - 1
	padLen := int(payload[last])
	good = subtle.ConstantTimeLessOrEq(padLen, last-macLen)

	// Look at the most bytes any padding could cover; the record length is public,
	// so bounding the loop by it leaks nothing.
	toCheck := min(maxPaddingLen, last)
	for i := 1; i <= toCheck; i++ {
		inPadding := subtle.ConstantTimeLessOrEq(i, padLen)
		same := subtle.ConstantTimeByteEq(payload[last-i], uint8(padLen))
		good &= 1 ^ (inPadding &^ same)
	}
	// Bad padding is treated as none, so that its bytes are MACed: otherwise an
	// attacker who could tell a padding failure from a MAC failure would learn
	// that a chosen last byte decrypted to a valid padding length.
	toRemove = subtle.ConstantTimeSelect(good, padLen+1, 1)
	return toRemove, good
}

// extractMAC copies the MAC that starts at the secret offset macStart of payload
// into c.peer without a memory access pattern that depends on macStart. The MAC
// can only start in the last maxPaddingLen+1+macLen bytes; the bytes of that
// window are gathered rotated by (macStart-windowStart) mod macLen, then rotated
// back with masks, one power-of-two step at a time.
func (c *cbcRecord) extractMAC(payload []byte, macStart int) {
	const macLen = cbcMACLen // a power of two, for the rotation
	end := len(payload)
	windowStart := max(0, end-macLen-maxPaddingLen-1)
	macEnd := macStart + macLen

	var rotated [macLen]byte
	for i := windowStart; i < end; i++ {
		inMAC := subtle.ConstantTimeLessOrEq(macStart, i) & subtle.ConstantTimeLessOrEq(i+1, macEnd)
		rotated[(i-windowStart)&(macLen-1)] |= payload[i] & byte(-inMAC)
	}

	// rotated[(k+rot)%macLen] holds MAC byte k; undo that rotation.
	rot := (macStart - windowStart) & (macLen - 1)
	var tmp [macLen]byte
	for step := 1; step < macLen; step <<= 1 {
		mask := byte(-(rot & 1))
		for k := range tmp {
			tmp[k] = rotated[(k+step)&(macLen-1)]&mask | rotated[k]&^mask
		}
		rotated = tmp
		rot >>= 1
	}
	c.peer = rotated
}
