package x509

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	stdx509 "crypto/x509"
	"encoding/asn1"
	"errors"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// ParsePKIXPublicKey parses a DER SubjectPublicKeyInfo. An SM2 key is returned
// as *sm2.PublicKey; every other key is parsed by crypto/x509 and returned as
// it returns it (*rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey,
// *ecdh.PublicKey).
func ParsePKIXPublicKey(der []byte) (any, error) {
	input := cryptobyte.String(der)
	var spki, algo cryptobyte.String
	var oid asn1.ObjectIdentifier
	var bits asn1.BitString
	if !input.ReadASN1(&spki, cbasn1.SEQUENCE) || !input.Empty() ||
		!spki.ReadASN1(&algo, cbasn1.SEQUENCE) {
		return nil, errMalformedSPKI
	}
	// The usual SM2 identifier is recognised by its bytes; decoding the
	// OIDs would cost more than the rest of the parse.
	isSM2 := bytes.Equal(algo, sm2AlgorithmContent)
	if !isSM2 && !algo.ReadASN1ObjectIdentifier(&oid) ||
		!spki.ReadASN1BitString(&bits) || !spki.Empty() {
		return nil, errMalformedSPKI
	}
	if !isSM2 && !IsSM2PublicKeyAlgorithm(oid, []byte(algo)) {
		return stdx509.ParsePKIXPublicKey(der)
	}
	return parseSM2PublicKeyBits(bits)
}

var errMalformedSPKI = errors.New("x509: malformed SubjectPublicKeyInfo")

// sm2AlgorithmContent is the content of the AlgorithmIdentifier
// {id-ecPublicKey, sm2p256v1}. DER has one encoding per value, so equal
// bytes mean equal identifiers.
var sm2AlgorithmContent = func() []byte {
	var b cryptobyte.Builder
	b.AddASN1ObjectIdentifier(OIDPublicKeyECDSA)
	b.AddASN1ObjectIdentifier(OIDNamedCurveSM2)
	return b.BytesOrPanic()
}()

// sm2CurveElement is the DER of the sm2p256v1 OID, the parameters of an SM2
// id-ecPublicKey.
var sm2CurveElement = func() []byte {
	var b cryptobyte.Builder
	b.AddASN1ObjectIdentifier(OIDNamedCurveSM2)
	return b.BytesOrPanic()
}()

// IsSM2PublicKeyAlgorithm reports whether an AlgorithmIdentifier with the
// given algorithm OID and raw DER parameters (possibly empty) names an SM2
// public key: id-ecPublicKey with the sm2p256v1 curve, or, as early GmSSL wrote
// it, the sm2p256v1 OID itself with absent, NULL or sm2p256v1 parameters.
func IsSM2PublicKeyAlgorithm(oid asn1.ObjectIdentifier, params []byte) bool {
	switch {
	case oid.Equal(OIDPublicKeyECDSA):
		// Equal DER is equal value, and only a valid OID equals it.
		return bytes.Equal(params, sm2CurveElement)
	case oid.Equal(OIDNamedCurveSM2):
		if len(params) == 0 {
			return true
		}
		p := cryptobyte.String(params)
		var curve asn1.ObjectIdentifier
		if p.ReadASN1ObjectIdentifier(&curve) && p.Empty() {
			return curve.Equal(OIDNamedCurveSM2)
		}
		p = cryptobyte.String(params)
		return p.ReadASN1(new(cryptobyte.String), cbasn1.NULL) && p.Empty()
	}
	return false
}

func parseSM2PublicKeyBits(bits asn1.BitString) (*sm2.PublicKey, error) {
	if bits.BitLength%8 != 0 {
		return nil, errors.New("x509: SM2 public key is not a whole number of bytes")
	}
	pub, err := sm2.NewPublicKey(bits.Bytes)
	if err != nil {
		return nil, errors.New("x509: invalid SM2 public key: " + err.Error())
	}
	return pub, nil
}

// MarshalPKIXPublicKey converts a public key to DER SubjectPublicKeyInfo form.
// An *sm2.PublicKey is written as id-ecPublicKey with the sm2p256v1 curve and
// an uncompressed point; other keys are handed to crypto/x509. An SM2 key held
// as an *ecdsa.PublicKey is refused with an error naming
// sm2.PublicKeyFromECDSA, which converts it.
func MarshalPKIXPublicKey(pub any) ([]byte, error) {
	sm2pub, err := asSM2PublicKey(pub)
	if err != nil {
		return nil, err
	}
	if sm2pub == nil {
		return stdx509.MarshalPKIXPublicKey(pub)
	}
	return marshalSM2SPKI(sm2pub), nil
}

func marshalSM2SPKI(pub *sm2.PublicKey) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		addSM2PublicKeyAlgorithm(b)
		b.AddASN1BitString(pub.Bytes())
	})
	return b.BytesOrPanic()
}

func addSM2PublicKeyAlgorithm(b *cryptobyte.Builder) {
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(OIDPublicKeyECDSA)
		b.AddASN1ObjectIdentifier(OIDNamedCurveSM2)
	})
}

// asSM2PublicKey returns pub as an SM2 key, nil if pub is not an SM2 key at
// all, or an error if it claims to be one but is invalid or is an SM2 key
// held as an *ecdsa.PublicKey.
func asSM2PublicKey(pub any) (*sm2.PublicKey, error) {
	switch k := pub.(type) {
	case *sm2.PublicKey:
		if k == nil {
			return nil, errors.New("x509: nil SM2 public key")
		}
		return k, nil
	case *ecdsa.PublicKey:
		if k != nil && onSM2Curve(k.Curve) {
			return nil, errSM2AsECDSAPublicKey
		}
	}
	return nil, nil
}

// asSM2PrivateKey is asSM2PublicKey for private keys.
func asSM2PrivateKey(priv any) (*sm2.PrivateKey, error) {
	switch k := priv.(type) {
	case *sm2.PrivateKey:
		if k == nil {
			return nil, errors.New("x509: nil SM2 private key")
		}
		return k, nil
	case *ecdsa.PrivateKey:
		if k != nil && onSM2Curve(k.Curve) {
			return nil, errSM2AsECDSAPrivateKey
		}
	}
	return nil, nil
}

// An SM2 key is *sm2.PublicKey or *sm2.PrivateKey throughout this module; one
// held as a crypto/ecdsa key (gmsm's keys, or the view sm2 gives for such
// code) is converted by its holder, once, with the bridge package sm2
// provides, rather than silently here (see "Key representation" in package
// sm2). crypto/x509 would only say "unsupported elliptic curve".
var (
	errSM2AsECDSAPublicKey  = errors.New("x509: SM2 public keys are *sm2.PublicKey; convert an *ecdsa.PublicKey on the SM2 curve with sm2.PublicKeyFromECDSA")
	errSM2AsECDSAPrivateKey = errors.New("x509: SM2 private keys are *sm2.PrivateKey; convert an *ecdsa.PrivateKey on the SM2 curve with sm2.PrivateKeyFromECDSA")
)

// onSM2Curve reports whether c is an implementation of sm2p256v1, this
// module's (sm2.P256()) or another package's such as gmsm's, by its field
// prime, which none of the curves crypto/x509 supports shares. It chooses an
// error message, nothing more.
func onSM2Curve(c elliptic.Curve) bool {
	if c == nil {
		return false
	}
	p := c.Params()
	return c == sm2.P256() || p != nil && p.P != nil && p.P.Cmp(sm2.P256().Params().P) == 0
}
