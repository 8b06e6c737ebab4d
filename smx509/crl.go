package smx509

import (
	"crypto"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"io"
	"math/big"
	"time"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// RevocationListEntry is one revoked certificate in a CRL.
type RevocationListEntry struct {
	Raw            []byte
	SerialNumber   *big.Int
	RevocationTime time.Time
	// ReasonCode is the CRL reason (RFC 5280, 5.3.1); 0 when absent.
	ReasonCode      int
	Extensions      []pkix.Extension
	ExtraExtensions []pkix.Extension
}

// RevocationList is an X.509 v2 certificate revocation list.
type RevocationList struct {
	Raw                  []byte
	RawTBSRevocationList []byte
	RawIssuer            []byte

	Issuer         pkix.Name
	AuthorityKeyId []byte

	Signature          []byte
	SignatureAlgorithm SignatureAlgorithm

	RevokedCertificateEntries []RevocationListEntry

	Number     *big.Int
	ThisUpdate time.Time
	NextUpdate time.Time

	Extensions      []pkix.Extension
	ExtraExtensions []pkix.Extension
}

// ParseRevocationList parses a DER X.509 v1 or v2 CRL.
func ParseRevocationList(der []byte) (*RevocationList, error) {
	rl := &RevocationList{}
	errMalformed := errors.New("x509: malformed crl")

	input := cryptobyte.String(der)
	if !input.ReadASN1Element(&input, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	rl.Raw = input
	if len(rl.Raw) != len(der) {
		return nil, errors.New("x509: trailing data")
	}
	if !input.ReadASN1(&input, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	var tbs cryptobyte.String
	if !input.ReadASN1Element(&tbs, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	rl.RawTBSRevocationList = tbs
	if !tbs.ReadASN1(&tbs, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}

	var version int
	if tbs.PeekASN1Tag(cbasn1.INTEGER) {
		if !tbs.ReadASN1Integer(&version) || version != 1 {
			return nil, errors.New("x509: unsupported crl version")
		}
	}

	var sigAISeq, outerSigAISeq cryptobyte.String
	if !tbs.ReadASN1(&sigAISeq, cbasn1.SEQUENCE) || !input.ReadASN1(&outerSigAISeq, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	if string(sigAISeq) != string(outerSigAISeq) {
		return nil, errors.New("x509: inner and outer signature algorithm identifiers don't match")
	}
	ai, err := parseAlgorithmIdentifier(sigAISeq)
	if err != nil {
		return nil, err
	}
	rl.SignatureAlgorithm = getSignatureAlgorithm(ai)

	var sig asn1.BitString
	if !input.ReadASN1BitString(&sig) || !input.Empty() {
		return nil, errMalformed
	}
	rl.Signature = sig.RightAlign()

	var issuerSeq cryptobyte.String
	if !tbs.ReadASN1Element(&issuerSeq, cbasn1.SEQUENCE) {
		return nil, errMalformed
	}
	rl.RawIssuer = issuerSeq
	err = parseName(issuerSeq, nil, &rl.Issuer)
	if err != nil {
		return nil, err
	}

	if rl.ThisUpdate, err = parseTime(&tbs); err != nil {
		return nil, err
	}
	if tbs.PeekASN1Tag(cbasn1.GeneralizedTime) || tbs.PeekASN1Tag(cbasn1.UTCTime) {
		if rl.NextUpdate, err = parseTime(&tbs); err != nil {
			return nil, err
		}
	}

	if tbs.PeekASN1Tag(cbasn1.SEQUENCE) {
		var revoked cryptobyte.String
		if !tbs.ReadASN1(&revoked, cbasn1.SEQUENCE) {
			return nil, errMalformed
		}
		for !revoked.Empty() {
			var entry RevocationListEntry
			var certSeq cryptobyte.String
			if !revoked.ReadASN1Element(&certSeq, cbasn1.SEQUENCE) {
				return nil, errMalformed
			}
			entry.Raw = certSeq
			if !certSeq.ReadASN1(&certSeq, cbasn1.SEQUENCE) {
				return nil, errMalformed
			}
			entry.SerialNumber = new(big.Int)
			if !certSeq.ReadASN1Integer(entry.SerialNumber) {
				return nil, errMalformed
			}
			if entry.RevocationTime, err = parseTime(&certSeq); err != nil {
				return nil, err
			}
			if !certSeq.Empty() {
				var extSeq cryptobyte.String
				if !certSeq.ReadASN1Element(&extSeq, cbasn1.SEQUENCE) || !certSeq.Empty() {
					return nil, errMalformed
				}
				if entry.Extensions, err = readExtensions(extSeq); err != nil {
					return nil, err
				}
				for _, e := range entry.Extensions {
					if e.Id.Equal(oidExtensionReasonCode) {
						v := cryptobyte.String(e.Value)
						if !v.ReadASN1Enum(&entry.ReasonCode) || !v.Empty() {
							return nil, errors.New("x509: malformed reasonCode extension")
						}
					}
				}
			}
			rl.RevokedCertificateEntries = append(rl.RevokedCertificateEntries, entry)
		}
	}

	var extensions cryptobyte.String
	var present bool
	if !tbs.ReadOptionalASN1(&extensions, &present, cbasn1.Tag(0).Constructed().ContextSpecific()) {
		return nil, errMalformed
	}
	if !tbs.Empty() {
		return nil, errCRLTrailingFields
	}
	if present {
		if rl.Extensions, err = readExtensions(extensions); err != nil {
			return nil, err
		}
		for _, e := range rl.Extensions {
			switch {
			case e.Id.Equal(oidExtensionAuthorityKeyId):
				if rl.AuthorityKeyId, err = parseAuthorityKeyId(e.Value); err != nil {
					return nil, err
				}
			case e.Id.Equal(oidExtensionCRLNumber):
				v := cryptobyte.String(e.Value)
				rl.Number = new(big.Int)
				if !v.ReadASN1Integer(rl.Number) || !v.Empty() {
					return nil, errors.New("x509: malformed crl number")
				}
			}
		}
	}
	return rl, nil
}

// CheckSignatureFrom verifies that the signature on rl is a valid signature
// from issuer, which must be allowed to sign CRLs (cRLSign, if it has a
// key-usage extension).
func (rl *RevocationList) CheckSignatureFrom(parent *Certificate) error {
	if parent.Version == 3 && !parent.BasicConstraintsValid ||
		parent.BasicConstraintsValid && !parent.IsCA {
		return ConstraintViolationError{}
	}
	if parent.KeyUsage != 0 && parent.KeyUsage&KeyUsageCRLSign == 0 {
		return ConstraintViolationError{}
	}
	if parent.PublicKeyAlgorithm == UnknownPublicKeyAlgorithm {
		return ErrUnsupportedAlgorithm
	}
	return checkSignature(rl.SignatureAlgorithm, rl.RawTBSRevocationList, rl.Signature, parent.PublicKey, true)
}

// CreateRevocationList creates a new X.509 v2 CRL based on template, signed
// by priv, the key of issuer. issuer must be a CA allowed to sign CRLs;
// template.Number is required (RFC 5280, 5.2.3). Entries are written from
// RevokedCertificateEntries, with a reasonCode extension when ReasonCode is
// non-zero.
func CreateRevocationList(rand io.Reader, template *RevocationList, issuer *Certificate, priv crypto.Signer) ([]byte, error) {
	if template == nil {
		return nil, errors.New("x509: template can not be nil")
	}
	if issuer == nil {
		return nil, errors.New("x509: issuer can not be nil")
	}
	if issuer.KeyUsage != 0 && issuer.KeyUsage&KeyUsageCRLSign == 0 {
		return nil, errors.New("x509: issuer must have the crlSign key usage bit set")
	}
	if template.Number == nil || template.Number.Sign() < 0 || len(template.Number.Bytes()) > 20 {
		return nil, errors.New("x509: template contains nil, negative or too long Number")
	}
	if template.NextUpdate.Before(template.ThisUpdate) {
		return nil, errors.New("x509: template.ThisUpdate is after template.NextUpdate")
	}
	key, err := asSigner(priv)
	if err != nil {
		return nil, err
	}
	sigAlgo, err := signingParams(key, template.SignatureAlgorithm)
	if err != nil {
		return nil, err
	}
	issuerName, err := subjectBytes(issuer)
	if err != nil {
		return nil, err
	}

	var exts []pkix.Extension
	if len(issuer.SubjectKeyId) > 0 && !oidInExtensions(oidExtensionAuthorityKeyId, template.ExtraExtensions) {
		e, err := buildExt(oidExtensionAuthorityKeyId, false, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(issuer.SubjectKeyId) })
			})
		})
		if err != nil {
			return nil, err
		}
		exts = append(exts, e)
	}
	if !oidInExtensions(oidExtensionCRLNumber, template.ExtraExtensions) {
		e, err := buildExt(oidExtensionCRLNumber, false, func(b *cryptobyte.Builder) { b.AddASN1BigInt(template.Number) })
		if err != nil {
			return nil, err
		}
		exts = append(exts, e)
	}
	exts = append(exts, template.ExtraExtensions...)

	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(1)
		addSignatureAlgorithmIdentifier(b, sigAlgo)
		b.AddBytes(issuerName)
		addTime(b, template.ThisUpdate)
		if !template.NextUpdate.IsZero() {
			addTime(b, template.NextUpdate)
		}
		if len(template.RevokedCertificateEntries) > 0 {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				for _, rc := range template.RevokedCertificateEntries {
					if rc.SerialNumber == nil {
						b.SetError(errors.New("x509: revoked entry without serial number"))
						return
					}
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1BigInt(rc.SerialNumber)
						addTime(b, rc.RevocationTime)
						var entryExts []pkix.Extension
						if rc.ReasonCode != 0 && !oidInExtensions(oidExtensionReasonCode, rc.ExtraExtensions) {
							e, err := buildExt(oidExtensionReasonCode, false, func(b *cryptobyte.Builder) {
								b.AddASN1Enum(int64(rc.ReasonCode))
							})
							if err != nil {
								b.SetError(err)
								return
							}
							entryExts = append(entryExts, e)
						}
						entryExts = append(entryExts, rc.ExtraExtensions...)
						if len(entryExts) > 0 {
							addExtensions(b, entryExts)
						}
					})
				}
			})
		}
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			addExtensions(b, exts)
		})
	})
	tbs, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	signature, err := signData(rand, key, sigAlgo, tbs)
	if err != nil {
		return nil, err
	}
	return wrapSigned(tbs, sigAlgo, signature)
}
