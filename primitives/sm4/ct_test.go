// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/dudect"
	"github.com/shangmi-go/shangmi/internal/impl"
)

var ctSink byte

// ctInput is a key and a message: class 0 has the all-zero key (a key with
// special bytes) and an all-zero message, class 1 random ones.
type ctInput struct {
	key  [KeySize]byte
	msg  [256]byte
	b    cipher.Block
	aead cipher.AEAD
}

func newCTInput(class int, rnd *rand.Rand) ctInput {
	var in ctInput
	if class == 1 {
		for i := range in.key {
			in.key[i] = byte(rnd.Uint32())
		}
		for i := range in.msg {
			in.msg[i] = byte(rnd.Uint32())
		}
	}
	in.b, _ = NewCipher(in.key[:])
	in.aead, _ = cipher.NewGCM(in.b)
	return in
}

// TestConstantTimeSM4 measures SM4 on every kernel of this CPU and on the
// portable code: the key schedule, one block (the latency kernels) and a
// 256-byte GCM seal (the bulk kernels and GHASH), each with a zero key and
// message against random ones. The kernels must show no dependence, and
// with tablesForbidden set any fall-back to the table-based code panics.
// The portable code indexes its tables with the key and the data: its
// result is logged, not judged (see the package documentation for what it
// leaks and why dispatch never takes it where a kernel exists).
func TestConstantTimeSM4(t *testing.T) {
	for _, name := range append(impl.List("sm4"), "generic") {
		t.Run(name, func(t *testing.T) {
			if !impl.Select("sm4", name) {
				t.Skip("not on this CPU")
			}
			defer impl.Reset("sm4")
			tables := name == "generic"
			// Every kernel, arm64's NEON one included, has a key schedule
			// of its own (NEON's used to fall back to the tables, a finding
			// of issue 33: see TestKernelsAvoidTables), so the guard is on
			// for all but the portable code.
			tablesForbidden = !tables
			defer func() { tablesForbidden = false }()
			t.Run("key schedule", func(t *testing.T) {
				var b Block
				dudect.Test(t, tables, newCTInput, func(in *ctInput) { b.init(in.key[:]); ctSink ^= byte(b.enc[0]) })
			})
			t.Run("block", func(t *testing.T) {
				dudect.Test(t, tables, newCTInput, func(in *ctInput) { in.b.Encrypt(in.msg[:16], in.msg[:16]) })
			})
			t.Run("GCM 256 B", func(t *testing.T) {
				var nonce [12]byte
				dst := make([]byte, 0, 256+16)
				dudect.Test(t, tables, newCTInput, func(in *ctInput) { ctSink ^= in.aead.Seal(dst, nonce[:], in.msg[:], nil)[0] })
			})
		})
	}
}

// TestKernelsAvoidTables runs, with the guard set, what TestConstantTimeSM4
// times (key schedule, one block both ways, GCM) and the serial modes on
// every kernel of this CPU. TestConstantTimeSM4 measures nothing in -short
// mode, so this is what checks dispatch in CI's emulated arm64 pass: there,
// as on arm64 CPUs with AES but without the SM4 instructions, the NEON
// kernel used to expand every key with the table-based code, which indexes
// the S-box with key bytes.
func TestKernelsAvoidTables(t *testing.T) {
	for _, name := range impl.List("sm4") {
		t.Run(name, func(t *testing.T) {
			impl.Select("sm4", name)
			defer impl.Reset("sm4")
			tablesForbidden = true
			defer func() { tablesForbidden = false }()
			rnd := rand.New(rand.NewPCG(1, 2))
			for class := range 2 {
				in := newCTInput(class, rnd)
				in.b.Encrypt(in.msg[:16], in.msg[:16])
				in.b.Decrypt(in.msg[:16], in.msg[:16])
				nonce := make([]byte, in.aead.NonceSize())
				sealed := in.aead.Seal(nil, nonce, in.msg[:], nil)
				if _, err := in.aead.Open(nil, nonce, sealed, nil); err != nil {
					t.Fatal(err)
				}
				iv := make([]byte, BlockSize)
				cipher.NewCBCEncrypter(in.b, iv).CryptBlocks(in.msg[:], in.msg[:])
				cipher.NewCBCDecrypter(in.b, iv).CryptBlocks(in.msg[:], in.msg[:])
				cipher.NewCTR(in.b, iv).XORKeyStream(in.msg[:], in.msg[:])
			}
		})
	}
}

// TestTablesForbidden: with a kernel selected and the guard set, the
// table-based rounds panic; with the portable code selected they run.
func TestTablesForbidden(t *testing.T) {
	if !kernelSelected() {
		t.Skip("no constant-time kernel on this CPU")
	}
	tablesForbidden = true
	defer func() { tablesForbidden = false }()
	var rk [rounds]uint32
	var blk [16]byte
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the table-based rounds ran with a kernel selected")
			}
		}()
		cryptBlockGeneric(&rk, blk[:], blk[:])
	}()
	impl.Select("sm4", "generic")
	defer impl.Reset("sm4")
	cryptBlockGeneric(&rk, blk[:], blk[:])
}
