// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

// batchPair returns a sealer and an opener as BatchProtections.
func batchPair(t testing.TB, id ID) (BatchProtection, BatchProtection) {
	t.Helper()
	wr, rd := pair(t, id)
	return wr.(BatchProtection), rd.(BatchProtection)
}

// batchLength picks a plaintext length, favouring the edges: empty, block
// and SM3-block boundaries, a full record.
func batchLength(rng *rand.Rand) int {
	switch rng.IntN(6) {
	case 0:
		return MaxPlaintext
	case 1:
		return rng.IntN(4)
	case 2:
		return min(MaxPlaintext, max(0, 64*rng.IntN(257)-rng.IntN(3)+1)) // around SM3 block multiples
	case 3:
		return MaxPlaintext - rng.IntN(64)
	}
	return rng.IntN(MaxPlaintext + 1)
}

// TestBatchMatchesSingle: SealBatch produces exactly the fragments a loop
// of Seal calls produces from the same randomness, and OpenBatch, in place
// and into a buffer, gives back the plaintexts with the sequence numbers a
// loop of Open calls would use.
func TestBatchMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			s := Lookup(id)
			keys := randomKeys(t, s)
			wr, rd, ref := newBatch(t, s, keys), newBatch(t, s, keys), newBatch(t, s, keys)
			for round := range 12 {
				k := 1 + rng.IntN(2*MaxBatch+3)
				if round < 3 {
					k = []int{1, 2, MaxBatch}[round]
				}
				pts := make([][]byte, k)
				recs := make([]BatchRecord, k)
				var want [][]byte
				start := byte(rng.Uint32())
				refRand := &countReader{next: start}
				for i := range recs {
					pts[i] = randomBytes(rng, batchLength(rng))
					typ := uint8(23 - rng.IntN(2))
					recs[i] = BatchRecord{Type: typ, Data: pts[i], Fragment: make([]byte, 0, wr.SealedLen(len(pts[i])))}
					f, err := ref.Seal(nil, typ, pts[i], refRand)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, f)
				}
				n, err := wr.SealBatch(recs, &countReader{next: start})
				if err != nil || n != k {
					t.Fatalf("SealBatch of %d = %d, %v", k, n, err)
				}
				for i := range recs {
					if len(recs[i].Fragment) != wr.SealedLen(len(pts[i])) {
						t.Fatalf("record %d: %d bytes, SealedLen says %d", i, len(recs[i].Fragment), wr.SealedLen(len(pts[i])))
					}
					if !bytes.Equal(recs[i].Fragment, want[i]) {
						t.Fatalf("round %d, record %d of %d (%d bytes): SealBatch differs from Seal", round, i, k, len(pts[i]))
					}
				}

				// Open, alternately in place and into one buffer.
				var dst []byte
				total := 0
				if round%2 == 1 {
					for i := range recs {
						total += len(recs[i].Fragment)
					}
					dst = make([]byte, total)
				}
				n, err = rd.OpenBatch(dst, recs)
				if err != nil || n != k {
					t.Fatalf("OpenBatch of %d = %d, %v", k, n, err)
				}
				off := 0
				for i := range recs {
					if !bytes.Equal(recs[i].Data, pts[i]) {
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
		})
	}
}

func newBatch(t testing.TB, s *Suite, k Keys) BatchProtection {
	t.Helper()
	rp, err := s.NewRecordProtection(k)
	if err != nil {
		t.Fatal(err)
	}
	return rp.(BatchProtection)
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// sealRecords seals k records of the given lengths with one BatchProtection
// and returns them with their plaintexts.
func sealRecords(t testing.TB, wr BatchProtection, lens []int) ([]BatchRecord, [][]byte) {
	t.Helper()
	recs := make([]BatchRecord, len(lens))
	pts := make([][]byte, len(lens))
	for i, n := range lens {
		pts[i] = testPlaintext(n)
		if n > 0 {
			pts[i][0] = byte(i) // distinct records
		}
		recs[i] = BatchRecord{Type: 23, Data: pts[i]}
	}
	if n, err := wr.SealBatch(recs, nil); err != nil || n != len(recs) {
		t.Fatalf("SealBatch = %d, %v", n, err)
	}
	return recs, pts
}

func cloneRecords(recs []BatchRecord) []BatchRecord {
	out := make([]BatchRecord, len(recs))
	for i, r := range recs {
		out[i] = BatchRecord{Type: r.Type, Fragment: bytes.Clone(r.Fragment)}
	}
	return out
}

// TestOpenBatchStopsAtBadRecord: a batch with a corrupted record in the
// middle opens exactly the records before it, reports bad_record_mac,
// touches nothing after it, and leaves the sequence number at the bad
// record, so that its genuine version then opens.
func TestOpenBatchStopsAtBadRecord(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			for _, bad := range []int{0, 1, 5, MaxBatch - 1, MaxBatch, MaxBatch + 3} {
				for _, inPlace := range []bool{true, false} {
					wr, rd := batchPair(t, id)
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
						dst = make([]byte, 20*(MaxPlaintext+MaxCiphertext))
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
						// ZUC decrypts only up to the bad record and GCM
						// stops too; CBC (MAC-then-encrypt) decrypts its
						// whole batch before the MACs.
						sameBatch := i/MaxBatch == bad/MaxBatch
						cbc := Lookup(id).Cipher == CipherSM4CBC
						if inPlace && !(cbc && sameBatch) && !bytes.Equal(recs[i].Fragment, after[i].Fragment) {
							t.Fatalf("bad record %d: record %d after it was modified", bad, i)
						}
					}
					// The genuine record and the rest open next.
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

// TestOpenBatchBadLengths: a fragment too short, too long, or (CBC) not of
// whole blocks in the middle of a batch stops it there with the error Open
// gives.
func TestOpenBatchBadLengths(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			limit := MaxCiphertext
			if Lookup(id).Cipher == CipherZUC128 {
				limit = maxZUCCiphertext
			}
			for _, c := range []struct {
				frag []byte
				want error
			}{
				{make([]byte, 3), ErrBadRecordMAC},
				{make([]byte, limit+16), ErrRecordOverflow},
			} {
				wr, rd := batchPair(t, id)
				recs, pts := sealRecords(t, wr, []int{10, 20, 30, 40})
				recs[2].Fragment = c.frag
				for i := range recs {
					recs[i].Data = nil
				}
				n, err := rd.OpenBatch(nil, recs)
				if n != 2 || !errors.Is(err, c.want) {
					t.Fatalf("%d-byte fragment: OpenBatch = %d, %v; want 2, %v", len(c.frag), n, err, c.want)
				}
				if !bytes.Equal(recs[1].Data, pts[1]) || recs[3].Data != nil {
					t.Fatal("wrong records delivered")
				}
			}
		})
	}
}

func TestBatchSequenceOverflow(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			for _, left := range []int{0, 1, 2, 5} {
				wr, rd := batchPair(t, id)
				setSeq(t, wr, math.MaxUint64-uint64(left))
				setSeq(t, rd, math.MaxUint64-uint64(left))
				recs := make([]BatchRecord, 8)
				for i := range recs {
					recs[i] = BatchRecord{Type: 23, Data: testPlaintext(100 + i)}
				}
				n, err := wr.SealBatch(recs, nil)
				if n != left || !errors.Is(err, ErrSequenceOverflow) {
					t.Fatalf("%d left: SealBatch = %d, %v", left, n, err)
				}
				recs = recs[:n]
				// Open them, plus a copy of the last one: no number for it.
				if n > 0 {
					recs = append(recs, BatchRecord{Type: 23, Fragment: bytes.Clone(recs[n-1].Fragment)})
				} else {
					recs = append(recs, BatchRecord{Type: 23, Fragment: make([]byte, 64)})
				}
				got, err := rd.OpenBatch(nil, recs)
				if got != left || !errors.Is(err, ErrSequenceOverflow) {
					t.Fatalf("%d left: OpenBatch = %d, %v", left, got, err)
				}
			}
		})
	}
}

func TestSealBatchErrors(t *testing.T) {
	for _, id := range supportedIDs {
		wr, rd := batchPair(t, id)
		recs := []BatchRecord{{Type: 23, Data: []byte("a")}, {Type: 23, Data: make([]byte, MaxPlaintext+1)}}
		if n, err := wr.SealBatch(recs, nil); n != 0 || !errors.Is(err, ErrRecordOverflow) {
			t.Errorf("%s: oversized record: %d, %v", Name(id), n, err)
		}
		if Lookup(id).Cipher == CipherSM4CBC {
			recs[1].Data = []byte("b")
			if n, err := wr.SealBatch(recs, failingReader{}); n != 0 || err == nil {
				t.Errorf("%s: failing reader: %d, %v", Name(id), n, err)
			}
		}
		// Nothing used a sequence number: a fresh pair still agrees.
		recs = []BatchRecord{{Type: 23, Data: []byte("after")}, {Type: 23, Data: []byte("errors")}}
		if n, err := wr.SealBatch(recs, nil); n != 2 || err != nil {
			t.Fatal(err)
		}
		if n, err := rd.OpenBatch(nil, recs); n != 2 || err != nil || string(recs[1].Data) != "errors" {
			t.Errorf("%s: after the failed batches: %d, %v", Name(id), n, err)
		}
	}
}

// TestSealBatchInPlace: a plaintext already at the start of its fragment
// buffer, as Seal takes it in place, is sealed correctly.
func TestSealBatchInPlace(t *testing.T) {
	for _, id := range supportedIDs {
		wr, rd := batchPair(t, id)
		var recs []BatchRecord
		var pts [][]byte
		for i := range 5 {
			n := 4000 * i
			buf := make([]byte, wr.SealedLen(n))
			pt := testPlaintext(n)
			copy(buf, pt)
			recs = append(recs, BatchRecord{Type: 23, Data: buf[:n], Fragment: buf[:0]})
			pts = append(pts, pt)
		}
		if _, err := wr.SealBatch(recs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := rd.OpenBatch(nil, recs); err != nil {
			t.Fatalf("%s: %v", Name(id), err)
		}
		for i := range recs {
			if !bytes.Equal(recs[i].Data, pts[i]) {
				t.Fatalf("%s: record %d", Name(id), i)
			}
		}
	}
}

// TestBatchZeroAllocs: after the first batch, batches allocate nothing.
func TestBatchZeroAllocs(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := batchPair(t, id)
			const k = MaxBatch
			pts := make([][]byte, k)
			frags := make([][]byte, k)
			recs := make([]BatchRecord, k)
			dst := make([]byte, k*(MaxPlaintext+MaxCiphertext))
			for i := range pts {
				pts[i] = testPlaintext(4000 + 100*i)
				frags[i] = make([]byte, 0, wr.SealedLen(len(pts[i])))
			}
			rnd := io.Reader(&countReader{})
			step := func() {
				for i := range recs {
					recs[i] = BatchRecord{Type: 23, Data: pts[i], Fragment: frags[i]}
				}
				if _, err := wr.SealBatch(recs, rnd); err != nil {
					t.Fatal(err)
				}
				if _, err := rd.OpenBatch(nil, recs); err != nil {
					t.Fatal(err)
				}
				for i := range recs {
					recs[i].Fragment = recs[i].Fragment[:0]
				}
				if _, err := wr.SealBatch(recs, rnd); err != nil {
					t.Fatal(err)
				}
				if _, err := rd.OpenBatch(dst, recs); err != nil {
					t.Fatal(err)
				}
			}
			step()
			if n := testing.AllocsPerRun(20, step); n != 0 {
				t.Errorf("%v allocations per two batches of %d", n, k)
			}
		})
	}
}

// TestBatchScratchNotRetained: a protection that never batches carries no
// batch scratch.
func TestBatchScratchNotRetained(t *testing.T) {
	for _, id := range supportedIDs {
		wr, rd := batchPair(t, id)
		frag, _ := wr.Seal(nil, 23, []byte("x"), nil)
		rd.Open(23, frag)
		for _, rp := range []RecordProtection{wr, rd} {
			switch r := rp.(type) {
			case *cbcRecord:
				if r.batch != nil {
					t.Errorf("%s: scratch allocated", Name(id))
				}
			case *zucRecord:
				if r.batch != nil {
					t.Errorf("%s: scratch allocated", Name(id))
				}
			}
		}
	}
}
