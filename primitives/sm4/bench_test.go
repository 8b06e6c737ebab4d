// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"testing"
)

const benchSize = 16 << 10

func benchBlock(b *testing.B) *Block {
	c, _ := NewCipher(make([]byte, 16))
	b.SetBytes(benchSize)
	b.ReportAllocs()
	return c.(*Block)
}

func BenchmarkEncryptBlocks(b *testing.B) {
	c := benchBlock(b)
	buf := make([]byte, benchSize)
	cpuLoop(b, benchSize, func() {
		c.encryptBlocks(buf, buf)
	})
}

func BenchmarkGHASH(b *testing.B) {
	benchBlock(b)
	var h [16]byte
	h[3] = 9
	k := newGHASHKey(&h)
	buf := make([]byte, benchSize)
	var y ghashState
	cpuLoop(b, benchSize, func() {
		y.update(&k, buf)
	})
}

func BenchmarkCBCEncrypt(b *testing.B) {
	c := benchBlock(b)
	buf := make([]byte, benchSize)
	m := cipher.NewCBCEncrypter(c, make([]byte, 16))
	cpuLoop(b, benchSize, func() {
		m.CryptBlocks(buf, buf)
	})
}

func BenchmarkCBCDecrypt(b *testing.B) {
	c := benchBlock(b)
	buf := make([]byte, benchSize)
	m := cipher.NewCBCDecrypter(c, make([]byte, 16))
	cpuLoop(b, benchSize, func() {
		m.CryptBlocks(buf, buf)
	})
}

func BenchmarkCTR(b *testing.B) {
	c := benchBlock(b)
	buf := make([]byte, benchSize)
	s := cipher.NewCTR(c, make([]byte, 16))
	cpuLoop(b, benchSize, func() {
		s.XORKeyStream(buf, buf)
	})
}

func BenchmarkGCMSeal(b *testing.B) {
	c := benchBlock(b)
	a, _ := cipher.NewGCM(c)
	buf := make([]byte, benchSize, benchSize+16)
	nonce, ad := make([]byte, 12), make([]byte, 13)
	cpuLoop(b, benchSize, func() {
		a.Seal(buf[:0], nonce, buf[:benchSize], ad)
	})
}

func BenchmarkGCMOpen(b *testing.B) {
	c := benchBlock(b)
	a, _ := cipher.NewGCM(c)
	nonce, ad := make([]byte, 12), make([]byte, 13)
	ct := a.Seal(nil, nonce, make([]byte, benchSize), ad)
	dst := make([]byte, benchSize)
	cpuLoop(b, benchSize, func() {
		if _, err := a.Open(dst[:0], nonce, ct, ad); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkCCMSeal(b *testing.B) {
	c := benchBlock(b)
	a, _ := NewCCM(c, 12, 16)
	buf := make([]byte, benchSize, benchSize+16)
	nonce, ad := make([]byte, 12), make([]byte, 13)
	cpuLoop(b, benchSize, func() {
		a.Seal(buf[:0], nonce, buf[:benchSize], ad)
	})
}

func BenchmarkXTSEncrypt(b *testing.B) {
	benchBlock(b)
	x, _ := NewXTS(make([]byte, 32))
	buf := make([]byte, benchSize)
	cpuLoop(b, benchSize, func() {
		x.Encrypt(buf, buf, 1)
	})
}

// BenchmarkKernel compares the one-block and the interleaved generic kernels.
func BenchmarkKernel(b *testing.B) {
	c, _ := NewCipher(make([]byte, 16))
	rk := &c.(*Block).enc
	buf := make([]byte, benchSize)
	for _, v := range []struct {
		name string
		f    func()
	}{
		{"1way", func() {
			for i := 0; i < len(buf); i += 16 {
				cryptBlockGeneric(rk, buf[i:], buf[i:])
			}
		}},
		{"4way", func() { cryptBlocksGeneric(rk, buf, buf) }},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(benchSize)
			cpuLoop(b, benchSize, v.f)
		})
	}
}

// BenchmarkCCMSealMulti seals MaxCBCLanes messages of benchSize bytes per
// operation, the MACs in lanes; its bytes per second compare with
// BenchmarkCCMSeal's one message at a time.
func BenchmarkCCMSealMulti(b *testing.B) {
	benchCCMMulti(b, false)
}

func BenchmarkCCMOpenMulti(b *testing.B) {
	benchCCMMulti(b, true)
}

func benchCCMMulti(b *testing.B, open bool) {
	c, _ := NewCipher(make([]byte, 16))
	a, _ := NewCCM(c, 12, 16)
	var dst, nonces, pts, ads [MaxCBCLanes][]byte
	for i := range dst {
		dst[i] = make([]byte, benchSize+16)
		pts[i] = dst[i][:benchSize]
		nonces[i] = make([]byte, 12)
		nonces[i][0] = byte(i)
		ads[i] = make([]byte, 5)
	}
	CCMSealMulti(a, dst[:], nonces[:], pts[:], ads[:])
	total := MaxCBCLanes * benchSize
	b.SetBytes(int64(total))
	b.ReportAllocs()
	cpuLoop(b, total, func() {
		if open {
			// In place, then sealed again, so that every pass opens a
			// valid batch: report half of it.
			CCMOpenMulti(a, pts[:], nonces[:], dst[:], ads[:])
		}
		CCMSealMulti(a, dst[:], nonces[:], pts[:], ads[:])
	})
}
