// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
)

var supportedIDs = []ID{
	ECC_SM4_CBC_SM3, ECDHE_SM4_CBC_SM3,
	ECC_SM4_GCM_SM3, ECDHE_SM4_GCM_SM3,
	ECC_ZUC128_SM3, ECDHE_ZUC128_SM3,
}

var roundTripLengths = []int{0, 1, 15, 16, 17, 31, 32, 33, 16383, 16384}

// countReader is a deterministic io.Reader: bytes start, start+1, …
type countReader struct{ next byte }

func (r *countReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.next
		r.next++
	}
	return len(p), nil
}

// randomKeys returns fresh write keys of the right lengths for s.
func randomKeys(t testing.TB, s *Suite) Keys {
	t.Helper()
	k := Keys{MAC: make([]byte, s.MACLen), Key: make([]byte, s.KeyLen), IV: make([]byte, s.IVLen)}
	for _, b := range [][]byte{k.MAC, k.Key, k.IV} {
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// pair returns a sealer and an opener sharing one set of write keys.
func pair(t testing.TB, id ID) (seal, open RecordProtection) {
	t.Helper()
	s, err := Get(id)
	if err != nil {
		t.Fatal(err)
	}
	k := randomKeys(t, s)
	if seal, err = s.NewRecordProtection(k); err != nil {
		t.Fatal(err)
	}
	if open, err = s.NewRecordProtection(k); err != nil {
		t.Fatal(err)
	}
	return seal, open
}

func setSeq(t testing.TB, rp RecordProtection, seq uint64) {
	t.Helper()
	switch r := rp.(type) {
	case *cbcRecord:
		r.seq = seqNum(seq)
	case *gcmRecord:
		r.seq = seqNum(seq)
	case *zucRecord:
		r.seq = seqNum(seq)
	case *tls13Record:
		r.seq = seqNum(seq)
	default:
		t.Fatalf("unknown record protection %T", rp)
	}
}

func testPlaintext(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7 + 3)
	}
	return p
}

func TestCBCRecordKAT(t *testing.T) {
	// tlcp/INTEROP.md §10 B: client→server, seq 0, type 23, IV fixed to a0…af.
	s := Lookup(ECC_SM4_CBC_SM3)
	client, _ := s.KeyBlock(unhex(t, katMaster), unhex(t, katClientRandom), unhex(t, katServerRandom))
	rp, err := s.NewRecordProtection(client)
	if err != nil {
		t.Fatal(err)
	}
	frag, err := rp.Seal(nil, 23, []byte("hello, TLCP"), &countReader{next: 0xa0})
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, `1701010040 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf
		d11ec6245b2bd5ce429e1ad271bb79259e2028f61880206a681083cec1ae1a0c
		a6cbcbcc49e12090265065b38214194c`)
	if got := append(header(23, len(frag)), frag...); !bytes.Equal(got, want) {
		t.Fatalf("record = %x\n want %x", got, want)
	}

	// The MAC of INTEROP.md §10 is the last 32 plaintext bytes before the padding.
	rd, _ := s.NewRecordProtection(client)
	b := append([]byte{}, frag...)
	_, pt, err := rd.Open(23, b)
	if err != nil || string(pt) != "hello, TLCP" {
		t.Fatalf("Open = %q, %v", pt, err)
	}
	mac := b[16+11 : 16+11+32]
	if want := unhex(t, "df24b5379b25a070cb104ade786ca74a66c4000c201029bae1d86d18c5f2082e"); !bytes.Equal(mac, want) {
		t.Errorf("MAC = %x, want %x", mac, want)
	}
	if pad := b[16+11+32:]; !bytes.Equal(pad, bytes.Repeat([]byte{4}, 5)) {
		t.Errorf("padding = %x, want 5 × 04", pad)
	}
}

func header(typ uint8, n int) []byte {
	return []byte{typ, 1, 1, byte(n >> 8), byte(n)}
}

func TestGCMRecordKAT(t *testing.T) {
	// tlcp/INTEROP.md §10 B: the same plaintext in records 0 and 1.
	s := Lookup(ECC_SM4_GCM_SM3)
	client, _ := s.KeyBlock(unhex(t, katMaster), unhex(t, katClientRandom), unhex(t, katServerRandom))
	wr, _ := s.NewRecordProtection(client)
	rd, _ := s.NewRecordProtection(client)
	for seq, want := range []string{
		"170101002300000000000000008d7a95bb03f6d3e88c17d004fc2bf2026379250a6c19bbe3f41f4c",
		"170101002300000000000000012345df6c58c1249292af2b47c16f534ebee7114f0b8f5030d2fbe1",
	} {
		frag, err := wr.Seal(nil, 23, []byte("hello, TLCP"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := append(header(23, len(frag)), frag...); !bytes.Equal(got, unhex(t, want)) {
			t.Errorf("record %d = %x\n       want %x", seq, got, want)
		}
		if _, pt, err := rd.Open(23, frag); err != nil || string(pt) != "hello, TLCP" {
			t.Errorf("record %d: Open = %q, %v", seq, pt, err)
		}
	}
}

func TestGCMForeignExplicitNonce(t *testing.T) {
	// Tongsuo starts the explicit nonce at a random value (tlcp/INTEROP.md §1.6): a
	// receiver must use the nonce from the record, and its own seq in the AAD.
	s := Lookup(ECC_SM4_GCM_SM3)
	k := randomKeys(t, s)
	b, _ := sm4.NewCipher(k.Key)
	aead, _ := cipher.NewGCM(b)
	rd, _ := s.NewRecordProtection(k)
	for seq := uint64(0); seq < 3; seq++ {
		explicit := []byte{0xde, 0xad, 0xbe, 0xef, 0, 0, 0, byte(seq)}
		nonce := append(append([]byte{}, k.IV...), explicit...)
		pt := []byte("from a peer with random nonces")
		aad := binary.BigEndian.AppendUint64(nil, seq)
		aad = append(aad, 23, 1, 1, 0, byte(len(pt)))
		frag := aead.Seal(append([]byte{}, explicit...), nonce, pt, aad)
		_, got, err := rd.Open(23, frag)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("seq %d: Open = %q, %v", seq, got, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := pair(t, id)
			for _, n := range roundTripLengths {
				pt := testPlaintext(n)
				for _, typ := range []uint8{22, 23} {
					// Separate buffers.
					prefix := []byte("hdr..")
					frag, err := wr.Seal(prefix, typ, pt, nil)
					if err != nil {
						t.Fatalf("len %d: Seal: %v", n, err)
					}
					if !bytes.Equal(frag[:5], prefix) {
						t.Fatal("Seal changed dst's existing bytes")
					}
					frag = frag[5:]
					if over := len(frag) - n; over < 0 || over > wr.Overhead() {
						t.Fatalf("len %d: fragment %d bytes, overhead %d > %d", n, len(frag), over, wr.Overhead())
					}
					if len(frag) > MaxCiphertext {
						t.Fatalf("len %d: fragment of %d bytes", n, len(frag))
					}
					_, got, err := rd.Open(typ, frag)
					if err != nil {
						t.Fatalf("len %d: Open: %v", n, err)
					}
					if !bytes.Equal(got, pt) {
						t.Fatalf("len %d: round trip mismatch", n)
					}

					// In place: plaintext at dst[len(dst):].
					buf := make([]byte, 5, 5+n+wr.Overhead())
					inPlace := append(buf[5:5], pt...)
					frag, err = wr.Seal(buf, typ, inPlace, nil)
					if err != nil {
						t.Fatalf("len %d: in-place Seal: %v", n, err)
					}
					if &frag[0] != &buf[0] {
						t.Fatal("in-place Seal reallocated although capacity sufficed")
					}
					_, got, err = rd.Open(typ, frag[5:])
					if err != nil || !bytes.Equal(got, pt) {
						t.Fatalf("len %d: in-place round trip: %v", n, err)
					}
				}
			}
		})
	}
}

func TestTamper(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			for _, n := range []int{0, 1, 15, 16, 17, 33} {
				s := Lookup(id)
				k := randomKeys(t, s)
				wr, _ := s.NewRecordProtection(k)
				frag, err := wr.Seal(nil, 23, testPlaintext(n), nil)
				if err != nil {
					t.Fatal(err)
				}
				rd, _ := s.NewRecordProtection(k)
				open := func(typ uint8, f []byte) error {
					_, _, err := rd.Open(typ, append([]byte{}, f...))
					return err
				}
				for i := range frag {
					for _, bit := range []byte{0x01, 0x80} {
						bad := append([]byte{}, frag...)
						bad[i] ^= bit
						if err := open(23, bad); !errors.Is(err, ErrBadRecordMAC) {
							t.Fatalf("len %d: flipping byte %d/%d: %v", n, i, len(frag), err)
						}
					}
				}
				if err := open(22, frag); !errors.Is(err, ErrBadRecordMAC) {
					t.Fatalf("len %d: wrong type: %v", n, err)
				}
				for _, cut := range []int{1, 16, len(frag)} {
					if err := open(23, frag[:len(frag)-cut]); !errors.Is(err, ErrBadRecordMAC) {
						t.Fatalf("len %d: truncated by %d: %v", n, cut, err)
					}
				}
				if err := open(23, append(append([]byte{}, frag...), make([]byte, 16)...)); !errors.Is(err, ErrBadRecordMAC) {
					t.Fatalf("len %d: extended: %v", n, err)
				}
				// Failures do not advance the sequence number: the genuine record
				// still opens.
				if err := open(23, frag); err != nil {
					t.Fatalf("len %d: genuine record after failures: %v", n, err)
				}
				// Replaying it under the next sequence number fails.
				if err := open(23, frag); !errors.Is(err, ErrBadRecordMAC) {
					t.Fatalf("len %d: replay: %v", n, err)
				}
			}
		})
	}
}

func TestOverflow(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := pair(t, id)
			if _, err := wr.Seal(nil, 23, make([]byte, MaxPlaintext+1), nil); !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("Seal of 2^14+1 bytes: %v", err)
			}
			limit := MaxCiphertext
			if Lookup(id).Cipher == CipherZUC128 {
				limit = maxZUCCiphertext
			}
			if _, _, err := rd.Open(23, make([]byte, limit+16)); !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("Open of %d bytes: %v", limit+16, err)
			}
			// A limit-sized record is not rejected for its size.
			if _, _, err := rd.Open(23, make([]byte, limit)); !errors.Is(err, ErrBadRecordMAC) && !errors.Is(err, ErrRecordOverflow) {
				t.Errorf("Open of %d bytes: %v", limit, err)
			}
		})
	}
}

// sealCBC builds a CBC record with any padding, for the receive-side tests.
func sealCBC(k Keys, seq uint64, typ uint8, pt, padding, iv []byte) []byte {
	h := hmac.New(sm3.New, k.MAC)
	var hdr [13]byte
	putHeader(&hdr, seqNum(seq), typ, len(pt))
	h.Write(hdr[:])
	h.Write(pt)
	body := append(h.Sum(append([]byte{}, pt...)), padding...)
	b, _ := sm4.NewCipher(k.Key)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(body, body)
	return append(append([]byte{}, iv...), body...)
}

func padding(padLen int) []byte { return bytes.Repeat([]byte{byte(padLen)}, padLen+1) }

func TestCBCPaddingAccepted(t *testing.T) {
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	iv := make([]byte, 16)
	for _, n := range []int{0, 1, 16, 200} {
		pt := testPlaintext(n)
		for padLen := (15 - (n+32)%16); padLen < 256; padLen += 16 {
			rd, _ := s.NewRecordProtection(k)
			_, got, err := rd.Open(23, sealCBC(k, 0, 23, pt, padding(padLen), iv))
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("len %d padLen %d: %v", n, padLen, err)
			}
		}
	}
}

func TestCBCBadPadding(t *testing.T) {
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	iv := make([]byte, 16)
	pt := testPlaintext(40) // 40 + 32 = 72: padLen 7, 23, …
	for _, padLen := range []int{7, 23, 247} {
		for wrong := 0; wrong < padLen+1; wrong += max(1, padLen/4) {
			pad := padding(padLen)
			pad[wrong] ^= 1 // the MAC stays right; only the padding is wrong
			rd, _ := s.NewRecordProtection(k)
			if _, _, err := rd.Open(23, sealCBC(k, 0, 23, pt, pad, iv)); !errors.Is(err, ErrBadRecordMAC) {
				t.Fatalf("padLen %d, byte %d wrong: %v", padLen, wrong, err)
			}
		}
	}
	// Padding longer than the record allows.
	rd, _ := s.NewRecordProtection(k)
	if _, _, err := rd.Open(23, sealCBC(k, 0, 23, nil, padding(15), iv)); err != nil {
		t.Fatal(err)
	}
	rd, _ = s.NewRecordProtection(k)
	short := sealCBC(k, 0, 23, nil, padding(15), iv)
	// Make the last byte claim 48 bytes of padding: decrypts as garbage + 0x30.
	b, _ := sm4.NewCipher(k.Key)
	body := short[16:]
	cipher.NewCBCDecrypter(b, iv).CryptBlocks(body, body)
	body[len(body)-1] = 47
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(body, body)
	if _, _, err := rd.Open(23, short); !errors.Is(err, ErrBadRecordMAC) {
		t.Fatalf("over-long padding: %v", err)
	}
}

func TestCBCPlaintextOverflow(t *testing.T) {
	// A well-formed record whose plaintext exceeds 2^14 is record_overflow.
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	n := MaxPlaintext + 100
	frag := sealCBC(k, 0, 23, testPlaintext(n), padding(15-(n+32)%16), make([]byte, 16))
	rd, _ := s.NewRecordProtection(k)
	if _, _, err := rd.Open(23, frag); !errors.Is(err, ErrRecordOverflow) {
		t.Fatalf("Open: %v", err)
	}
}

func TestSequenceOverflow(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := pair(t, id)
			setSeq(t, wr, math.MaxUint64-1)
			setSeq(t, rd, math.MaxUint64-1)
			frag, err := wr.Seal(nil, 23, []byte("last"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := rd.Open(23, frag); err != nil {
				t.Fatal(err)
			}
			if _, err := wr.Seal(nil, 23, []byte("wraps"), nil); !errors.Is(err, ErrSequenceOverflow) {
				t.Fatalf("Seal at the last sequence number: %v", err)
			}
			if _, _, err := rd.Open(23, frag); !errors.Is(err, ErrSequenceOverflow) {
				t.Fatalf("Open at the last sequence number: %v", err)
			}
		})
	}
}

func TestKeyLengths(t *testing.T) {
	s := Lookup(ECC_SM4_GCM_SM3)
	if _, err := s.NewRecordProtection(Keys{Key: make([]byte, 16), IV: make([]byte, 12)}); err == nil {
		t.Error("12-byte GCM IV accepted")
	}
	if _, err := Lookup(ECC_SM4_CBC_SM3).NewRecordProtection(Keys{Key: make([]byte, 16)}); err == nil {
		t.Error("missing MAC key accepted")
	}
}

func TestZeroAllocs(t *testing.T) {
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := pair(t, id)
			pt := testPlaintext(1000)
			buf := make([]byte, 0, 1000+wr.Overhead())
			var frag []byte
			var err error
			rnd := io.Reader(&countReader{})
			allocs := testing.AllocsPerRun(50, func() {
				frag, err = wr.Seal(buf, 23, pt, rnd)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err = rd.Open(23, frag); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("Seal+Open: %v allocations", allocs)
			}
			allocs = testing.AllocsPerRun(50, func() {
				if frag, err = wr.Seal(buf, 23, pt, nil); err != nil {
					t.Fatal(err)
				}
				if _, _, err = rd.Open(23, frag); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("Seal (crypto/rand) + Open: %v allocations", allocs)
			}
		})
	}
}

// TestFirstRecordAllocs checks that the very first Seal and Open of a new
// RecordProtection allocate nothing either: AllocsPerRun would hide a one-off
// allocation behind its warm-up call.
func TestFirstRecordAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, id := range supportedIDs {
		t.Run(Name(id), func(t *testing.T) {
			wr, rd := pair(t, id)
			pt := testPlaintext(1000)
			buf := make([]byte, 0, 1000+wr.Overhead())
			rnd := io.Reader(&countReader{})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			frag, err := wr.Seal(buf, 23, pt, rnd)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := rd.Open(23, frag); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if n := after.Mallocs - before.Mallocs; n != 0 {
				t.Errorf("first Seal+Open: %d allocations", n)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestSealReaderFailure(t *testing.T) {
	wr, rd := pair(t, ECC_SM4_CBC_SM3)
	buf := make([]byte, 0, 100)
	pt := append(buf[:0], "keep me"...)
	if _, err := wr.Seal(buf, 23, pt, failingReader{}); err == nil {
		t.Fatal("Seal succeeded without an IV")
	}
	if string(pt) != "keep me" {
		t.Errorf("failed Seal changed the in-place plaintext to %q", pt)
	}
	// The sequence number did not move: the next record still opens.
	frag, err := wr.Seal(nil, 23, pt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := rd.Open(23, frag); err != nil || string(got) != "keep me" {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

func TestCBCSealMatchesReference(t *testing.T) {
	// Seal keeps one CBC encrypter across records and steers it to each record's
	// IV; every record must equal a fresh CBC encryption under that IV.
	s := Lookup(ECC_SM4_CBC_SM3)
	k := randomKeys(t, s)
	wr, _ := s.NewRecordProtection(k)
	rnd := &countReader{next: 0x10}
	for seq, n := range []int{11, 0, 16, 100, 1000, 5} {
		pt := testPlaintext(n)
		ivReader := *rnd
		iv := make([]byte, 16)
		ivReader.Read(iv)
		frag, err := wr.Seal(nil, 23, pt, rnd)
		if err != nil {
			t.Fatal(err)
		}
		want := sealCBC(k, uint64(seq), 23, pt, padding(15-(n+32)%16), iv)
		if !bytes.Equal(frag, want) {
			t.Fatalf("record %d differs from a fresh CBC encryption:\n got %x\nwant %x", seq, frag, want)
		}
	}
}
