package smx509

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"io"
	"net"
	"time"

	smx "github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// CreateCertificate creates a new X.509 v3 certificate based on a template
// and returns it in DER form. The fields of template used are those
// crypto/x509.CreateCertificate uses: SerialNumber, Subject, NotBefore,
// NotAfter, KeyUsage, ExtKeyUsage, UnknownExtKeyUsage, BasicConstraintsValid,
// IsCA, MaxPathLen, MaxPathLenZero, SubjectKeyId, AuthorityKeyId, DNSNames,
// EmailAddresses, IPAddresses, URIs, the name constraint fields,
// CRLDistributionPoints, OCSPServer, IssuingCertificateURL,
// PolicyIdentifiers, SignatureAlgorithm and ExtraExtensions.
//
// The certificate is signed by priv, the key of parent (template itself for a
// self-signed certificate). pub is the subject's public key. SM2 keys
// (*sm2.PrivateKey or any crypto.Signer whose public key is *sm2.PublicKey)
// sign with SM2-with-SM3 and the default signer ID 1234567812345678; other
// keys choose as crypto/x509 does. The signature is checked against parent's
// public key before the certificate is returned, so a mismatched key is
// reported instead of producing a certificate nobody can verify.
//
// If SubjectKeyId is empty, it is set to the leftmost 160 bits of the SHA-256
// of the subject public key (RFC 7093, method 1).
func CreateCertificate(rand io.Reader, template, parent *Certificate, pub, priv any) ([]byte, error) {
	key, err := asSigner(priv)
	if err != nil {
		return nil, err
	}
	if template.SerialNumber == nil {
		return nil, errors.New("x509: no SerialNumber given")
	}
	if template.SerialNumber.Sign() == -1 {
		return nil, errors.New("x509: serial number must be positive")
	}
	if len(template.SerialNumber.Bytes()) > 20 {
		return nil, errors.New("x509: serial number exceeds 20 octets")
	}
	if template.BasicConstraintsValid && !template.IsCA && template.MaxPathLen != -1 && (template.MaxPathLen != 0 || template.MaxPathLenZero) {
		return nil, errors.New("x509: only CAs are allowed to specify MaxPathLen")
	}
	sigAlgo, err := signingParams(key, template.SignatureAlgorithm)
	if err != nil {
		return nil, err
	}
	spki, err := smx.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	if _, pkAlgo, err := parseSPKI(spki); err != nil || pkAlgo == UnknownPublicKeyAlgorithm {
		return nil, errors.New("x509: unsupported public key type")
	}

	issuer, err := subjectBytes(parent)
	if err != nil {
		return nil, err
	}
	subject, err := subjectBytes(template)
	if err != nil {
		return nil, err
	}

	authorityKeyId := template.AuthorityKeyId
	if !bytes.Equal(issuer, subject) && len(parent.SubjectKeyId) > 0 {
		authorityKeyId = parent.SubjectKeyId
	}
	subjectKeyId := template.SubjectKeyId
	if len(subjectKeyId) == 0 {
		subjectKeyId = keyIdentifier(spki)
	}
	// A self-signed certificate names itself as its authority when it has
	// no explicit one, which lets chain builders match it by key ID.
	if len(authorityKeyId) == 0 && bytes.Equal(issuer, subject) && template == parent {
		authorityKeyId = subjectKeyId
	}

	exts, err := buildCertExtensions(template, len(subject) == 2 /* empty SEQUENCE */, authorityKeyId, subjectKeyId)
	if err != nil {
		return nil, err
	}

	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1Int64(2)
		})
		b.AddASN1BigInt(template.SerialNumber)
		addSignatureAlgorithmIdentifier(b, sigAlgo)
		b.AddBytes(issuer)
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			addTime(b, template.NotBefore)
			addTime(b, template.NotAfter)
		})
		b.AddBytes(subject)
		b.AddBytes(spki)
		if len(exts) > 0 {
			b.AddASN1(cbasn1.Tag(3).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				addExtensions(b, exts)
			})
		}
	})
	tbs, err := b.Bytes()
	if err != nil {
		return nil, err
	}

	signature, err := signData(rand, key, sigAlgo, tbs)
	if err != nil {
		return nil, err
	}
	// Check the signature against the issuer's key: this catches a priv
	// that does not belong to parent, and a faulty signer.
	issuerPub := parent.PublicKey
	if issuerPub == nil || template == parent {
		issuerPub = key.Public()
		if p, err := asSPKIKey(issuerPub); err == nil {
			issuerPub = p
		}
	}
	if err := checkSignature(sigAlgo, tbs, signature, issuerPub, false); err != nil {
		return nil, errors.New("x509: signature over certificate does not verify with the issuer's public key (wrong private key for parent?): " + err.Error())
	}
	if template == parent && !samePublicKey(spki, key) {
		return nil, errors.New("x509: self-signed certificate: the public key does not match the private key")
	}
	return wrapSigned(tbs, sigAlgo, signature)
}

// asSPKIKey normalises a public key into the form ParseCertificate would
// produce, so that a signer whose Public returns some other form of its key
// is checked against the key the certificate will hold.
func asSPKIKey(pub any) (any, error) {
	der, err := smx.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return smx.ParsePKIXPublicKey(der)
}

func samePublicKey(spki []byte, key crypto.Signer) bool {
	der, err := smx.MarshalPKIXPublicKey(key.Public())
	return err == nil && bytes.Equal(der, spki)
}

// wrapSigned builds SEQUENCE { tbs, AlgorithmIdentifier, BIT STRING sig },
// the outer shape shared by certificates, requests and CRLs.
func wrapSigned(tbs []byte, sigAlgo SignatureAlgorithm, signature []byte) ([]byte, error) {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddBytes(tbs)
		addSignatureAlgorithmIdentifier(b, sigAlgo)
		b.AddASN1BitString(signature)
	})
	return b.Bytes()
}

// keyIdentifier is RFC 7093 method 1: SHA-256 of the subjectPublicKey BIT
// STRING contents, truncated to 160 bits.
func keyIdentifier(spki []byte) []byte {
	s := cryptobyte.String(spki)
	var bits asn1.BitString
	if !s.ReadASN1(&s, cbasn1.SEQUENCE) || !s.SkipASN1(cbasn1.SEQUENCE) || !s.ReadASN1BitString(&bits) {
		return nil
	}
	h := sha256.Sum256(bits.Bytes)
	return h[:20]
}

func subjectBytes(cert *Certificate) ([]byte, error) {
	if len(cert.RawSubject) > 0 {
		return cert.RawSubject, nil
	}
	return asn1.Marshal(cert.Subject.ToRDNSequence())
}

// addTime writes t as UTCTime for 1950–2049 and GeneralizedTime otherwise
// (RFC 5280, 4.1.2.5), always in UTC and whole seconds.
func addTime(b *cryptobyte.Builder, t time.Time) {
	t = t.UTC().Truncate(time.Second)
	if t.Year() >= 1950 && t.Year() < 2050 {
		b.AddASN1UTCTime(t)
	} else {
		b.AddASN1GeneralizedTime(t)
	}
}

func addExtensions(b *cryptobyte.Builder, exts []pkix.Extension) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for _, e := range exts {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(e.Id)
				if e.Critical {
					b.AddASN1Boolean(true)
				}
				b.AddASN1OctetString(e.Value)
			})
		}
	})
}

func oidInExtensions(oid asn1.ObjectIdentifier, exts []pkix.Extension) bool {
	for _, e := range exts {
		if e.Id.Equal(oid) {
			return true
		}
	}
	return false
}

func buildExt(id asn1.ObjectIdentifier, critical bool, f func(b *cryptobyte.Builder)) (pkix.Extension, error) {
	var b cryptobyte.Builder
	f(&b)
	v, err := b.Bytes()
	return pkix.Extension{Id: id, Critical: critical, Value: v}, err
}

// addKeyUsageBits writes KeyUsage as a named-bit BIT STRING with trailing
// zero bits removed, as DER requires (X.690, 11.2.2).
func addKeyUsageBits(b *cryptobyte.Builder, ku KeyUsage) {
	var a [2]byte
	for i := 0; i < 9; i++ {
		if ku&(1<<uint(i)) != 0 {
			a[i/8] |= 0x80 >> uint(i%8)
		}
	}
	n := 2
	if a[1] == 0 {
		n = 1
	}
	unused := 0
	for unused < 8 && a[n-1]&(1<<uint(unused)) == 0 {
		unused++
	}
	b.AddASN1(cbasn1.BIT_STRING, func(b *cryptobyte.Builder) {
		b.AddUint8(uint8(unused))
		b.AddBytes(a[:n])
	})
}

func addGeneralNames(b *cryptobyte.Builder, dnsNames, emails []string, ips []net.IP, uris []string) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		for _, e := range emails {
			if !isIA5String(e) {
				b.SetError(errors.New("x509: " + e + " cannot be encoded as an IA5String"))
			}
			b.AddASN1(cbasn1.Tag(nameTypeEmail).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(e)) })
		}
		for _, d := range dnsNames {
			if !isIA5String(d) {
				b.SetError(errors.New("x509: " + d + " cannot be encoded as an IA5String"))
			}
			b.AddASN1(cbasn1.Tag(nameTypeDNS).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(d)) })
		}
		for _, u := range uris {
			if !isIA5String(u) {
				b.SetError(errors.New("x509: " + u + " cannot be encoded as an IA5String"))
			}
			b.AddASN1(cbasn1.Tag(nameTypeURI).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(u)) })
		}
		for _, ip := range ips {
			raw := ip.To4()
			if raw == nil {
				raw = ip.To16()
			}
			if raw == nil {
				b.SetError(errors.New("x509: invalid IP address in SAN"))
				return
			}
			b.AddASN1(cbasn1.Tag(nameTypeIP).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(raw) })
		}
	})
}

func buildCertExtensions(template *Certificate, subjectIsEmpty bool, authorityKeyId, subjectKeyId []byte) ([]pkix.Extension, error) {
	var exts []pkix.Extension
	add := func(id asn1.ObjectIdentifier, critical bool, f func(b *cryptobyte.Builder)) error {
		if oidInExtensions(id, template.ExtraExtensions) {
			return nil
		}
		e, err := buildExt(id, critical, f)
		if err != nil {
			return err
		}
		exts = append(exts, e)
		return nil
	}

	if template.KeyUsage != 0 {
		if err := add(oidExtensionKeyUsage, true, func(b *cryptobyte.Builder) { addKeyUsageBits(b, template.KeyUsage) }); err != nil {
			return nil, err
		}
	}
	if len(template.ExtKeyUsage) > 0 || len(template.UnknownExtKeyUsage) > 0 {
		err := add(oidExtensionExtendedKeyUsage, false, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				for _, u := range template.ExtKeyUsage {
					oid, ok := oidFromExtKeyUsage(u)
					if !ok {
						b.SetError(errors.New("x509: unknown extended key usage"))
						return
					}
					b.AddASN1ObjectIdentifier(oid)
				}
				for _, oid := range template.UnknownExtKeyUsage {
					b.AddASN1ObjectIdentifier(oid)
				}
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if template.BasicConstraintsValid {
		maxPathLen := template.MaxPathLen
		if maxPathLen == 0 && !template.MaxPathLenZero {
			maxPathLen = -1
		}
		err := add(oidExtensionBasicConstraints, true, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				if template.IsCA {
					b.AddASN1Boolean(true)
				}
				if maxPathLen >= 0 {
					b.AddASN1Int64(int64(maxPathLen))
				}
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(subjectKeyId) > 0 {
		if err := add(oidExtensionSubjectKeyId, false, func(b *cryptobyte.Builder) { b.AddASN1OctetString(subjectKeyId) }); err != nil {
			return nil, err
		}
	}
	if len(authorityKeyId) > 0 {
		err := add(oidExtensionAuthorityKeyId, false, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.Tag(0).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes(authorityKeyId) })
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(template.OCSPServer) > 0 || len(template.IssuingCertificateURL) > 0 {
		err := add(oidExtensionAuthorityInfoAccess, false, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				for _, pair := range []struct {
					oid  asn1.ObjectIdentifier
					urls []string
				}{{oidAuthorityInfoAccessOCSP, template.OCSPServer}, {oidAuthorityInfoAccessIssuers, template.IssuingCertificateURL}} {
					for _, u := range pair.urls {
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1ObjectIdentifier(pair.oid)
							b.AddASN1(cbasn1.Tag(nameTypeURI).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(u)) })
						})
					}
				}
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(template.DNSNames)+len(template.EmailAddresses)+len(template.IPAddresses)+len(template.URIs) > 0 {
		var uris []string
		for _, u := range template.URIs {
			uris = append(uris, u.String())
		}
		// RFC 5280, 4.2.1.6: critical when the subject is empty.
		err := add(oidExtensionSubjectAltName, subjectIsEmpty, func(b *cryptobyte.Builder) {
			addGeneralNames(b, template.DNSNames, template.EmailAddresses, template.IPAddresses, uris)
		})
		if err != nil {
			return nil, err
		}
	}
	if template.hasNameConstraints() {
		err := add(oidExtensionNameConstraints, template.PermittedDNSDomainsCritical, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				addSubtrees := func(tag int, dns []string, ips []*net.IPNet, emails, uriDomains []string) {
					if len(dns)+len(ips)+len(emails)+len(uriDomains) == 0 {
						return
					}
					b.AddASN1(cbasn1.Tag(tag).ContextSpecific().Constructed(), func(b *cryptobyte.Builder) {
						for _, d := range dns {
							b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
								b.AddASN1(cbasn1.Tag(nameTypeDNS).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(d)) })
							})
						}
						for _, n := range ips {
							ip, mask := n.IP.To4(), n.Mask
							if ip == nil || len(mask) != net.IPv4len {
								ip = n.IP.To16()
							}
							if len(ip) != len(mask) {
								b.SetError(errors.New("x509: invalid IP range in name constraints"))
								return
							}
							b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
								b.AddASN1(cbasn1.Tag(nameTypeIP).ContextSpecific(), func(b *cryptobyte.Builder) {
									b.AddBytes(ip)
									b.AddBytes(mask)
								})
							})
						}
						for _, e := range emails {
							b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
								b.AddASN1(cbasn1.Tag(nameTypeEmail).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(e)) })
							})
						}
						for _, u := range uriDomains {
							b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
								b.AddASN1(cbasn1.Tag(nameTypeURI).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(u)) })
							})
						}
					})
				}
				addSubtrees(0, template.PermittedDNSDomains, template.PermittedIPRanges, template.PermittedEmailAddresses, template.PermittedURIDomains)
				addSubtrees(1, template.ExcludedDNSDomains, template.ExcludedIPRanges, template.ExcludedEmailAddresses, template.ExcludedURIDomains)
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(template.CRLDistributionPoints) > 0 {
		err := add(oidExtensionCRLDistributionPoints, false, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				for _, u := range template.CRLDistributionPoints {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1(cbasn1.Tag(0).ContextSpecific().Constructed(), func(b *cryptobyte.Builder) {
							b.AddASN1(cbasn1.Tag(0).ContextSpecific().Constructed(), func(b *cryptobyte.Builder) {
								b.AddASN1(cbasn1.Tag(nameTypeURI).ContextSpecific(), func(b *cryptobyte.Builder) { b.AddBytes([]byte(u)) })
							})
						})
					})
				}
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(template.PolicyIdentifiers) > 0 {
		err := add(oidExtensionCertificatePolicies, false, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				for _, oid := range template.PolicyIdentifiers {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(oid) })
				}
			})
		})
		if err != nil {
			return nil, err
		}
	}
	return append(exts, template.ExtraExtensions...), nil
}
