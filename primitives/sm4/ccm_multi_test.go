// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sm4

import (
	"bytes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// ccmMultiCase makes a batch of lanes messages of random lengths (empty,
// partial blocks, a few blocks, long), with random additional data (none,
// short, longer than a lane's head), unaligned buffers, sealed in place when
// inPlace.
type ccmMultiCase struct {
	nonces, pts, ads, dst [][]byte
}

func newCCMMultiCase(r *rand.ChaCha8, lanes, nonceSize, tagSize int, inPlace bool) ccmMultiCase {
	var c ccmMultiCase
	for range lanes {
		var n int
		switch r.Uint64() % 4 {
		case 0:
			n = int(r.Uint64() % 17)
		case 1:
			n = int(r.Uint64() % 100)
		default:
			n = int(r.Uint64() % 3000)
		}
		var ad []byte
		switch r.Uint64() % 4 {
		case 0:
		case 1:
			ad = randBytes(r, int(r.Uint64()%80))
		default:
			ad = randBytes(r, 5)
		}
		c.nonces = append(c.nonces, randBytes(r, nonceSize))
		c.ads = append(c.ads, ad)
		if inPlace {
			buf := randBytes(r, n+tagSize)
			c.pts = append(c.pts, buf[:n])
			c.dst = append(c.dst, buf)
		} else {
			c.pts = append(c.pts, randBytes(r, n))
			c.dst = append(c.dst, randBytes(r, n+tagSize+int(r.Uint64()%3)))
		}
	}
	return c
}

// TestCCMMulti checks CCMSealMulti and CCMOpenMulti against Seal and Open of
// one message at a time, over every kernel, for SM4 blocks and for another
// cipher.Block, in place and not.
func TestCCMMulti(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 120 {
				fast, ref := newTestBlock(t, r)
				ns, ts := []int{12, 7, 13}[i%3], []int{16, 4, 10}[i%3]
				var b cipher.Block = fast
				if i%7 == 6 {
					b = ref
				}
				a, _ := NewCCM(b, ns, ts)
				refA, _ := NewCCM(ref, ns, ts)
				lanes := int(r.Uint64() % (MaxCBCLanes + 1))
				c := newCCMMultiCase(r, lanes, ns, ts, i%2 == 0)
				want := make([][]byte, lanes)
				for j := range lanes {
					want[j] = refA.Seal(nil, c.nonces[j], c.pts[j], c.ads[j])
				}
				CCMSealMulti(a, c.dst, c.nonces, c.pts, c.ads)
				for j := range lanes {
					if got := c.dst[j][:len(want[j])]; !bytes.Equal(got, want[j]) {
						t.Fatalf("case %d lane %d: CCMSealMulti differs from Seal", i, j)
					}
				}

				// Open, in place or into other buffers.
				cts := make([][]byte, lanes)
				out := make([][]byte, lanes)
				for j := range lanes {
					cts[j] = bytes.Clone(want[j])
					out[j] = cts[j][:len(cts[j])-ts]
					if i%4 == 1 {
						out[j] = randBytes(r, len(cts[j])-ts)
					}
				}
				if n := CCMOpenMulti(a, out, c.nonces, cts, c.ads); n != lanes {
					t.Fatalf("case %d: CCMOpenMulti opened %d of %d", i, n, lanes)
				}
				for j := range lanes {
					pt, err := refA.Open(nil, c.nonces[j], want[j], c.ads[j])
					if err != nil || !bytes.Equal(out[j], pt) {
						t.Fatalf("case %d lane %d: CCMOpenMulti differs from Open", i, j)
					}
				}
			}
		})
	})
}

// TestCCMOpenMultiForgery flips one bit of one message of a batch: the
// messages before it open, it and the ones after it do not, and none of
// their plaintext is left: in place they hold their ciphertext again (so
// that they can be opened again under another key), out of place their
// destinations are cleared.
func TestCCMOpenMultiForgery(t *testing.T) {
	impl.ForEach("sm4", func(name string) {
		t.Run(name, func(t *testing.T) {
			r := newRand(t)
			for i := range 60 {
				fast, _ := newTestBlock(t, r)
				a, _ := NewCCM(fast, 12, 16)
				lanes := 2 + int(r.Uint64()%(MaxCBCLanes-1))
				c := newCCMMultiCase(r, lanes, 12, 16, false)
				CCMSealMulti(a, c.dst, c.nonces, c.pts, c.ads)
				bad := int(r.Uint64() % uint64(lanes))
				cts := make([][]byte, lanes)
				for j := range lanes {
					cts[j] = bytes.Clone(c.dst[j][:len(c.pts[j])+16])
				}
				switch i % 3 {
				case 0: // the tag
					cts[bad][len(cts[bad])-1-int(r.Uint64()%16)] ^= 1 << (r.Uint64() % 8)
				case 1: // the additional data
					c.ads[bad] = append(bytes.Clone(c.ads[bad]), 0)
				case 2: // too short to hold a tag
					cts[bad] = cts[bad][:r.Uint64()%16]
				}
				orig := make([][]byte, lanes)
				out := make([][]byte, lanes)
				inPlace := i%2 == 0
				for j := range lanes {
					orig[j] = bytes.Clone(cts[j])
					m := max(len(cts[j])-16, 0)
					if inPlace {
						out[j] = cts[j][:m]
					} else {
						out[j] = bytes.Repeat([]byte{0xa5}, m)
					}
				}
				if n := CCMOpenMulti(a, out, c.nonces, cts, c.ads); n != bad {
					t.Fatalf("case %d: %d messages opened, want %d before the bad one", i, n, bad)
				}
				for j := range bad {
					if !bytes.Equal(out[j], c.pts[j]) {
						t.Fatalf("case %d: message %d before the bad one did not open", i, j)
					}
				}
				for j := bad; j < lanes; j++ {
					switch {
					case inPlace && !bytes.Equal(cts[j], orig[j]):
						t.Fatalf("case %d: message %d, not opened, does not hold its ciphertext", i, j)
					case !inPlace && len(out[j]) > 0 && !bytes.Equal(out[j], make([]byte, len(out[j]))):
						t.Fatalf("case %d: message %d, not opened, left data in its destination", i, j)
					}
				}
			}
		})
	})
}

func TestCCMMultiPanics(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	a, _ := NewCCM(b, 12, 16)
	g, _ := cipher.NewGCM(b)
	buf := make([]byte, 64)
	one := [][]byte{buf[:12]}
	for name, f := range map[string]func(){
		"not CCM":    func() { CCMSealMulti(g, [][]byte{buf[32:]}, one, [][]byte{nil}, [][]byte{nil}) },
		"lengths":    func() { CCMSealMulti(a, nil, one, [][]byte{nil}, [][]byte{nil}) },
		"nonce":      func() { CCMSealMulti(a, [][]byte{buf[32:]}, [][]byte{buf[:11]}, [][]byte{nil}, [][]byte{nil}) },
		"short dst":  func() { CCMSealMulti(a, [][]byte{buf[48:]}, one, [][]byte{buf[12:14]}, [][]byte{nil}) },
		"overlap":    func() { CCMSealMulti(a, [][]byte{buf[13:]}, one, [][]byte{buf[12:14]}, [][]byte{nil}) },
		"ad overlap": func() { CCMSealMulti(a, [][]byte{buf[32:]}, one, [][]byte{nil}, [][]byte{buf[40:41]}) },
		"lane overlap": func() {
			CCMSealMulti(a, [][]byte{buf[20:40], buf[30:50]}, [][]byte{buf[:12], buf[:12]}, [][]byte{nil, nil}, [][]byte{nil, nil})
		},
		"open short dst": func() { CCMOpenMulti(a, [][]byte{buf[:1]}, one, [][]byte{buf[20:40]}, [][]byte{nil}) },
		"too many": func() {
			l := make([][]byte, MaxCBCLanes+1)
			CCMSealMulti(a, l, l, l, l)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestCCMMultiAllocs(t *testing.T) {
	b, _ := NewCipher(make([]byte, 16))
	a, _ := NewCCM(b, 12, 16)
	var dst, nonces, pts, ads [MaxCBCLanes][]byte
	for i := range dst {
		dst[i] = make([]byte, 1000+16)
		pts[i] = dst[i][:1000]
		nonces[i] = make([]byte, 12)
		ads[i] = []byte("hdr12")
	}
	if n := testing.AllocsPerRun(10, func() {
		CCMSealMulti(a, dst[:], nonces[:], pts[:], ads[:])
		CCMOpenMulti(a, pts[:], nonces[:], dst[:], ads[:])
	}); n != 0 {
		t.Errorf("CCMSealMulti and CCMOpenMulti allocate %v times", n)
	}
}

func FuzzCCMMulti(f *testing.F) {
	f.Add([]byte("message"), []byte("ad"), uint8(3), uint16(100), uint8(1))
	f.Fuzz(func(t *testing.T, pt, ad []byte, lanes uint8, stride uint16, bad uint8) {
		k := 1 + int(lanes)%MaxCBCLanes
		b, _ := NewCipher([]byte("0123456789abcdef"))
		a, _ := NewCCM(b, 12, 16)
		var c ccmMultiCase
		for i := range k {
			n := min(len(pt), int(stride)*i%(len(pt)+1))
			nonce := make([]byte, 12)
			nonce[0] = byte(i)
			c.nonces = append(c.nonces, nonce)
			c.pts = append(c.pts, pt[:n])
			c.ads = append(c.ads, ad)
			c.dst = append(c.dst, make([]byte, n+16))
		}
		CCMSealMulti(a, c.dst, c.nonces, c.pts, c.ads)
		for i := range k {
			want := a.Seal(nil, c.nonces[i], c.pts[i], ad)
			if !bytes.Equal(c.dst[i], want) {
				t.Fatalf("message %d: CCMSealMulti differs from Seal", i)
			}
		}
		j := int(bad) % k
		c.dst[j][int(bad)%len(c.dst[j])] ^= 0x80
		out := make([][]byte, k)
		for i := range k {
			out[i] = c.dst[i][:len(c.dst[i])-16]
		}
		if n := CCMOpenMulti(a, out, c.nonces, c.dst, c.ads); n != j {
			t.Fatalf("opened %d, want %d before the forged one", n, j)
		}
	})
}
