package pkcs7

import (
	"encoding/pem"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

func sm3Sum(b []byte) []byte { d := sm3.Sum(b); return d[:] }

func counterAttributes(digest []byte) []byte {
	var b cryptobyte.Builder
	addSetOf(&b, cbasn1.SET, [][]byte{attribute(OIDAttributeMessageDigest, func(b *cryptobyte.Builder) { b.AddASN1OctetString(digest) })})
	return b.BytesOrPanic()
}

// attributeWithTag returns [1] IMPLICIT SET OF { attribute oid value }.
func attributeWithTag(oid []int, value []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
		b.AddBytes(attribute(oid, func(b *cryptobyte.Builder) { b.AddBytes(value) }))
	})
	return b.BytesOrPanic()
}

// attrsOf returns the signed attributes of si as the SET they were signed as.
func attrsOf(si *SignerInfo) []byte {
	return append([]byte{0x31}, si.rawSignedAttrs[1:]...)
}

func rebuildSignedData(t *testing.T, sd *SignedData, pki *testPKI, si []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(OIDGMSignedData)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1Int64(1)
				b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) { addSM3Algorithm(b) })
				b.AddBytes(sd.rawEncap)
				addCertificatesAndCRLs(b, append(sd.Certificates, pki.signer2.cert), nil)
				b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) { b.AddBytes(si) })
			})
		})
	})
	return b.BytesOrPanic()
}

func pemBody(t *testing.T, data []byte) []byte {
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("not PEM")
	}
	return block.Bytes
}
