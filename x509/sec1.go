package x509

import (
	"crypto/ecdsa"
	stdx509 "crypto/x509"
	"encoding/asn1"
	"errors"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

const ecPrivKeyVersion = 1

// sm2ScalarSize is the byte length of an SM2 private scalar.
const sm2ScalarSize = 32

// ParseECPrivateKey parses an EC private key in SEC 1, ASN.1 DER form
// ("EC PRIVATE KEY" or "SM2 PRIVATE KEY" in PEM). A key on sm2p256v1 is
// returned as *sm2.PrivateKey; keys on other curves are parsed by crypto/x509
// and returned as *ecdsa.PrivateKey.
//
// The curve may be named by OID or, for SM2 only, written out as explicit
// parameters (`openssl ec -param_enc explicit`). A key that names no curve
// is taken as SM2 when its stored public key is the SM2 public key of its
// scalar; without a curve or a public key it is refused, since the scalar
// alone does not tell SM2 from P-256.
func ParseECPrivateKey(der []byte) (any, error) {
	return parseECPrivateKey(nil, "", der)
}

// parseECPrivateKey parses SEC 1 ECPrivateKey. curveOID is the curve named by
// the context (an enclosing PKCS #8 structure, the PEM label "SM2 PRIVATE
// KEY", or an EC PARAMETERS block before it), described by ctx for errors,
// or nil; inner parameters, when present, must agree with it.
func parseECPrivateKey(curveOID asn1.ObjectIdentifier, ctx string, der []byte) (any, error) {
	input := cryptobyte.String(der)
	var seq, params, pubField cryptobyte.String
	var version int
	var d []byte
	var hasParams, hasPub bool
	if !input.ReadASN1(&seq, cbasn1.SEQUENCE) || !input.Empty() ||
		!seq.ReadASN1Integer(&version) ||
		!seq.ReadASN1Bytes(&d, cbasn1.OCTET_STRING) ||
		!seq.ReadOptionalASN1(&params, &hasParams, cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!seq.ReadOptionalASN1(&pubField, &hasPub, cbasn1.Tag(1).Constructed().ContextSpecific()) ||
		!seq.Empty() {
		return nil, errors.New("x509: malformed SEC 1 EC private key")
	}
	if version != ecPrivKeyVersion {
		return nil, errors.New("x509: unknown EC private key version")
	}
	if hasParams {
		oid, err := parseECParameters(params)
		if err != nil {
			return nil, err
		}
		if curveOID != nil && !oid.Equal(curveOID) {
			return nil, errors.New("x509: EC private key names a different curve than " + ctx)
		}
		curveOID = oid
	}
	var pubBytes []byte
	if hasPub {
		var bits asn1.BitString
		if !pubField.ReadASN1BitString(&bits) || !pubField.Empty() || bits.BitLength%8 != 0 {
			return nil, errors.New("x509: malformed public key in EC private key")
		}
		pubBytes = bits.Bytes
	}
	if curveOID == nil {
		if pubBytes == nil {
			return nil, errors.New("x509: EC private key names no curve and holds no public key, so it could be SM2 or P-256; wrap it in PKCS #8 or label it SM2 PRIVATE KEY if it is SM2")
		}
		if !sm2ScalarMatches(d, pubBytes) {
			return nil, errors.New("x509: EC private key names no curve and is not an SM2 key")
		}
		curveOID = OIDNamedCurveSM2
	}
	if !curveOID.Equal(OIDNamedCurveSM2) {
		if !hasParams {
			// crypto/x509 needs the curve inside the structure.
			return stdx509.ParseECPrivateKey(withCurve(version, d, curveOID, pubBytes, hasPub))
		}
		return stdx509.ParseECPrivateKey(der)
	}
	priv, err := sm2PrivateKeyFromScalar(d)
	if err != nil {
		return nil, err
	}
	if hasPub {
		// A stored public key that disagrees with the scalar means the file
		// is corrupt or was tampered with; refusing it is safer than
		// silently using either half.
		pub, err := sm2.NewPublicKey(pubBytes)
		if err != nil {
			return nil, errors.New("x509: invalid SM2 public key in private key: " + err.Error())
		}
		if !pub.Equal(priv.PublicKey()) {
			return nil, errors.New("x509: SM2 private key does not match its stored public key")
		}
	}
	return priv, nil
}

// sm2PrivateKeyFromScalar makes an SM2 key from a SEC 1 private key octet
// string. Encoders disagree on whether leading zero bytes of the scalar are
// kept (SEC 1 says the octet string is exactly the field size): shorter
// strings are accepted, and longer ones whose surplus bytes are zero.
func sm2PrivateKeyFromScalar(d []byte) (*sm2.PrivateKey, error) {
	for len(d) > sm2ScalarSize && d[0] == 0 {
		d = d[1:]
	}
	if len(d) > sm2ScalarSize {
		return nil, errors.New("x509: SM2 private key is too long")
	}
	scalar := make([]byte, sm2ScalarSize)
	copy(scalar[sm2ScalarSize-len(d):], d)
	priv, err := sm2.NewPrivateKey(scalar)
	clear(scalar)
	if err != nil {
		return nil, errors.New("x509: invalid SM2 private key: " + err.Error())
	}
	return priv, nil
}

// sm2ScalarMatches reports whether pub is the SM2 public key of scalar d.
func sm2ScalarMatches(d, pub []byte) bool {
	priv, err := sm2PrivateKeyFromScalar(d)
	if err != nil {
		return false
	}
	p, err := sm2.NewPublicKey(pub)
	return err == nil && p.Equal(priv.PublicKey())
}

// withCurve re-encodes a SEC 1 key with the named curve inside it.
func withCurve(version int, d []byte, curve asn1.ObjectIdentifier, pub []byte, hasPub bool) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(int64(version))
		b.AddASN1OctetString(d)
		b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1ObjectIdentifier(curve)
		})
		if hasPub {
			b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1BitString(pub)
			})
		}
	})
	return b.BytesOrPanic()
}

// MarshalECPrivateKey converts an EC private key to SEC 1, ASN.1 DER form. An
// *sm2.PrivateKey is written with the sm2p256v1 curve and its public key;
// *ecdsa.PrivateKey keys on the NIST curves are handed to crypto/x509. An SM2
// key held as an *ecdsa.PrivateKey is refused with an error naming
// sm2.PrivateKeyFromECDSA, which converts it.
func MarshalECPrivateKey(key any) ([]byte, error) {
	sm2priv, err := asSM2PrivateKey(key)
	if err != nil {
		return nil, err
	}
	if sm2priv == nil {
		if ec, ok := key.(*ecdsa.PrivateKey); ok && ec != nil {
			return stdx509.MarshalECPrivateKey(ec)
		}
		return nil, errors.New("x509: MarshalECPrivateKey needs an SM2 or ECDSA private key")
	}
	return marshalSM2ECPrivateKey(sm2priv, true), nil
}

func marshalSM2ECPrivateKey(priv *sm2.PrivateKey, withCurve bool) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(ecPrivKeyVersion)
		b.AddASN1OctetString(priv.Bytes())
		if withCurve {
			b.AddASN1(cbasn1.Tag(0).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
				b.AddASN1ObjectIdentifier(OIDNamedCurveSM2)
			})
		}
		b.AddASN1(cbasn1.Tag(1).Constructed().ContextSpecific(), func(b *cryptobyte.Builder) {
			b.AddASN1BitString(priv.PublicKey().Bytes())
		})
	})
	return b.BytesOrPanic()
}
