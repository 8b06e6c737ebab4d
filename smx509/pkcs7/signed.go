package pkcs7

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// SignedData is a parsed SignedData (RFC 5652, 5; GB/T 35275, 8).
type SignedData struct {
	Version          int
	DigestAlgorithms []pkix.AlgorithmIdentifier
	// ContentType is the type of the signed content (eContentType).
	ContentType asn1.ObjectIdentifier
	// Content is the signed content, nil when the signature is detached.
	Content []byte
	// Detached reports that the message carries no content.
	Detached     bool
	Certificates []*smx509.Certificate
	CRLs         []*smx509.RevocationList
	Signers      []*SignerInfo

	// rawEncap is the DER of the encapsulated ContentInfo as written.
	rawEncap []byte
	// gmsslInput, if set, is what GmSSL's signatures cover instead of the
	// encapsulated ContentInfo (SignedAndEnvelopedData: see gmsslSealInput).
	gmsslInput []byte
}

// SignerInfo is one signer of a SignedData or SignedAndEnvelopedData.
type SignerInfo struct {
	Version            int
	ID                 Identifier
	DigestAlgorithm    pkix.AlgorithmIdentifier
	SignedAttributes   []Attribute // nil when the signature is over the content itself
	SignatureAlgorithm pkix.AlgorithmIdentifier
	Signature          []byte
	UnsignedAttributes []Attribute
	// CounterSignatures are the counterSignature attributes among the
	// unsigned attributes: signatures over Signature (RFC 5652, 11.4).
	CounterSignatures []*SignerInfo

	rawSignedAttrs []byte // the [0] IMPLICIT element as written
}

// maxCounterSignatureDepth bounds counter-signatures of counter-signatures.
const maxCounterSignatureDepth = 4

func parseSignedData(s cryptobyte.String) (*SignedData, error) {
	var sd cryptobyte.String
	if !s.ReadASN1(&sd, cbasn1.SEQUENCE) || !s.Empty() {
		return nil, malformed("SignedData")
	}
	out := new(SignedData)
	var ok bool
	if !sd.ReadASN1Integer(&out.Version) {
		return nil, malformed("SignedData version")
	}
	if out.DigestAlgorithms, ok = readAlgorithmSet(&sd); !ok {
		return nil, malformed("SignedData digestAlgorithms")
	}
	if err := out.readEncapsulated(&sd); err != nil {
		return nil, err
	}
	var err error
	if out.Certificates, out.CRLs, err = readCertificatesAndCRLs(&sd); err != nil {
		return nil, err
	}
	if out.Signers, err = readSignerInfos(&sd); err != nil {
		return nil, err
	}
	if !sd.Empty() {
		return nil, malformed("SignedData: trailing data")
	}
	return out, nil
}

// readEncapsulated reads the (encapsulated) ContentInfo. CMS puts the
// content in an OCTET STRING; PKCS #7 v1.5 writers put a non-data content
// there as itself, whose contents octets are what is digested.
func (sd *SignedData) readEncapsulated(s *cryptobyte.String) error {
	var encap, full cryptobyte.String
	if !s.ReadASN1Element(&full, cbasn1.SEQUENCE) {
		return malformed("encapsulated ContentInfo")
	}
	sd.rawEncap = full
	encap = full
	var present bool
	var content cryptobyte.String
	if !encap.ReadASN1(&encap, cbasn1.SEQUENCE) || !encap.ReadASN1ObjectIdentifier(&sd.ContentType) ||
		!encap.ReadOptionalASN1(&content, &present, cbasn1.Tag(0).Constructed().ContextSpecific()) || !encap.Empty() {
		return malformed("encapsulated ContentInfo")
	}
	if !present {
		sd.Detached = true
		return nil
	}
	var inner cryptobyte.String
	var tag cbasn1.Tag
	if !content.ReadAnyASN1(&inner, &tag) || !content.Empty() {
		return malformed("encapsulated content")
	}
	sd.Content = inner
	if sd.Content == nil {
		sd.Content = []byte{}
	}
	return nil
}

func readSignerInfos(s *cryptobyte.String) ([]*SignerInfo, error) {
	var set cryptobyte.String
	if !s.ReadASN1(&set, cbasn1.SET) {
		return nil, malformed("signerInfos")
	}
	n := countElements(set)
	if n < 0 {
		return nil, malformed("signerInfos")
	}
	out := make([]*SignerInfo, 0, n)
	for !set.Empty() {
		si, err := readSignerInfo(&set, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, si)
	}
	return out, nil
}

func readSignerInfo(s *cryptobyte.String, depth int) (*SignerInfo, error) {
	var in cryptobyte.String
	if !s.ReadASN1(&in, cbasn1.SEQUENCE) {
		return nil, malformed("SignerInfo")
	}
	si := new(SignerInfo)
	if !in.ReadASN1Integer(&si.Version) || !readIdentifier(&in, &si.ID) || !readAlgorithm(&in, &si.DigestAlgorithm) {
		return nil, malformed("SignerInfo")
	}
	if in.PeekASN1Tag(cbasn1.Tag(0).Constructed().ContextSpecific()) {
		var elem cryptobyte.String
		if !in.ReadASN1Element(&elem, cbasn1.Tag(0).Constructed().ContextSpecific()) {
			return nil, malformed("SignerInfo signedAttrs")
		}
		si.rawSignedAttrs = elem
		var set cryptobyte.String
		var ok bool
		elem.ReadASN1(&set, cbasn1.Tag(0).Constructed().ContextSpecific())
		if si.SignedAttributes, ok = readAttributes(set); !ok {
			return nil, malformed("SignerInfo signedAttrs")
		}
		if si.SignedAttributes == nil {
			si.SignedAttributes = []Attribute{}
		}
	}
	var sig cryptobyte.String
	if !readAlgorithm(&in, &si.SignatureAlgorithm) || !in.ReadASN1(&sig, cbasn1.OCTET_STRING) {
		return nil, malformed("SignerInfo signature")
	}
	si.Signature = sig
	var ok bool
	if si.UnsignedAttributes, ok = readFinalAttributes(&in); !ok {
		return nil, malformed("SignerInfo unsignedAttrs")
	}
	for _, a := range si.UnsignedAttributes {
		if !a.Type.Equal(OIDAttributeCounterSignature) {
			continue
		}
		if depth >= maxCounterSignatureDepth {
			return nil, errors.New("pkcs7: counter-signatures nested too deeply")
		}
		if si.CounterSignatures == nil {
			si.CounterSignatures = make([]*SignerInfo, 0, len(a.Values))
		}
		for _, v := range a.Values {
			vs := cryptobyte.String(v)
			cs, err := readSignerInfo(&vs, depth+1)
			if err != nil {
				return nil, fmt.Errorf("pkcs7: counter-signature: %w", err)
			}
			si.CounterSignatures = append(si.CounterSignatures, cs)
		}
	}
	return si, nil
}

// SigningTime returns the signing-time attribute, and whether there is one.
func (si *SignerInfo) SigningTime() (time.Time, bool) {
	values, present, err := findAttribute(si.SignedAttributes, OIDAttributeSigningTime)
	if !present || err != nil || len(values) != 1 {
		return time.Time{}, false
	}
	s := cryptobyte.String(values[0])
	var t time.Time
	var v cryptobyte.String
	var tag cbasn1.Tag
	probe := s
	if !probe.ReadAnyASN1(&v, &tag) {
		return time.Time{}, false
	}
	switch tag {
	case cbasn1.UTCTime:
		if !s.ReadASN1UTCTime(&t) {
			return time.Time{}, false
		}
	case cbasn1.GeneralizedTime:
		if !s.ReadASN1GeneralizedTime(&t) {
			return time.Time{}, false
		}
	default:
		return time.Time{}, false
	}
	return t, true
}

// Errors a verification wraps in a SignerError.
var (
	ErrNoSigners           = errors.New("pkcs7: the message has no signers")
	ErrSignerNotFound      = errors.New("pkcs7: the signer's certificate is not in the message or the given certificates")
	ErrDigestMismatch      = errors.New("pkcs7: message digest does not match the content")
	ErrContentTypeMismatch = errors.New("pkcs7: content-type attribute does not match the content's type")
	ErrBadSignature        = errors.New("pkcs7: signature does not verify")
	ErrKeyUsage            = errors.New("pkcs7: the signer's certificate does not allow digital signatures")
	ErrDetachedContent     = errors.New("pkcs7: the signature is detached: the content must be given")
)

// SignerError reports why one signer failed verification.
type SignerError struct {
	Index       int // position in SignerInfos
	Signer      *SignerInfo
	Certificate *smx509.Certificate // nil if it was not found
	Err         error
}

func (e *SignerError) Error() string {
	return fmt.Sprintf("pkcs7: signer %d (%s): %v", e.Index, e.Signer.ID.String(), e.Err)
}

func (e *SignerError) Unwrap() error { return e.Err }

// VerifyOptions are the parameters of SignedData.Verify.
type VerifyOptions struct {
	// Roots are the trust anchors the signers' chains must end in.
	Roots *smx509.CertPool
	// Intermediates may complete chains, in addition to the certificates
	// the message carries.
	Intermediates *smx509.CertPool
	// Certificates are searched for signers' certificates, in addition to
	// the message's: a message may carry none.
	Certificates []*smx509.Certificate
	// CurrentTime is the time at which chains are checked; zero means now.
	CurrentTime time.Time
	// KeyUsages are the acceptable extended key usages; empty means any.
	KeyUsages []smx509.ExtKeyUsage
	// UID is the signers' SM2 identifier. nil means DefaultUID, and then a
	// signature with the empty identifier is also accepted (see the package
	// documentation); a non-nil UID is the only one tried.
	UID []byte
	// StrictZ refuses the signatures without Z that OpenSSL, Tongsuo and
	// GmSSL make when there are no signed attributes (see the package
	// documentation).
	StrictZ bool
	// NoChainVerification checks the signatures only, as openssl cms
	// -noverify does: the signers' certificates are not verified.
	NoChainVerification bool
}

// Verify checks every signer of an attached SignedData: its signature,
// its signed attributes, and its certificate's chain and key usage. The
// error joins a *SignerError for each signer that failed.
func (sd *SignedData) Verify(opts VerifyOptions) error {
	if sd.Detached {
		return ErrDetachedContent
	}
	return sd.verify(bytes.NewReader(sd.Content), true, opts)
}

// VerifyDetached is Verify for a detached signature whose content is read
// from content, once, in constant memory.
func (sd *SignedData) VerifyDetached(content io.Reader, opts VerifyOptions) error {
	return sd.verify(content, false, opts)
}

// signerCheck is the state of one signer during verification.
type signerCheck struct {
	si   *SignerInfo
	cert *smx509.Certificate
	pub  *sm2.PublicKey
	// Without signed attributes the signature covers SM3(Z || content),
	// one hash per identifier tried.
	uids   [][]byte
	direct []hash.Hash
	err    error
}

func (sd *SignedData) verify(content io.Reader, attached bool, opts VerifyOptions) error {
	if len(sd.Signers) == 0 {
		return ErrNoSigners
	}
	checks := make([]*signerCheck, len(sd.Signers))
	var plain hash.Hash
	writers := []io.Writer{}
	uids := [][]byte{opts.UID}
	if opts.UID == nil {
		uids = [][]byte{nil, {}}
	}
	for i, si := range sd.Signers {
		c := &signerCheck{si: si}
		checks[i] = c
		c.cert, c.pub, c.err = findSigner(si, sd.Certificates, opts.Certificates)
		if c.err != nil {
			continue
		}
		if c.err = checkSignerAlgorithms(si); c.err != nil {
			continue
		}
		if plain == nil && (si.SignedAttributes != nil || !opts.StrictZ) {
			plain = sm3.New()
			writers = append(writers, plain)
		}
		c.uids = uids
		if si.SignedAttributes != nil {
			continue
		}
		for _, uid := range uids {
			h := sm3.New()
			h.Write(c.pub.Z(uid))
			c.direct = append(c.direct, h)
			writers = append(writers, h)
		}
	}
	if len(writers) > 0 {
		if _, err := io.Copy(io.MultiWriter(writers...), content); err != nil {
			return fmt.Errorf("pkcs7: reading the content: %w", err)
		}
	}
	var digest []byte
	if plain != nil {
		digest = plain.Sum(nil)
	}
	var errs []error
	for i, c := range checks {
		if c.err == nil {
			c.err = sd.checkSignature(c, digest, attached, opts.StrictZ)
		}
		if c.err == nil && !opts.NoChainVerification {
			c.err = sd.checkCertificate(c, opts)
		}
		if c.err != nil {
			errs = append(errs, &SignerError{Index: i, Signer: c.si, Certificate: c.cert, Err: c.err})
		}
	}
	return errors.Join(errs...)
}

func findSigner(si *SignerInfo, lists ...[]*smx509.Certificate) (*smx509.Certificate, *sm2.PublicKey, error) {
	for _, list := range lists {
		for _, cert := range list {
			if si.ID.Matches(cert) {
				pub, ok := cert.PublicKey.(*sm2.PublicKey)
				if !ok {
					return cert, nil, fmt.Errorf("pkcs7: the signer's key is %T, not SM2", cert.PublicKey)
				}
				return cert, pub, nil
			}
		}
	}
	return nil, nil, ErrSignerNotFound
}

func checkSignerAlgorithms(si *SignerInfo) error {
	if !si.DigestAlgorithm.Algorithm.Equal(x509.OIDSM3) || !hasNoParameters(si.DigestAlgorithm) {
		return fmt.Errorf("pkcs7: unsupported digest algorithm %v", si.DigestAlgorithm.Algorithm)
	}
	if !isSM2SignatureAlgorithm(si.SignatureAlgorithm.Algorithm) || !hasNoParameters(si.SignatureAlgorithm) {
		return fmt.Errorf("pkcs7: unsupported signature algorithm %v", si.SignatureAlgorithm.Algorithm)
	}
	return nil
}

// checkSignature checks one signer's signature given the SM3 digest of the
// content (for signers with signed attributes) or its own hashes.
func (sd *SignedData) checkSignature(c *signerCheck, digest []byte, attached, strictZ bool) error {
	si := c.si
	if si.SignedAttributes == nil {
		for _, h := range c.direct {
			if sm2.VerifyDigestASN1(c.pub, h.Sum(nil), si.Signature) {
				return nil
			}
		}
		if strictZ {
			return ErrBadSignature
		}
		// OpenSSL and Tongsuo sign SM3 of the content, without Z.
		if sm2.VerifyDigestASN1(c.pub, digest, si.Signature) {
			return nil
		}
		// GmSSL 3 signs SM3 of the encapsulated ContentInfo, without Z.
		if attached {
			input := sd.gmsslInput
			if input == nil {
				input = encapsulated(sd.ContentType, sd.Content, false)
			}
			e := sm3.Sum(input)
			if sm2.VerifyDigestASN1(c.pub, e[:], si.Signature) {
				return nil
			}
		}
		return ErrBadSignature
	}
	if err := checkSignedAttributes(si, sd.ContentType, digest); err != nil {
		return err
	}
	if !verifyAttributesSignature(c.pub, si, c.uids) {
		return ErrBadSignature
	}
	return nil
}

// checkSignedAttributes checks the content-type and message-digest
// attributes that RFC 5652, 5.3 requires whenever there are signed
// attributes.
func checkSignedAttributes(si *SignerInfo, contentType asn1.ObjectIdentifier, digest []byte) error {
	values, present, err := findAttribute(si.SignedAttributes, OIDAttributeContentType)
	if err != nil {
		return err
	}
	if !present || len(values) != 1 {
		return errors.New("pkcs7: signed attributes without a content-type attribute")
	}
	var ct asn1.ObjectIdentifier
	v := cryptobyte.String(values[0])
	if !v.ReadASN1ObjectIdentifier(&ct) || !v.Empty() {
		return malformed("content-type attribute")
	}
	if !ct.Equal(contentType) {
		return ErrContentTypeMismatch
	}
	values, present, err = findAttribute(si.SignedAttributes, OIDAttributeMessageDigest)
	if err != nil {
		return err
	}
	if !present || len(values) != 1 {
		return errors.New("pkcs7: signed attributes without a message-digest attribute")
	}
	var md cryptobyte.String
	v = cryptobyte.String(values[0])
	if !v.ReadASN1(&md, cbasn1.OCTET_STRING) || !v.Empty() {
		return malformed("message-digest attribute")
	}
	if !bytes.Equal(md, digest) {
		return ErrDigestMismatch
	}
	return nil
}

// verifyAttributesSignature checks the signature over the DER of the
// signed attributes, whose [0] IMPLICIT tag is signed as the SET tag.
func verifyAttributesSignature(pub *sm2.PublicKey, si *SignerInfo, uids [][]byte) bool {
	for _, uid := range uids {
		h := sm3.New()
		h.Write(pub.Z(uid))
		h.Write([]byte{0x31})
		h.Write(si.rawSignedAttrs[1:])
		if sm2.VerifyDigestASN1(pub, h.Sum(nil), si.Signature) {
			return true
		}
	}
	return false
}

func (sd *SignedData) checkCertificate(c *signerCheck, opts VerifyOptions) error {
	if c.cert.KeyUsage != 0 && c.cert.KeyUsage&(smx509.KeyUsageDigitalSignature|smx509.KeyUsageContentCommitment) == 0 {
		return ErrKeyUsage
	}
	inter := smx509.NewCertPool()
	if opts.Intermediates != nil {
		inter = opts.Intermediates.Clone()
	}
	for _, cert := range sd.Certificates {
		inter.AddCert(cert)
	}
	usages := opts.KeyUsages
	if len(usages) == 0 {
		usages = []smx509.ExtKeyUsage{smx509.ExtKeyUsageAny}
	}
	_, err := c.cert.Verify(smx509.VerifyOptions{
		Roots:         opts.Roots,
		Intermediates: inter,
		CurrentTime:   opts.CurrentTime,
		KeyUsages:     usages,
	})
	if err != nil {
		return fmt.Errorf("pkcs7: the signer's certificate: %w", err)
	}
	return nil
}

// VerifyCounterSignature checks that cs, a counter-signature of si, is a
// valid signature by cert over si's signature (RFC 5652, 11.4). Only the
// signature is checked, not cert's chain.
func (si *SignerInfo) VerifyCounterSignature(cs *SignerInfo, cert *smx509.Certificate, uid []byte) error {
	if !cs.ID.Matches(cert) {
		return ErrSignerNotFound
	}
	pub, ok := cert.PublicKey.(*sm2.PublicKey)
	if !ok {
		return fmt.Errorf("pkcs7: the counter-signer's key is %T, not SM2", cert.PublicKey)
	}
	if err := checkSignerAlgorithms(cs); err != nil {
		return err
	}
	if cs.SignedAttributes == nil {
		return errors.New("pkcs7: counter-signature without signed attributes")
	}
	// A counter-signature has no content-type attribute (RFC 5652, 11.1).
	values, present, err := findAttribute(cs.SignedAttributes, OIDAttributeMessageDigest)
	if err != nil || !present || len(values) != 1 {
		return errors.New("pkcs7: counter-signature without a message-digest attribute")
	}
	var md cryptobyte.String
	v := cryptobyte.String(values[0])
	digest := sm3.Sum(si.Signature)
	if !v.ReadASN1(&md, cbasn1.OCTET_STRING) || !bytes.Equal(md, digest[:]) {
		return ErrDigestMismatch
	}
	uids := [][]byte{uid}
	if uid == nil {
		uids = [][]byte{nil, {}}
	}
	if !verifyAttributesSignature(pub, cs, uids) {
		return ErrBadSignature
	}
	return nil
}

// Signer is one signer of a message being created.
type Signer struct {
	Certificate *smx509.Certificate
	// Key signs: an *sm2.PrivateKey, or any crypto.Signer with an SM2
	// public key whose Sign takes the message and an *sm2.SignerOpts, as
	// *sm2.PrivateKey's does (an HSM-held key).
	Key crypto.Signer
	// UID is the SM2 identifier; nil means DefaultUID.
	UID []byte
	// BySubjectKeyId names the signer by its subject key identifier
	// rather than by issuer and serial number.
	BySubjectKeyId bool
}

// SignOptions are the parameters of Sign and SignDetached. The zero value
// (and nil) means: GM/T 0010 identifiers, attached content, the
// content-type, message-digest and signing-time attributes, the signers'
// certificates carried.
type SignOptions struct {
	// Family selects the content type identifiers written.
	Family Family
	// Detached leaves the content out of the message.
	Detached bool
	// NoAttributes signs the content itself, without signed attributes.
	NoAttributes bool
	// NoSigningTime leaves out the signing-time attribute.
	NoSigningTime bool
	// SigningTime is the signing-time attribute; zero means now.
	SigningTime time.Time
	// GmSSL writes the signature GmSSL 3's cmsverify checks: over SM3 of
	// the encapsulated ContentInfo, without Z and without signed
	// attributes (it implies NoAttributes, and cannot be detached). Its
	// keys must be *sm2.PrivateKey.
	GmSSL bool
	// WithoutZ, with NoAttributes, signs SM3 of the content without Z, as
	// OpenSSL and Tongsuo do (openssl cms -sign -noattr), for verifiers
	// that expect that form. Its keys must be *sm2.PrivateKey.
	WithoutZ bool
	// SignatureAlgorithm is the digestEncryptionAlgorithm written: nil
	// means sm2-with-sm3 (x509.OIDSignatureSM2WithSM3), which GmSSL and
	// Tongsuo write and GmSSL requires; x509.OIDSM2Signing (sm2-1) is the
	// identifier of GB/T 35275, which gmsm and CFCA's SDK require and
	// Tongsuo also reads.
	SignatureAlgorithm asn1.ObjectIdentifier
	// ContentType is the type of the content; nil means data.
	ContentType asn1.ObjectIdentifier
	// NoCertificates leaves the signers' certificates out.
	NoCertificates bool
	// Certificates are carried too (chains for the verifier).
	Certificates []*smx509.Certificate
	// CRLs are carried.
	CRLs []*smx509.RevocationList
	// Rand is the randomness for the signatures; nil means crypto/rand.
	Rand io.Reader
}

// Sign makes a SignedData over content and returns its DER ContentInfo.
func Sign(content []byte, signers []Signer, opts *SignOptions) ([]byte, error) {
	if opts == nil {
		opts = &SignOptions{}
	}
	if content == nil {
		content = []byte{} // nil stands for streamed content below
	}
	return sign(bytes.NewReader(content), content, signers, opts, nil)
}

// SignDetached makes a detached SignedData over the content read from
// content, once, in constant memory. Without signed attributes every key
// must be an *sm2.PrivateKey, since a crypto.Signer needs the whole content.
func SignDetached(content io.Reader, signers []Signer, opts *SignOptions) ([]byte, error) {
	o := SignOptions{}
	if opts != nil {
		o = *opts
	}
	o.Detached = true
	return sign(content, nil, signers, &o, nil)
}

// sign makes a SignedData. gmsslInput, if not nil, replaces the
// encapsulated ContentInfo as what GmSSL's signature form covers.
func sign(r io.Reader, content []byte, signers []Signer, opts *SignOptions, gmsslInput []byte) ([]byte, error) {
	encap, infos, err := signerInfos(r, content, signers, opts, gmsslInput)
	if err != nil {
		return nil, err
	}
	contentType := opts.ContentType
	if contentType == nil {
		contentType = opts.Family.oid(Data)
	}
	certs := certificatesToCarry(signers, opts)
	version := 1
	if opts.Family == PKCS7 {
		// RFC 5652, 5.1.
		if !contentType.Equal(OIDData) {
			version = 3
		}
		for _, s := range signers {
			if s.BySubjectKeyId {
				version = 3
			}
		}
	}
	return marshalContentInfo(opts.Family.oid(SignedDataType), version, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) { addSM3Algorithm(b) })
		b.AddBytes(encap)
		addCertificatesAndCRLs(b, certs, opts.CRLs)
		addSetOf(b, cbasn1.SET, infos)
	})
}

// signerInfos reads the content from r once and returns the encapsulated
// ContentInfo and one SignerInfo per signer, in the signers' order.
func signerInfos(r io.Reader, content []byte, signers []Signer, opts *SignOptions, gmsslInput []byte) (encap []byte, infos [][]byte, err error) {
	if len(signers) == 0 {
		return nil, nil, errors.New("pkcs7: no signers")
	}
	if a := opts.signatureAlgorithm(); !a.Equal(x509.OIDSignatureSM2WithSM3) && !a.Equal(x509.OIDSM2Signing) {
		return nil, nil, fmt.Errorf("pkcs7: signature algorithm %v is not sm2-with-sm3 or sm2-1", a)
	}
	noAttrs := opts.NoAttributes || opts.GmSSL
	if opts.GmSSL && (opts.Detached || content == nil) {
		return nil, nil, errors.New("pkcs7: GmSSL's signature form needs attached content")
	}
	contentType := opts.ContentType
	if contentType == nil {
		contentType = opts.Family.oid(Data)
	}
	for _, s := range signers {
		if s.Certificate == nil || s.Key == nil {
			return nil, nil, errors.New("pkcs7: a signer needs a certificate and a key")
		}
		if _, ok := s.Certificate.PublicKey.(*sm2.PublicKey); !ok {
			return nil, nil, fmt.Errorf("pkcs7: the signer's certificate holds a %T key, not SM2", s.Certificate.PublicKey)
		}
		if !s.Certificate.PublicKey.(*sm2.PublicKey).Equal(s.Key.Public()) {
			return nil, nil, errors.New("pkcs7: the signer's key does not match its certificate")
		}
		if s.BySubjectKeyId && len(s.Certificate.SubjectKeyId) == 0 {
			return nil, nil, errors.New("pkcs7: the signer's certificate has no subject key identifier")
		}
		if _, ok := s.Key.(*sm2.PrivateKey); !ok && noAttrs && (content == nil || opts.GmSSL || opts.WithoutZ) {
			return nil, nil, errors.New("pkcs7: this signature form needs an *sm2.PrivateKey")
		}
	}

	encap = encapsulated(contentType, content, opts.Detached)

	// One pass over the content feeds every hash that needs it.
	var plain hash.Hash
	direct := make([]hash.Hash, len(signers))
	var writers []io.Writer
	withoutZ := noAttrs && opts.WithoutZ && !opts.GmSSL
	if !noAttrs || withoutZ {
		plain = sm3.New()
		writers = append(writers, plain)
	} else if !opts.GmSSL {
		for i, s := range signers {
			if _, ok := s.Key.(*sm2.PrivateKey); ok {
				direct[i] = sm3.New()
				direct[i].Write(s.Certificate.PublicKey.(*sm2.PublicKey).Z(s.UID))
				writers = append(writers, direct[i])
			}
		}
	}
	if len(writers) > 0 {
		if _, err := io.Copy(io.MultiWriter(writers...), r); err != nil {
			return nil, nil, fmt.Errorf("pkcs7: reading the content: %w", err)
		}
	}

	signingTime := opts.SigningTime
	if signingTime.IsZero() {
		signingTime = time.Now()
	}
	infos = make([][]byte, len(signers))
	for i, s := range signers {
		var attrs []byte
		var sig []byte
		var err error
		switch {
		case opts.GmSSL:
			input := encap
			if gmsslInput != nil {
				input = gmsslInput
			}
			e := sm3.Sum(input)
			sig, err = sm2.SignDigestASN1(opts.Rand, s.Key.(*sm2.PrivateKey), e[:])
		case withoutZ:
			sig, err = sm2.SignDigestASN1(opts.Rand, s.Key.(*sm2.PrivateKey), plain.Sum(nil))
		case noAttrs && direct[i] != nil:
			sig, err = sm2.SignDigestASN1(opts.Rand, s.Key.(*sm2.PrivateKey), direct[i].Sum(nil))
		case noAttrs:
			sig, err = s.Key.Sign(randOrDefault(opts.Rand), content, &sm2.SignerOpts{UID: s.UID})
		default:
			attrs = signedAttributes(contentType, plain.Sum(nil), signingTime, !opts.NoSigningTime)
			sig, err = s.Key.Sign(randOrDefault(opts.Rand), attrs, &sm2.SignerOpts{UID: s.UID})
		}
		if err != nil {
			return nil, nil, fmt.Errorf("pkcs7: signer %d: %w", i, err)
		}
		infos[i] = signerInfo(s, opts.signatureAlgorithm(), attrs, sig, nil)
	}
	return encap, infos, nil
}

func (o *SignOptions) signatureAlgorithm() asn1.ObjectIdentifier {
	if o.SignatureAlgorithm == nil {
		return x509.OIDSignatureSM2WithSM3
	}
	return o.SignatureAlgorithm
}

func randOrDefault(r io.Reader) io.Reader {
	if r == nil {
		return rand.Reader
	}
	return r
}

// encapsulated returns the DER of the encapsulated ContentInfo.
func encapsulated(contentType asn1.ObjectIdentifier, content []byte, detached bool) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(contentType)
		if !detached {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1OctetString(content)
			})
		}
	})
	return b.BytesOrPanic()
}

func addSM3Algorithm(b *cryptobyte.Builder) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(x509.OIDSM3) })
}

func addSM2SignatureAlgorithm(b *cryptobyte.Builder, oid asn1.ObjectIdentifier) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(oid) })
}

// signedAttributes returns the DER SET OF the signed attributes, as
// signed; the SignerInfo carries it with the tag [0] IMPLICIT.
func signedAttributes(contentType asn1.ObjectIdentifier, digest []byte, t time.Time, withTime bool) []byte {
	var attrs [][]byte
	attrs = append(attrs, attribute(OIDAttributeContentType, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(contentType) }))
	attrs = append(attrs, attribute(OIDAttributeMessageDigest, func(b *cryptobyte.Builder) { b.AddASN1OctetString(digest) }))
	if withTime {
		attrs = append(attrs, attribute(OIDAttributeSigningTime, func(b *cryptobyte.Builder) { addTime(b, t) }))
	}
	var b cryptobyte.Builder
	addSetOf(&b, cbasn1.SET, attrs)
	return b.BytesOrPanic()
}

// addTime writes t as UTCTime for 1950–2049 and as GeneralizedTime
// otherwise (RFC 5652, 11.3).
func addTime(b *cryptobyte.Builder, t time.Time) {
	t = t.UTC().Truncate(time.Second)
	if y := t.Year(); y >= 1950 && y < 2050 {
		b.AddASN1UTCTime(t)
	} else {
		b.AddASN1GeneralizedTime(t)
	}
}

func attribute(oid asn1.ObjectIdentifier, value func(b *cryptobyte.Builder)) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(oid)
		b.AddASN1(cbasn1.SET, value)
	})
	return b.BytesOrPanic()
}

// addSetOf writes a SET OF with its elements in the order DER requires
// (X.690, 11.6): ascending by their encodings.
func addSetOf(b *cryptobyte.Builder, tag cbasn1.Tag, elems [][]byte) {
	sorted := make([][]byte, len(elems))
	copy(sorted, elems)
	slices.SortFunc(sorted, bytes.Compare)
	b.AddASN1(tag, func(b *cryptobyte.Builder) {
		for _, e := range sorted {
			b.AddBytes(e)
		}
	})
}

// addIdentifier writes IssuerAndSerialNumber or [0] SubjectKeyIdentifier.
func addIdentifier(b *cryptobyte.Builder, cert *smx509.Certificate, bySKI bool) {
	if bySKI {
		b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(cert.SubjectKeyId) })
		return
	}
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(cert.RawIssuer)
		b.AddASN1BigInt(cert.SerialNumber)
	})
}

// signerInfo returns the DER of a SignerInfo; attrs is the SET OF signed
// attributes or nil.
func signerInfo(s Signer, sigAlg asn1.ObjectIdentifier, attrs, sig, unsigned []byte) []byte {
	version := int64(1)
	if s.BySubjectKeyId {
		version = 3
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(version)
		addIdentifier(b, s.Certificate, s.BySubjectKeyId)
		addSM3Algorithm(b)
		if attrs != nil {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddBytes(attrs[headerLen(attrs):])
			})
		}
		addSM2SignatureAlgorithm(b, sigAlg)
		b.AddASN1OctetString(sig)
		if unsigned != nil {
			b.AddBytes(unsigned)
		}
	})
	return b.BytesOrPanic()
}

// headerLen returns the length of the DER header of the element der.
func headerLen(der []byte) int {
	if der[1] < 0x80 {
		return 2
	}
	return 2 + int(der[1]&0x7f)
}

func certificatesToCarry(signers []Signer, opts *SignOptions) []*smx509.Certificate {
	var certs, all []*smx509.Certificate
	if !opts.NoCertificates {
		for _, s := range signers {
			all = append(all, s.Certificate)
		}
	}
	all = append(all, opts.Certificates...)
	for _, c := range all {
		dup := false
		for _, d := range certs {
			dup = dup || bytes.Equal(c.Raw, d.Raw)
		}
		if !dup {
			certs = append(certs, c)
		}
	}
	return certs
}

func addCertificatesAndCRLs(b *cryptobyte.Builder, certs []*smx509.Certificate, crls []*smx509.RevocationList) {
	if len(certs) > 0 {
		raws := make([][]byte, len(certs))
		for i, c := range certs {
			raws[i] = c.Raw
		}
		addSetOf(b, cbasn1.Tag(0).Constructed().ContextSpecific(), raws)
	}
	if len(crls) > 0 {
		raws := make([][]byte, len(crls))
		for i, c := range crls {
			raws[i] = c.Raw
		}
		addSetOf(b, cbasn1.Tag(1).Constructed().ContextSpecific(), raws)
	}
}
