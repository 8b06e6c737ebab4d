// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/internal/testvec"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// unhex decodes hex that may contain spaces or line breaks, as the specs print it.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestPRFVectors(t *testing.T) {
	dir, err := testvec.Dir()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "prf_sm3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			ID     string `json:"id"`
			Secret string `json:"secret_hex"`
			Label  string `json:"label_hex"`
			Seed   string `json:"seed_hex"`
			Length int    `json:"output_length"`
			Output string `json:"output_hex"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	for _, v := range file.Vectors {
		t.Run(v.ID, func(t *testing.T) {
			want := unhex(t, v.Output)
			if len(want) != v.Length {
				t.Fatalf("vector length %d != output_length %d", len(want), v.Length)
			}
			got := make([]byte, v.Length)
			PRF(got, unhex(t, v.Secret), string(unhex(t, v.Label)), unhex(t, v.Seed))
			if !bytes.Equal(got, want) {
				t.Errorf("PRF = %x, want %x", got, want)
			}
			// Every prefix is the start of the same stream.
			for _, n := range []int{0, 1, 31, 32, 33} {
				if n > v.Length {
					continue
				}
				short := make([]byte, n)
				PRF(short, unhex(t, v.Secret), string(unhex(t, v.Label)), unhex(t, v.Seed))
				if !bytes.Equal(short, want[:n]) {
					t.Errorf("PRF[:%d] = %x, want %x", n, short, want[:n])
				}
			}
		})
	}
}

// Values of tlcp/INTEROP.md §10.
var (
	katClientRandom = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	katServerRandom = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	katPremaster    = "010102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
		"202122232425262728292a2b2c2d2e2f"
	katMaster = "2f4441f8438f07b18b2bf73eeafed437fafbdb8eace17433816c6617a8a327cd" +
		"c3748d92d98d07aeb532acee5882c12b"
	katKeyBlock = "e41131a49d4d2a4b720062f4628d57edfa4a35be8c5fa4c885e4752b4217b1b5" +
		"957c63b84db8809a6b10f3da7097e894f5f75895f3418f6e7265f2f1cb9f07aa" +
		"2223cc88c5b0a67318b669533ebb030c2b34fde2b691650662b0ed0fd0acc94e" +
		"6df48f63b9d861342ec351c08f1324338508307704d49b088392145d970fede3"
	katECDHEPremaster = "4daf8b9e445962329e7e7534b3dec613f16b053e25550bc67966fa91e9bed794" +
		"ee0c179eb62689cd13385a6aead81eb7"
	katECDHEMaster = "f9b174df1fc08d08c0423dee4a0182f5d8335d7aa212ec4777d461f115fa5a71" +
		"9400a6e5bca9f177e50b7d8b8c3501fb"
)

func TestMasterSecretKAT(t *testing.T) {
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	for _, tc := range []struct{ name, premaster, master string }{
		{"ECC", katPremaster, katMaster},
		{"ECDHE", katECDHEPremaster, katECDHEMaster},
	} {
		got := MasterSecret(unhex(t, tc.premaster), cr, sr)
		if want := unhex(t, tc.master); !bytes.Equal(got, want) {
			t.Errorf("%s: master secret = %x, want %x", tc.name, got, want)
		}
	}
}

func TestKeyBlockKAT(t *testing.T) {
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	master := unhex(t, katMaster)
	kb := unhex(t, katKeyBlock)

	full := make([]byte, 128)
	PRF(full, master, "key expansion", append(append([]byte{}, sr...), cr...))
	if !bytes.Equal(full, kb) {
		t.Fatalf("key_block = %x, want %x", full, kb)
	}

	check := func(t *testing.T, id ID, wantClient, wantServer Keys) {
		t.Helper()
		c, s := Lookup(id).KeyBlock(master, cr, sr)
		for _, p := range []struct {
			name      string
			got, want []byte
		}{
			{"client MAC", c.MAC, wantClient.MAC}, {"server MAC", s.MAC, wantServer.MAC},
			{"client key", c.Key, wantClient.Key}, {"server key", s.Key, wantServer.Key},
			{"client IV", c.IV, wantClient.IV}, {"server IV", s.IV, wantServer.IV},
		} {
			if !bytes.Equal(p.got, p.want) {
				t.Errorf("%s: %s = %x, want %x", Name(id), p.name, p.got, p.want)
			}
		}
	}
	cbcClient := Keys{MAC: kb[0:32], Key: kb[64:80], IV: kb[96:112]}
	cbcServer := Keys{MAC: kb[32:64], Key: kb[80:96], IV: kb[112:128]}
	// The spelled-out values of INTEROP.md §10 guard the offsets above.
	if !bytes.Equal(cbcClient.Key, unhex(t, "2223cc88c5b0a67318b669533ebb030c")) ||
		!bytes.Equal(cbcServer.Key, unhex(t, "2b34fde2b691650662b0ed0fd0acc94e")) {
		t.Fatal("test offsets disagree with tlcp/INTEROP.md §10")
	}
	gcmClient := Keys{MAC: []byte{}, Key: unhex(t, "e41131a49d4d2a4b720062f4628d57ed"), IV: unhex(t, "957c63b8")}
	gcmServer := Keys{MAC: []byte{}, Key: unhex(t, "fa4a35be8c5fa4c885e4752b4217b1b5"), IV: unhex(t, "4db8809a")}

	for _, id := range []ID{ECC_SM4_CBC_SM3, ECDHE_SM4_CBC_SM3, ECC_ZUC128_SM3, ECDHE_ZUC128_SM3} {
		check(t, id, cbcClient, cbcServer) // the ZUC layout is the CBC one
	}
	for _, id := range []ID{ECC_SM4_GCM_SM3, ECDHE_SM4_GCM_SM3} {
		check(t, id, gcmClient, gcmServer)
	}

	// Appending to one key must not overwrite its neighbour.
	c, s := Lookup(ECC_SM4_CBC_SM3).KeyBlock(master, cr, sr)
	_ = append(c.MAC, 0xff)
	if !bytes.Equal(s.MAC, cbcServer.MAC) {
		t.Error("append to client MAC key clobbered server MAC key")
	}
}

func TestFinishedKAT(t *testing.T) {
	master := unhex(t, katMaster)
	h := sm3.Sum([]byte("abc"))
	for _, tc := range []struct{ label, want string }{
		{LabelClientFinished, "bb04ba2f8d40b1cae1b8071a"},
		{LabelServerFinished, "5590b0ddee5b82617cf9f57c"},
	} {
		got := FinishedVerifyData(master, tc.label, h[:])
		if want := unhex(t, tc.want); !bytes.Equal(got, want) {
			t.Errorf("%s: verify_data = %x, want %x", tc.label, got, want)
		}
	}
}

func TestPRFAllocs(t *testing.T) {
	secret, seed := make([]byte, 48), make([]byte, 64)
	dst := make([]byte, 128)
	// hmac.New dominates; the P_hash loop itself adds one buffer.
	allocs := testing.AllocsPerRun(20, func() { PRF(dst, secret, "key expansion", seed) })
	t.Logf("PRF allocations: %v", allocs)
	if allocs > 12 {
		t.Errorf("PRF made %v allocations", allocs)
	}
}

// TestMaster: a prepared Master gives what KeyBlock and FinishedVerifyData
// give for the same secret, on every suite, and concurrently.
func TestMaster(t *testing.T) {
	master := unhex(t, katMaster)
	cr, sr := unhex(t, katClientRandom), unhex(t, katServerRandom)
	m := NewMaster(master)
	for _, id := range supportedIDs {
		s := Lookup(id)
		c1, s1 := s.KeyBlock(master, cr, sr)
		done := make(chan bool)
		for range 4 {
			go func() {
				defer func() { done <- true }()
				c2, s2 := m.KeyBlock(s, cr, sr)
				if !bytes.Equal(c1.Key, c2.Key) || !bytes.Equal(s1.Key, s2.Key) || !bytes.Equal(c1.MAC, c2.MAC) ||
					!bytes.Equal(s1.MAC, s2.MAC) || !bytes.Equal(c1.IV, c2.IV) || !bytes.Equal(s1.IV, s2.IV) {
					t.Errorf("%s: Master.KeyBlock differs", Name(id))
				}
			}()
		}
		for range 4 {
			<-done
		}
	}
	hash := bytes.Repeat([]byte{7}, 32)
	for _, label := range []string{LabelClientFinished, LabelServerFinished} {
		if !bytes.Equal(m.FinishedVerifyData(label, hash), FinishedVerifyData(master, label, hash)) {
			t.Errorf("%s: Master.FinishedVerifyData differs", label)
		}
	}
}

// refPRF is P_SM3 written out from RFC 5246 §5 over crypto/hmac.
func refPRF(out, secret, seed []byte) {
	mac := func(parts ...[]byte) []byte {
		h := hmac.New(sm3.New, secret)
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)
	}
	a := mac(seed)
	for len(out) > 0 {
		out = out[copy(out, mac(a, seed)):]
		a = mac(a)
	}
}

// checkPSM3 compares pSM3 with refPRF, with guard bytes around dst that
// catch writes past its end.
func checkPSM3(t *testing.T, name string, secret []byte, label string, seed1, seed2 []byte, n int) {
	t.Helper()
	want := make([]byte, n)
	refPRF(want, secret, append(append([]byte(label), seed1...), seed2...))
	buf := bytes.Repeat([]byte{0xa5}, n+8)
	pSM3(buf[:n], sm3.NewHMACKey(secret), label, seed1, seed2)
	if !bytes.Equal(buf[:n], want) {
		t.Fatalf("%s: P_SM3(secret %d B, label %q, seeds %d+%d B, %d B) = %x, want %x",
			name, len(secret), label, len(seed1), len(seed2), n, buf[:n], want)
	}
	if !bytes.Equal(buf[n:], bytes.Repeat([]byte{0xa5}, 8)) {
		t.Fatalf("%s: P_SM3 wrote past dst", name)
	}
}

func randomPRFBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestPSM3 runs P_SM3 through every SM3 kernel: every seed length across
// the one-call HMAC's limit and the seed buffer's size, as the TLCP
// callers split the seed and otherwise, and every output length over
// several blocks.
func TestPSM3(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	impl.ForEach("sm3", func(name string) {
		for seedLen := 0; seedLen <= 2*sm3.BlockSize+70; seedLen++ {
			seed := randomPRFBytes(rng, seedLen)
			cut := rng.IntN(seedLen + 1)
			label := string(seed[:cut/2])
			checkPSM3(t, name, randomPRFBytes(rng, rng.IntN(100)), label, seed[cut/2:cut], seed[cut:], rng.IntN(130))
		}
		for n := range 200 {
			checkPSM3(t, name, randomPRFBytes(rng, 48), labelKeyExpansion, randomPRFBytes(rng, 32), randomPRFBytes(rng, 32), n)
		}
		checkPSM3(t, name, randomPRFBytes(rng, 48), LabelClientFinished, randomPRFBytes(rng, 32), nil, 12)
	})
}

// TestPSM3Allocs: with the secret prepared, P_SM3 allocates nothing, for
// TLCP's seeds and for a long one.
func TestPSM3Allocs(t *testing.T) {
	k := sm3.NewHMACKey(make([]byte, 48))
	r1, r2 := make([]byte, 32), make([]byte, 32)
	dst := make([]byte, 128)
	if n := testing.AllocsPerRun(100, func() {
		pSM3(dst, k, labelKeyExpansion, r1, r2)
		pSM3(dst[:12], k, LabelClientFinished, r1, nil)
	}); n != 0 {
		t.Errorf("P_SM3 allocates %v times", n)
	}
}

func FuzzPSM3(f *testing.F) {
	f.Add([]byte("secret"), "key expansion", []byte("seed one"), []byte("seed two"), uint8(40))
	f.Fuzz(func(t *testing.T, secret []byte, label string, seed1, seed2 []byte, n uint8) {
		impl.ForEach("sm3", func(name string) {
			checkPSM3(t, name, secret, label, seed1, seed2, int(n))
		})
	})
}

// BenchmarkPRF runs the PRF of a handshake with the master secret
// prepared (a Master): a GCM key block and a Finished message.
func BenchmarkPRF(b *testing.B) {
	m := NewMaster(make([]byte, MasterSecretLen))
	r := make([]byte, 32)
	gcm := Lookup(ECC_SM4_GCM_SM3)
	b.Run("KeyBlockGCM", func(b *testing.B) {
		t := startCPU()
		for b.Loop() {
			m.KeyBlock(gcm, r, r)
		}
		t.report(b)
	})
	b.Run("Finished", func(b *testing.B) {
		t := startCPU()
		for b.Loop() {
			m.FinishedVerifyData(LabelClientFinished, r)
		}
		t.report(b)
	})
}
