package sm2

import (
	"bytes"
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/scalar"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
)

// sharedPointTwoStep is the key exchange's shared point computed the
// straightforward way, as this package did before the double-scalar
// multiplication: [x̄_peer]R_peer (variable time), plus P_peer, then [t] of
// the sum. It is the reference for sharedPoint.
func sharedPointTwoStep(ke *KeyExchange, peerPub, peerR *PublicKey) []byte {
	var t, x scalar.Scalar
	xb := xbar(ke.R)
	x.SetBytes(xb[:])
	t.Mul(&x, &ke.r)
	t.Add(&t, &ke.priv.d)
	var tb [32]byte
	t.PutBytes(&tb)
	var q, p sm2ec.Point
	xb = xbar(peerR)
	q.ScalarMultVarTime(peerR.point, xb[:])
	q.Add(&q, peerPub.point)
	p.ScalarMult(&q, tb[:])
	return p.Bytes()
}

// multiple returns [k]P as a public key, k reduced mod n and nonzero.
func multiple(t *testing.T, p *PublicKey, k *big.Int) *PublicKey {
	kb := new(big.Int).Mod(k, paramN).FillBytes(make([]byte, 32))
	q, err := sm2ec.NewPoint().ScalarMult(p.point, kb)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := newPublicKey(q)
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// TestSharedPointAgainstTwoStep compares the shared point with the two-step
// reference, on random keys and on peers that choose their ephemeral key
// as a known multiple of their static key (R = P, -P, 2P, -2P, [k]P for
// small k, and the multiples that make t·x̄ ≡ ±t), with the peer's key
// with and without its cached table.
func TestSharedPointAgainstTwoStep(t *testing.T) { eachImpl(t, testSharedPointAgainstTwoStep) }

func testSharedPointAgainstTwoStep(t *testing.T) {
	r := mrand.New(mrand.NewPCG(61, 62))
	own := mustKey(t)
	check := func(name string, peerPub, peerR *PublicKey, rounds int) {
		t.Helper()
		for range rounds {
			ke, err := NewKeyExchange(own, nil, 16, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ke.Init(rand.Reader); err != nil {
				t.Fatal(err)
			}
			want := sharedPointTwoStep(ke, peerPub, peerR)
			var got [65]byte
			err = ke.sharedPoint(&got, peerPub, peerR)
			if len(want) == 1 { // the identity
				if err == nil {
					t.Fatalf("%s: identity not rejected", name)
				}
				continue
			}
			if err != nil || !bytes.Equal(got[:], want) {
				t.Fatalf("%s: shared point %x, want %x (%v)", name, got, want, err)
			}
		}
	}
	for range 20 {
		check("random", mustKey(t).PublicKey(), mustKey(t).PublicKey(), 1)
	}
	peer := mustKey(t).PublicKey()
	ks := []int64{1, -1, 2, -2, 3, -3, 16, 31, -31, 32, 33}
	for range 4 {
		ks = append(ks, int64(r.Uint32()))
	}
	for _, k := range ks {
		// Fresh copies of the peer key: without a table on the first
		// use, with one from the second.
		pp, _ := NewPublicKey(peer.Bytes())
		check("R = kP", pp, multiple(t, pp, big.NewInt(k)), 4)
	}
	// The two scalars t and t·x̄ cannot be equal or opposite (x̄ ≥ 2^127),
	// but the peer can make the two halves of the sum equal or opposite
	// by choosing P = ±[x̄_R]R: then [t]P = ±[t·x̄]R, and U = [2t·x̄]R or
	// the identity (which must be rejected).
	for k := int64(2); k < 6; k++ {
		R := multiple(t, peer, big.NewInt(k))
		xb := xbar(R)
		x := new(big.Int).SetBytes(xb[:])
		check("P = [x̄]R", multiple(t, R, x), R, 2)
		check("P = -[x̄]R", multiple(t, R, new(big.Int).Neg(x)), R, 2)
	}
	// The peer sends R = -P with its own static key: then U may be the
	// identity for some t and must be rejected, not computed wrong.
	pp, _ := NewPublicKey(peer.Bytes())
	check("R = -P", pp, multiple(t, pp, big.NewInt(-1)), 8)
}

// TestKeyExchangeAdversarialPeer runs whole exchanges in which the
// initiator's ephemeral key is a multiple of its static key, and checks
// that both sides still agree.
func TestKeyExchangeAdversarialPeer(t *testing.T) { eachImpl(t, testKeyExchangeAdversarialPeer) }

func testKeyExchangeAdversarialPeer(t *testing.T) {
	for _, k := range []int64{1, -1, 2, 7} {
		server, client := mustKey(t), mustKey(t)
		a, _ := NewKeyExchange(server, nil, 32, true)
		// r_A = k·d_A mod n, so R_A = [k]P_A.
		var r scalar.Scalar
		kb := new(big.Int).Mod(big.NewInt(k), paramN).FillBytes(make([]byte, 32))
		r.SetBytes(kb)
		r.Mul(&r, &server.d)
		var rb [32]byte
		r.PutBytes(&rb)
		rA, err := a.initWithScalar(&r, rb[:])
		if err != nil {
			t.Fatal(err)
		}
		if k == 1 && !rA.Equal(server.PublicKey()) {
			t.Fatal("R_A is not P_A")
		}
		for range 3 {
			b, _ := NewKeyExchange(client, nil, 32, false)
			keyB, sB, errB := b.Respond(rand.Reader, server.PublicKey(), nil, rA)
			keyA, _, errA := a.Complete(client.PublicKey(), nil, b.EphemeralPublicKey(), sB)
			if errA != nil || errB != nil || !bytes.Equal(keyA, keyB) {
				t.Fatalf("k = %d: exchange failed (%v, %v)", k, errA, errB)
			}
		}
	}
}

// TestDefaultZ checks the precomputed prefix of Z(DefaultUID) against the
// full hash.
func TestDefaultZ(t *testing.T) {
	for range 4 {
		pub, _ := NewPublicKey(mustKey(t).PublicKey().Bytes())
		want := computeZ(pub, []byte(DefaultUID))
		if got := pub.Z(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("Z(nil) = %x, want %x", got, want)
		}
		if got := pub.Z([]byte(DefaultUID)); !bytes.Equal(got, want[:]) {
			t.Fatalf("Z(DefaultUID) = %x, want %x", got, want)
		}
	}
}

// BenchmarkSharedPoint compares the double-scalar multiplication with the
// two-step reference, with the peer's key cached (table) or fresh.
func BenchmarkSharedPoint(b *testing.B) {
	own, peer, peerR := mustKey(b), mustKey(b).PublicKey(), mustKey(b).PublicKey()
	ke, _ := NewKeyExchange(own, nil, 16, false)
	ke.Init(rand.Reader)
	var out [65]byte
	b.Run("table", func(b *testing.B) {
		peer.pointTable()
		peer.pointTable()
		for b.Loop() {
			ke.sharedPoint(&out, peer, peerR)
		}
	})
	b.Run("fresh", func(b *testing.B) {
		enc := peer.Bytes()
		for b.Loop() {
			p, _ := NewPublicKey(enc)
			ke.sharedPoint(&out, p, peerR)
		}
	})
	b.Run("two-step", func(b *testing.B) {
		for b.Loop() {
			sharedPointTwoStep(ke, peer, peerR)
		}
	})
}
