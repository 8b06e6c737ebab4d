// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// The batches of TLS 1.3 records, whose SM4-CCM records go through the
// lanes of sm4.CCMSealMulti and CCMOpenMulti: they must behave exactly as
// Seal and Open one record at a time. The SM4-GCM suite runs through the
// same tests as the reference behaviour.

func tls13BatchPair(t testing.TB, id ID) (BatchProtection, BatchProtection) {
	t.Helper()
	wr, rd := tls13Pair(t, id)
	return wr.(BatchProtection), rd.(BatchProtection)
}

// TestTLS13BatchMatchesSingle: SealBatch makes the fragments a loop of Seal
// makes, and OpenBatch, in place and into a buffer, gives back the
// plaintexts and types, the sequence numbers as a loop of Open would use.
func TestTLS13BatchMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, id := range TLS13DefaultPreference() {
		t.Run(Name(id), func(t *testing.T) {
			secret := make([]byte, 32)
			s := LookupTLS13(id)
			wrp, _ := s.NewRecordProtection(secret)
			rdp, _ := s.NewRecordProtection(secret)
			refp, _ := s.NewRecordProtection(secret)
			wr, rd := wrp.(BatchProtection), rdp.(BatchProtection)
			for round := range 14 {
				k := 1 + rng.IntN(2*MaxBatch+3)
				if round < 3 {
					k = []int{1, 2, MaxBatch}[round]
				}
				pts := make([][]byte, k)
				recs := make([]BatchRecord, k)
				var want [][]byte
				for i := range recs {
					pts[i] = randomBytes(rng, batchLength(rng))
					recs[i] = BatchRecord{Type: 23, Data: pts[i], Fragment: make([]byte, 0, wr.SealedLen(len(pts[i])))}
					f, err := refp.Seal(nil, 23, pts[i], nil)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, f)
				}
				if n, err := wr.SealBatch(recs, nil); err != nil || n != k {
					t.Fatalf("SealBatch of %d = %d, %v", k, n, err)
				}
				for i := range recs {
					if !bytes.Equal(recs[i].Fragment, want[i]) {
						t.Fatalf("round %d, record %d of %d (%d bytes): SealBatch differs from Seal", round, i, k, len(pts[i]))
					}
				}
				var dst []byte
				if round%2 == 1 {
					total := 0
					for i := range recs {
						total += len(recs[i].Fragment)
					}
					dst = make([]byte, total)
				}
				if n, err := rd.OpenBatch(dst, recs); err != nil || n != k {
					t.Fatalf("OpenBatch of %d = %d, %v", k, n, err)
				}
				off := 0
				for i := range recs {
					if recs[i].Type != 23 || !bytes.Equal(recs[i].Data, pts[i]) {
						t.Fatalf("round %d, record %d: OpenBatch plaintext differs", round, i)
					}
					if dst != nil {
						if len(pts[i]) > 0 && &recs[i].Data[0] != &dst[off] {
							t.Fatalf("record %d is not at offset %d of dst", i, off)
						}
						off += len(pts[i])
					}
				}
			}
			if wr.Sequence() != rd.Sequence() || wr.Sequence() != refp.Sequence() {
				t.Errorf("sequence numbers %d, %d, %d", wr.Sequence(), rd.Sequence(), refp.Sequence())
			}
		})
	}
}

// TestTLS13OpenBatchStopsAtBadRecord: a corrupted record in the middle of a
// batch fails with bad_record_mac; the records before it are delivered,
// none after it is, the ones after it are left as received (the bad one
// itself may be wiped, as Open wipes it), and the
// genuine record then opens with the rest.
func TestTLS13OpenBatchStopsAtBadRecord(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		t.Run(Name(id), func(t *testing.T) {
			for _, bad := range []int{0, 1, 5, MaxBatch - 1, MaxBatch, MaxBatch + 3} {
				for _, inPlace := range []bool{true, false} {
					wr, rd := tls13BatchPair(t, id)
					lens := make([]int, MaxBatch+5)
					for i := range lens {
						lens[i] = 1000 + 300*i
					}
					recs, pts := sealRecords(t, wr, lens)
					genuine := cloneRecords(recs)
					for i := range recs {
						recs[i].Data = nil
					}
					recs[bad].Fragment[len(recs[bad].Fragment)/2] ^= 0x20
					after := cloneRecords(recs)
					var dst []byte
					if !inPlace {
						dst = make([]byte, 20*MaxTLS13Ciphertext)
					}
					n, err := rd.OpenBatch(dst, recs)
					if n != bad || !errors.Is(err, ErrBadRecordMAC) {
						t.Fatalf("bad record %d: OpenBatch = %d, %v", bad, n, err)
					}
					for i := range bad {
						if !bytes.Equal(recs[i].Data, pts[i]) {
							t.Fatalf("bad record %d: record %d not delivered", bad, i)
						}
					}
					for i := bad + 1; i < len(recs); i++ {
						if recs[i].Data != nil {
							t.Fatalf("bad record %d: record %d after it has Data", bad, i)
						}
						if !bytes.Equal(recs[i].Fragment, after[i].Fragment) {
							t.Fatalf("bad record %d: record %d was modified", bad, i)
						}
					}
					if rd.Sequence() != uint64(bad) {
						t.Fatalf("bad record %d: sequence %d", bad, rd.Sequence())
					}
					rest := genuine[bad:]
					if n, err := rd.OpenBatch(nil, rest); err != nil || n != len(rest) {
						t.Fatalf("bad record %d: the genuine rest: %d, %v", bad, n, err)
					}
					if !bytes.Equal(rest[0].Data, pts[bad]) {
						t.Fatalf("bad record %d: genuine record differs", bad)
					}
				}
			}
		})
	}
}

// TestTLS13OpenBatchKeyUpdate: a handshake record (a KeyUpdate) in the
// middle of a batch ends it, and the records behind it, protected under the
// next key, are left as received and open under that key; a handshake
// record followed by records under the same key (a NewSessionTicket) ends
// the batch too, and the records behind it open in the next call.
func TestTLS13OpenBatchKeyUpdate(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		for _, update := range []bool{true, false} {
			for _, inPlace := range []bool{true, false} {
				s := LookupTLS13(id)
				secret, next := make([]byte, 32), make([]byte, 32)
				next[0] = 1
				wr, _ := s.NewRecordProtection(secret)
				rd, _ := s.NewRecordProtection(secret)
				const at, k = 3, 9
				var recs []BatchRecord
				var pts [][]byte
				for i := range k {
					if i == at+1 && update {
						wr, _ = s.NewRecordProtection(next)
					}
					typ := uint8(23)
					if i == at {
						typ = 22
					}
					pt := testPlaintext(500 + 700*i)
					pt[0] = byte(i)
					f, err := wr.Seal(nil, typ, pt, nil)
					if err != nil {
						t.Fatal(err)
					}
					recs = append(recs, BatchRecord{Type: 23, Fragment: f})
					pts = append(pts, pt)
				}
				orig := cloneRecords(recs)
				var dst []byte
				if !inPlace {
					dst = make([]byte, k*MaxTLS13Ciphertext)
				}
				n, err := rd.(BatchProtection).OpenBatch(dst, recs)
				if err != nil || n != at+1 {
					t.Fatalf("%s update=%v: OpenBatch = %d, %v; want %d", Name(id), update, n, err, at+1)
				}
				if recs[at].Type != 22 || !bytes.Equal(recs[at].Data, pts[at]) {
					t.Fatalf("%s: the handshake record: type %d", Name(id), recs[at].Type)
				}
				for i := at + 1; i < k; i++ {
					if recs[i].Data != nil || !bytes.Equal(recs[i].Fragment, orig[i].Fragment) {
						t.Fatalf("%s update=%v inPlace=%v: record %d after the handshake record touched", Name(id), update, inPlace, i)
					}
				}
				if update {
					rd, _ = s.NewRecordProtection(next)
				}
				rest := recs[at+1:]
				if n, err := rd.(BatchProtection).OpenBatch(nil, rest); err != nil || n != len(rest) {
					t.Fatalf("%s update=%v: the rest: %d, %v", Name(id), update, n, err)
				}
				for i := range rest {
					if !bytes.Equal(rest[i].Data, pts[at+1+i]) {
						t.Fatalf("%s: record %d after the handshake record differs", Name(id), at+1+i)
					}
				}
			}
		}
	}
}

// TestTLS13OpenBatchInnerFailures: padding is stripped inside a batch, and
// a record in the middle whose inner plaintext has no content type, or
// is longer than 2^14+1 bytes with its padding, fails as Open fails it.
func TestTLS13OpenBatchInnerFailures(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		for _, c := range []struct {
			inner []byte
			want  error
		}{
			{append([]byte("padded"), 23, 0, 0, 0), nil},
			{make([]byte, 40), ErrMissingContentType},
			{nil, ErrMissingContentType},
			{append(make([]byte, MaxPlaintext+1), 23), ErrRecordOverflow},
		} {
			wr, rd := tls13Pair(t, id)
			var recs []BatchRecord
			for i := range 6 {
				var f []byte
				if i == 2 {
					f = sealInner(t, wr, c.inner)
				} else {
					var err error
					f, err = wr.Seal(nil, 23, []byte{byte('a' + i)}, nil)
					if err != nil {
						t.Fatal(err)
					}
				}
				recs = append(recs, BatchRecord{Type: 23, Fragment: f})
			}
			n, err := rd.(BatchProtection).OpenBatch(nil, recs)
			if c.want == nil {
				if err != nil || n != 6 || string(recs[2].Data) != "padded" {
					t.Errorf("%s: padded record in a batch: %d, %v, %q", Name(id), n, err, recs[2].Data)
				}
				continue
			}
			if n != 2 || !errors.Is(err, c.want) {
				t.Errorf("%s: %d-byte inner plaintext: OpenBatch = %d, %v; want 2, %v", Name(id), len(c.inner), n, err, c.want)
			}
		}
	}
}

// TestTLS13BatchEdges: fragments Open refuses by their length stop a batch
// there with Open's error, and batches stop at the last sequence number.
func TestTLS13BatchEdges(t *testing.T) {
	for _, id := range TLS13DefaultPreference() {
		for _, c := range []struct {
			frag []byte
			want error
		}{
			{make([]byte, 3), ErrBadRecordMAC},
			{make([]byte, MaxTLS13Ciphertext+1), ErrRecordOverflow},
		} {
			wr, rd := tls13BatchPair(t, id)
			recs, pts := sealRecords(t, wr, []int{10, 20, 30, 40})
			recs[2].Fragment = c.frag
			for i := range recs {
				recs[i].Data = nil
			}
			n, err := rd.OpenBatch(nil, recs)
			if n != 2 || !errors.Is(err, c.want) || !bytes.Equal(recs[1].Data, pts[1]) || recs[3].Data != nil {
				t.Errorf("%s: %d-byte fragment: OpenBatch = %d, %v; want 2, %v", Name(id), len(c.frag), n, err, c.want)
			}
		}
		for _, left := range []int{0, 1, 2, 5} {
			wr, rd := tls13BatchPair(t, id)
			setSeq(t, wr, math.MaxUint64-uint64(left))
			setSeq(t, rd, math.MaxUint64-uint64(left))
			recs := make([]BatchRecord, 8)
			for i := range recs {
				recs[i] = BatchRecord{Type: 23, Data: testPlaintext(100 + i)}
			}
			n, err := wr.SealBatch(recs, nil)
			if n != left || !errors.Is(err, ErrSequenceOverflow) {
				t.Fatalf("%s, %d left: SealBatch = %d, %v", Name(id), left, n, err)
			}
			recs = recs[:n]
			if n > 0 {
				recs = append(recs, BatchRecord{Type: 23, Fragment: bytes.Clone(recs[n-1].Fragment)})
			} else {
				recs = append(recs, BatchRecord{Type: 23, Fragment: make([]byte, 64)})
			}
			if got, err := rd.OpenBatch(nil, recs); got != left || !errors.Is(err, ErrSequenceOverflow) {
				t.Fatalf("%s, %d left: OpenBatch = %d, %v", Name(id), left, got, err)
			}
		}
		wr, _ := tls13BatchPair(t, id)
		recs := []BatchRecord{{Type: 23, Data: []byte("a")}, {Type: 23, Data: make([]byte, MaxPlaintext+1)}}
		if n, err := wr.SealBatch(recs, nil); n != 0 || !errors.Is(err, ErrRecordOverflow) || wr.Sequence() != 0 {
			t.Errorf("%s: oversized record: %d, %v", Name(id), n, err)
		}
	}
}

// TestTLS13BatchZeroAllocs: after the first batch, CCM batches allocate
// nothing; a protection that never batched carries no scratch.
func TestTLS13BatchZeroAllocs(t *testing.T) {
	wr, rd := tls13BatchPair(t, TLS_SM4_CCM_SM3)
	if f, err := wr.Seal(nil, 23, []byte("x"), nil); err != nil || rd.(*tls13Record).batch != nil {
		t.Fatal("scratch before any batch", err)
	} else if _, _, err := rd.Open(23, f); err != nil || rd.(*tls13Record).batch != nil || wr.(*tls13Record).batch != nil {
		t.Fatal("scratch before any batch", err)
	}
	const k = MaxBatch
	pts := make([][]byte, k)
	frags := make([][]byte, k)
	recs := make([]BatchRecord, k)
	dst := make([]byte, k*MaxTLS13Ciphertext)
	for i := range pts {
		pts[i] = testPlaintext(4000 + 100*i)
		frags[i] = make([]byte, 0, wr.SealedLen(len(pts[i])))
	}
	step := func() {
		for i := range recs {
			recs[i] = BatchRecord{Type: 23, Data: pts[i], Fragment: frags[i]}
		}
		if _, err := wr.SealBatch(recs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := rd.OpenBatch(dst, recs); err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			recs[i].Data = pts[i]
		}
		if _, err := wr.SealBatch(recs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := rd.OpenBatch(nil, recs); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Errorf("%v allocations per two batches of %d", n, k)
	}
}

// BenchmarkTLS13RecordBatch seals and opens MaxBatch 16 KiB TLS 1.3
// records per operation with SealBatch and OpenBatch, and, as "Single",
// the same records one at a time with Seal and Open.
func BenchmarkTLS13RecordBatch(b *testing.B) {
	for _, id := range TLS13DefaultPreference() {
		for _, single := range []bool{false, true} {
			name := Name(id) + "/Batch"
			if single {
				name = Name(id) + "/Single"
			}
			b.Run(name, func(b *testing.B) {
				wr, rd := tls13BatchPair(b, id)
				recs := make([]BatchRecord, MaxBatch)
				pt := testPlaintext(benchSize)
				frags := make([][]byte, MaxBatch)
				for i := range frags {
					frags[i] = make([]byte, 0, wr.SealedLen(benchSize))
				}
				runBatch(b, func() {
					for i := range recs {
						recs[i] = BatchRecord{Type: 23, Data: pt, Fragment: frags[i]}
					}
					if single {
						for i := range recs {
							f, err := wr.Seal(recs[i].Fragment, 23, pt, nil)
							if err != nil {
								b.Fatal(err)
							}
							if _, _, err := rd.Open(23, f); err != nil {
								b.Fatal(err)
							}
						}
						return
					}
					if _, err := wr.SealBatch(recs, nil); err != nil {
						b.Fatal(err)
					}
					if _, err := rd.OpenBatch(nil, recs); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
