package smx509

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 { return alloctest.Bytes(f) }

// hostileCert builds the DER of a certificate around the given issuer and
// subject Names (SEQUENCE contents) and extension list (the contents of the
// Extensions SEQUENCE). The signature is garbage: parsing does not check it.
func hostileCert(t testing.TB, subject, extensions []byte) []byte {
	key := testKey(t, kindSM2, "hostile")
	tmpl := leafTemplate("hostile", KeyUsageDigitalSignature)
	spki := issue(t, tmpl, tmpl, key.Public(), key).RawSubjectPublicKeyInfo
	var b cryptobyte.Builder
	sigAlg := func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{1, 2, 156, 10197, 1, 501})
		})
	}
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) { b.AddASN1Int64(2) })
			b.AddASN1Int64(1)
			sigAlg(b)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {}) // issuer
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1UTCTime(testTime.AddDate(-1, 0, 0))
				b.AddASN1UTCTime(testTime.AddDate(1, 0, 0))
			})
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddBytes(subject) })
			b.AddBytes(spki)
			if extensions != nil {
				b.AddASN1(cbasn1.Tag(3).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddBytes(extensions) })
				})
			}
		})
		sigAlg(b)
		b.AddASN1BitString(make([]byte, 72))
	})
	return b.BytesOrPanic()
}

func repeat(n int, f func(i int, b *cryptobyte.Builder)) []byte {
	var b cryptobyte.Builder
	for i := range n {
		f(i, &b)
	}
	return b.BytesOrPanic()
}

// ext wraps value as an extension with a distinct two-component OID.
func ext(i int, critical bool, value []byte) func(b *cryptobyte.Builder) {
	return func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{1, 3, 6, 1, 4, 1, 1 + i})
			if critical {
				b.AddASN1Boolean(true)
			}
			b.AddASN1OctetString(value)
		})
	}
}

func seq(f func(b *cryptobyte.Builder)) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, f)
	return b.BytesOrPanic()
}

// hostileCerts are certificates of about size bytes built to make a parser
// allocate much more than their size: many tiny elements of each kind
// that is a list, valid and malformed.
func hostileCerts(t testing.TB, size int) map[string][]byte {
	out := map[string][]byte{}
	out["empty extensions"] = hostileCert(t, nil, repeat(size/2, func(i int, b *cryptobyte.Builder) { b.AddBytes([]byte{0x30, 0}) }))
	out["empty name attributes"] = hostileCert(t, repeat(1, func(_ int, b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
			for range size / 2 {
				b.AddBytes([]byte{0x30, 0})
			}
		})
	}), nil)
	out["name attributes"] = hostileCert(t, repeat(1, func(_ int, b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {
			for range size / 9 {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1ObjectIdentifier([]int{2, 5, 4, 10})
					b.AddASN1(cbasn1.UTF8String, func(b *cryptobyte.Builder) {})
				})
			}
		})
	}), nil)
	out["extensions"] = hostileCert(t, nil, repeat(size/10, func(i int, b *cryptobyte.Builder) { ext(i, false, nil)(b) }))
	out["critical extensions"] = hostileCert(t, nil, repeat(size/13, func(i int, b *cryptobyte.Builder) { ext(i, true, nil)(b) }))
	san := func(tag int, v []byte) []byte {
		return hostileCert(t, nil, repeat(1, func(_ int, b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier([]int{2, 5, 29, 17})
				b.AddASN1OctetString(seq(func(b *cryptobyte.Builder) {
					for range size / (2 + len(v)) {
						b.AddASN1(cbasn1.Tag(tag).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(v) })
					}
				}))
			})
		}))
	}
	out["SAN DNS names"] = san(2, nil)
	out["SAN e-mail addresses"] = san(1, nil)
	out["SAN URIs"] = san(6, []byte("a:"))
	out["SAN IP addresses"] = san(7, []byte{1, 2, 3, 4})
	out["SAN other names"] = san(0, nil)
	list := func(oid []int, elem func(b *cryptobyte.Builder), elemSize int) []byte {
		return hostileCert(t, nil, repeat(1, func(_ int, b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(oid)
				b.AddASN1OctetString(seq(func(b *cryptobyte.Builder) {
					for range size / elemSize {
						elem(b)
					}
				}))
			})
		}))
	}
	out["unknown extended key usages"] = list([]int{2, 5, 29, 37}, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier([]int{1, 2}) }, 3)
	out["known extended key usages"] = list([]int{2, 5, 29, 37}, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier([]int{1, 3, 6, 1, 5, 5, 7, 3, 1}) }, 10)
	out["policies"] = list([]int{2, 5, 29, 32}, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier([]int{1, 2}) })
	}, 5)
	out["CRL distribution points"] = list([]int{2, 5, 29, 31}, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.Tag(6).ContextSpecific(), func(b *cryptobyte.Builder) {})
				})
			})
		})
	}, 8)
	out["CRL distribution point URIs"] = list([]int{2, 5, 29, 31}, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					for range size / 2 {
						b.AddASN1(cbasn1.Tag(6).ContextSpecific(), func(b *cryptobyte.Builder) {})
					}
				})
			})
		})
	}, size)
	out["authority info access"] = list([]int{1, 3, 6, 1, 5, 5, 7, 1, 1}, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{1, 3, 6, 1, 5, 5, 7, 48, 1})
			b.AddASN1(cbasn1.Tag(6).ContextSpecific(), func(b *cryptobyte.Builder) {})
		})
	}, 14)
	out["name constraints"] = hostileCert(t, nil, repeat(1, func(_ int, b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{2, 5, 29, 30})
			b.AddASN1OctetString(seq(func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					for range size / 6 {
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1(cbasn1.Tag(2).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte("a")) })
						})
					}
				})
			}))
		})
	}))
	return out
}

// allocationLimit is what parsing der may allocate: 16 bytes per input
// byte, a url.URL (about 150 bytes) for each byte that could start a URI
// (its tag, 0x86, anywhere), and 32 KiB for the fixed costs. A parser that
// sizes its slices by counting elements before checking them (issue 10:
// 45 bytes per byte, 10.3 MiB for a 234 KiB certificate) fails it.
func allocationLimit(der []byte) uint64 {
	return 16*uint64(len(der)) + 160*uint64(bytes.Count(der, []byte{0x86})) + 32<<10
}

// TestParseAllocationBound parses certificates built to make a parser
// allocate much more than their size, each about 200 KiB of one kind of
// list element, and checks allocationLimit.
func TestParseAllocationBound(t *testing.T) {
	size := 200 << 10
	if testing.Short() {
		size = 40 << 10
	}
	certs := hostileCerts(t, size)
	names := slices.Sorted(maps.Keys(certs))
	for _, name := range names {
		der := certs[name]
		var err error
		n := allocated(func() { _, err = ParseCertificate(der) })
		t.Logf("%-28s %7d bytes, %9d allocated, %5.1f per byte (%v)", name, len(der), n, float64(n)/float64(len(der)), err)
		if limit := allocationLimit(der); n > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte certificate, over the limit of %d", name, n, len(der), limit)
		}
	}
}

// FuzzParseCertificateAllocations checks allocationLimit on any input,
// seeded with small hostile certificates.
func FuzzParseCertificateAllocations(f *testing.F) {
	seedPEMs(f, "CERTIFICATE")
	for _, der := range hostileCerts(f, 512) {
		f.Add(der)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		n := allocated(func() { ParseCertificate(der) })
		if limit := allocationLimit(der); n > limit {
			t.Fatalf("%d bytes allocated for a %d-byte input, over the limit of %d", n, len(der), limit)
		}
	})
}
