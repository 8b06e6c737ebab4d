package pkcs7

import (
	"bytes"
	"encoding/pem"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 { return alloctest.Bytes(f) }

// allocationLimit is what parsing a message may allocate (the package
// documentation promises it): 24 bytes per input byte and 64 KiB.
func allocationLimit(der []byte) uint64 {
	return 24*uint64(len(der)) + 64<<10
}

func contentInfo(oid []int, body func(b *cryptobyte.Builder)) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(oid)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, body)
		})
	})
	return b.BytesOrPanic()
}

func times(n int, f func(b *cryptobyte.Builder)) func(b *cryptobyte.Builder) {
	return func(b *cryptobyte.Builder) {
		for range n {
			f(b)
		}
	}
}

func tinySignerInfo(attrs func(b *cryptobyte.Builder), unsigned func(b *cryptobyte.Builder)) func(b *cryptobyte.Builder) {
	return func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1Int64(3)
			b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) {})
			addSM3Algorithm(b)
			if attrs != nil {
				b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), attrs)
			}
			addSM2SignatureAlgorithm(b, x509.OIDSM2Signing)
			b.AddASN1OctetString(nil)
			if unsigned != nil {
				b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), unsigned)
			}
		})
	}
}

func signedDataWith(digestAlgs, signerInfos func(b *cryptobyte.Builder)) []byte {
	return contentInfo(OIDSignedData, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		b.AddASN1(cbasn1.SET, digestAlgs)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(OIDData) })
		b.AddASN1(cbasn1.SET, signerInfos)
	})
}

// hostileMessages are messages of about size bytes made of many tiny
// elements of each list kind, to make a parser allocate much more than
// their size.
func hostileMessages(size int) map[string][]byte {
	out := map[string][]byte{}
	tinyAlg := func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier([]int{1, 2}) })
	}
	one := times(1, tinySignerInfo(nil, nil))
	out["digest algorithms"] = signedDataWith(times(size/5, tinyAlg), one)
	out["signer infos"] = signedDataWith(tinyAlg, times(size/20, tinySignerInfo(nil, nil)))
	emptyAttr := func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{1, 2})
			b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) {})
		})
	}
	out["signed attributes"] = signedDataWith(tinyAlg, times(1, tinySignerInfo(times(size/7, emptyAttr), nil)))
	out["unsigned attributes"] = signedDataWith(tinyAlg, times(1, tinySignerInfo(nil, times(size/7, emptyAttr))))
	out["attribute values"] = signedDataWith(tinyAlg, times(1, tinySignerInfo(func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier([]int{1, 2})
			b.AddASN1(cbasn1.SET, times(size/2, func(b *cryptobyte.Builder) { b.AddASN1NULL() }))
		})
	}, nil)))
	out["counter-signatures"] = signedDataWith(tinyAlg, times(1, tinySignerInfo(nil, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDAttributeCounterSignature)
			b.AddASN1(cbasn1.SET, times(size/20, tinySignerInfo(nil, nil)))
		})
	})))
	out["certificate choices"] = contentInfo(OIDSignedData, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		b.AddASN1(cbasn1.SET, tinyAlg)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(OIDData) })
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), times(size/2, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.Tag(2).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {})
		}))
		b.AddASN1(cbasn1.SET, one)
	})
	tinyRecipient := func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1Int64(2)
			b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) {})
			tinyAlg(b)
			b.AddASN1OctetString(nil)
		})
	}
	eci := func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDData)
			tinyAlg(b)
		})
	}
	out["recipients"] = contentInfo(OIDEnvelopedData, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(2)
		b.AddASN1(cbasn1.SET, times(size/12, tinyRecipient))
		eci(b)
	})
	out["other recipients"] = contentInfo(OIDEnvelopedData, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(2)
		b.AddASN1(cbasn1.SET, times(size/2, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {})
		}))
		eci(b)
	})
	out["encrypted content chunks"] = contentInfo(OIDEncryptedData, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(0)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(OIDData)
			tinyAlg(b)
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), times(size/2, func(b *cryptobyte.Builder) { b.AddASN1OctetString(nil) }))
		})
	})
	// BER: indefinite lengths nested, and chunked strings.
	var ber []byte
	ber = append(ber, 0x30, 0x80, 0x06, 0x09)
	ber = append(ber, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01)
	ber = append(ber, 0xa0, 0x80, 0x24, 0x80)
	for range size / 2 {
		ber = append(ber, 0x04, 0x00)
	}
	ber = append(ber, 0, 0, 0, 0, 0, 0)
	out["BER chunked data"] = ber
	ber = []byte{0x30, 0x80}
	for range size / 4 {
		ber = append(ber, 0x30, 0x80, 0, 0)
	}
	out["BER indefinite elements"] = append(ber, 0, 0)
	return out
}

func TestParseAllocationBound(t *testing.T) {
	size := 200 << 10
	if testing.Short() {
		size = 40 << 10
	}
	msgs := hostileMessages(size)
	for _, name := range slices.Sorted(maps.Keys(msgs)) {
		der := msgs[name]
		var err error
		n := allocated(func() { _, err = Parse(der) })
		t.Logf("%-26s %7d bytes, %9d allocated, %5.1f per byte (%v)", name, len(der), n, float64(n)/float64(len(der)), err)
		if limit := allocationLimit(der); n > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte message, over the limit of %d", name, n, len(der), limit)
		}
	}
}

// seeds are the recorded messages and one of each kind this package writes.
func seeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if block, _ := pem.Decode(data); block != nil {
			data = block.Bytes
		}
		f.Add(data)
	}
	pki := newTestPKI(f)
	content := []byte("seed")
	for _, der := range [][]byte{
		must2(Sign(content, []Signer{pki.signer.signer()}, &SignOptions{Certificates: []*smx509.Certificate{pki.inter.cert}})),
		must2(Encrypt(content, []Recipient{{Certificate: pki.encLeaf.cert}}, &EncryptOptions{Cipher: SM4GCM})),
		must2(SignAndEncrypt(content, []Signer{pki.signer.signer()}, []Recipient{{Certificate: pki.encLeaf.cert, BySubjectKeyId: true}}, nil, nil)),
		must2(EncryptWithKey(content, make([]byte, 16), nil)),
		must2(Digest(content, GMT0010)),
	} {
		f.Add(der)
	}
	for _, der := range hostileMessages(256) {
		f.Add(der)
	}
}

func must2(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzParse parses anything and uses what parses, which must not panic.
func FuzzParse(f *testing.F) {
	seeds(f)
	pki := newTestPKI(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		// What the BER pass writes is DER: a second pass leaves it alone.
		if der, err := normalize(data); err == nil {
			if again, err := normalize(der); err != nil || !bytes.Equal(again, der) {
				t.Fatalf("normalize is not idempotent on %x: %x, %v", der, again, err)
			}
		}
		m, err := Parse(data)
		if err != nil {
			return
		}
		opts := pki.verifyOptions()
		switch m.Type {
		case SignedDataType:
			_ = m.Signed.Verify(opts)
			_ = m.Signed.VerifyDetached(bytes.NewReader(data), opts)
			for _, si := range m.Signed.Signers {
				si.SigningTime()
				for _, cs := range si.CounterSignatures {
					_ = si.VerifyCounterSignature(cs, pki.signer.cert, nil)
				}
			}
		case EnvelopedDataType:
			_, _ = m.Enveloped.Decrypt(nil, pki.encLeaf.key)
		case SignedAndEnvelopedDataType:
			_, _ = m.SignedAndEnveloped.Open(nil, pki.encLeaf.key, opts)
		case EncryptedDataType:
			_, _ = m.Encrypted.Decrypt(make([]byte, 16))
		case DigestedDataType:
			_ = m.Digested.Verify(nil)
		}
	})
}

// FuzzParseAllocations checks allocationLimit on any input.
func FuzzParseAllocations(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		n := allocated(func() { Parse(data) })
		if limit := allocationLimit(data); n > limit {
			t.Fatalf("%d bytes allocated for a %d-byte input, over the limit of %d", n, len(data), limit)
		}
	})
}
