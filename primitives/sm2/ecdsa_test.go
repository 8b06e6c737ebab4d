package sm2

//lint:file-ignore SA1019 this file tests the bridge to crypto/ecdsa and elliptic.Curve (ecdsa.go, curve.go), which can only be reached through API Go has deprecated

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"math/big"
	"testing"
)

func TestECDSAConversions(t *testing.T) {
	priv := mustKey(t)
	epriv := priv.ECDSA()
	if epriv.Curve != P256() || !P256().IsOnCurve(epriv.X, epriv.Y) {
		t.Fatal("ECDSA key not on P256()")
	}
	back, err := PrivateKeyFromECDSA(epriv)
	if err != nil || !back.Equal(priv) {
		t.Fatalf("PrivateKeyFromECDSA: %v", err)
	}
	pub, err := PublicKeyFromECDSA(&epriv.PublicKey)
	if err != nil || !pub.Equal(priv.PublicKey()) {
		t.Fatalf("PublicKeyFromECDSA: %v", err)
	}
	nist := &ecdsa.PublicKey{Curve: elliptic.P256(), X: epriv.X, Y: epriv.Y}
	if _, err := PublicKeyFromECDSA(nist); err == nil {
		t.Fatal("accepted a NIST P-256 key")
	}
	other := mustKey(t).ECDSA()
	mismatched := &ecdsa.PrivateKey{PublicKey: other.PublicKey, D: epriv.D}
	if _, err := PrivateKeyFromECDSA(mismatched); err == nil {
		t.Fatal("accepted a private key with someone else's public key")
	}
	if _, err := PublicKeyFromECDSA(&ecdsa.PublicKey{Curve: P256(), X: big.NewInt(1), Y: big.NewInt(2)}); err == nil {
		t.Fatal("accepted an off-curve point")
	}
	if _, err := PublicKeyFromECDSA(nil); err == nil {
		t.Fatal("accepted nil")
	}
}

func TestCurveInterface(t *testing.T) {
	c := P256()
	p := c.Params()
	if p.Name != "sm2p256v1" || p.BitSize != 256 || !c.IsOnCurve(p.Gx, p.Gy) {
		t.Fatal("bad params")
	}
	k := []byte{1, 2, 3, 4, 5}
	x1, y1 := c.ScalarBaseMult(k)
	x2, y2 := c.ScalarMult(p.Gx, p.Gy, k)
	if x1.Cmp(x2) != 0 || y1.Cmp(y2) != 0 {
		t.Fatal("ScalarBaseMult != ScalarMult(G)")
	}
	dx, dy := c.Double(p.Gx, p.Gy)
	ax, ay := c.Add(p.Gx, p.Gy, p.Gx, p.Gy)
	tx, ty := c.ScalarBaseMult([]byte{2})
	if dx.Cmp(ax) != 0 || dy.Cmp(ay) != 0 || dx.Cmp(tx) != 0 || dy.Cmp(ty) != 0 {
		t.Fatal("Double/Add/ScalarBaseMult(2) disagree")
	}
	// G + (-G) is the identity, (0, 0).
	negY := new(big.Int).Sub(p.P, p.Gy)
	if x, y := c.Add(p.Gx, p.Gy, p.Gx, negY); x.Sign() != 0 || y.Sign() != 0 {
		t.Fatal("G + -G is not (0, 0)")
	}
	// n·G is the identity; long scalars are reduced.
	if x, y := c.ScalarBaseMult(p.N.Bytes()); x.Sign() != 0 || y.Sign() != 0 {
		t.Fatal("n·G is not the identity")
	}
	long := append(make([]byte, 8), k...)
	if x, _ := c.ScalarBaseMult(long); x.Cmp(x1) != 0 {
		t.Fatal("leading zeros changed the result")
	}
	// Invalid points give (0, 0), not a panic.
	if x, y := c.ScalarMult(big.NewInt(1), big.NewInt(1), k); x.Sign() != 0 || y.Sign() != 0 {
		t.Fatal("invalid point accepted")
	}
	if c.IsOnCurve(big.NewInt(1), big.NewInt(1)) || c.IsOnCurve(new(big.Int).Neg(p.Gx), p.Gy) {
		t.Fatal("IsOnCurve accepted an invalid point")
	}
	b := elliptic.Marshal(c, x1, y1)
	if ux, uy := elliptic.Unmarshal(c, b); ux.Cmp(x1) != 0 || uy.Cmp(y1) != 0 {
		t.Fatal("elliptic.Marshal round trip")
	}
}

// TestECDSAForeignCurve: keys on another package's implementation of
// sm2p256v1 (gmsm's, say) convert by the curve's parameters, and a key parsed
// from its compressed form gives the same view as the original.
func TestECDSAForeignCurve(t *testing.T) {
	params := *P256().Params()
	foreign := &params // *elliptic.CurveParams is an elliptic.Curve
	priv := mustKey(t)
	e := priv.ECDSA()
	e.Curve = foreign
	back, err := PrivateKeyFromECDSA(e)
	if err != nil || !back.Equal(priv) {
		t.Fatalf("PrivateKeyFromECDSA on a foreign SM2 curve: %v", err)
	}
	pub, err := PublicKeyFromECDSA(&e.PublicKey)
	if err != nil || !pub.Equal(priv.PublicKey()) {
		t.Fatalf("PublicKeyFromECDSA on a foreign SM2 curve: %v", err)
	}
	pc, err := NewPublicKey(priv.PublicKey().BytesCompressed())
	if err != nil {
		t.Fatal(err)
	}
	if v := pc.ECDSA(); v.X.Cmp(e.X) != 0 || v.Y.Cmp(e.Y) != 0 {
		t.Fatal("the compressed key's ECDSA view differs")
	}
	// Without its public point the private key still converts.
	bare := &ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: foreign}, D: e.D}
	if back, err := PrivateKeyFromECDSA(bare); err != nil || !back.Equal(priv) {
		t.Fatalf("PrivateKeyFromECDSA without the public point: %v", err)
	}
	for name, d := range map[string]*big.Int{"nil": nil, "zero": new(big.Int), "negative": big.NewInt(-1),
		"n-1": new(big.Int).Sub(params.N, big.NewInt(1)), "2^256": new(big.Int).Lsh(big.NewInt(1), 256)} {
		k := &ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: foreign}, D: d}
		if _, err := PrivateKeyFromECDSA(k); err == nil {
			t.Errorf("PrivateKeyFromECDSA accepted D = %s", name)
		}
	}
}
