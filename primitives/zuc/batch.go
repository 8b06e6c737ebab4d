// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zuc

import (
	"cmp"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/shangmi-go/shangmi/internal/alias"
)

// A Batch encrypts or authenticates many independent messages at once. On
// CPUs with a multi-lane kernel it runs several ZUC instances side by side
// in the lanes of vector registers, one message per lane: [Lanes] of them
// (16 with AVX-512, 8 with AVX2, 4 with arm64 NEON). A single ZUC keystream
// is inherently sequential, so this is how a CPU is kept busy when there
// are many messages: the packets of a 3GPP bearer, or the records that one
// TLCP connection has queued under its ZUC-128 suite.
//
// Every message has its own key (or all share one), IV and length.
// Messages are grouped by length, longest first, so that lanes finish
// together; when only one message of a group is left, it is finished on
// the single-stream path, and so is a batch of one message. A batch of
// fewer messages than there are lanes therefore costs no more than
// processing its messages one after the other, and usually much less.
//
// The zero value is ready to use. A Batch keeps its scratch space (the
// lane states and keystream buffers, about 20 KiB) from call to call, so a
// long-lived Batch allocates nothing after the first call of each size.
// A Batch is not safe for concurrent use; its results do not depend on
// the CPU.
type Batch struct {
	ls   laneState
	jobs []batchJob
	ord  []int32
	ks   []uint32
	pre  [16]uint32
	m    mac
	tmp  [4 * blockWords]byte
}

// batchJob is one message of a Batch: its initial (loaded, not yet
// initialised) state and its buffers.
type batchJob struct {
	st       state
	dst, src []byte
	nbits    int // EIA3: message length in bits
	tag      [4]uint32
}

// chunkBlocks is how many 64-byte keystream blocks per lane a Batch asks the
// multi-lane kernel for at once: 16 lanes × 1 KiB stay in the L1 cache.
const chunkBlocks = 16

// Lanes returns how many messages a [Batch] processes at once on this CPU:
// 16 with AVX-512 (GFNI and VBMI), 8 with AVX2 and AES-NI, 4 on arm64
// with NEON and the AES instructions, and 1 where there is no multi-lane
// kernel (including builds with the purego tag).
func Lanes() int { return max(laneCount(), 1) }

var errBatchLengths = errors.New("zuc: Batch: keys, ivs, dst and src do not match in number")

// XORKeyStream sets dst[i] to src[i] XOR the keystream of ZUC under key
// keys[i] and IV ivs[i], for every i: the first len(src[i]) bytes of the
// keystream of a new [NewCipher](keys[i], ivs[i]). keys may also hold a
// single key, used for every message: the record layer of a ZUC-128 TLCP
// suite, for example, passes its write key once and one IV per record,
// write_IV XOR (0^64 ‖ seq). Keys of 16 and 32 bytes (ZUC-128 and ZUC-256)
// may be mixed, each with the IV size NewCipher accepts for it.
//
// Each dst[i] must be at least as long as src[i]; dst[i] and src[i] may be
// the same slice but must not otherwise overlap. On an error (a bad length
// or overlap) nothing has been written.
func (b *Batch) XORKeyStream(keys, ivs, dst, src [][]byte) error {
	n := len(src)
	if len(ivs) != n || len(dst) != n || (len(keys) != 1 && len(keys) != n) {
		return errBatchLengths
	}
	b.jobs = slices.Grow(b.jobs[:0], n)[:n]
	shared := len(keys) == 1
	if shared {
		if err := b.loadKey(keys[0]); err != nil {
			return err
		}
	}
	for i := range n {
		if !shared {
			if err := b.loadKey(keys[i]); err != nil {
				return err
			}
		}
		j := &b.jobs[i]
		if err := b.loadIV(&j.st, len(keys[min(i, len(keys)-1)]) == 32, ivs[i]); err != nil {
			return err
		}
		if err := checkBuffers(dst[i], src[i], len(src[i])); err != nil {
			return err
		}
		j.dst, j.src = dst[i][:len(src[i])], src[i]
	}
	b.runXOR()
	return nil
}

// An EEA3Message is one message for [Batch.EEA3]: the 128-EEA3 parameters
// of [NewEEA3], the message length in bits and its buffers.
type EEA3Message struct {
	Key                      []byte // 16 bytes
	Count, Bearer, Direction uint32
	// Bits is LENGTH, the message length in bits. Src and Dst hold at
	// least ⌈Bits/8⌉ bytes and may be the same slice.
	Bits     int
	Dst, Src []byte
}

// EEA3 encrypts (or decrypts) every message as [EEA3Bits] does: Dst = Src
// XOR the 128-EEA3 keystream for the first ⌈Bits/8⌉ bytes, with the bits of
// the last byte beyond Bits cleared. On an error (a bad key, BEARER,
// DIRECTION, length or overlap) nothing has been written.
func (b *Batch) EEA3(msgs []EEA3Message) error {
	n := len(msgs)
	b.jobs = slices.Grow(b.jobs[:0], n)[:n]
	var iv [16]byte
	for i := range msgs {
		m := &msgs[i]
		if err := b.checkEEA3Params(m.Key, m.Bearer, m.Direction, m.Bits); err != nil {
			return err
		}
		nb := (m.Bits + 7) / 8
		if len(m.Src) < nb || len(m.Dst) < nb {
			return errors.New("zuc: buffer shorter than LENGTH")
		}
		if alias.InexactOverlap(m.Dst[:nb], m.Src[:nb]) {
			return errors.New("zuc: invalid buffer overlap")
		}
		eea3IV(&iv, m.Count, m.Bearer, m.Direction)
		j := &b.jobs[i]
		loadKey128(&b.pre, m.Key)
		j.st = state{}
		loadIV128(&j.st, &b.pre, iv[:])
		j.dst, j.src = m.Dst[:nb], m.Src[:nb]
	}
	b.runXOR()
	for i := range msgs {
		if r := msgs[i].Bits % 8; r != 0 {
			msgs[i].Dst[msgs[i].Bits/8] &= 0xff << (8 - r)
		}
	}
	return nil
}

// An EIA3Message is one message for [Batch.EIA3]: the 128-EIA3 parameters
// of [NewEIA3], the message and its length in bits, and the MAC that
// Batch.EIA3 computes.
type EIA3Message struct {
	Key                      []byte // 16 bytes
	Count, Bearer, Direction uint32
	// Bits is LENGTH, the message length in bits; Message holds at least
	// ⌈Bits/8⌉ bytes, and the bits of its last byte beyond Bits are
	// ignored.
	Bits    int
	Message []byte
	// MAC is set to MAC-I by Batch.EIA3.
	MAC [4]byte
}

// EIA3 computes MAC-I of every message, as [NewEIA3] followed by
// [EIA3.FinishBits] does, into the messages' MAC fields. On an error (a bad
// key, BEARER, DIRECTION or length) no MAC has been set.
func (b *Batch) EIA3(msgs []EIA3Message) error {
	n := len(msgs)
	b.jobs = slices.Grow(b.jobs[:0], n)[:n]
	var iv [16]byte
	for i := range msgs {
		m := &msgs[i]
		if err := b.checkEEA3Params(m.Key, m.Bearer, m.Direction, m.Bits); err != nil {
			return err
		}
		if len(m.Message) < (m.Bits+7)/8 {
			return errors.New("zuc: message shorter than its bit length")
		}
		eia3IV(&iv, m.Count, m.Bearer, m.Direction)
		j := &b.jobs[i]
		loadKey128(&b.pre, m.Key)
		j.st = state{}
		loadIV128(&j.st, &b.pre, iv[:])
		j.src, j.nbits = m.Message, m.Bits
		j.tag = [4]uint32{}
	}
	b.runEIA3()
	for i := range msgs {
		binary.BigEndian.PutUint32(msgs[i].MAC[:], b.jobs[i].tag[0])
	}
	return nil
}

func (b *Batch) checkEEA3Params(key []byte, bearer, direction uint32, bits int) error {
	if len(key) != 16 {
		return KeySizeError(len(key))
	}
	if bearer >= 32 || direction >= 2 {
		return errEEA3Params
	}
	if bits < 0 {
		return errors.New("zuc: negative LENGTH")
	}
	return nil
}

func checkBuffers(dst, src []byte, n int) error {
	if len(dst) < n {
		return errors.New("zuc: Batch: dst shorter than src")
	}
	if alias.InexactOverlap(dst[:n], src) {
		return errors.New("zuc: invalid buffer overlap")
	}
	return nil
}

// loadKey puts the key part of the LFSR cells into b.pre.
func (b *Batch) loadKey(key []byte) error {
	switch len(key) {
	case 16:
		loadKey128(&b.pre, key)
	case 32:
		loadKey256(&b.pre, key, &zuc256D)
	default:
		return KeySizeError(len(key))
	}
	return nil
}

// loadIV sets s to the loaded state for b.pre and iv, before
// initialisation.
func (b *Batch) loadIV(s *state, zuc256 bool, iv []byte) error {
	*s = state{}
	if zuc256 {
		var v [25]uint8
		if len(iv) != 23 && len(iv) != 25 {
			return IVSizeError(len(iv))
		}
		if !unpackIV256(&v, iv) {
			return errIV256
		}
		loadIV256(s, &b.pre, &v)
		return nil
	}
	if len(iv) != 16 {
		return IVSizeError(len(iv))
	}
	loadIV128(s, &b.pre, iv)
	return nil
}

// order sorts the job indices by key, longest first, into b.ord, and
// returns the number of lanes to run: 0 when the single-stream path is to
// be taken for every job.
func (b *Batch) order(key func(j *batchJob) int) int {
	lanes := laneCount()
	if lanes < 2 || len(b.jobs) < 2 {
		return 0
	}
	b.ord = slices.Grow(b.ord[:0], len(b.jobs))
	for i := range b.jobs {
		b.ord = append(b.ord, int32(i))
	}
	slices.SortStableFunc(b.ord, func(x, y int32) int {
		return cmp.Compare(key(&b.jobs[y]), key(&b.jobs[x]))
	})
	return lanes
}

// scratch returns the keystream buffer for lanes lanes of stride words.
func (b *Batch) scratch(lanes, stride int) []uint32 {
	if n := lanes * stride; len(b.ks) < n {
		b.ks = make([]uint32, n)
	}
	return b.ks
}

func srcLen(j *batchJob) int { return len(j.src) }

// runXOR computes dst = src XOR keystream for every job.
func (b *Batch) runXOR() {
	lanes := b.order(srcLen)
	if lanes == 0 {
		for i := range b.jobs {
			j := &b.jobs[i]
			initState(&j.st)
			b.xorSingle(&j.st, j.dst, j.src)
		}
		return
	}
	const stride = chunkBlocks * blockWords
	ks := b.scratch(lanes, stride)
	for g := 0; g < len(b.ord); g += lanes {
		group := b.ord[g:min(g+lanes, len(b.ord))]
		if len(group) == 1 {
			j := &b.jobs[group[0]]
			initState(&j.st)
			b.xorSingle(&j.st, j.dst, j.src)
			continue
		}
		for l, i := range group {
			b.ls.put(l, &b.jobs[i].st)
		}
		lanesInit(&b.ls)
		// The group is sorted longest first, so the lanes still at work
		// are always a prefix of it.
		for off := 0; ; off += chunkBlocks * 4 * blockWords {
			active := 0
			for active < len(group) && len(b.jobs[group[active]].src) > off {
				active++
			}
			if active <= 1 {
				if active == 1 {
					j := &b.jobs[group[0]]
					b.ls.get(0, &j.st)
					b.xorSingle(&j.st, j.dst[off:], j.src[off:])
				}
				break
			}
			rest := len(b.jobs[group[0]].src) - off
			nb := min(chunkBlocks, (rest+4*blockWords-1)/(4*blockWords))
			lanesKeyStream(&b.ls, ks, stride, nb)
			for l, i := range group[:active] {
				j := &b.jobs[i]
				m := min(len(j.src)-off, 4*blockWords*nb)
				xorWordsAny(j.dst[off:off+m], j.src[off:off+m], ks[l*stride:])
			}
		}
	}
}

// xorSingle XORs src with the keystream of s, which is initialised, into
// dst, on the single-stream path.
func (b *Batch) xorSingle(s *state, dst, src []byte) {
	if n := len(src) &^ (4*blockWords - 1); n > 0 {
		xorKeyStream(s, dst[:n], src[:n])
		dst, src = dst[n:], src[n:]
	}
	if len(src) > 0 {
		xorKeyStream(s, b.tmp[:], zeroBlock[:])
		subtle.XORBytes(dst, src, b.tmp[:])
	}
}

// xorWordsAny sets dst = src XOR the big-endian bytes of ks, for any
// length; len(dst) == len(src) <= 4*len(ks).
func xorWordsAny(dst, src []byte, ks []uint32) {
	n := len(src) &^ 7
	xorWords(dst[:n], src[:n], ks[:n/4])
	for i := n; i < len(src); i++ {
		dst[i] = src[i] ^ byte(ks[i/4]>>(24-8*(i%4)))
	}
}

func jobBits(j *batchJob) int { return j.nbits }

// runEIA3 computes the 128-EIA3 tag of every job into tag[0].
//
// Each lane's keystream buffer holds one block more than the message
// blocks it serves, because the windows of a block's last bits reach into
// the next block: a chunk serves message words [w0, w0+16·chunkBlocks)
// from keystream words [w0, w0+16·(chunkBlocks+1)), and the last block is
// carried to the front of the buffer for the next chunk.
func (b *Batch) runEIA3() {
	lanes := b.order(jobBits)
	if lanes == 0 {
		for i := range b.jobs {
			b.eia3Single(&b.jobs[i], nil, 0)
		}
		return
	}
	const (
		stride     = (chunkBlocks + 1) * blockWords
		chunkWords = chunkBlocks * blockWords
	)
	ks := b.scratch(lanes, stride)
	for g := 0; g < len(b.ord); g += lanes {
		group := b.ord[g:min(g+lanes, len(b.ord))]
		if len(group) == 1 {
			b.eia3Single(&b.jobs[group[0]], nil, 0)
			continue
		}
		for l, i := range group {
			b.ls.put(l, &b.jobs[i].st)
		}
		lanesInit(&b.ls)
		lanesKeyStream(&b.ls, ks, stride, chunkBlocks+1)
		active := len(group)
		for w0 := 0; ; w0 += chunkWords {
			// Lanes whose message ends within this chunk finish it.
			for active > 0 {
				j := &b.jobs[group[active-1]]
				need := (j.nbits+31)/32 + 2 // keystream words of the whole MAC
				if need > w0+stride {
					break
				}
				active--
				kl := ks[active*stride : (active+1)*stride]
				rest := j.nbits - 32*w0
				whole := rest / (8 * macBlock) * macBlock
				msg := j.src[4*w0:]
				if whole > 0 {
					macUpdate(&j.tag, 1, kl, msg[:whole])
				}
				var x [macBlock]byte
				tail := rest - 8*whole
				copy(x[:], msg[whole:whole+(tail+7)/8])
				if r := tail % 8; r != 0 {
					x[tail/8] &= 0xff << (8 - r)
				}
				finishTag(&j.tag, 1, true, kl[whole/4:], &x, tail)
			}
			if active == 0 {
				break
			}
			for l, i := range group[:active] {
				macUpdate(&b.jobs[i].tag, 1, ks[l*stride:], b.jobs[i].src[4*w0:4*(w0+chunkWords)])
			}
			if active == 1 {
				// The window for the next block is the carried block and
				// the one after it; the lane's state is just past the
				// carried block.
				j := &b.jobs[group[0]]
				b.ls.get(0, &j.st)
				b.eia3Single(j, ks[chunkWords:stride], w0+chunkWords)
				break
			}
			for l := range active {
				copy(ks[l*stride:l*stride+blockWords], ks[l*stride+chunkWords:])
			}
			lanesKeyStream(&b.ls, ks[blockWords:], stride, chunkBlocks)
		}
	}
}

// eia3Single finishes job j on the single-stream path. With carry == nil,
// j.st is the loaded state of a new MAC; otherwise j.st is initialised and
// positioned just past carry, the keystream block for message word w0 on,
// and j.tag holds the MAC of the message words before w0.
func (b *Batch) eia3Single(j *batchJob, carry []uint32, w0 int) {
	m := &b.m
	*m = mac{words: 1, eia3: true}
	m.st = j.st
	if carry == nil {
		initState(&m.st)
		genKeyStream(&m.st, m.ks[:])
	} else {
		copy(m.ks[:blockWords], carry)
		genKeyStream(&m.st, m.ks[blockWords:])
		m.tag = j.tag
	}
	rest := j.nbits - 32*w0
	msg := j.src[4*w0:]
	m.write(msg[:rest/8])
	var last byte
	if rest%8 != 0 {
		last = msg[rest/8]
	}
	j.tag = m.sum(last, rest%8)
}
