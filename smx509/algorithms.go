package smx509

import (
	"bytes"
	"crypto"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"

	smx "github.com/shangmi-go/shangmi/x509"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// hashSM3 marks SM2-with-SM3 in the table below: the SM3 hash is computed
// inside the SM2 verifier, over Z and the message, not by the caller.
const hashSM3 crypto.Hash = 0

var signatureAlgorithmDetails = []struct {
	algo       SignatureAlgorithm
	name       string
	oid        asn1.ObjectIdentifier
	pubKeyAlgo PublicKeyAlgorithm
	hash       crypto.Hash
	isRSAPSS   bool
}{
	{SM2WithSM3, "SM2-SM3", smx.OIDSignatureSM2WithSM3, SM2, hashSM3, false},
	{MD5WithRSA, "MD5-RSA", asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 4}, RSA, crypto.MD5, false},
	{SHA1WithRSA, "SHA1-RSA", smx.OIDSignatureSHA1WithRSA, RSA, crypto.SHA1, false},
	{SHA256WithRSA, "SHA256-RSA", smx.OIDSignatureSHA256WithRSA, RSA, crypto.SHA256, false},
	{SHA384WithRSA, "SHA384-RSA", smx.OIDSignatureSHA384WithRSA, RSA, crypto.SHA384, false},
	{SHA512WithRSA, "SHA512-RSA", smx.OIDSignatureSHA512WithRSA, RSA, crypto.SHA512, false},
	{SHA256WithRSAPSS, "SHA256-RSAPSS", smx.OIDSignatureRSAPSS, RSA, crypto.SHA256, true},
	{SHA384WithRSAPSS, "SHA384-RSAPSS", smx.OIDSignatureRSAPSS, RSA, crypto.SHA384, true},
	{SHA512WithRSAPSS, "SHA512-RSAPSS", smx.OIDSignatureRSAPSS, RSA, crypto.SHA512, true},
	{ECDSAWithSHA1, "ECDSA-SHA1", smx.OIDSignatureECDSAWithSHA1, ECDSA, crypto.SHA1, false},
	{ECDSAWithSHA256, "ECDSA-SHA256", smx.OIDSignatureECDSAWithSHA256, ECDSA, crypto.SHA256, false},
	{ECDSAWithSHA384, "ECDSA-SHA384", smx.OIDSignatureECDSAWithSHA384, ECDSA, crypto.SHA384, false},
	{ECDSAWithSHA512, "ECDSA-SHA512", smx.OIDSignatureECDSAWithSHA512, ECDSA, crypto.SHA512, false},
	{PureEd25519, "Ed25519", smx.OIDSignatureEd25519, Ed25519, crypto.Hash(0), false},
}

func signatureAlgorithmInfo(algo SignatureAlgorithm) (pubKeyAlgo PublicKeyAlgorithm, hash crypto.Hash, isPSS bool, ok bool) {
	for _, d := range signatureAlgorithmDetails {
		if d.algo == algo {
			return d.pubKeyAlgo, d.hash, d.isRSAPSS, true
		}
	}
	return 0, 0, false, false
}

// getSignatureAlgorithm maps an AlgorithmIdentifier to a SignatureAlgorithm.
func getSignatureAlgorithm(ai pkix.AlgorithmIdentifier) SignatureAlgorithm {
	if ai.Algorithm.Equal(smx.OIDSignatureEd25519) {
		// RFC 8410: the parameters MUST be absent.
		if len(ai.Parameters.FullBytes) != 0 {
			return UnknownSignatureAlgorithm
		}
		return PureEd25519
	}
	if ai.Algorithm.Equal(smx.OIDSignatureSM2WithSM3) {
		// GM/T 0015 leaves the parameters absent; some CA products write
		// NULL. Both are accepted (see the package documentation).
		if p := ai.Parameters.FullBytes; len(p) != 0 && !isNULL(p) {
			return UnknownSignatureAlgorithm
		}
		return SM2WithSM3
	}
	if !ai.Algorithm.Equal(smx.OIDSignatureRSAPSS) {
		for _, d := range signatureAlgorithmDetails {
			if ai.Algorithm.Equal(d.oid) {
				return d.algo
			}
		}
		return UnknownSignatureAlgorithm
	}
	return parsePSSParameters(ai.Parameters.FullBytes)
}

// signatureAlgorithmContents are the DER contents of the OIDs of
// signatureAlgorithmDetails, index for index.
var signatureAlgorithmContents = func() [][]byte {
	out := make([][]byte, len(signatureAlgorithmDetails))
	for i, d := range signatureAlgorithmDetails {
		out[i] = oidContent(d.oid)
	}
	return out
}()

// sm2PublicKeyAlgorithmContent is the content of the AlgorithmIdentifier of
// an SM2 SubjectPublicKeyInfo as nearly everyone writes it, the one package
// x509 writes (id-ecPublicKey with the sm2p256v1 curve).
var sm2PublicKeyAlgorithmContent = func() []byte {
	ai := smx.AlgorithmIdentifierSM2PublicKey()
	var b cryptobyte.Builder
	b.AddASN1ObjectIdentifier(ai.Algorithm)
	b.AddBytes(ai.Parameters.FullBytes)
	return b.BytesOrPanic()
}()

// parseSignatureAlgorithm maps the content of a signature
// AlgorithmIdentifier to a SignatureAlgorithm. It gives the same answers as
// parseAlgorithmIdentifier followed by getSignatureAlgorithm, and takes that
// path for anything but a known, non-PSS identifier; the fast path only
// avoids decoding the OID.
func parseSignatureAlgorithm(der cryptobyte.String) (SignatureAlgorithm, error) {
	probe := der
	var oid cryptobyte.String
	if probe.ReadASN1(&oid, cbasn1.OBJECT_IDENTIFIER) && !bytes.Equal(oid, signatureAlgorithmContents[indexRSAPSS]) {
		for i, c := range signatureAlgorithmContents {
			if !bytes.Equal(oid, c) {
				continue
			}
			var params cryptobyte.String
			if !probe.Empty() {
				var tag cbasn1.Tag
				if !probe.ReadAnyASN1Element(&params, &tag) || !probe.Empty() {
					return 0, errors.New("x509: malformed algorithm identifier parameters")
				}
			}
			switch algo := signatureAlgorithmDetails[i].algo; algo {
			case PureEd25519:
				if len(params) != 0 {
					return UnknownSignatureAlgorithm, nil
				}
				return algo, nil
			case SM2WithSM3:
				if len(params) != 0 && !isNULL(params) {
					return UnknownSignatureAlgorithm, nil
				}
				return algo, nil
			default:
				return algo, nil
			}
		}
	}
	ai, err := parseAlgorithmIdentifier(der)
	if err != nil {
		return 0, err
	}
	return getSignatureAlgorithm(ai), nil
}

// indexRSAPSS is the first RSASSA-PSS entry of signatureAlgorithmDetails;
// PSS needs its parameters decoded, so it never takes the fast path.
var indexRSAPSS = func() int {
	for i, d := range signatureAlgorithmDetails {
		if d.isRSAPSS {
			return i
		}
	}
	panic("smx509: internal error: no RSASSA-PSS entry")
}()

func isNULL(b []byte) bool {
	return len(b) == 2 && b[0] == 5 && b[1] == 0
}

// parsePSSParameters recognises the three RSASSA-PSS parameter sets that
// crypto/x509 supports: SHA-256/384/512 with MGF1 over the same hash and a
// salt as long as the hash.
func parsePSSParameters(der []byte) SignatureAlgorithm {
	s := cryptobyte.String(der)
	var params, hashField, mgfField, saltField cryptobyte.String
	var hasHash, hasMGF, hasSalt bool
	if !s.ReadASN1(&params, cbasn1.SEQUENCE) || !s.Empty() ||
		!params.ReadOptionalASN1(&hashField, &hasHash, cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!params.ReadOptionalASN1(&mgfField, &hasMGF, cbasn1.Tag(1).Constructed().ContextSpecific()) ||
		!params.ReadOptionalASN1(&saltField, &hasSalt, cbasn1.Tag(2).Constructed().ContextSpecific()) ||
		!hasHash || !hasMGF || !hasSalt {
		return UnknownSignatureAlgorithm
	}
	var hashAlg, mgfAlg, mgfHashAlg cryptobyte.String
	var hashOID, mgfOID, mgfHashOID asn1.ObjectIdentifier
	var salt int64
	if !hashField.ReadASN1(&hashAlg, cbasn1.SEQUENCE) || !hashAlg.ReadASN1ObjectIdentifier(&hashOID) ||
		!mgfField.ReadASN1(&mgfAlg, cbasn1.SEQUENCE) || !mgfAlg.ReadASN1ObjectIdentifier(&mgfOID) ||
		!mgfAlg.ReadASN1(&mgfHashAlg, cbasn1.SEQUENCE) || !mgfHashAlg.ReadASN1ObjectIdentifier(&mgfHashOID) ||
		!saltField.ReadASN1Int64WithTag(&salt, cbasn1.INTEGER) {
		return UnknownSignatureAlgorithm
	}
	if !mgfOID.Equal(smx.OIDMGF1) || !hashOID.Equal(mgfHashOID) {
		return UnknownSignatureAlgorithm
	}
	switch {
	case hashOID.Equal(smx.OIDSHA256) && salt == 32:
		return SHA256WithRSAPSS
	case hashOID.Equal(smx.OIDSHA384) && salt == 48:
		return SHA384WithRSAPSS
	case hashOID.Equal(smx.OIDSHA512) && salt == 64:
		return SHA512WithRSAPSS
	}
	return UnknownSignatureAlgorithm
}

// getPublicKeyAlgorithm maps an SPKI AlgorithmIdentifier to a
// PublicKeyAlgorithm, telling SM2 apart from NIST-curve ECDSA by the curve.
func getPublicKeyAlgorithm(oid asn1.ObjectIdentifier, params []byte) PublicKeyAlgorithm {
	switch {
	case smx.IsSM2PublicKeyAlgorithm(oid, params):
		return SM2
	case oid.Equal(smx.OIDPublicKeyRSA):
		return RSA
	case oid.Equal(smx.OIDPublicKeyECDSA):
		return ECDSA
	case oid.Equal(smx.OIDPublicKeyEd25519):
		return Ed25519
	case oid.Equal(asn1.ObjectIdentifier{1, 2, 840, 10040, 4, 1}):
		return DSA
	}
	return UnknownPublicKeyAlgorithm
}

// addSignatureAlgorithmIdentifier writes the AlgorithmIdentifier for algo as
// it goes into new certificates, requests and lists.
func addSignatureAlgorithmIdentifier(b *cryptobyte.Builder, algo SignatureAlgorithm) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		switch algo {
		case SM2WithSM3:
			b.AddASN1ObjectIdentifier(smx.OIDSignatureSM2WithSM3)
		case PureEd25519:
			b.AddASN1ObjectIdentifier(smx.OIDSignatureEd25519)
		case ECDSAWithSHA256, ECDSAWithSHA384, ECDSAWithSHA512:
			// RFC 5758: parameters absent for ECDSA.
			for _, d := range signatureAlgorithmDetails {
				if d.algo == algo {
					b.AddASN1ObjectIdentifier(d.oid)
				}
			}
		case SHA256WithRSA, SHA384WithRSA, SHA512WithRSA:
			for _, d := range signatureAlgorithmDetails {
				if d.algo == algo {
					b.AddASN1ObjectIdentifier(d.oid)
				}
			}
			b.AddASN1NULL()
		case SHA256WithRSAPSS, SHA384WithRSAPSS, SHA512WithRSAPSS:
			var hashOID asn1.ObjectIdentifier
			var salt int64
			switch algo {
			case SHA256WithRSAPSS:
				hashOID, salt = smx.OIDSHA256, 32
			case SHA384WithRSAPSS:
				hashOID, salt = smx.OIDSHA384, 48
			default:
				hashOID, salt = smx.OIDSHA512, 64
			}
			b.AddASN1ObjectIdentifier(smx.OIDSignatureRSAPSS)
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1ObjectIdentifier(hashOID)
						b.AddASN1NULL()
					})
				})
				b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
						b.AddASN1ObjectIdentifier(smx.OIDMGF1)
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1ObjectIdentifier(hashOID)
							b.AddASN1NULL()
						})
					})
				})
				b.AddASN1(cbasn1.Tag(2).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
					b.AddASN1Int64(salt)
				})
			})
		default:
			b.SetError(errUnsupportedSignatureAlgorithm(algo))
		}
	})
}
