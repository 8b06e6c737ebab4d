// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"

	"github.com/shangmi-go/shangmi/internal/alias"
)

// CCM on many messages at once.
//
// A CCM message costs two block encryptions per block: the counter-mode
// keystream, whose blocks are independent and run in the bulk kernels, and
// the CBC-MAC, one serial chain that runs at the latency of one block. The
// MACs of independent messages (the records of one large TLS write, each
// with its own nonce) can share the bulk kernel instead: one block of every
// message per call, the chains side by side.

// ccmHeadLen is the room for B0 and the associated data in a lane's first
// blocks; longer associated data is absorbed on its own, serially.
const ccmHeadLen = 4 * BlockSize

// ccmLanes is the per-message state of CCMSealMulti and CCMOpenMulti.
type ccmLanes struct {
	x    [MaxCBCLanes][BlockSize]byte  // the CBC-MAC chains, then the tags
	s0   [MaxCBCLanes * BlockSize]byte // E(A_0) of every message, the tag masks
	head [MaxCBCLanes][ccmHeadLen]byte
	tail [MaxCBCLanes][BlockSize]byte
}

// CCMSealMulti seals up to [MaxCBCLanes] independent messages with a, an
// AEAD from [NewCCM]: for every i it writes to dst[i] what
//
//	a.Seal(dst[i][:0], nonces[i], plaintexts[i], ads[i])
//
// writes, with the same result. The CBC-MACs of the messages run side by
// side in the bulk kernel, one block of each message per pass, and the
// keystreams in the counter-mode kernel, so a batch of long messages goes
// several times as fast as the same messages sealed one by one.
//
// The contract, checked on every call; a violation panics, as Seal does:
// a comes from NewCCM; nonces, plaintexts, ads and dst have the same
// length, at most MaxCBCLanes; every nonce has a's nonce size, every
// plaintext fits its length field, and every dst[i] is at least
// len(plaintexts[i]) + a.Overhead() bytes long. dst[i] may start exactly
// at plaintexts[i] (in place); no other two buffers overlap, except that
// the additional data may be shared between messages.
func CCMSealMulti(a cipher.AEAD, dst, nonces, plaintexts, ads [][]byte) {
	c := checkCCMMulti(a, dst, nonces, plaintexts, ads, false)
	var l ccmLanes
	c.tagsMulti(&l, nonces, plaintexts, ads)
	c.tagMasks(&l, nonces)
	for i, pt := range plaintexts {
		n := len(pt)
		c.crypt(dst[i][:n], pt, nonces[i])
		subtle.XORBytes(dst[i][n:n+c.tagSize], l.x[i][:c.tagSize], l.mask(i)[:c.tagSize])
	}
	clear(l.x[:len(dst)])
	clear(l.s0[:])
}

// CCMOpenMulti authenticates and decrypts up to [MaxCBCLanes] independent
// messages with a, an AEAD from [NewCCM], as a.Open(dst[i][:0], nonces[i],
// ciphertexts[i], ads[i]) would, and returns how many messages, from the
// first, are authentic: the plaintext of message i < n is
// dst[i][:len(ciphertexts[i])-a.Overhead()]. The MACs run side by side as
// in [CCMSealMulti].
//
// Message n, the first that fails (a forgery, or a ciphertext shorter
// than the tag), and every message after it are not opened, and nothing of
// their plaintext is left: a message opened in place holds its ciphertext
// again, as it was before the call, and any other's dst is cleared. A
// caller can therefore open the messages from n on again, under another
// key, as a TLS record layer does after a KeyUpdate.
//
// The contract is CCMSealMulti's with ciphertexts for plaintexts, and
// every dst[i] at least len(ciphertexts[i]) - a.Overhead() bytes long; a
// violation panics.
func CCMOpenMulti(a cipher.AEAD, dst, nonces, ciphertexts, ads [][]byte) int {
	c := checkCCMMulti(a, dst, nonces, ciphertexts, ads, true)
	k := len(ciphertexts)
	for i, ct := range ciphertexts {
		if len(ct) < c.tagSize || uint64(len(ct)-c.tagSize) > c.maxLen {
			k = i
			break
		}
	}
	var l ccmLanes
	var out [MaxCBCLanes][]byte
	for i := range k {
		ct := ciphertexts[i][:len(ciphertexts[i])-c.tagSize]
		out[i] = dst[i][:len(ct)]
		c.crypt(out[i], ct, nonces[i])
	}
	c.tagsMulti(&l, nonces[:k], out[:k], ads[:k])
	c.tagMasks(&l, nonces[:k])
	n := k
	for i := range k {
		tag := ciphertexts[i][len(ciphertexts[i])-c.tagSize:]
		subtle.XORBytes(l.x[i][:], l.x[i][:], l.mask(i))
		if subtle.ConstantTimeCompare(l.x[i][:c.tagSize], tag) != 1 {
			n = i
			break
		}
	}
	for i := n; i < len(ciphertexts); i++ {
		if i >= k {
			if m := len(ciphertexts[i]) - c.tagSize; m > 0 && &dst[i][0] != &ciphertexts[i][0] {
				clear(dst[i][:m])
			}
			continue
		}
		if len(out[i]) > 0 && &out[i][0] == &ciphertexts[i][0] {
			// Counter mode again gives back the ciphertext.
			c.crypt(out[i], out[i], nonces[i])
		} else {
			clear(out[i])
		}
	}
	clear(l.x[:k])
	clear(l.s0[:])
	return n
}

// checkCCMMulti checks the arguments of CCMSealMulti (open false) or
// CCMOpenMulti and returns a as a *ccm.
func checkCCMMulti(a cipher.AEAD, dst, nonces, src, ads [][]byte, open bool) *ccm {
	c, ok := a.(*ccm)
	if !ok {
		panic("sm4: CCMSealMulti and CCMOpenMulti need an AEAD from NewCCM")
	}
	if len(nonces) != len(src) || len(dst) != len(src) || len(ads) != len(src) {
		panic("sm4: CCM multi needs as many nonces, destinations and additional data as messages")
	}
	if len(src) > MaxCBCLanes {
		panic("sm4: CCM multi takes at most 16 messages")
	}
	for i := range src {
		if len(nonces[i]) != c.nonceSize {
			panic("sm4: incorrect nonce length given to CCM")
		}
		n := len(src[i])
		if open {
			n = max(n-c.tagSize, 0)
		} else {
			if uint64(n) > c.maxLen {
				panic("sm4: message too large for CCM")
			}
			n += c.tagSize
		}
		if len(dst[i]) < n {
			panic("sm4: CCM multi output smaller than the message")
		}
		di := dst[i][:n]
		if alias.InexactOverlap(di, src[i]) {
			panic("sm4: invalid buffer overlap of output and input")
		}
		if alias.AnyOverlap(di, ads[i]) {
			panic("sm4: invalid buffer overlap of output and additional data")
		}
		for j := range i {
			dj := dst[j][:min(len(dst[j]), len(src[j])+c.tagSize)]
			if alias.AnyOverlap(di, dj) || alias.AnyOverlap(di, src[j]) || alias.AnyOverlap(dj, src[i]) ||
				alias.AnyOverlap(di, ads[j]) || alias.AnyOverlap(dj, ads[i]) {
				panic("sm4: CCM multi messages overlap")
			}
		}
	}
	return c
}

// tagsMulti sets l.x[i] to the unencrypted MAC of message i, as tag does.
// Every lane's input is its head (B0 and the associated data, padded),
// its whole blocks and its padded last block: three rounds of the lanes.
func (c *ccm) tagsMulti(l *ccmLanes, nonces, msgs, ads [][]byte) {
	k := len(msgs)
	// The lanes' inputs, kept out of l: pointers from l into itself
	// would move it to the heap.
	var src [MaxCBCLanes][]byte
	for i := range k {
		var b0 [BlockSize]byte
		c.firstBlock(&b0, nonces[i], len(msgs[i]), len(ads[i]) > 0)
		var hdr [10]byte
		var h []byte
		if len(ads[i]) > 0 {
			h = adLength(&hdr, len(ads[i]))
		}
		l.x[i] = [BlockSize]byte{}
		if n := BlockSize + len(h) + len(ads[i]); n <= ccmHeadLen {
			head := &l.head[i]
			*head = [ccmHeadLen]byte{}
			copy(head[:], b0[:])
			copy(head[BlockSize:], h)
			copy(head[BlockSize+len(h):], ads[i])
			src[i] = head[:(n+BlockSize-1)&^(BlockSize-1)]
			continue
		}
		var m cbcMAC
		m.write(c, b0[:])
		m.write(c, h)
		m.write(c, ads[i])
		m.pad(c)
		l.x[i], src[i] = m.x, nil
	}
	c.macLanes(&l.x, &src, k)
	for i := range k {
		src[i] = msgs[i][:len(msgs[i])&^(BlockSize-1)]
	}
	c.macLanes(&l.x, &src, k)
	for i := range k {
		src[i] = nil
		if rest := msgs[i][len(msgs[i])&^(BlockSize-1):]; len(rest) > 0 {
			l.tail[i] = [BlockSize]byte{}
			copy(l.tail[i][:], rest)
			src[i] = l.tail[i][:]
		}
	}
	c.macLanes(&l.x, &src, k)
}

// tagMasks sets the tag masks E(A_0) of the nonces, all in one call of
// the bulk kernel when the block is an SM4 block.
func (c *ccm) tagMasks(l *ccmLanes, nonces [][]byte) {
	for i, nonce := range nonces {
		counterBlock((*[BlockSize]byte)(l.s0[i*BlockSize:]), nonce, 0)
	}
	buf := l.s0[:len(nonces)*BlockSize]
	if c.sb != nil {
		cryptBlocks(c.sb, false, buf, buf)
		return
	}
	for i := 0; i < len(buf); i += BlockSize {
		c.encrypt(buf[i:i+BlockSize], buf[i:i+BlockSize])
	}
}

// mask returns the tag mask of message i.
func (l *ccmLanes) mask(i int) []byte { return l.s0[i*BlockSize : (i+1)*BlockSize] }

// macLanes advances the CBC-MAC chain x[i] over src[i], whole blocks, for
// the first k lanes.
func (c *ccm) macLanes(x *[MaxCBCLanes][BlockSize]byte, src *[MaxCBCLanes][]byte, k int) {
	if c.sb == nil {
		for i := range k {
			m := cbcMAC{x: x[i]}
			m.write(c, src[i])
			x[i] = m.x
		}
		return
	}
	cbcMACMulti(c.sb, x, src, k)
}

// cbcMACMulti sets x[i] = E(x[i] ⊕ p) for every block p of src[i] in turn,
// for the first k lanes, whose lengths are whole blocks. The chains of the
// lanes that have blocks left advance together: their states sit side by
// side in one buffer, each XORed with its next block, and the buffer goes
// through the bulk kernel in one call.
func cbcMACMulti(b *Block, x *[MaxCBCLanes][BlockSize]byte, src *[MaxCBCLanes][]byte, k int) {
	var buf [MaxCBCLanes * BlockSize]byte
	var lane [MaxCBCLanes]int
	var off [MaxCBCLanes]int
	for {
		m, n := 0, 0
		for i := range k {
			if rem := len(src[i]) - off[i]; rem >= BlockSize {
				if m == 0 || rem < n {
					n = rem
				}
				lane[m] = i
				m++
			}
		}
		switch m {
		case 0:
			return
		case 1:
			i := lane[0]
			cbcMACBlocks(b, &x[i], src[i][off[i]:])
			off[i] = len(src[i])
			continue
		}
		w := buf[:m*BlockSize]
		for j := range m {
			copy(w[j*BlockSize:], x[lane[j]][:])
		}
		for p := 0; p < n; p += BlockSize {
			for j := range m {
				i := lane[j]
				s := src[i][off[i]+p : off[i]+p+BlockSize]
				d := w[j*BlockSize : (j+1)*BlockSize]
				binary.LittleEndian.PutUint64(d[0:], binary.LittleEndian.Uint64(d[0:])^binary.LittleEndian.Uint64(s[0:]))
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(d[8:])^binary.LittleEndian.Uint64(s[8:]))
			}
			cryptBlocks(b, false, w, w)
		}
		for j := range m {
			i := lane[j]
			copy(x[i][:], w[j*BlockSize:])
			off[i] += n
		}
	}
}
