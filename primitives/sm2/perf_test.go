package sm2

import (
	"bytes"
	"crypto/rand"
	"testing"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// TestNewPublicKeyCanonical checks that both encodings of a key give the
// same key, whose Bytes is the uncompressed input itself, and that parsing
// costs a single allocation (the key; no re-encoding).
func TestNewPublicKeyCanonical(t *testing.T) {
	for range 8 {
		priv := mustKey(t)
		pub := priv.PublicKey()
		u, c := pub.Bytes(), pub.BytesCompressed()
		pu, err1 := NewPublicKey(u)
		pc, err2 := NewPublicKey(c)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(pu.Bytes(), u) || !bytes.Equal(pc.Bytes(), u) ||
			!bytes.Equal(pc.BytesCompressed(), c) || !pu.Equal(pc) {
			t.Fatal("encodings disagree")
		}
		if !bytes.Equal(pu.Z(nil), pub.Z(nil)) || !bytes.Equal(pc.Z(nil), pub.Z(nil)) {
			t.Fatal("derived values disagree")
		}
		// The parsed key must be fully usable.
		msg := []byte("m")
		sig, _ := SignASN1(rand.Reader, priv, msg, nil)
		if !VerifyASN1(pc, msg, nil, sig) || !VerifyASN1(pu, msg, nil, sig) {
			t.Fatal("parsed key does not verify")
		}
	}
	u := mustKey(t).PublicKey().Bytes()
	if n := testing.AllocsPerRun(100, func() { NewPublicKey(u) }); n > 1 {
		t.Errorf("NewPublicKey made %v allocations, want 1", n)
	}
}

// TestSignatureEncoding compares the hand-written DER encoder with
// cryptobyte on edge values: zero, one, high bit set, leading zeros.
func TestSignatureEncoding(t *testing.T) {
	vals := [][]byte{make([]byte, 32), {1}, bytes.Repeat([]byte{0xff}, 32), {0x80},
		append(make([]byte, 31), 0x7f), append([]byte{0, 0, 0x80}, make([]byte, 29)...), {0, 0}}
	for _, r := range vals {
		for _, s := range vals {
			var b cryptobyte.Builder
			b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
				addASN1Unsigned(b, r)
				addASN1Unsigned(b, s)
			})
			if got, want := encodeSignature(r, s), b.BytesOrPanic(); !bytes.Equal(got, want) {
				t.Fatalf("encodeSignature(%x, %x) = %x, want %x", r, s, got, want)
			}
		}
	}
}

// TestAllocations keeps the per-operation allocation counts small.
func TestAllocations(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage changes allocation counts")
	}
	priv := mustKey(t)
	pub := priv.PublicKey()
	msg := make([]byte, 32)
	sig, _ := SignASN1(rand.Reader, priv, msg, nil)
	ct, _ := Encrypt(rand.Reader, pub, msg, nil)
	ctASN1, _ := EncryptASN1(rand.Reader, pub, msg)
	peer, peerR := mustKey(t).PublicKey(), mustKey(t).PublicKey()
	for _, c := range []struct {
		name string
		max  float64
		f    func()
	}{
		{"SignASN1", 3, func() { SignASN1(rand.Reader, priv, msg, nil) }},
		{"VerifyASN1", 1, func() { VerifyASN1(pub, msg, nil, sig) }},
		{"Encrypt", 4, func() { Encrypt(rand.Reader, pub, msg, nil) }},
		{"Decrypt", 2, func() { Decrypt(priv, ct, nil) }},
		// The plaintext only: C1's coordinates are read on the stack.
		{"DecryptASN1", 1, func() { DecryptASN1(priv, ctASN1) }},
		{"GenerateKey", 3, func() { GenerateKey(rand.Reader) }},
		// The result is the only allocation; the key's table, built on its
		// second use, is amortised away.
		{"ECDH", 1, func() { ECDH(priv, pub) }},
		// The exchange itself, and the key with S_B.
		{"KeyExchange", 2, func() {
			ke, _ := NewKeyExchange(priv, nil, 48, false)
			ke.Respond(rand.Reader, peer, nil, peerR)
		}},
	} {
		if n := testing.AllocsPerRun(20, c.f); n > c.max {
			t.Errorf("%s: %v allocations, want at most %v", c.name, n, c.max)
		}
	}
}

// TestVerifyTable checks that verification gives the same answers before
// and after a key's table is cached, for good and bad signatures.
func TestVerifyTable(t *testing.T) {
	priv := mustKey(t)
	pub, err := NewPublicKey(priv.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	msgs := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	var sigs [][]byte
	for _, m := range msgs {
		sig, _ := SignASN1(rand.Reader, priv, m, nil)
		sigs = append(sigs, sig)
	}
	if !VerifyASN1(pub, msgs[0], nil, sigs[0]) || pub.table != nil {
		t.Fatal("first verification failed or built the table")
	}
	for round := range 3 {
		for i, m := range msgs {
			for j, sig := range sigs {
				if got := VerifyASN1(pub, m, nil, sig); got != (i == j) {
					t.Fatalf("round %d: Verify(msg %d, sig %d) = %v", round, i, j, got)
				}
			}
		}
		if pub.table == nil {
			t.Fatalf("round %d: table not cached", round)
		}
	}
}

// TestVerifyConcurrent verifies with one fresh key from several goroutines,
// so that the race detector sees the lazy table being built under
// contention.
func TestVerifyConcurrent(t *testing.T) {
	priv := mustKey(t)
	pub, _ := NewPublicKey(priv.PublicKey().Bytes())
	msg := []byte("concurrent")
	sig, _ := SignASN1(rand.Reader, priv, msg, nil)
	done := make(chan bool)
	for range 4 {
		go func() {
			ok := true
			for range 5 {
				ok = ok && VerifyASN1(pub, msg, nil, sig) && !VerifyASN1(pub, msg[1:], nil, sig)
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Fatal("concurrent verification gave a wrong answer")
		}
	}
}

// TestEncryptTable checks that encryption with a fixed nonce gives the same
// ciphertext before and after the recipient key's table is cached, and that
// ECDH agrees too.
func TestEncryptTable(t *testing.T) { eachImpl(t, testEncryptTable) }

func testEncryptTable(t *testing.T) {
	priv := mustKey(t)
	pub, err := NewPublicKey(priv.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("encrypted to the same key again and again")
	other := mustKey(t)
	var first []byte
	var firstDH []byte
	for round := range 4 {
		nonce := mustKey(t).Bytes()
		ct1, ok := encryptWithNonce(pub, msg, nonce, &EncrypterOpts{})
		fresh, _ := NewPublicKey(pub.Bytes())
		ct2, ok2 := encryptWithNonce(fresh, msg, nonce, &EncrypterOpts{})
		if !ok || !ok2 || string(ct1) != string(ct2) {
			t.Fatalf("round %d: ciphertexts with and without the table differ", round)
		}
		if pt, err := Decrypt(priv, ct1, nil); err != nil || string(pt) != string(msg) {
			t.Fatalf("round %d: decryption failed: %v", round, err)
		}
		dh, err := ECDH(other, pub)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			first, firstDH = ct1, dh
		} else if string(dh) != string(firstDH) {
			t.Fatalf("round %d: ECDH changed once the table was cached", round)
		}
	}
	if pub.table == nil || first == nil {
		t.Fatal("table not cached after repeated use")
	}
}
