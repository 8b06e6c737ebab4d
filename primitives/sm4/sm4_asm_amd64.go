// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm4

import (
	"encoding/binary"
	"math"

	"github.com/shangmi-go/shangmi/internal/impl"
	"golang.org/x/sys/cpu"
)

// This file is the single dispatch point for SM4 on amd64. Each function
// below is a plain if-ladder over the flags, best kernel first; the flags
// are read from the CPU once, and tests switch them with impl.Select to run
// every kernel the CPU has (the kernels are declared in sm4_amd64.go,
// generated with sm4_amd64.s by _asm).
//
// Dispatch is a function with an if-ladder rather than a function variable:
// a call through a variable hides the callee from escape analysis, so every
// stack buffer the modes pass in would be moved to the heap.
//
// golang.org/x/sys/cpu (v0.50) reports GFNI, VAES and VPCLMULQDQ only as
// AVX-512 features (HasAVX512GFNI and so on, set only when the OS enables
// AVX-512 state), so the GFNI-AVX2 and VAES-AVX2 kernels are chosen only on
// CPUs where that holds; elsewhere (Zen 3, Alder Lake) the AES-NI kernel is
// taken. Every kernel also needs PCLMULQDQ, which every CPU with AES-NI has,
// for GHASH.
// Each bulk kernel exists in four flavours, named by suffix:
//
//	GFNI512   GFNI S-box, AVX-512 (ZMM), groups of 16 blocks, 3 groups per iteration
//	GFNI256   GFNI S-box, AVX2 (YMM), groups of 8 blocks, 2 groups per iteration
//	VAES256   AES-NI S-box through VAESENCLAST, AVX2 (YMM), groups of 8 blocks
//	AESNI128  AES-NI S-box through AESENCLAST, AVX (XMM), groups of 4 blocks
//
// The GFNI512 kernels run the rounds in the latency kernels' A1 domain (see
// latKeysGFNI) and take the latency keys kk; the others take the round keys
// rk. A bulk kernel processes len(src)/groupBytes whole groups and ignores
// the rest; the callers below pass whole groups and handle tails. dst must
// be at least as long as src and may be src itself. The latency kernels
// (encryptBlock*, cbcEnc*, cbcMAC*) work on one block at a time. None of
// the kernels branches on or indexes memory with data or keys.

// Group sizes in bytes.
const (
	groupGFNI512  = 256
	groupGFNI256  = 128
	groupVAES256  = 128
	groupAESNI128 = 64
)

var (
	useGFNI512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL &&
		cpu.X86.HasAVX512GFNI && cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasPCLMULQDQ
	useGFNI256  = cpu.X86.HasAVX2 && cpu.X86.HasAVX512GFNI && cpu.X86.HasPCLMULQDQ
	useVAES256  = cpu.X86.HasAVX2 && cpu.X86.HasAVX512VAES && cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ
	useAESNI128 = cpu.X86.HasAVX2 && cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ

	// hasGFNI and hasAESNI say how the latency keys can be computed,
	// whatever kernel is selected at the moment.
	hasGFNI  = useGFNI256
	hasAESNI = useAESNI128
)

func init() {
	impl.Register("sm4", "gfni-avx512", &useGFNI512)
	impl.Register("sm4", "gfni-avx2", &useGFNI256)
	impl.Register("sm4", "vaes-avx2", &useVAES256)
	impl.Register("sm4", "aesni-avx2", &useAESNI128)
}

// archKeys holds the round keys mapped for the latency kernels (and the
// AVX-512 bulk kernels, which round in the same domain).
type archKeys struct {
	latEnc, latDec [36]uint32
}

func (k *archKeys) init(enc, dec *[rounds]uint32) {
	switch {
	case hasGFNI:
		latKeysGFNI(enc, &k.latEnc)
		latKeysGFNI(dec, &k.latDec)
	case hasAESNI:
		latKeysAESNI(enc, &k.latEnc)
		latKeysAESNI(dec, &k.latDec)
	}
}

// encryptBlock and decryptBlock process one block; dst and src hold at
// least 16 bytes. The kernels take the latency-ordered schedule, the generic
// code the plain round keys, of the same direction.
func encryptBlock(b *Block, dst, src []byte) { oneBlock(&b.arch.latEnc, &b.enc, dst, src) }
func decryptBlock(b *Block, dst, src []byte) { oneBlock(&b.arch.latDec, &b.dec, dst, src) }

func oneBlock(lat *[36]uint32, rk *[rounds]uint32, dst, src []byte) {
	d, s := (*[16]byte)(dst), (*[16]byte)(src)
	switch {
	case useGFNI512:
		encryptBlockGFNI512(lat, d, s)
	case useGFNI256:
		encryptBlockGFNI256(lat, d, s)
	case useVAES256 || useAESNI128:
		encryptBlockAESNI128(lat, d, s)
	default:
		cryptBlockGeneric(rk, dst, src)
	}
}

// cryptBlocks encrypts (or decrypts) len(src)/BlockSize whole blocks
// independently (ECB).
func cryptBlocks(b *Block, decrypt bool, dst, src []byte) {
	rk, kk := &b.enc, &b.arch.latEnc
	if decrypt {
		rk, kk = &b.dec, &b.arch.latDec
	}
	n := len(src) &^ (BlockSize - 1)
	src, dst = src[:n], dst[:n]
	g := ecbKernel(rk, kk, dst, src)
	if g == 0 {
		cryptBlocksGeneric(rk, dst, src)
		return
	}
	if full := n &^ (g - 1); full < n {
		var buf [groupGFNI512]byte
		copy(buf[:], src[full:])
		ecbKernel(rk, kk, buf[:g], buf[:g])
		copy(dst[full:], buf[:])
	}
}

// ecbKernel runs the selected ECB kernel over the whole groups of src
// (round keys rk, or kk for GFNI512) and returns its group size in bytes,
// or 0, having done nothing, when no kernel is selected. The callers run
// it a second time over a partial last group padded to a whole one.
func ecbKernel(rk *[rounds]uint32, kk *[36]uint32, dst, src []byte) int {
	switch {
	case useGFNI512:
		ecbGFNI512(kk, dst, src)
		return groupGFNI512
	case useGFNI256:
		ecbGFNI256(rk, dst, src)
		return groupGFNI256
	case useVAES256:
		ecbVAES256(rk, dst, src)
		return groupVAES256
	case useAESNI128:
		ecbAESNI128(rk, dst, src)
		return groupAESNI128
	}
	return 0
}

// ctrBlocks XORs the CTR keystream for the 128-bit big-endian counter
// ctr[0]‖ctr[1] into len(src)/16 whole blocks and advances the counter.
func ctrBlocks(b *Block, dst, src []byte, ctr *[2]uint64) {
	n := len(src) &^ (BlockSize - 1)
	if n == 0 {
		return
	}
	src, dst = src[:n], dst[:n]
	nb := uint64(n / BlockSize)
	if ctr[1] > math.MaxUint64-(nb-1) {
		// The low half wraps inside this call, which the kernels do not
		// handle; this happens once in 2⁶⁴ blocks.
		ctrBlocksGeneric(b, dst, src, ctr)
		return
	}
	lo := ctr[1]
	if !ctrWithKernel(b, false, dst, src, ctr) {
		ctrBlocksGeneric(b, dst, src, ctr)
		return
	}
	// The kernel counted whole groups; set the counter exactly, carrying
	// into the high half if the last block was 2⁶⁴−1.
	ctr[1] = lo + nb
	if ctr[1] < lo {
		ctr[0]++
	}
}

// ctr32Blocks is ctrBlocks with GCM's counter: only the low 32 bits of
// ctr[1] are incremented, modulo 2³².
func ctr32Blocks(b *Block, dst, src []byte, ctr *[2]uint64) {
	n := len(src) &^ (BlockSize - 1)
	if n == 0 {
		return
	}
	src, dst = src[:n], dst[:n]
	next := ctr[1]&^0xffffffff | uint64(uint32(ctr[1])+uint32(n/BlockSize))
	if !ctrWithKernel(b, true, dst, src, ctr) {
		ctr32BlocksGeneric(b, dst, src, ctr)
		return
	}
	ctr[1] = next
}

// ctrWithKernel runs the selected CTR kernel (GCM's 32-bit counter if
// ctr32) over src, whose length is a multiple of BlockSize, the last
// partial group through a padded copy, and reports whether a kernel was
// selected. The kernels advance ctr by whole groups, padding included:
// the callers set it exactly afterwards.
func ctrWithKernel(b *Block, ctr32 bool, dst, src []byte, ctr *[2]uint64) bool {
	n := len(src)
	g := ctrKernel(b, ctr32, dst, src, ctr)
	if g == 0 {
		return false
	}
	if full := n &^ (g - 1); full < n {
		var buf [groupGFNI512]byte
		copy(buf[:], src[full:])
		ctrKernel(b, ctr32, buf[:g], buf[:g], ctr)
		copy(dst[full:], buf[:])
	}
	return true
}

// ctrKernel runs the selected CTR kernel over the whole groups of src and
// returns its group size in bytes, or 0, having done nothing, when no
// kernel is selected.
func ctrKernel(b *Block, ctr32 bool, dst, src []byte, ctr *[2]uint64) int {
	switch {
	case useGFNI512 && ctr32:
		ctr32GFNI512(&b.arch.latEnc, dst, src, ctr)
	case useGFNI512:
		ctrGFNI512(&b.arch.latEnc, dst, src, ctr)
	case useGFNI256 && ctr32:
		ctr32GFNI256(&b.enc, dst, src, ctr)
	case useGFNI256:
		ctrGFNI256(&b.enc, dst, src, ctr)
	case useVAES256 && ctr32:
		ctr32VAES256(&b.enc, dst, src, ctr)
	case useVAES256:
		ctrVAES256(&b.enc, dst, src, ctr)
	case useAESNI128 && ctr32:
		ctr32AESNI128(&b.enc, dst, src, ctr)
	case useAESNI128:
		ctrAESNI128(&b.enc, dst, src, ctr)
	default:
		return 0
	}
	return bulkGroup()
}

// bulkGroup is the group size in bytes of the selected bulk kernel.
func bulkGroup() int {
	switch {
	case useGFNI512:
		return groupGFNI512
	case useGFNI256:
		return groupGFNI256
	case useVAES256:
		return groupVAES256
	}
	return groupAESNI128
}

// cbcDecryptBlocks decrypts len(src)/16 whole blocks in CBC mode, chaining
// from iv, and sets iv to the last ciphertext block.
func cbcDecryptBlocks(b *Block, iv *[16]byte, dst, src []byte) {
	n := len(src) &^ (BlockSize - 1)
	if n == 0 {
		return
	}
	src, dst = src[:n], dst[:n]
	// The real last ciphertext block is the chaining value after the tail,
	// which goes through a padded copy; saved before an in-place
	// decryption overwrites it.
	last := *(*[16]byte)(src[n-BlockSize:])
	g := cbcDecKernel(b, iv, dst, src)
	if g == 0 {
		cbcDecryptGeneric(b, iv, dst, src)
		return
	}
	if full := n &^ (g - 1); full < n {
		var buf [groupGFNI512]byte
		copy(buf[:], src[full:])
		cbcDecKernel(b, iv, buf[:g], buf[:g])
		copy(dst[full:], buf[:])
		*iv = last
	}
}

// cbcDecKernel runs the selected CBC decryption kernel over the whole
// groups of src and returns its group size in bytes, or 0, having done
// nothing, when no kernel is selected.
func cbcDecKernel(b *Block, iv *[16]byte, dst, src []byte) int {
	switch {
	case useGFNI512:
		cbcDecGFNI512(&b.arch.latDec, iv, dst, src)
		return groupGFNI512
	case useGFNI256:
		cbcDecGFNI256(&b.dec, iv, dst, src)
		return groupGFNI256
	case useVAES256:
		cbcDecVAES256(&b.dec, iv, dst, src)
		return groupVAES256
	case useAESNI128:
		cbcDecAESNI128(&b.dec, iv, dst, src)
		return groupAESNI128
	}
	return 0
}

// cbcEncryptBlocks encrypts len(src)/16 whole blocks in CBC mode, chaining
// from iv, and sets iv to the last ciphertext block.
func cbcEncryptBlocks(b *Block, iv *[16]byte, dst, src []byte) {
	if len(src) < BlockSize {
		return
	}
	switch {
	case useGFNI512:
		cbcEncGFNI512(&b.arch.latEnc, iv, dst, src)
	case useGFNI256:
		cbcEncGFNI256(&b.arch.latEnc, iv, dst, src)
	case useVAES256 || useAESNI128:
		cbcEncAESNI128(&b.arch.latEnc, iv, dst, src)
	default:
		cbcEncryptGeneric(b, iv, dst, src)
	}
}

// cbcMACBlocks sets x = E(x ⊕ p) for each whole block p of src in turn.
func cbcMACBlocks(b *Block, x *[16]byte, src []byte) {
	if len(src) < BlockSize {
		return
	}
	switch {
	case useGFNI512:
		cbcMACGFNI512(&b.arch.latEnc, x, src)
	case useGFNI256:
		cbcMACGFNI256(&b.arch.latEnc, x, src)
	case useVAES256 || useAESNI128:
		cbcMACAESNI128(&b.arch.latEnc, x, src)
	default:
		cbcMACGeneric(b, x, src)
	}
}

// ghashUpdate absorbs data into the GHASH state y, zero-padding a final
// partial block.
// ghashTable prepares the table of the carry-less GHASH kernels. With
// PCLMULQDQ each power of H is one call of the one-block kernel
// (y = (y ⊕ x)·H reads only the table's last entry, H¹) instead of a
// portable multiplication: NewGCM is paid at every TLS 1.3 key change.
// Entry 15, H¹, is in place already (see gcm.initHashKey).
func ghashTable(g *gcm, t *[16][16]byte) {
	if ghashPortable() {
		g.portable().table(t)
		return
	}
	p := g.hs
	for i := 2; i <= 16; i++ {
		var x, y [BlockSize]byte
		p.bytes(&x)
		ghashPCLMUL(t, &y, x[:])
		p = ghashState{binary.BigEndian.Uint64(y[0:]), binary.BigEndian.Uint64(y[8:])}
		p.putTableEntry(&t[16-i])
	}
}

// ghashPortable reports whether GHASH runs in portable code, without the
// carry-less kernels, and needs the portable key.
func ghashPortable() bool { return !(useGFNI512 || useGFNI256 || useVAES256 || useAESNI128) }

func ghashUpdate(g *gcm, y *[16]byte, data []byte) {
	n := len(data) &^ (BlockSize - 1)
	if n >= tableMinLen && !ghashPortable() {
		g.fullTable()
	}
	switch {
	case useGFNI512:
		ghashVPCLMUL512(&g.htab, y, data[:n])
	case useGFNI256 || useVAES256 || useAESNI128:
		ghashPCLMUL(&g.htab, y, data[:n])
	default:
		ghashUpdateGeneric(g.portable(), y, data)
		return
	}
	if n < len(data) {
		var last [BlockSize]byte
		copy(last[:], data[n:])
		ghashPCLMUL(&g.htab, y, last[:])
	}
}

// gcmSealBulk and gcmOpenBulk run the fused GCM kernel over the whole
// groups of src, if there is such a kernel, and return how many bytes they
// processed.
func gcmSealBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int {
	if !useGFNI512 {
		return 0
	}
	n := len(src) &^ (groupGFNI512 - 1)
	if n > 0 {
		g.fullTable()
	}
	gcmSealGFNI512(&g.b.arch.latEnc, &g.htab, y, ctr, dst[:n], src[:n])
	return n
}

func gcmOpenBulk(g *gcm, y *[16]byte, ctr *[2]uint64, dst, src []byte) int {
	if !useGFNI512 {
		return 0
	}
	n := len(src) &^ (groupGFNI512 - 1)
	if n > 0 {
		g.fullTable()
	}
	gcmOpenGFNI512(&g.b.arch.latEnc, &g.htab, y, ctr, dst[:n], src[:n])
	return n
}

// xtsBulk runs the whole groups of src through XEX with the fused kernel,
// if there is one, advances the tweak t past them and returns how many
// bytes it processed.
func xtsBulk(x *XTS, dst, src []byte, t *xtsTweak, encrypt bool) int {
	n := len(src) &^ (groupGFNI512 - 1)
	if !useGFNI512 || n == 0 {
		return 0
	}
	kk := &x.data.arch.latDec
	if encrypt {
		kk = &x.data.arch.latEnc
	}
	var tw [64]byte
	u := *t
	for i := 0; i < 64; i += BlockSize {
		u.store(tw[i:])
		u.mulAlpha()
	}
	if x.gb {
		xtsGBGFNI512(kk, &tw, dst[:n], src[:n])
	} else {
		xtsGFNI512(kk, &tw, dst[:n], src[:n])
	}
	t.load((*[BlockSize]byte)(tw[:BlockSize]))
	return n
}

// cbcLanes describes sixteen CBC chains to the multi-chain kernel, which
// takes its fields src, dst, mask and iv. Block k of lane i is at
// src[i] + (16k & mask[i]); an idle lane has mask 0 and points at scratch.
type cbcLanes struct {
	src, dst [MaxCBCLanes]*byte
	mask     [MaxCBCLanes]uint64
	iv       [MaxCBCLanes][BlockSize]byte
	scratch  [BlockSize]byte
}

// cbcEncryptMulti runs two or more CBC chains at once (see CBCEncryptMulti,
// which has checked the arguments).
func cbcEncryptMulti(b *Block, ivs, dst, src [][]byte) {
	if !useGFNI512 {
		cbcEncryptMultiGeneric(b, ivs, dst, src)
		return
	}
	var l cbcLanes
	for i := range ivs {
		copy(l.iv[i][:], ivs[i])
	}
	// run is inlined by hand: a function value would make l escape.
	var off [MaxCBCLanes]int
	for {
		n := 0
		for i := range l.src {
			if i < len(src) && off[i] < len(src[i]) {
				rem := (len(src[i]) - off[i]) / BlockSize
				if n == 0 || rem < n {
					n = rem
				}
				l.src[i], l.dst[i], l.mask[i] = &src[i][off[i]], &dst[i][off[i]], ^uint64(0)
			} else {
				l.src[i], l.dst[i], l.mask[i] = &l.scratch[0], &l.scratch[0], 0
			}
		}
		if n == 0 {
			return
		}
		cbcEncMultiGFNI512(&b.arch.latEnc, &l.src, &l.dst, &l.mask, &l.iv, n)
		for i := range src {
			if off[i] < len(src[i]) {
				off[i] += n * BlockSize
			}
		}
	}
}

// expandKeyArch computes the round keys with the S-box of the selected
// kernel's flavour, so that the key schedule indexes no table with key
// bytes; it reports whether it did.
func expandKeyArch(key []byte, enc, dec *[rounds]uint32) bool {
	switch {
	case useGFNI512 || useGFNI256:
		expandKeyGFNI((*[16]byte)(key), enc)
	case useVAES256 || useAESNI128:
		expandKeyAESNI((*[16]byte)(key), enc)
	default:
		return false
	}
	for i := range enc {
		dec[rounds-1-i] = enc[i]
	}
	return true
}

// kernelSelected reports whether a constant-time kernel is switched on, so
// that the table-based code must not run (checkTables).
func kernelSelected() bool { return useGFNI512 || useGFNI256 || useVAES256 || useAESNI128 }
