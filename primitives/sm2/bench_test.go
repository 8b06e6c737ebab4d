package sm2

import (
	"crypto/rand"
	"testing"
)

func BenchmarkSign(b *testing.B) {
	priv := mustKey(b)
	msg := make([]byte, 128)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SignASN1(rand.Reader, priv, msg, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	priv := mustKey(b)
	msg := make([]byte, 128)
	sig, _ := SignASN1(rand.Reader, priv, msg, nil)
	pub := priv.PublicKey()
	b.ReportAllocs()
	for b.Loop() {
		if !VerifyASN1(pub, msg, nil, sig) {
			b.Fatal("verify failed")
		}
	}
}

func BenchmarkKeyExchange(b *testing.B) {
	own, peer, peerEph := mustKey(b), mustKey(b), mustKey(b)
	b.ReportAllocs()
	for b.Loop() {
		ke, err := NewKeyExchange(own, nil, 48, false)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := ke.Respond(rand.Reader, peer.PublicKey(), nil, peerEph.PublicKey()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncrypt32(b *testing.B) {
	pub := mustKey(b).PublicKey()
	msg := make([]byte, 32)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encrypt(rand.Reader, pub, msg, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecrypt32(b *testing.B) {
	priv := mustKey(b)
	ct, _ := Encrypt(rand.Reader, priv.PublicKey(), make([]byte, 32), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decrypt(priv, ct, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerateKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GenerateKey(rand.Reader); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewPublicKey(b *testing.B) {
	pub := mustKey(b).PublicKey()
	for _, enc := range []struct {
		name string
		b    []byte
	}{{"uncompressed", pub.Bytes()}, {"compressed", pub.BytesCompressed()}} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewPublicKey(enc.b); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
