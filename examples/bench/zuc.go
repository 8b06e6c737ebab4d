// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"hash"
	"testing"

	gmzuc "github.com/emmansun/gmsm/zuc"
)

// zucAPI is the part of a ZUC package the rows use, so that ours and gmsm go
// through identical loops.
type zucAPI struct {
	newCipher func(key, iv []byte) (cipher.Stream, error)
	newEEA3   func(key []byte, count, bearer, direction uint32) (cipher.Stream, error)
	newEIA3   func(key []byte, count, bearer, direction uint32) (hash.Hash, error)
	// newMAC256 is the ZUC-256 MAC for a 32-byte key and 23-byte IV.
	newMAC256 func(key, iv []byte, tagSize int) (hash.Hash, error)
	// batch, if set, processes many messages at once (ours: zuc.Batch);
	// otherwise the multi-message rows run one instance per message.
	batch *zucBatchAPI
}

// zucBatchAPI is the multi-message interface of our package.
type zucBatchAPI struct {
	// xor XORs each buf[i] in place with the keystream of (key, ivs[i]).
	xor func(key []byte, ivs, bufs [][]byte) error
	// eia3 computes 128-EIA3 of each msgs[i] with COUNT = counts[i].
	eia3  func(key []byte, counts []uint32, msgs [][]byte, macs [][4]byte) error
	lanes int
}

var gmsmZUC = &zucAPI{
	newCipher: func(key, iv []byte) (cipher.Stream, error) { return gmzuc.NewCipher(key, iv) },
	newEEA3: func(key []byte, count, bearer, direction uint32) (cipher.Stream, error) {
		return gmzuc.NewEEACipher(key, count, bearer, direction)
	},
	newEIA3: func(key []byte, count, bearer, direction uint32) (hash.Hash, error) {
		return gmzuc.NewEIAHash(key, count, bearer, direction)
	},
	newMAC256: func(key, iv []byte, tagSize int) (hash.Hash, error) {
		return gmzuc.NewHash256(key, iv, tagSize)
	},
}

// stdZUC stands in AES-128-CTR for the ciphers (128-EEA2 is AES-CTR); the
// standard library has no CMAC, so EIA3 has no analogue.
var stdZUC = &zucAPI{
	newCipher: func(key, iv []byte) (cipher.Stream, error) {
		b, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return cipher.NewCTR(b, iv), nil
	},
	newEEA3: func(key []byte, count, bearer, direction uint32) (cipher.Stream, error) {
		b, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		var iv [16]byte
		iv[0], iv[1], iv[2], iv[3] = byte(count>>24), byte(count>>16), byte(count>>8), byte(count)
		iv[4] = byte(bearer<<3 | direction<<2)
		return cipher.NewCTR(b, iv[:]), nil
	},
}

func init() {
	const n = 8 * kib
	ours := oursZUC() // nil until primitives/zuc lands
	rowsFor := func(a *zucAPI, f func(*zucAPI) setupFunc) setupFunc {
		if a == nil {
			return nil
		}
		return f(a)
	}
	keystream := func(a *zucAPI) setupFunc { return zucStreamBench(a, n) }
	eea := func(a *zucAPI) setupFunc { return zucEEA3Bench(a, n) }
	eia := func(a *zucAPI) setupFunc {
		if a.newEIA3 == nil {
			return nil
		}
		return zucEIA3Bench(a, n)
	}
	setup := func(a *zucAPI) setupFunc { return zucSetupBench(a) }
	mac256 := func(a *zucAPI) setupFunc {
		if a.newMAC256 == nil {
			return nil
		}
		return zucMAC256Bench(a, n)
	}
	reset := func(a *zucAPI) setupFunc {
		if a.batch == nil { // only ours has Cipher.Reset
			return nil
		}
		return zucResetBench()
	}
	multiXOR := func(lanes, size int) func(a *zucAPI) setupFunc {
		return func(a *zucAPI) setupFunc { return zucMultiXORBench(a, lanes, size) }
	}
	multiEIA3 := func(lanes, size int) func(a *zucAPI) setupFunc {
		return func(a *zucAPI) setupFunc {
			if a.newEIA3 == nil {
				return nil
			}
			return zucMultiEIA3Bench(a, lanes, size)
		}
	}
	lanesNote := ""
	if ours != nil && ours.batch != nil {
		lanesNote = fmt.Sprintf("multi-lane rows (N × size, aggregate MB/s over all N messages): ours is one zuc.Batch call (%d lanes on this CPU; one key, IV = base ^ message number, as a TLCP record layer), gmsm and stdlib a new instance per message, one after the other\n", ours.batch.lanes)
	}
	register(&group{
		name:  "zuc",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note: "EEA3/EIA3/MAC-128: a new instance per 8 KiB packet (new COUNT each op), as 3GPP uses them; XORKeyStream: one long stream.\n" +
			lanesNote +
			"stdlib: AES-128-CTR (128-EEA2 is AES-CTR); no CMAC in the standard library, so EIA3 has no analogue",
		rows: []*row{
			{name: "ZUC-128 XORKeyStream 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, keystream), keystream(gmsmZUC), keystream(stdZUC)}},
			{name: "EEA3 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, eea), eea(gmsmZUC), eea(stdZUC)}},
			{name: "EIA3 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, eia), eia(gmsmZUC), eia(stdZUC)}},
			{name: "ZUC-256 MAC-128 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, mac256), mac256(gmsmZUC), mac256(stdZUC)}},
			{name: "ZUC-128 setup + 16 B", unit: opsPerSec,
				impls: []setupFunc{rowsFor(ours, setup), setup(gmsmZUC), setup(stdZUC)}},
			{name: "ZUC-128 Reset + 16 B", unit: opsPerSec,
				impls: []setupFunc{rowsFor(ours, reset), nil, nil}},
			multiRow("multi-lane XOR 16 × 8 KiB", 16, n, ours, multiXOR),
			multiRow("multi-lane XOR 4 × 8 KiB", 4, n, ours, multiXOR),
			multiRow("multi-lane XOR 16 × 1 KiB", 16, kib, ours, multiXOR),
			multiRow("multi-lane XOR 64 × 256 B", 64, 256, ours, multiXOR),
			multiRow("multi-lane XOR 1 × 8 KiB", 1, n, ours, multiXOR),
			multiRow("multi-lane EIA3 16 × 8 KiB", 16, n, ours, multiEIA3),
			multiRow("multi-lane EIA3 16 × 1 KiB", 16, kib, ours, multiEIA3),
		},
	})
}

// multiRow is a row of n messages of size bytes each.
func multiRow(name string, n, size int, ours *zucAPI, f func(n, size int) func(*zucAPI) setupFunc) *row {
	g := f(n, size)
	var o setupFunc
	if ours != nil {
		o = g(ours)
	}
	return &row{name: name, unit: mbPerSec, bytes: int64(n * size),
		impls: []setupFunc{o, g(gmsmZUC), g(stdZUC)}}
}

func zucStreamBench(a *zucAPI, size int) setupFunc {
	return streamBench(func() (cipher.Stream, error) { return a.newCipher(randBytes(16), randBytes(16)) }, size)
}

func zucEEA3Bench(a *zucAPI, size int) setupFunc {
	return func() (benchFunc, error) {
		key := randBytes(16)
		buf := randBytes(size)
		if _, err := a.newEEA3(key, 0, 5, 1); err != nil {
			return nil, err
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := a.newEEA3(key, uint32(i), 5, 1)
				if err != nil {
					fail(b, err)
				}
				s.XORKeyStream(buf, buf)
			}
		}, nil
	}
}

func zucEIA3Bench(a *zucAPI, size int) setupFunc {
	return func() (benchFunc, error) {
		key := randBytes(16)
		msg := randBytes(size)
		if _, err := a.newEIA3(key, 0, 5, 1); err != nil {
			return nil, err
		}
		tag := make([]byte, 0, 16)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h, err := a.newEIA3(key, uint32(i), 5, 1)
				if err != nil {
					fail(b, err)
				}
				h.Write(msg)
				tag = h.Sum(tag[:0])
			}
		}, nil
	}
}

// zucSetupBench measures key/IV loading plus the first 16 bytes of
// keystream: the fixed cost a short message pays.
func zucSetupBench(a *zucAPI) setupFunc {
	return func() (benchFunc, error) {
		key, iv := randBytes(16), randBytes(16)
		if _, err := a.newCipher(key, iv); err != nil {
			return nil, err
		}
		buf := make([]byte, 16)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				iv[0] = byte(i)
				s, err := a.newCipher(key, iv)
				if err != nil {
					fail(b, err)
				}
				s.XORKeyStream(buf, buf)
			}
		}, nil
	}
}

// zucMAC256Bench: a new ZUC-256 MAC with a 128-bit tag per message of
// size bytes (new IV each op).
func zucMAC256Bench(a *zucAPI, size int) setupFunc {
	return func() (benchFunc, error) {
		key, iv := randBytes(32), randBytes(23)
		msg := randBytes(size)
		if _, err := a.newMAC256(key, iv, 16); err != nil {
			return nil, err
		}
		tag := make([]byte, 0, 16)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				iv[0] = byte(i)
				h, err := a.newMAC256(key, iv, 16)
				if err != nil {
					fail(b, err)
				}
				h.Write(msg)
				tag = h.Sum(tag[:0])
			}
		}, nil
	}
}

// zucMultiXORBench XORs n messages of size bytes in place per op, each
// with its own IV under one key: ours through the batch API, the others
// with a new instance per message.
func zucMultiXORBench(a *zucAPI, n, size int) setupFunc {
	return func() (benchFunc, error) {
		key := randBytes(16)
		ivs, bufs := make([][]byte, n), make([][]byte, n)
		for i := range n {
			ivs[i] = randBytes(16)
			bufs[i] = randBytes(size)
		}
		if a.batch != nil {
			if err := a.batch.xor(key, ivs, bufs); err != nil {
				return nil, err
			}
			return func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ivs[0][0] = byte(i)
					if err := a.batch.xor(key, ivs, bufs); err != nil {
						fail(b, err)
					}
				}
			}, nil
		}
		if _, err := a.newCipher(key, ivs[0]); err != nil {
			return nil, err
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ivs[0][0] = byte(i)
				for j := range n {
					s, err := a.newCipher(key, ivs[j])
					if err != nil {
						fail(b, err)
					}
					s.XORKeyStream(bufs[j], bufs[j])
				}
			}
		}, nil
	}
}

// zucMultiEIA3Bench computes 128-EIA3 of n messages of size bytes per op
// (COUNT = op·n + message number).
func zucMultiEIA3Bench(a *zucAPI, n, size int) setupFunc {
	return func() (benchFunc, error) {
		key := randBytes(16)
		msgs := make([][]byte, n)
		for i := range n {
			msgs[i] = randBytes(size)
		}
		counts := make([]uint32, n)
		macs := make([][4]byte, n)
		if a.batch != nil {
			if err := a.batch.eia3(key, counts, msgs, macs); err != nil {
				return nil, err
			}
			return func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					for j := range counts {
						counts[j] = uint32(i*n + j)
					}
					if err := a.batch.eia3(key, counts, msgs, macs); err != nil {
						fail(b, err)
					}
				}
			}, nil
		}
		tag := make([]byte, 0, 4)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j := range n {
					h, err := a.newEIA3(key, uint32(i*n+j), 5, 1)
					if err != nil {
						fail(b, err)
					}
					h.Write(msgs[j])
					tag = h.Sum(tag[:0])
				}
			}
		}, nil
	}
}
