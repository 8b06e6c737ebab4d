// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm2_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/dudect"
	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
)

// edgeScalar has long runs of zero windows and a single set bit in most
// of its bytes: a scalar multiplication that skipped zero windows, or a
// reduction that ended early on small limbs, would be fast on it.
var edgeScalar = func() []byte {
	b := make([]byte, 32)
	b[0], b[16], b[31] = 0x01, 0x80, 0x01
	return b
}()

// randScalar returns a valid private key's bytes from rnd.
func randScalar(rnd *rand.Rand) []byte {
	for {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		if _, err := sm2.NewPrivateKey(b); err == nil {
			return b
		}
	}
}

// fixedScalar is one random private key, the same in every run: the class
// the edge key is measured against.
var fixedScalar = randScalar(rand.New(rand.NewPCG(5, 6)))

// otherFixedScalar is a second fixed random key, for the experiments'
// fixed/fixed2 pair.
var otherFixedScalar = randScalar(rand.New(rand.NewPCG(7, 8)))

// keyOf returns class 0's key (the edge scalar) or class 1's (fixedScalar).
// Both classes repeat one key, so only the key's value differs between
// them. Measuring the edge key against fresh random keys instead, as the
// targets did until session 14, finds a difference that is not the key's
// value: TestSM2TimingExperiments gives |t| up to 194 for any one repeated
// key (a random one as much as the edge one) against fresh keys, and at
// most 2.5 for the edge key against a fixed random one, where the A/A
// control reaches 3.1. A long-term key is one repeated key, so the
// fixed/fixed pair is what its owner's peers can measure; an ephemeral
// key is fresh in both classes (A/A).
func keyOf(class int) *sm2.PrivateKey {
	b := edgeScalar
	if class == 1 {
		b = fixedScalar
	}
	k, err := sm2.NewPrivateKey(b)
	if err != nil {
		panic(err)
	}
	return k
}

// seeded is a deterministic random source for the operations' own
// randomness (nonces, ephemeral keys), so that both classes draw from the
// same kind of source.
type seeded struct{ r *rand.Rand }

func (s seeded) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(s.r.Uint32())
	}
	return len(p), nil
}

// tableOf returns the cached-table form of pub that sm2 keeps for a key
// used again, for timing the table multiplication on its own.
func tableOf(t *testing.T, pub *sm2.PublicKey) *sm2ec.PointTable {
	q, err := sm2ec.NewPoint().SetBytes(pub.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	table, err := sm2ec.NewPointTable(q)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// TestConstantTimeSM2 measures the operations on the private scalar, with
// the default kernels and with the portable field arithmetic: signing,
// the fixed-base comb (a public key from its private key, blinded, and
// unblinded), ECDH (blinded) and the table multiplication unblinded, the
// key exchange's responder and decryption, each with a zero-window-heavy private key against one fixed
// random key (keyOf). The targets fail above dudect.Threshold like every
// other; while they compared the edge key with fresh random keys they were
// only logged, for the repetition effect keyOf describes.
func TestConstantTimeSM2(t *testing.T) {
	peer, _ := sm2.NewPrivateKey(randScalar(rand.New(rand.NewPCG(1, 2))))
	digest := bytes.Repeat([]byte{0x5a}, 32)
	msg := []byte("a message to decrypt: 32 bytes!!")
	peerKE, _ := sm2.NewKeyExchange(peer, nil, 16, true)
	peerR, _ := peerKE.Init(seeded{rand.New(rand.NewPCG(3, 4))})
	peerTable := tableOf(t, peer.PublicKey())

	for _, kernels := range []string{"default", "generic"} {
		t.Run(kernels, func(t *testing.T) {
			if kernels == "generic" {
				impl.Select("sm2", "generic")
				defer impl.Reset("sm2")
			}
			type keyed struct {
				k   *sm2.PrivateKey
				d   []byte
				ct  []byte
				rnd seeded
			}
			in := func(class int, rnd *rand.Rand) keyed {
				k := keyOf(class)
				return keyed{k: k, d: k.Bytes(), rnd: seeded{rand.New(rand.NewPCG(rnd.Uint64(), 0))}}
			}
			t.Run("sign", func(t *testing.T) {
				dudect.Test(t, false, in, func(x *keyed) {
					if _, err := sm2.SignDigestASN1(x.rnd, x.k, digest); err != nil {
						panic(err)
					}
				})
			})
			t.Run("fixed-base comb", func(t *testing.T) {
				dudect.Test(t, false, in, func(x *keyed) {
					if _, err := sm2.NewPrivateKey(x.d); err != nil {
						panic(err)
					}
				})
			})
			// The comb and the table multiplication unblinded, as nonces
			// and ephemeral keys use them: blinding makes a leak of the
			// instructions average out, so these targets are what would
			// catch one.
			t.Run("fixed-base comb, unblinded", func(t *testing.T) {
				dudect.Test(t, false, in, func(x *keyed) {
					if _, err := sm2ec.NewPoint().ScalarBaseMult(x.d); err != nil {
						panic(err)
					}
				})
			})
			t.Run("ECDH", func(t *testing.T) {
				dudect.Test(t, false, in, func(x *keyed) {
					if _, err := sm2.ECDH(x.k, peer.PublicKey()); err != nil {
						panic(err)
					}
				})
			})
			t.Run("table multiplication, unblinded", func(t *testing.T) {
				dudect.Test(t, false, in, func(x *keyed) {
					if _, err := sm2ec.NewPoint().ScalarMultTable(peerTable, x.d); err != nil {
						panic(err)
					}
				})
			})
			t.Run("key exchange", func(t *testing.T) {
				// The KeyExchange (Z from d's public key) is built inside
				// the timed region: d enters both it and t = d + x̄·r.
				dudect.Test(t, false, in, func(x *keyed) {
					ke, err := sm2.NewKeyExchange(x.k, nil, 16, false)
					if err != nil {
						panic(err)
					}
					if _, _, err := ke.Respond(x.rnd, peer.PublicKey(), nil, peerR); err != nil {
						panic(err)
					}
				})
			})
			t.Run("decrypt", func(t *testing.T) {
				enc := func(class int, rnd *rand.Rand) keyed {
					x := in(class, rnd)
					var err error
					if x.ct, err = sm2.EncryptASN1(seeded{rnd}, x.k.PublicKey(), msg); err != nil {
						panic(err)
					}
					return x
				}
				dudect.Test(t, false, enc, func(x *keyed) {
					if _, err := sm2.DecryptASN1(x.k, x.ct); err != nil {
						panic(err)
					}
				})
			})
		})
	}
}
