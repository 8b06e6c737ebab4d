package pkcs7

import (
	"crypto"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// EnvelopedData is a parsed EnvelopedData (RFC 5652, 6; GB/T 35275, 9).
type EnvelopedData struct {
	Version int
	// Recipients are the key transport recipients. Others (key agreement,
	// KEK, password) are counted in OtherRecipients and not kept: SM2 key
	// transport is the only kind the SM world uses.
	Recipients       []*RecipientInfo
	OtherRecipients  int
	EncryptedContent EncryptedContentInfo
	// UnprotectedAttributes are the CMS unprotectedAttrs, if any.
	UnprotectedAttributes []Attribute
}

// RecipientInfo is a KeyTransRecipientInfo.
type RecipientInfo struct {
	Version                int
	ID                     Identifier
	KeyEncryptionAlgorithm pkix.AlgorithmIdentifier
	EncryptedKey           []byte
}

// EncryptedContentInfo is the encrypted content of an EnvelopedData,
// SignedAndEnvelopedData or EncryptedData.
type EncryptedContentInfo struct {
	ContentType asn1.ObjectIdentifier
	Algorithm   pkix.AlgorithmIdentifier
	// Ciphertext is nil when the content is absent (carried elsewhere).
	Ciphertext []byte
	// SharedInfo1 and SharedInfo2 are GB/T 35275's optional [1] and [2]
	// fields, which GmSSL's API can write; nil when absent.
	SharedInfo1, SharedInfo2 []byte
}

func parseEnvelopedData(s cryptobyte.String) (*EnvelopedData, error) {
	var in cryptobyte.String
	if !s.ReadASN1(&in, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, malformed("EnvelopedData")
	}
	ed := new(EnvelopedData)
	if !in.ReadASN1Integer(&ed.Version) {
		return nil, malformed("EnvelopedData version")
	}
	// originatorInfo [0] IMPLICIT (CMS): only key agreement uses it.
	if !in.SkipOptionalASN1(cbasn1.Tag(0).Constructed().ContextSpecific()) {
		return nil, malformed("EnvelopedData originatorInfo")
	}
	var err error
	if ed.Recipients, ed.OtherRecipients, err = readRecipientInfos(&in); err != nil {
		return nil, err
	}
	if err := readEncryptedContentInfo(&in, &ed.EncryptedContent); err != nil {
		return nil, err
	}
	var ok bool
	if ed.UnprotectedAttributes, ok = readFinalAttributes(&in); !ok {
		return nil, malformed("EnvelopedData unprotectedAttrs")
	}
	return ed, nil
}

func readRecipientInfos(s *cryptobyte.String) ([]*RecipientInfo, int, error) {
	var set cryptobyte.String
	if !s.ReadASN1(&set, cbasn1.SET) {
		return nil, 0, malformed("recipientInfos")
	}
	n := countElements(set)
	if n < 0 {
		return nil, 0, malformed("recipientInfos")
	}
	out := make([]*RecipientInfo, 0, n)
	others := 0
	for !set.Empty() {
		var elem cryptobyte.String
		var tag cbasn1.Tag
		if !set.ReadAnyASN1(&elem, &tag) {
			return nil, 0, malformed("RecipientInfo")
		}
		if tag != cbasn1.SEQUENCE {
			others++ // kari [1], kekri [2], pwri [3], ori [4]
			continue
		}
		ri := new(RecipientInfo)
		var ek cryptobyte.String
		if !elem.ReadASN1Integer(&ri.Version) || !readIdentifier(&elem, &ri.ID) ||
			!readAlgorithm(&elem, &ri.KeyEncryptionAlgorithm) || !elem.ReadASN1(&ek, cbasn1.OCTET_STRING) || !elem.Empty() {
			return nil, 0, malformed("KeyTransRecipientInfo")
		}
		ri.EncryptedKey = ek
		out = append(out, ri)
	}
	return out, others, nil
}

// readEncryptedContentInfo reads an EncryptedContentInfo. The content is
// [0] IMPLICIT OCTET STRING, primitive in DER; BER writers cut it into
// OCTET STRING chunks of a constructed [0], which are joined here.
func readEncryptedContentInfo(s *cryptobyte.String, out *EncryptedContentInfo) error {
	var in cryptobyte.String
	if !s.ReadASN1(&in, cbasn1.SEQUENCE) || !in.ReadASN1ObjectIdentifier(&out.ContentType) || !readAlgorithm(&in, &out.Algorithm) {
		return malformed("EncryptedContentInfo")
	}
	switch {
	case in.Empty():
	case in.PeekASN1Tag(cbasn1.Tag(0).ContextSpecific()):
		var c cryptobyte.String
		if !in.ReadASN1(&c, cbasn1.Tag(0).ContextSpecific()) {
			return malformed("encryptedContent")
		}
		out.Ciphertext = c
		if out.Ciphertext == nil {
			out.Ciphertext = []byte{}
		}
	case in.PeekASN1Tag(cbasn1.Tag(0).ContextSpecific().Constructed()):
		var c cryptobyte.String
		if !in.ReadASN1(&c, cbasn1.Tag(0).ContextSpecific().Constructed()) {
			return malformed("encryptedContent")
		}
		joined := make([]byte, 0, len(c))
		for !c.Empty() {
			var chunk cryptobyte.String
			if !c.ReadASN1(&chunk, cbasn1.OCTET_STRING) {
				return malformed("encryptedContent chunk")
			}
			joined = append(joined, chunk...)
		}
		out.Ciphertext = joined
	}
	for i, field := range []*[]byte{&out.SharedInfo1, &out.SharedInfo2} {
		var v cryptobyte.String
		var present bool
		if !in.ReadOptionalASN1(&v, &present, cbasn1.Tag(i+1).ContextSpecific()) {
			return malformed("EncryptedContentInfo sharedInfo")
		}
		if present {
			*field = v
		}
	}
	if !in.Empty() {
		return malformed("EncryptedContentInfo: trailing data")
	}
	return nil
}

// ErrNoRecipient is returned when no recipient of a message matches the
// given certificate, or none could be decrypted with the given key.
var ErrNoRecipient = errors.New("pkcs7: no recipient matches the certificate and key")

// Decrypt decrypts the content for the recipient cert with its private
// key, which may live in an HSM (any crypto.Decrypter that takes SM2
// ciphertexts as *sm2.PrivateKey does). With cert nil every SM2 recipient is
// tried with key.
func (ed *EnvelopedData) Decrypt(cert *smx509.Certificate, key crypto.Decrypter) ([]byte, error) {
	cek, err := unwrapKey(ed.Recipients, cert, key)
	if err != nil {
		return nil, err
	}
	return ed.EncryptedContent.decrypt(cek)
}

func unwrapKey(recipients []*RecipientInfo, cert *smx509.Certificate, key crypto.Decrypter) ([]byte, error) {
	matched := false
	for _, ri := range recipients {
		if cert != nil && !ri.ID.Matches(cert) {
			continue
		}
		if !isSM2EncryptionAlgorithm(ri.KeyEncryptionAlgorithm.Algorithm) || !hasNoParameters(ri.KeyEncryptionAlgorithm) {
			if cert != nil {
				return nil, fmt.Errorf("pkcs7: unsupported key encryption algorithm %v", ri.KeyEncryptionAlgorithm.Algorithm)
			}
			continue
		}
		matched = true
		if cek, err := decryptKey(key, ri.EncryptedKey); err == nil {
			return cek, nil
		}
	}
	if matched {
		return nil, sm2.ErrDecryption
	}
	return nil, ErrNoRecipient
}

// decryptKey decrypts an SM2 key transport ciphertext: the GM/T 0009 ASN.1
// form GB/T 35275 specifies, or a raw C1C3C2 or C1C2C3 one.
func decryptKey(key crypto.Decrypter, ek []byte) ([]byte, error) {
	cek, err := key.Decrypt(rand.Reader, ek, nil)
	if err != nil && len(ek) > 0 && ek[0] != 0x30 {
		cek, err = key.Decrypt(rand.Reader, ek, &sm2.DecrypterOpts{Order: sm2.C1C2C3})
	}
	if err != nil {
		return nil, err
	}
	if len(cek) != sm4.KeySize {
		return nil, sm2.ErrDecryption
	}
	return cek, nil
}

// ErrDecryption is returned when the content does not decrypt under the
// content-encryption key (bad padding or authentication tag).
var ErrDecryption = errors.New("pkcs7: content decryption failed")

func (eci *EncryptedContentInfo) decrypt(key []byte) ([]byte, error) {
	if eci.Ciphertext == nil {
		return nil, errors.New("pkcs7: the encrypted content is not in the message")
	}
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	alg := eci.Algorithm
	params := cryptobyte.String(alg.Parameters.FullBytes)
	switch {
	case alg.Algorithm.Equal(x509.OIDSM4CBC):
		var iv cryptobyte.String
		if !params.ReadASN1(&iv, cbasn1.OCTET_STRING) || !params.Empty() || len(iv) != sm4.BlockSize {
			return nil, malformed("SM4-CBC parameters")
		}
		ct := eci.Ciphertext
		if len(ct) == 0 || len(ct)%sm4.BlockSize != 0 {
			return nil, ErrDecryption
		}
		pt := make([]byte, len(ct))
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(pt, ct)
		return unpad(pt)
	case alg.Algorithm.Equal(x509.OIDSM4GCM):
		// GCMParameters (RFC 5084): nonce, and the tag length (default 12).
		var seq, nonce cryptobyte.String
		tagLen := 12
		if !params.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadASN1(&nonce, cbasn1.OCTET_STRING) {
			return nil, malformed("SM4-GCM parameters")
		}
		if seq.PeekASN1Tag(cbasn1.INTEGER) && !seq.ReadASN1Integer(&tagLen) {
			return nil, malformed("SM4-GCM parameters")
		}
		if !seq.Empty() || !params.Empty() {
			return nil, malformed("SM4-GCM parameters")
		}
		if len(nonce) == 0 || tagLen < 12 || tagLen > 16 {
			return nil, malformed("SM4-GCM parameters")
		}
		aead, err := newGCM(block, len(nonce), tagLen)
		if err != nil {
			return nil, err
		}
		pt, err := aead.Open(nil, nonce, eci.Ciphertext, nil)
		if err != nil {
			return nil, ErrDecryption
		}
		return pt, nil
	}
	return nil, fmt.Errorf("pkcs7: unsupported content encryption algorithm %v", alg.Algorithm)
}

func newGCM(block cipher.Block, nonceLen, tagLen int) (cipher.AEAD, error) {
	switch {
	case nonceLen == 12 && tagLen == 16:
		return cipher.NewGCM(block)
	case nonceLen == 12:
		return cipher.NewGCMWithTagSize(block, tagLen)
	case tagLen == 16:
		return cipher.NewGCMWithNonceSize(block, nonceLen)
	}
	return nil, errors.New("pkcs7: SM4-GCM with both a non-standard nonce and tag length is not supported")
}

// unpad removes PKCS #7 padding, checking every padding byte.
func unpad(pt []byte) ([]byte, error) {
	n := int(pt[len(pt)-1])
	if n == 0 || n > sm4.BlockSize {
		return nil, ErrDecryption
	}
	good := 1
	for _, b := range pt[len(pt)-n:] {
		good &= subtle.ConstantTimeByteEq(b, byte(n))
	}
	if good != 1 {
		return nil, ErrDecryption
	}
	return pt[:len(pt)-n], nil
}

// Cipher is a content-encryption algorithm.
type Cipher int

const (
	// SM4CBC is SM4 in CBC mode with PKCS #7 padding, the algorithm every
	// SM implementation reads (GmSSL, Tongsuo, gmsm, CFCA).
	SM4CBC Cipher = iota
	// SM4GCM is SM4-GCM with a 12-byte nonce and a 16-byte tag appended to
	// the ciphertext, as gmsm writes it.
	SM4GCM
)

// Recipient is one recipient of an enveloped message.
type Recipient struct {
	// Certificate holds the recipient's SM2 encryption key.
	Certificate *smx509.Certificate
	// BySubjectKeyId names the recipient by subject key identifier
	// rather than by issuer and serial number.
	BySubjectKeyId bool
}

// EncryptOptions are the parameters of Encrypt, SignAndEncrypt and
// EncryptWithKey. The zero value (and nil) means GM/T 0010 identifiers,
// SM4-CBC and the GB/T 35275 key encryption identifier sm2-3.
type EncryptOptions struct {
	// Family selects the content type identifiers written.
	Family Family
	// Cipher is the content-encryption algorithm.
	Cipher Cipher
	// GmSSL writes GmSSL 3's key encryption identifier, sm2-2
	// (x509.OIDSM2KeyExchange), which its cmsdecrypt requires.
	GmSSL bool
	// ContentType is the type of the content; nil means data.
	ContentType asn1.ObjectIdentifier
	// Rand is the randomness for keys, IVs and SM2; nil means crypto/rand.
	Rand io.Reader
}

func (o *EncryptOptions) keyEncryption() asn1.ObjectIdentifier {
	if o.GmSSL {
		return x509.OIDSM2KeyExchange
	}
	return x509.OIDSM2Encryption
}

// Encrypt makes an EnvelopedData of content for the recipients, with a
// fresh SM4 key sent to each by SM2 encryption, and returns its DER.
func Encrypt(content []byte, recipients []Recipient, opts *EncryptOptions) ([]byte, error) {
	if opts == nil {
		opts = &EncryptOptions{}
	}
	infos, eci, err := envelope(content, recipients, opts)
	if err != nil {
		return nil, err
	}
	version, _ := recipientVersions(recipients, opts.Family)
	return marshalContentInfo(opts.Family.oid(EnvelopedDataType), version, func(b *cryptobyte.Builder) {
		addSetOf(b, cbasn1.SET, infos)
		b.AddBytes(eci)
	})
}

// recipientVersions returns the EnvelopedData version and each
// KeyTransRecipientInfo's: RFC 5652, 6.1 for PKCS #7 (0, or 2 with subject
// key identifiers), and GmSSL's 1 for GM/T 0010.
func recipientVersions(recipients []Recipient, f Family) (int, []int) {
	ed := 0
	if f == GMT0010 {
		ed = 1
	}
	vs := make([]int, len(recipients))
	for i, r := range recipients {
		switch {
		case r.BySubjectKeyId:
			vs[i], ed = 2, 2
		case f == GMT0010:
			vs[i] = 1
		}
	}
	return ed, vs
}

// envelope encrypts content under a fresh key and returns the
// RecipientInfos and the EncryptedContentInfo.
func envelope(content []byte, recipients []Recipient, opts *EncryptOptions) ([][]byte, []byte, error) {
	if len(recipients) == 0 {
		return nil, nil, errors.New("pkcs7: no recipients")
	}
	r := randOrDefault(opts.Rand)
	cek := make([]byte, sm4.KeySize)
	if _, err := io.ReadFull(r, cek); err != nil {
		return nil, nil, err
	}
	_, versions := recipientVersions(recipients, opts.Family)
	infos := make([][]byte, len(recipients))
	for i, rc := range recipients {
		if rc.Certificate == nil {
			return nil, nil, errors.New("pkcs7: a recipient needs a certificate")
		}
		pub, ok := rc.Certificate.PublicKey.(*sm2.PublicKey)
		if !ok {
			return nil, nil, fmt.Errorf("pkcs7: the recipient's certificate holds a %T key, not SM2", rc.Certificate.PublicKey)
		}
		if rc.BySubjectKeyId && len(rc.Certificate.SubjectKeyId) == 0 {
			return nil, nil, errors.New("pkcs7: the recipient's certificate has no subject key identifier")
		}
		ek, err := sm2.EncryptASN1(r, pub, cek)
		if err != nil {
			return nil, nil, err
		}
		var b cryptobyte.Builder
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1Int64(int64(versions[i]))
			addIdentifier(b, rc.Certificate, rc.BySubjectKeyId)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(opts.keyEncryption()) })
			b.AddASN1OctetString(ek)
		})
		infos[i] = b.BytesOrPanic()
	}
	eci, err := encryptContent(content, cek, opts)
	if err != nil {
		return nil, nil, err
	}
	return infos, eci, nil
}

// encryptContent returns the DER of an EncryptedContentInfo of content
// under key.
func encryptContent(content, key []byte, opts *EncryptOptions) ([]byte, error) {
	r := randOrDefault(opts.Rand)
	block, err := sm4.NewCipher(key)
	if err != nil {
		return nil, err
	}
	contentType := opts.ContentType
	if contentType == nil {
		contentType = opts.Family.oid(Data)
	}
	var ct []byte
	var alg func(b *cryptobyte.Builder)
	switch opts.Cipher {
	case SM4CBC:
		iv := make([]byte, sm4.BlockSize)
		if _, err := io.ReadFull(r, iv); err != nil {
			return nil, err
		}
		n := sm4.BlockSize - len(content)%sm4.BlockSize
		ct = make([]byte, len(content)+n)
		copy(ct, content)
		for i := len(content); i < len(ct); i++ {
			ct[i] = byte(n)
		}
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, ct)
		alg = func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(x509.OIDSM4CBC)
			b.AddASN1OctetString(iv)
		}
	case SM4GCM:
		nonce := make([]byte, 12)
		if _, err := io.ReadFull(r, nonce); err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		ct = aead.Seal(nil, nonce, content, nil)
		alg = func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(x509.OIDSM4GCM)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1OctetString(nonce)
				b.AddASN1Int64(16)
			})
		}
	default:
		return nil, errors.New("pkcs7: unknown cipher")
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(contentType)
		b.AddASN1(cbasn1.SEQUENCE, alg)
		b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(ct) })
	})
	return b.Bytes()
}
