package pkcs7

import (
	"bytes"
	"crypto"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// SignedAndEnvelopedData is a parsed SignedAndEnvelopedData (PKCS #7 v1.5,
// 11; GB/T 35275, 10): content encrypted for recipients and signed by
// signers. As in GmSSL and gmsm, the signatures are over the plaintext and
// are not themselves encrypted.
type SignedAndEnvelopedData struct {
	Version          int
	Recipients       []*RecipientInfo
	OtherRecipients  int
	DigestAlgorithms []pkix.AlgorithmIdentifier
	EncryptedContent EncryptedContentInfo
	Certificates     []*smx509.Certificate
	CRLs             []*smx509.RevocationList
	Signers          []*SignerInfo
}

func parseSignedAndEnvelopedData(s cryptobyte.String) (*SignedAndEnvelopedData, error) {
	var in cryptobyte.String
	if !s.ReadASN1(&in, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, malformed("SignedAndEnvelopedData")
	}
	out := new(SignedAndEnvelopedData)
	var err error
	var ok bool
	if !in.ReadASN1Integer(&out.Version) {
		return nil, malformed("SignedAndEnvelopedData version")
	}
	if out.Recipients, out.OtherRecipients, err = readRecipientInfos(&in); err != nil {
		return nil, err
	}
	if out.DigestAlgorithms, ok = readAlgorithmSet(&in); !ok {
		return nil, malformed("SignedAndEnvelopedData digestAlgorithms")
	}
	if err := readEncryptedContentInfo(&in, &out.EncryptedContent); err != nil {
		return nil, err
	}
	if out.Certificates, out.CRLs, err = readCertificatesAndCRLs(&in); err != nil {
		return nil, err
	}
	if out.Signers, err = readSignerInfos(&in); err != nil {
		return nil, err
	}
	if !in.Empty() {
		return nil, malformed("SignedAndEnvelopedData: trailing data")
	}
	return out, nil
}

// Open decrypts the content for the recipient cert (nil: any) with key,
// then verifies every signer over it as SignedData.Verify does.
func (sed *SignedAndEnvelopedData) Open(cert *smx509.Certificate, key crypto.Decrypter, opts VerifyOptions) ([]byte, error) {
	cek, err := unwrapKey(sed.Recipients, cert, key)
	if err != nil {
		return nil, err
	}
	content, err := sed.EncryptedContent.decrypt(cek)
	if err != nil {
		return nil, err
	}
	sd := &SignedData{
		ContentType:  sed.EncryptedContent.ContentType,
		Content:      content,
		Certificates: sed.Certificates,
		CRLs:         sed.CRLs,
		Signers:      sed.Signers,
		gmsslInput:   gmsslSealInput(sed.EncryptedContent.ContentType, content),
	}
	if err := sd.Verify(opts); err != nil {
		return nil, err
	}
	return content, nil
}

// SignAndEncrypt makes a SignedAndEnvelopedData: content signed by the
// signers (without signed attributes, which the type has no room for in
// GM/T 0010) and encrypted for the recipients. The family, cipher and
// randomness come from eopts; sopts may set GmSSL's signature form,
// NoCertificates, Certificates and CRLs.
func SignAndEncrypt(content []byte, signers []Signer, recipients []Recipient, sopts *SignOptions, eopts *EncryptOptions) ([]byte, error) {
	if sopts == nil {
		sopts = &SignOptions{}
	}
	if eopts == nil {
		eopts = &EncryptOptions{}
	}
	contentType := eopts.ContentType
	if contentType == nil {
		contentType = eopts.Family.oid(Data)
	}
	so := *sopts
	so.Family, so.NoAttributes, so.Detached, so.ContentType, so.Rand = eopts.Family, true, false, contentType, eopts.Rand
	_, signed, err := signerInfos(bytes.NewReader(content), content, signers, &so, gmsslSealInput(contentType, content))
	if err != nil {
		return nil, err
	}
	infos, eci, err := envelope(content, recipients, eopts)
	if err != nil {
		return nil, err
	}
	return marshalContentInfo(eopts.Family.oid(SignedAndEnvelopedDataType), 1, func(b *cryptobyte.Builder) {
		addSetOf(b, cbasn1.SET, infos)
		b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) { addSM3Algorithm(b) })
		b.AddBytes(eci)
		addCertificatesAndCRLs(b, certificatesToCarry(signers, &so), so.CRLs)
		addSetOf(b, cbasn1.SET, signed)
	})
}

// gmsslSealInput is what GmSSL 3 signs (by SM3, without Z) in a
// SignedAndEnvelopedData: a ContentInfo whose [0] holds the content's
// octets directly, without the OCTET STRING of its SignedData.
func gmsslSealInput(contentType asn1.ObjectIdentifier, content []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(contentType)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(content) })
	})
	return b.BytesOrPanic()
}

// EncryptedData is a parsed EncryptedData (RFC 5652, 8; GB/T 35275, 11):
// content encrypted under a key the parties share.
type EncryptedData struct {
	Version               int
	EncryptedContent      EncryptedContentInfo
	UnprotectedAttributes []Attribute
}

func parseEncryptedData(s cryptobyte.String) (*EncryptedData, error) {
	var in cryptobyte.String
	if !s.ReadASN1(&in, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, malformed("EncryptedData")
	}
	out := new(EncryptedData)
	if !in.ReadASN1Integer(&out.Version) {
		return nil, malformed("EncryptedData version")
	}
	if err := readEncryptedContentInfo(&in, &out.EncryptedContent); err != nil {
		return nil, err
	}
	var ok bool
	if out.UnprotectedAttributes, ok = readFinalAttributes(&in); !ok {
		return nil, malformed("EncryptedData unprotectedAttrs")
	}
	return out, nil
}

// Decrypt decrypts the content with the 16-byte SM4 key.
func (ed *EncryptedData) Decrypt(key []byte) ([]byte, error) {
	if len(key) != sm4.KeySize {
		return nil, fmt.Errorf("pkcs7: SM4 keys are %d bytes, not %d", sm4.KeySize, len(key))
	}
	return ed.EncryptedContent.decrypt(key)
}

// EncryptWithKey makes an EncryptedData of content under the 16-byte SM4
// key, as openssl cms -EncryptedData_encrypt does.
func EncryptWithKey(content, key []byte, opts *EncryptOptions) ([]byte, error) {
	if opts == nil {
		opts = &EncryptOptions{}
	}
	if len(key) != sm4.KeySize {
		return nil, fmt.Errorf("pkcs7: SM4 keys are %d bytes, not %d", sm4.KeySize, len(key))
	}
	eci, err := encryptContent(content, key, opts)
	if err != nil {
		return nil, err
	}
	// RFC 5652 has version 0; GmSSL writes and requires 1.
	version := 0
	if opts.Family == GMT0010 {
		version = 1
	}
	return marshalContentInfo(opts.Family.oid(EncryptedDataType), version, func(b *cryptobyte.Builder) { b.AddBytes(eci) })
}

// DigestedData is a parsed DigestedData (RFC 5652, 7).
type DigestedData struct {
	Version         int
	DigestAlgorithm pkix.AlgorithmIdentifier
	ContentType     asn1.ObjectIdentifier
	Content         []byte // nil when detached
	Digest          []byte
}

func parseDigestedData(s cryptobyte.String) (*DigestedData, error) {
	var in cryptobyte.String
	if !s.ReadASN1(&in, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, malformed("DigestedData")
	}
	out := new(DigestedData)
	if !in.ReadASN1Integer(&out.Version) || !readAlgorithm(&in, &out.DigestAlgorithm) {
		return nil, malformed("DigestedData")
	}
	var sd SignedData
	if err := sd.readEncapsulated(&in); err != nil {
		return nil, err
	}
	out.ContentType, out.Content = sd.ContentType, sd.Content
	var d cryptobyte.String
	if !in.ReadASN1(&d, cbasn1.OCTET_STRING) || !in.Empty() {
		return nil, malformed("DigestedData digest")
	}
	out.Digest = d
	return out, nil
}

// ErrUnsupportedDigest is returned for a DigestedData whose digest is not SM3.
var ErrUnsupportedDigest = errors.New("pkcs7: unsupported digest algorithm")

// Verify checks the digest against the content: the message's own, or
// the detached content given (nil: the message's).
func (dd *DigestedData) Verify(detached []byte) error {
	if !dd.DigestAlgorithm.Algorithm.Equal(x509.OIDSM3) || !hasNoParameters(dd.DigestAlgorithm) {
		return ErrUnsupportedDigest
	}
	content := dd.Content
	if detached != nil {
		content = detached
	}
	if content == nil {
		return ErrDetachedContent
	}
	d := sm3.Sum(content)
	if !bytes.Equal(d[:], dd.Digest) {
		return ErrDigestMismatch
	}
	return nil
}

// Digest makes a DigestedData of content with SM3, as openssl cms
// -digest_create -md sm3 does. The family only names the content (GM/T
// 0010 has no digestedData type).
func Digest(content []byte, f Family) ([]byte, error) {
	d := sm3.Sum(content)
	return marshalContentInfo(OIDDigestedData, 0, func(b *cryptobyte.Builder) {
		addSM3Algorithm(b)
		b.AddBytes(encapsulated(f.oid(Data), content, false))
		b.AddASN1OctetString(d[:])
	})
}
