package sm2

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"errors"
	"math/big"
	"testing"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

var (
	_ crypto.Signer    = (*PrivateKey)(nil)
	_ crypto.Decrypter = (*PrivateKey)(nil)
)

func mustKey(t testing.TB) *PrivateKey {
	t.Helper()
	k, err := GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestPrivateKeyRange(t *testing.T) {
	one := big.NewInt(1)
	for _, c := range []struct {
		d  *big.Int
		ok bool
	}{
		{big.NewInt(0), false},
		{one, true},
		{new(big.Int).Sub(paramN, big.NewInt(2)), true},
		{new(big.Int).Sub(paramN, one), false},
		{paramN, false},
		{new(big.Int).Add(paramN, one), false},
		{new(big.Int).Sub(new(big.Int).Lsh(one, 256), one), false},
	} {
		priv, err := NewPrivateKey(c.d.FillBytes(make([]byte, 32)))
		if (err == nil) != c.ok {
			t.Errorf("NewPrivateKey(%x): err = %v, want ok = %v", c.d, err, c.ok)
		}
		if err == nil {
			if !bytes.Equal(priv.Bytes(), c.d.FillBytes(make([]byte, 32))) {
				t.Errorf("Bytes round trip failed for %x", c.d)
			}
		}
	}
	for _, n := range []int{0, 31, 33} {
		if _, err := NewPrivateKey(make([]byte, n)); err == nil {
			t.Errorf("NewPrivateKey accepted %d bytes", n)
		}
	}
	// A random source that only returns n-1 (out of range for a key).
	nm1 := new(big.Int).Sub(paramN, big.NewInt(1)).FillBytes(make([]byte, 32))
	if _, err := GenerateKey(bytes.NewReader(bytes.Repeat(nm1, 100))); err == nil {
		t.Error("GenerateKey accepted n-1 from the random source")
	}
}

func TestPublicKeyEncoding(t *testing.T) {
	priv := mustKey(t)
	pub := priv.PublicKey()
	for _, enc := range [][]byte{pub.Bytes(), pub.BytesCompressed()} {
		p, err := NewPublicKey(enc)
		if err != nil || !p.Equal(pub) {
			t.Fatalf("NewPublicKey(%x): %v", enc, err)
		}
	}
	if pub.Equal(mustKey(t).PublicKey()) || pub.Equal("x") {
		t.Fatal("Equal accepted a different key")
	}
	bad := pub.Bytes()
	bad[64] ^= 1
	for _, b := range [][]byte{bad, {0}, nil, pub.Bytes()[:64], append(pub.Bytes(), 0)} {
		if _, err := NewPublicKey(b); err == nil {
			t.Errorf("NewPublicKey accepted %x", b)
		}
	}
	if priv.Public().(*PublicKey) != pub || !priv.Equal(priv) || priv.Equal(mustKey(t)) {
		t.Fatal("Public/Equal")
	}
}

func TestSignVerify(t *testing.T) { eachImpl(t, testSignVerify) }

func testSignVerify(t *testing.T) {
	priv := mustKey(t)
	pub := priv.PublicKey()
	msg := []byte("message to sign")

	sig, err := priv.Sign(rand.Reader, msg, nil)
	if err != nil || !VerifyASN1(pub, msg, nil, sig) || !VerifyASN1(pub, msg, []byte(DefaultUID), sig) {
		t.Fatalf("Sign with nil opts: %v", err)
	}
	uid := []byte("bob@example.org")
	sig, err = priv.Sign(rand.Reader, msg, &SignerOpts{UID: uid})
	if err != nil || !VerifyASN1(pub, msg, uid, sig) || VerifyASN1(pub, msg, nil, sig) {
		t.Fatalf("Sign with a UID: %v", err)
	}
	if sig, err = priv.Sign(rand.Reader, msg, &SignerOpts{}); err != nil || !VerifyASN1(pub, msg, nil, sig) {
		t.Fatal("empty SignerOpts must mean the default UID")
	}
	// With a hash function in opts, msg is the digest e.
	e, _ := digest(pub, msg, nil)
	sig, err = priv.Sign(rand.Reader, e[:], crypto.SHA256)
	if err != nil || !VerifyDigestASN1(pub, e[:], sig) || !VerifyASN1(pub, msg, nil, sig) {
		t.Fatalf("Sign of a digest: %v", err)
	}
	if _, err := priv.Sign(rand.Reader, e[:31], crypto.SHA256); err == nil {
		t.Fatal("signed a 31-byte digest")
	}
	if VerifyASN1(pub, []byte("other message"), nil, sig) || VerifyASN1(mustKey(t).PublicKey(), msg, nil, sig) {
		t.Fatal("signature verified for the wrong message or key")
	}
	if _, err := SignASN1(rand.Reader, priv, msg, make([]byte, 8192)); err == nil {
		t.Fatal("accepted a UID too long for ENTL")
	}
	if pub.Z(make([]byte, 8192)) != nil || len(pub.Z(make([]byte, 8191))) != 32 {
		t.Fatal("Z length limits")
	}
	if !bytes.Equal(pub.Z(nil), pub.Z([]byte(DefaultUID))) || bytes.Equal(pub.Z(nil), pub.Z([]byte{})) {
		t.Fatal("Z(nil) must be the default UID and Z(empty) the empty one")
	}
}

// TestHedgedNonce checks that a broken random source neither breaks signing
// nor makes two different messages share a nonce (which would leak d).
func TestHedgedNonce(t *testing.T) {
	priv := mustKey(t)
	s1, err := SignASN1(zeroReader{}, priv, []byte("one"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := SignASN1(zeroReader{}, priv, []byte("two"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r1, _, _ := parseSignature(s1)
	r2, _, _ := parseSignature(s2)
	e1, _ := digest(priv.pub, []byte("one"), nil)
	e2, _ := digest(priv.pub, []byte("two"), nil)
	// r - e = x1 mod n depends only on the nonce.
	x1 := new(big.Int).Sub(new(big.Int).SetBytes(r1), new(big.Int).SetBytes(e1[:]))
	x2 := new(big.Int).Sub(new(big.Int).SetBytes(r2), new(big.Int).SetBytes(e2[:]))
	if x1.Mod(x1, paramN).Cmp(x2.Mod(x2, paramN)) == 0 {
		t.Fatal("two messages were signed with the same nonce")
	}
	a, _ := SignASN1(rand.Reader, priv, []byte("one"), nil)
	b, _ := SignASN1(rand.Reader, priv, []byte("one"), nil)
	if bytes.Equal(a, b) {
		t.Fatal("signatures with a working random source are not randomised")
	}
	if _, err := SignASN1(bytes.NewReader(nil), priv, []byte("x"), nil); err == nil {
		t.Fatal("signing succeeded with a failing random source")
	}
}

func derSig(r, s *big.Int) []byte {
	var b cryptobyte.Builder
	b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1BigInt(r)
		b.AddASN1BigInt(s)
	})
	return b.BytesOrPanic()
}

func TestSignatureRejects(t *testing.T) {
	priv := mustKey(t)
	pub := priv.PublicKey()
	msg := []byte("msg")
	sig, _ := SignASN1(rand.Reader, priv, msg, nil)
	rb, sb, ok := parseSignature(sig)
	if !ok {
		t.Fatal("cannot parse own signature")
	}
	r, s := new(big.Int).SetBytes(rb), new(big.Int).SetBytes(sb)
	if !VerifyASN1(pub, msg, nil, derSig(r, s)) {
		t.Fatal("re-encoded signature does not verify")
	}
	zero, one := big.NewInt(0), big.NewInt(1)
	n := paramN
	cases := map[string][]byte{
		"empty":          {},
		"truncated":      sig[:len(sig)-1],
		"trailing":       append(append([]byte{}, sig...), 0),
		"wrong tag":      append([]byte{0x31}, sig[1:]...),
		"r zero":         derSig(zero, s),
		"s zero":         derSig(r, zero),
		"r = n":          derSig(n, s),
		"s = n":          derSig(r, n),
		"r + n":          derSig(new(big.Int).Add(r, n), s),
		"s + n":          derSig(r, new(big.Int).Add(s, n)),
		"r negative":     derSig(new(big.Int).Neg(r), s),
		"s negative":     derSig(r, new(big.Int).Neg(s)),
		"r + s = n":      derSig(r, new(big.Int).Sub(n, r)),
		"s + 1":          derSig(r, new(big.Int).Add(s, one)),
		"three integers": append([]byte{0x30, byte(len(sig) - 2 + 3)}, append(append([]byte{}, sig[2:]...), 2, 1, 1)...),
	}
	// Non-minimal INTEGER: r with an extra leading zero byte.
	nm := []byte{0x30, 0}
	rEnc := append([]byte{0, 0}, rb...)
	nm = append(nm, 2, byte(len(rEnc)))
	nm = append(nm, rEnc...)
	var sBuilder cryptobyte.Builder
	sBuilder.AddASN1BigInt(s)
	nm = append(nm, sBuilder.BytesOrPanic()...)
	nm[1] = byte(len(nm) - 2)
	cases["non-minimal"] = nm
	for name, c := range cases {
		if VerifyASN1(pub, msg, nil, c) {
			t.Errorf("%s: accepted", name)
		}
	}
	if VerifyDigestASN1(pub, make([]byte, 31), sig) {
		t.Error("accepted a 31-byte digest")
	}
}

func TestEncryptDecrypt(t *testing.T) { eachImpl(t, testEncryptDecrypt) }

func testEncryptDecrypt(t *testing.T) {
	priv := mustKey(t)
	pub := priv.PublicKey()
	msg := []byte("the premaster secret, 48 bytes long, more or less")
	for _, opts := range []*EncrypterOpts{nil, {Order: C1C2C3}, {CompressC1: true}, {Order: C1C2C3, CompressC1: true}, {ASN1: true}} {
		ct, err := Encrypt(rand.Reader, pub, msg, opts)
		if err != nil {
			t.Fatal(err)
		}
		var dopts *DecrypterOpts
		if opts != nil {
			dopts = &DecrypterOpts{Order: opts.Order, ASN1: opts.ASN1}
		}
		got, err := Decrypt(priv, ct, dopts)
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("%+v: %x, %v", opts, got, err)
		}
		// Tampering anywhere fails with ErrDecryption.
		for _, i := range []int{0, 1, 40, len(ct) - 40, len(ct) - 1} {
			bad := append([]byte{}, ct...)
			bad[i] ^= 0x10
			if _, err := Decrypt(priv, bad, dopts); !errors.Is(err, ErrDecryption) {
				t.Fatalf("%+v: tampered byte %d: err = %v", opts, i, err)
			}
		}
		if _, err := Decrypt(mustKey(t), ct, dopts); err != ErrDecryption {
			t.Fatalf("wrong key: err = %v", err)
		}
		if _, err := Decrypt(priv, ct[:len(ct)/2], dopts); err != ErrDecryption {
			t.Fatalf("truncated: err = %v", err)
		}
	}
	if _, err := Encrypt(rand.Reader, pub, nil, nil); err == nil {
		t.Fatal("encrypted an empty message")
	}
	if _, err := Encrypt(rand.Reader, pub, msg, &EncrypterOpts{Order: 7}); err == nil {
		t.Fatal("accepted an unknown order")
	}
	if _, err := Decrypt(priv, msg, &DecrypterOpts{Order: 7}); err != ErrDecryption {
		t.Fatal("accepted an unknown order")
	}
	if _, err := Decrypt(priv, nil, nil); err != ErrDecryption {
		t.Fatal("empty ciphertext")
	}
	// An off-curve C1 is rejected (an invalid-curve attack would feed one).
	ct, _ := Encrypt(rand.Reader, pub, msg, nil)
	ct[64] ^= 1
	if _, err := Decrypt(priv, ct, nil); err != ErrDecryption {
		t.Fatal("off-curve C1 accepted")
	}
	// The identity as C1 (a single 00 byte) is not a valid encoding.
	if _, err := Decrypt(priv, append([]byte{0}, make([]byte, 40)...), nil); err != ErrDecryption {
		t.Fatal("identity C1 accepted")
	}
	asn, _ := EncryptASN1(rand.Reader, pub, msg)
	for _, c := range [][]byte{asn[:len(asn)-1], append([]byte{0x31}, asn[1:]...)} {
		if _, err := DecryptASN1(priv, c); err != ErrDecryption {
			t.Fatal("malformed ASN.1 accepted")
		}
	}
}

// TestDecryptZeroKDF checks the KDF all-zero rule on the decryption side via
// a ciphertext whose C2 is empty (KDF of zero length is "all zero").
func TestDecryptEmptyC2(t *testing.T) {
	priv := mustKey(t)
	ct, _ := Encrypt(rand.Reader, priv.PublicKey(), []byte{1}, nil)
	if _, err := Decrypt(priv, ct[:65+32], nil); err != ErrDecryption {
		t.Fatal("empty C2 accepted")
	}
}

func TestKeyExchangeTLCP(t *testing.T) { eachImpl(t, testKeyExchangeTLCP) }

func testKeyExchangeTLCP(t *testing.T) {
	server, client := mustKey(t), mustKey(t)

	// The server (initiator) makes R_A before it knows the client's key.
	a, err := NewKeyExchange(server, nil, 48, true)
	if err != nil {
		t.Fatal(err)
	}
	rA, err := a.Init(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := a.Init(rand.Reader); again != rA {
		t.Fatal("Init is not idempotent")
	}
	b, err := NewKeyExchange(client, nil, 48, false)
	if err != nil {
		t.Fatal(err)
	}
	keyB, sB, err := b.Respond(rand.Reader, server.PublicKey(), nil, rA)
	if err != nil {
		t.Fatal(err)
	}
	keyA, sA, err := a.Complete(client.PublicKey(), nil, b.EphemeralPublicKey(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(keyA) != 48 || !bytes.Equal(keyA, keyB) {
		t.Fatal("keys differ")
	}
	if err := b.VerifyInitiator(sA); err != nil {
		t.Fatal(err)
	}
	// With confirmation; a wrong S_B is rejected.
	if _, _, err := a.Complete(client.PublicKey(), nil, b.EphemeralPublicKey(), sB); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte{}, sB...)
	bad[0] ^= 1
	if _, _, err := a.Complete(client.PublicKey(), nil, b.EphemeralPublicKey(), bad); err == nil {
		t.Fatal("wrong S_B accepted")
	}
	// Different UIDs on the two sides change the key.
	c, _ := NewKeyExchange(server, []byte("other"), 48, true)
	c.Init(rand.Reader)
	d, _ := NewKeyExchange(client, nil, 48, false)
	k1, _, _ := d.Respond(rand.Reader, server.PublicKey(), nil, c.EphemeralPublicKey())
	k2, _, _ := c.Complete(client.PublicKey(), nil, d.EphemeralPublicKey(), nil)
	if bytes.Equal(k1, k2) {
		t.Fatal("mismatched UIDs still agreed")
	}
	// Role and order errors.
	if _, _, err := a.Respond(rand.Reader, client.PublicKey(), nil, rA); err == nil {
		t.Fatal("initiator responded")
	}
	if _, _, err := b.Complete(server.PublicKey(), nil, rA, nil); err == nil {
		t.Fatal("responder completed")
	}
	e, _ := NewKeyExchange(server, nil, 48, true)
	if _, _, err := e.Complete(client.PublicKey(), nil, rA, nil); err == nil {
		t.Fatal("Complete before Init")
	}
	if _, err := NewKeyExchange(server, nil, 0, true); err == nil {
		t.Fatal("keyLen 0 accepted")
	}
	f, _ := NewKeyExchange(client, nil, 48, false)
	if f.VerifyInitiator(sA) == nil {
		t.Fatal("VerifyInitiator before Respond")
	}
}

func TestECDH(t *testing.T) { eachImpl(t, testECDH) }

func testECDH(t *testing.T) {
	a, b := mustKey(t), mustKey(t)
	s1, err := ECDH(a, b.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ECDH(b, a.PublicKey())
	if err != nil || !bytes.Equal(s1, s2) || len(s1) != 32 {
		t.Fatal("ECDH mismatch")
	}
	c := loadCurves(t)["sm2p256v1"]
	want := c.mul(refPointFrom(b.PublicKey().Bytes()), new(big.Int).SetBytes(a.Bytes()))
	if want == nil || !bytes.Equal(fe32(want.x), s1) {
		t.Fatal("ECDH differs from the reference scalar multiplication")
	}
}

// TestZeroValues checks that nil and zero-value keys give errors, not panics.
func TestZeroValues(t *testing.T) {
	var zpub PublicKey
	var zpriv PrivateKey
	msg := []byte("m")
	if VerifyASN1(nil, msg, nil, nil) || VerifyASN1(&zpub, msg, nil, nil) || VerifyDigestASN1(&zpub, make([]byte, 32), nil) {
		t.Fatal("verified with a nil key")
	}
	if _, err := SignASN1(rand.Reader, &zpriv, msg, nil); err == nil {
		t.Fatal("signed with a zero key")
	}
	if _, err := SignDigestASN1(rand.Reader, nil, make([]byte, 32)); err == nil {
		t.Fatal("signed with a nil key")
	}
	if _, err := Encrypt(rand.Reader, &zpub, msg, nil); err == nil {
		t.Fatal("encrypted to a zero key")
	}
	if _, err := Decrypt(&zpriv, msg, nil); err != ErrDecryption {
		t.Fatal("decrypted with a zero key")
	}
	if _, err := ECDH(&zpriv, &zpub); err == nil {
		t.Fatal("ECDH with zero keys")
	}
	if _, err := NewKeyExchange(&zpriv, nil, 48, true); err == nil {
		t.Fatal("key exchange with a zero key")
	}
	ke, _ := NewKeyExchange(mustKey(t), nil, 48, false)
	if _, _, err := ke.Respond(rand.Reader, &zpub, nil, &zpub); err == nil {
		t.Fatal("responded to zero keys")
	}
}

func TestNilRand(t *testing.T) {
	priv, err := GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := SignASN1(nil, priv, []byte("m"), nil)
	if err != nil || !VerifyASN1(priv.PublicKey(), []byte("m"), nil, sig) {
		t.Fatal(err)
	}
	ct, err := Encrypt(nil, priv.PublicKey(), []byte("m"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Decrypt(priv, ct, nil); err != nil || string(m) != "m" {
		t.Fatal(err)
	}
}
