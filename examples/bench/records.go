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
	"fmt"
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
			"raw: the same primitive work done directly with our sm4/sm3/zuc (GCM seal/open with 13-byte AAD; CBC encrypt + HMAC-SM3 over seq||header||data; ZUC-128 re-IV + XOR + HMAC-SM3), with the same copy.\n" +
			"open rows, both columns: 32 distinct records with sequence numbers 0-31, fresh receiving state every 32 records with the timer stopped (its stop-the-world cost counts under -clock cpu, equally in both)",
	}
	for _, s := range suites {
		g.rows = append(g.rows,
			&row{name: s.label + " seal", unit: mbPerSec, bytes: recordLen, impls: []setupFunc{suiteSeal(s.id), s.rawSeal}},
			&row{name: s.label + " open", unit: mbPerSec, bytes: recordLen, impls: []setupFunc{suiteOpen(s.id), s.rawOpen}},
		)
	}
	register(g)

	// The batch rows: the same suite both columns, sixteen records per
	// operation, sealed or opened in one SealBatch/OpenBatch call or in
	// sixteen Seal/Open calls.
	bg := &group{
		name:  "records",
		cols:  []string{"batch", "one by one"},
		ratio: "batch/one",
		note: "batch: ciphersuite BatchProtection SealBatch/OpenBatch of 16 application_data records of 16 KiB in one call; one by one: the same 16 records with Seal/Open in a loop.\n" +
			"open rows: 512 distinct records (sequence numbers 0-511), copied into the in-place buffers first in both columns; fresh receiving state every 32 operations with the timer stopped.\n" +
			"a new receiver allocates its batch scratch on its first batch (the 0.1 allocs/op of the open batch columns); per record nothing.\n" +
			"CBC open batch: the MACs in the SM3 lanes through sm3's AddSecretLength, the same compressions for every padding length (the Lucky13 defence of Open).",
	}
	for _, s := range []struct {
		id    ciphersuite.ID
		label string
	}{
		{ciphersuite.ECC_SM4_CBC_SM3, "SM4-CBC+HMAC-SM3"},
		{ciphersuite.ECC_ZUC128_SM3, "ZUC-128+HMAC-SM3"},
	} {
		bg.rows = append(bg.rows,
			&row{name: s.label + " seal 16 records", unit: mbPerSec, bytes: batchLen * recordLen,
				impls: []setupFunc{batchSeal(s.id, true), batchSeal(s.id, false)}},
			&row{name: s.label + " open 16 records", unit: mbPerSec, bytes: batchLen * recordLen,
				impls: []setupFunc{batchOpen(s.id, true), batchOpen(s.id, false)}},
		)
	}
	register(bg)
}

// batchLen is the number of records per batch row operation.
const batchLen = ciphersuite.MaxBatch

func batchSeal(id ciphersuite.ID, batched bool) setupFunc {
	return func() (benchFunc, error) {
		s, k, err := suiteKeys(id)
		if err != nil {
			return nil, err
		}
		rp, err := s.NewRecordProtection(k)
		if err != nil {
			return nil, err
		}
		bp, ok := rp.(ciphersuite.BatchProtection)
		if !ok {
			return nil, errors.New("not a BatchProtection")
		}
		pt := randBytes(recordLen)
		recs := make([]ciphersuite.BatchRecord, batchLen)
		frags := make([][]byte, batchLen)
		for i := range frags {
			frags[i] = make([]byte, 0, bp.SealedLen(recordLen))
		}
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j := range recs {
					recs[j] = ciphersuite.BatchRecord{Type: recordType, Data: pt, Fragment: frags[j]}
				}
				if batched {
					if _, err := bp.SealBatch(recs, rand.Reader); err != nil {
						fail(b, err)
					}
					continue
				}
				for j := range recs {
					if _, err := bp.Seal(frags[j], recordType, pt, rand.Reader); err != nil {
						fail(b, err)
					}
				}
			}
		}, nil
	}
}

func batchOpen(id ciphersuite.ID, batched bool) setupFunc {
	return func() (benchFunc, error) {
		const passes = 32 // operations between fresh receivers
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
		for range passes * batchLen {
			rec, err := sealer.Seal(nil, recordType, pt, rand.Reader)
			if err != nil {
				return nil, err
			}
			sealed = append(sealed, rec)
		}
		bufs := make([][]byte, batchLen)
		for i := range bufs {
			bufs[i] = make([]byte, len(sealed[0]))
		}
		recs := make([]ciphersuite.BatchRecord, batchLen)
		var opener ciphersuite.BatchProtection
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pass := i % passes
				if pass == 0 {
					b.StopTimer()
					rp, err := s.NewRecordProtection(k)
					if err != nil {
						fail(b, err)
					}
					opener = rp.(ciphersuite.BatchProtection)
					b.StartTimer()
				}
				for j := range recs {
					n := copy(bufs[j], sealed[pass*batchLen+j])
					recs[j] = ciphersuite.BatchRecord{Type: recordType, Fragment: bufs[j][:n]}
				}
				if batched {
					if n, err := opener.OpenBatch(nil, recs); err != nil || n != batchLen {
						failf(b, "OpenBatch = %d, %v", n, err)
					}
					continue
				}
				for j := range recs {
					if _, _, err := opener.Open(recordType, recs[j].Fragment); err != nil {
						fail(b, err)
					}
				}
			}
		}, nil
	}
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
		var opener ciphersuite.RecordProtection
		fresh := func() (err error) {
			opener, err = s.NewRecordProtection(k)
			return err
		}
		open := func(_ uint64, rec []byte) error {
			_, got, err := opener.Open(recordType, rec)
			if err != nil {
				return err
			}
			if len(got) != recordLen {
				return fmt.Errorf("opened %d bytes, want %d", len(got), recordLen)
			}
			return nil
		}
		return openLoop(sealed, fresh, open), nil
	}
}

// openLoop is the timed loop of every open row, suite and raw alike, so that
// the two columns differ only in the work open does. The receiving side of a
// record layer owns a sequence number, so the suite cannot open one record
// over and over: it opens the openBatch records of sealed in turn (record j
// carries sequence number j), each copied first into one in-place buffer,
// and starts a fresh receiver (fresh) before every pass, with the timer
// stopped. Stopping the timer does not make that free: StopTimer and
// StartTimer each read the memory statistics, a stop-the-world, and under
// the default CPU clock their cost (tens of microseconds each on a small
// shared VM, a good part of one 16 KiB Open) counts while the timer is
// stopped. A raw column that skipped them put several percent of harness
// cost into the suite/raw ratio, so raw open rows go through here too, with
// their own fresh state per pass and the same sequence numbers.
func openLoop(sealed [][]byte, fresh func() error, open func(seq uint64, rec []byte) error) benchFunc {
	buf := make([]byte, len(sealed[0]))
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			j := i % len(sealed)
			if j == 0 {
				b.StopTimer()
				if err := fresh(); err != nil {
					fail(b, err)
				}
				b.StartTimer()
			}
			n := copy(buf, sealed[j])
			if err := open(uint64(j), buf[:n]); err != nil {
				fail(b, err)
			}
		}
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
		key := randBytes(16)
		blk, err := sm4.NewCipher(key)
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
		// As the suite: explicit nonce = sequence number, carried in front of
		// the ciphertext and read back from the record.
		var sealed [][]byte
		for j := range openBatch {
			binary.BigEndian.PutUint64(nonce[4:], uint64(j))
			rec := append([]byte(nil), nonce[4:]...)
			sealed = append(sealed, aead.Seal(rec, nonce, pt, recordAAD(&ad, uint64(j), recordLen)))
		}
		fresh := func() error {
			blk, err := sm4.NewCipher(key)
			if err == nil {
				aead, err = cipher.NewGCM(blk)
			}
			return err
		}
		open := func(seq uint64, rec []byte) error {
			copy(nonce[4:], rec[:8])
			ct := rec[8:]
			_, err := aead.Open(ct[:0], nonce, ct, recordAAD(&ad, seq, len(ct)-aead.Overhead()))
			return err
		}
		return openLoop(sealed, fresh, open), nil
	}
}

// rawCBC: MAC-then-pad-then-encrypt with a random explicit IV, and its
// reverse, without the record layer's constant-time padding checks.
func rawCBC(open bool) setupFunc {
	return func() (benchFunc, error) {
		key, macKey := randBytes(16), randBytes(32)
		blk, err := sm4.NewCipher(key)
		if err != nil {
			return nil, err
		}
		mac := hmac.New(sm3.New, macKey)
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
		var sealed [][]byte
		for j := range openBatch {
			seal(uint64(j))
			sealed = append(sealed, append([]byte(nil), rec...))
		}
		fresh := func() error {
			var err error
			blk, err = sm4.NewCipher(key)
			mac = hmac.New(sm3.New, macKey)
			mac.Reset() // ready to use, as NewRecordProtection leaves its HMAC
			return err
		}
		var want [sm3.Size]byte
		open := func(seq uint64, rec []byte) error {
			body := rec[16:]
			cipher.NewCBCDecrypter(blk, rec[:16]).CryptBlocks(body, body)
			n := len(body) - int(body[len(body)-1]) - 1 - sm3.Size
			if n != recordLen {
				return errors.New("bad padding")
			}
			mac.Reset()
			mac.Write(recordAAD(&ad, seq, n))
			mac.Write(body[:n])
			if subtle.ConstantTimeCompare(mac.Sum(want[:0]), body[n:n+sm3.Size]) != 1 {
				return errors.New("bad MAC")
			}
			return nil
		}
		return openLoop(sealed, fresh, open), nil
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
		macKey := randBytes(32)
		mac := hmac.New(sm3.New, macKey)
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
		var sealed [][]byte
		for j := range openBatch {
			if err := seal(uint64(j)); err != nil {
				return nil, err
			}
			sealed = append(sealed, append([]byte(nil), rec...))
		}
		fresh := func() error {
			s, err := zuc.NewCipher(key, ivBase)
			if err != nil {
				return err
			}
			zc = s.(*zuc.Cipher)
			mac = hmac.New(sm3.New, macKey)
			mac.Reset() // ready to use, as NewRecordProtection leaves its HMAC
			return nil
		}
		open := func(seq uint64, rec []byte) error {
			c := rec[:recordLen]
			mac.Reset()
			mac.Write(recordAAD(&ad, seq, recordLen))
			mac.Write(c)
			if subtle.ConstantTimeCompare(mac.Sum(want[:0]), rec[recordLen:]) != 1 {
				return errors.New("bad MAC")
			}
			if err := setIV(seq); err != nil {
				return err
			}
			zc.XORKeyStream(c, c)
			return nil
		}
		return openLoop(sealed, fresh, open), nil
	}
}

var _ hash.Hash = sm3.New()
