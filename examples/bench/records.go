// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"hash"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/primitives/zuc"
)

// The records group sets each suite's RecordProtection beside the bare cost
// of the primitives a record needs (our own sm4, sm3 and zuc), so the ratio
// column is the price of the record layer itself: sequence numbers, headers,
// padding checks, nonce handling.

const (
	recordLen  = 16 * kib
	recordType = 23 // application_data
	// openBatch is how many records are sealed in advance for an Open run;
	// the opener is re-created (untimed) after each batch because its
	// sequence number must match the sealer's.
	openBatch = 32
)

func init() {
	type suiteRow struct {
		id       ciphersuite.ID
		label    string
		rawSeal  setupFunc
		rawOpen  setupFunc
		rawLabel string
	}
	suites := []suiteRow{
		{ciphersuite.ECC_SM4_GCM_SM3, "SM4-GCM (ECC_SM4_GCM_SM3)", rawGCM(false), rawGCM(true), "SM4-GCM"},
		{ciphersuite.ECC_SM4_CBC_SM3, "SM4-CBC+HMAC-SM3 (ECC_SM4_CBC_SM3)", rawCBC(false), rawCBC(true), "SM4-CBC+HMAC-SM3"},
		{ciphersuite.ECC_ZUC128_SM3, "ZUC-128+HMAC-SM3 (ECC_ZUC128_SM3)", rawZUC(false), rawZUC(true), "ZUC-128+HMAC-SM3"},
	}
	g := &group{
		name:  "records",
		cols:  []string{"suite", "raw"},
		ratio: "suite/raw",
		note: "suite: ciphersuite RecordProtection Seal/Open of one 16 KiB application_data record (Open includes copying the sealed record into the in-place buffer).\n" +
			"raw: the same primitive work done directly with our sm4/sm3/zuc (GCM seal/open with 13-byte AAD; CBC encrypt + HMAC-SM3 over seq||header||data; ZUC-128 re-IV + XOR + HMAC-SM3), with the same copy",
	}
	for _, s := range suites {
		g.rows = append(g.rows,
			&row{name: s.label + " seal", unit: mbPerSec, bytes: recordLen, impls: []setupFunc{suiteSeal(s.id), s.rawSeal}},
			&row{name: s.label + " open", unit: mbPerSec, bytes: recordLen, impls: []setupFunc{suiteOpen(s.id), s.rawOpen}},
		)
	}
	register(g)
}

// suiteKeys returns fresh random keys of the lengths suite id needs.
func suiteKeys(id ciphersuite.ID) (*ciphersuite.Suite, ciphersuite.Keys, error) {
	s, err := ciphersuite.Get(id)
	if err != nil {
		return nil, ciphersuite.Keys{}, err
	}
	return s, ciphersuite.Keys{MAC: randBytes(s.MACLen), Key: randBytes(s.KeyLen), IV: randBytes(s.IVLen)}, nil
}

func suiteSeal(id ciphersuite.ID) setupFunc {
	return func() (benchFunc, error) {
		s, k, err := suiteKeys(id)
		if err != nil {
			return nil, err
		}
		rp, err := s.NewRecordProtection(k)
		if err != nil {
			return nil, err
		}
		pt := randBytes(recordLen)
		out := make([]byte, 0, recordLen+rp.Overhead())
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var err error
				if out, err = rp.Seal(out[:0], recordType, pt, rand.Reader); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

func suiteOpen(id ciphersuite.ID) setupFunc {
	return func() (benchFunc, error) {
		s, k, err := suiteKeys(id)
		if err != nil {
			return nil, err
		}
		sealer, err := s.NewRecordProtection(k)
		if err != nil {
			return nil, err
		}
		pt := randBytes(recordLen)
		var sealed [][]byte
		for range openBatch {
			rec, err := sealer.Seal(nil, recordType, pt, rand.Reader)
			if err != nil {
				return nil, err
			}
			sealed = append(sealed, rec)
		}
		buf := make([]byte, len(sealed[0])+sealer.Overhead())
		var opener ciphersuite.RecordProtection
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i % openBatch
				if j == 0 {
					b.StopTimer()
					if opener, err = s.NewRecordProtection(k); err != nil {
						fail(b, err)
					}
					b.StartTimer()
				}
				n := copy(buf, sealed[j])
				got, err := opener.Open(recordType, buf[:n])
				if err != nil {
					fail(b, err)
				}
				if len(got) != recordLen {
					failf(b, "opened %d bytes, want %d", len(got), recordLen)
				}
			}
		}, nil
	}
}

// recordAAD writes the TLCP MAC/AAD prefix seq || type || 01 01 || length.
func recordAAD(dst *[13]byte, seq uint64, n int) []byte {
	binary.BigEndian.PutUint64(dst[:8], seq)
	dst[8] = recordType
	dst[9], dst[10] = 1, 1
	binary.BigEndian.PutUint16(dst[11:], uint16(n))
	return dst[:]
}

func rawGCM(open bool) setupFunc {
	return func() (benchFunc, error) {
		blk, err := sm4.NewCipher(randBytes(16))
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(blk)
		if err != nil {
			return nil, err
		}
		nonce := randBytes(12)
		var ad [13]byte
		pt := randBytes(recordLen)
		buf := make([]byte, 0, recordLen+aead.Overhead())
		if !open {
			return func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					binary.BigEndian.PutUint64(nonce[4:], uint64(i))
					buf = aead.Seal(buf[:0], nonce, pt, recordAAD(&ad, uint64(i), recordLen))
				}
			}, nil
		}
		ct := aead.Seal(nil, nonce, pt, recordAAD(&ad, 0, recordLen))
		work := make([]byte, len(ct))
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				copy(work, ct)
				if _, err := aead.Open(work[:0], nonce, work, recordAAD(&ad, 0, recordLen)); err != nil {
					fail(b, err)
				}
			}
		}, nil
	}
}

// rawCBC: MAC-then-pad-then-encrypt with a random explicit IV, and its
// reverse, without the record layer's constant-time padding checks.
func rawCBC(open bool) setupFunc {
	return func() (benchFunc, error) {
		blk, err := sm4.NewCipher(randBytes(16))
		if err != nil {
			return nil, err
		}
		mac := hmac.New(sm3.New, randBytes(32))
		var ad [13]byte
		pt := randBytes(recordLen)
		padLen := 15 - (recordLen+sm3.Size)%16
		bodyLen := recordLen + sm3.Size + padLen + 1
		rec := make([]byte, 16+bodyLen)
		seal := func(seq uint64) {
			iv := rec[:16]
			rand.Read(iv)
			body := rec[16:]
			copy(body, pt)
			mac.Reset()
			mac.Write(recordAAD(&ad, seq, recordLen))
			mac.Write(pt)
			mac.Sum(body[:recordLen])
			for i := recordLen + sm3.Size; i < len(body); i++ {
				body[i] = byte(padLen)
			}
			cipher.NewCBCEncrypter(blk, iv).CryptBlocks(body, body)
		}
		if !open {
			return func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					seal(uint64(i))
				}
			}, nil
		}
		seal(0)
		sealed := append([]byte(nil), rec...)
		var want [sm3.Size]byte
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				copy(rec, sealed)
				body := rec[16:]
				cipher.NewCBCDecrypter(blk, rec[:16]).CryptBlocks(body, body)
				n := len(body) - int(body[len(body)-1]) - 1 - sm3.Size
				if n != recordLen {
					fail(b, errors.New("bad padding"))
				}
				mac.Reset()
				mac.Write(recordAAD(&ad, 0, n))
				mac.Write(body[:n])
				if subtle.ConstantTimeCompare(mac.Sum(want[:0]), body[n:n+sm3.Size]) != 1 {
					fail(b, errors.New("bad MAC"))
				}
			}
		}, nil
	}
}

// rawZUC: a fresh ZUC-128 keystream per record (re-IV), XOR, then HMAC-SM3
// over seq || header || ciphertext; Open checks the MAC first.
func rawZUC(open bool) setupFunc {
	return func() (benchFunc, error) {
		key, ivBase := randBytes(16), randBytes(16)
		s, err := zuc.NewCipher(key, ivBase)
		if err != nil {
			return nil, err
		}
		zc, ok := s.(*zuc.Cipher)
		if !ok {
			return nil, errors.New("zuc.NewCipher did not return *zuc.Cipher")
		}
		mac := hmac.New(sm3.New, randBytes(32))
		var ad [13]byte
		iv := make([]byte, 16)
		setIV := func(seq uint64) error {
			copy(iv, ivBase)
			var s [8]byte
			binary.BigEndian.PutUint64(s[:], seq)
			subtle.XORBytes(iv[8:], iv[8:], s[:])
			return zc.Reset(iv)
		}
		pt := randBytes(recordLen)
		rec := make([]byte, recordLen+sm3.Size)
		var want [sm3.Size]byte
		seal := func(seq uint64) error {
			if err := setIV(seq); err != nil {
				return err
			}
			zc.XORKeyStream(rec[:recordLen], pt)
			mac.Reset()
			mac.Write(recordAAD(&ad, seq, recordLen))
			mac.Write(rec[:recordLen])
			mac.Sum(rec[:recordLen])
			return nil
		}
		if !open {
			return func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if err := seal(uint64(i)); err != nil {
						fail(b, err)
					}
				}
			}, nil
		}
		if err := seal(0); err != nil {
			return nil, err
		}
		sealed := append([]byte(nil), rec...)
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				copy(rec, sealed)
				mac.Reset()
				mac.Write(recordAAD(&ad, 0, recordLen))
				mac.Write(rec[:recordLen])
				if subtle.ConstantTimeCompare(mac.Sum(want[:0]), rec[recordLen:]) != 1 {
					fail(b, errors.New("bad MAC"))
				}
				if err := setIV(0); err != nil {
					fail(b, err)
				}
				zc.XORKeyStream(rec[:recordLen], rec[:recordLen])
			}
		}, nil
	}
}

var _ hash.Hash = sm3.New()
