// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/aes"
	"crypto/cipher"
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
}

var gmsmZUC = &zucAPI{
	newCipher: func(key, iv []byte) (cipher.Stream, error) { return gmzuc.NewCipher(key, iv) },
	newEEA3: func(key []byte, count, bearer, direction uint32) (cipher.Stream, error) {
		return gmzuc.NewEEACipher(key, count, bearer, direction)
	},
	newEIA3: func(key []byte, count, bearer, direction uint32) (hash.Hash, error) {
		return gmzuc.NewEIAHash(key, count, bearer, direction)
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
	register(&group{
		name:  "zuc",
		cols:  []string{"ours", "gmsm", "stdlib"},
		ratio: "ours/gmsm",
		note: "EEA3/EIA3: a new instance per 8 KiB packet (new COUNT each op), as 3GPP uses them; XORKeyStream: one long stream.\n" +
			"stdlib: AES-128-CTR (128-EEA2 is AES-CTR); no CMAC in the standard library, so EIA3 has no analogue",
		rows: []*row{
			{name: "ZUC-128 XORKeyStream 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, keystream), keystream(gmsmZUC), keystream(stdZUC)}},
			{name: "EEA3 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, eea), eea(gmsmZUC), eea(stdZUC)}},
			{name: "EIA3 8 KiB", unit: mbPerSec, bytes: n,
				impls: []setupFunc{rowsFor(ours, eia), eia(gmsmZUC), eia(stdZUC)}},
			{name: "ZUC-128 setup + 16 B", unit: opsPerSec,
				impls: []setupFunc{rowsFor(ours, setup), setup(gmsmZUC), setup(stdZUC)}},
		},
	})
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
