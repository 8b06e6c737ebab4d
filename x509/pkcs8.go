package x509

import (
	stdx509 "crypto/x509"
	"encoding/asn1"
	"errors"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// ParsePKCS8PrivateKey parses an unencrypted private key in PKCS #8, ASN.1 DER
// form ("PRIVATE KEY" in PEM). An SM2 key is returned as *sm2.PrivateKey; other
// keys are parsed by crypto/x509 and returned as it returns them
// (*rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey, *ecdh.PrivateKey).
func ParsePKCS8PrivateKey(der []byte) (any, error) {
	input := cryptobyte.String(der)
	var seq, algo, params cryptobyte.String
	var version int
	var oid asn1.ObjectIdentifier
	var inner []byte
	if !input.ReadASN1(&seq, cbasn1.SEQUENCE) || !input.Empty() ||
		!seq.ReadASN1Integer(&version) ||
		!seq.ReadASN1(&algo, cbasn1.SEQUENCE) ||
		!algo.ReadASN1ObjectIdentifier(&oid) {
		return nil, errors.New("x509: malformed PKCS #8 private key")
	}
	params = algo
	if !IsSM2PublicKeyAlgorithm(oid, params) && !isExplicitSM2Algorithm(oid, params) {
		return stdx509.ParsePKCS8PrivateKey(der)
	}
	// Version 1 (RFC 5958 OneAsymmetricKey) adds an optional public key after
	// the attributes; both are allowed and the embedded SEC 1 structure is
	// the authority on the key.
	if (version != 0 && version != 1) ||
		!seq.ReadASN1Bytes(&inner, cbasn1.OCTET_STRING) ||
		!seq.SkipOptionalASN1(cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!seq.SkipOptionalASN1(cbasn1.Tag(1).ContextSpecific()) ||
		!seq.Empty() {
		return nil, errors.New("x509: malformed PKCS #8 SM2 private key")
	}
	return parseECPrivateKey(OIDNamedCurveSM2, "its PKCS #8 wrapper", inner)
}

// isExplicitSM2Algorithm reports whether an AlgorithmIdentifier is
// id-ecPublicKey with the SM2 curve written out as explicit parameters, as
// OpenSSL writes a key that was converted with -param_enc explicit.
func isExplicitSM2Algorithm(oid asn1.ObjectIdentifier, params []byte) bool {
	if !oid.Equal(OIDPublicKeyECDSA) {
		return false
	}
	s := cryptobyte.String(params)
	var spec cryptobyte.String
	return s.ReadASN1(&spec, cbasn1.SEQUENCE) && s.Empty() && isSM2SpecifiedDomain(spec)
}

// MarshalPKCS8PrivateKey converts a private key to PKCS #8, ASN.1 DER form.
// An *sm2.PrivateKey is written as OpenSSL, GmSSL and Tongsuo write it:
// algorithm id-ecPublicKey with the sm2p256v1 curve, wrapping a SEC 1
// ECPrivateKey that carries the public key but not the curve. Other keys are
// handed to crypto/x509, except an SM2 key held as an *ecdsa.PrivateKey, which
// is refused with an error naming sm2.PrivateKeyFromECDSA.
func MarshalPKCS8PrivateKey(key any) ([]byte, error) {
	sm2priv, err := asSM2PrivateKey(key)
	if err != nil {
		return nil, err
	}
	if sm2priv == nil {
		return stdx509.MarshalPKCS8PrivateKey(key)
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1Int64(0)
		addSM2PublicKeyAlgorithm(b)
		b.AddASN1OctetString(marshalSM2ECPrivateKey(sm2priv, false))
	})
	return b.Bytes()
}
