package x509

import (
	"crypto/x509/pkix"
	"encoding/asn1"
)

// Object identifiers of the Chinese commercial algorithms (GM/T 0006-2012) and
// of the international algorithms that appear next to them in certificates and
// key files.
var (
	// OIDNamedCurveSM2 is sm2p256v1, the SM2 curve. It is the parameter of an
	// id-ecPublicKey AlgorithmIdentifier, and some encoders also use it as the
	// public-key algorithm itself.
	OIDNamedCurveSM2 = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 301}
	// OIDSignatureSM2WithSM3 is the SM2 signature over SM3 (GM/T 0006 "SM3withSM2").
	OIDSignatureSM2WithSM3 = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 501}
	// The three parts of SM2 under the curve's arc (GM/T 0006): sm2-1, the
	// signature, which gmsm and CFCA write as a CMS digestEncryptionAlgorithm;
	// sm2-2, the key exchange, which GmSSL 3 uses (as "sm2encrypt") for
	// encryption; and sm2-3, public key encryption, the keyEncryptionAlgorithm
	// of GB/T 35275.
	OIDSM2Signing     = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 301, 1}
	OIDSM2KeyExchange = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 301, 2}
	OIDSM2Encryption  = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 301, 3}
	// OIDSM3 is the SM3 hash.
	OIDSM3 = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 401}
	// OIDHMACWithSM3 is HMAC-SM3, used as the PBKDF2 pseudo-random function.
	OIDHMACWithSM3 = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 401, 2}

	// SM4 modes live under 1.2.156.10197.1.104.
	OIDSM4    = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104}
	OIDSM4ECB = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 1}
	OIDSM4CBC = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 2}
	OIDSM4OFB = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 3}
	OIDSM4CFB = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 4}
	OIDSM4CTR = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 7}
	OIDSM4GCM = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 8}
	OIDSM4CCM = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 104, 9}

	// OIDPublicKeyECDSA is id-ecPublicKey (RFC 5480), the algorithm of both
	// NIST-curve and SM2 public keys.
	OIDPublicKeyECDSA   = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	OIDPublicKeyRSA     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}
	OIDPublicKeyEd25519 = asn1.ObjectIdentifier{1, 3, 101, 112}
	OIDPublicKeyX25519  = asn1.ObjectIdentifier{1, 3, 101, 110}

	OIDNamedCurveP224 = asn1.ObjectIdentifier{1, 3, 132, 0, 33}
	OIDNamedCurveP256 = asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}
	OIDNamedCurveP384 = asn1.ObjectIdentifier{1, 3, 132, 0, 34}
	OIDNamedCurveP521 = asn1.ObjectIdentifier{1, 3, 132, 0, 35}

	OIDSignatureSHA1WithRSA     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 5}
	OIDSignatureSHA256WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}
	OIDSignatureSHA384WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 12}
	OIDSignatureSHA512WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 13}
	OIDSignatureRSAPSS          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}
	OIDSignatureECDSAWithSHA1   = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 1}
	OIDSignatureECDSAWithSHA256 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
	OIDSignatureECDSAWithSHA384 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 3}
	OIDSignatureECDSAWithSHA512 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 4}
	OIDSignatureEd25519         = asn1.ObjectIdentifier{1, 3, 101, 112}

	OIDSHA256 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	OIDSHA384 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}
	OIDSHA512 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
	OIDMGF1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 8}

	// PKCS #5 v2 (RFC 8018) password-based encryption.
	OIDPBES2          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	OIDPBKDF2         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	OIDHMACWithSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	OIDHMACWithSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	OIDHMACWithSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	OIDHMACWithSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	OIDAES128CBC      = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	OIDAES192CBC      = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	OIDAES256CBC      = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	OIDDESEDE3CBC     = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
	// OIDScrypt is id-scrypt (RFC 7914), a PBES2 key derivation function.
	OIDScrypt = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11591, 4, 11}

	// OIDHMACWithSM3Tongsuo is the second identifier of HMAC-SM3 as a
	// PBKDF2 PRF: GM/T 0091-2020 table A.1 assigns it, and OpenSSL's object
	// table (hence Tongsuo, and GmSSL 2.x before it) uses it. GmSSL 3 uses
	// OIDHMACWithSM3. Both are read; PBKDF2PRF selects which is written.
	OIDHMACWithSM3Tongsuo = asn1.ObjectIdentifier{1, 2, 156, 10197, 1, 401, 3, 1}
)

// AlgorithmIdentifiers in the form this package writes them. SM2 signatures
// carry no parameters (GM/T 0015, OpenSSL, GmSSL, Tongsuo); parsers in this
// module also accept an explicit NULL there, which some CA products emit.
// The values are returned by functions so callers cannot modify shared state.

// AlgorithmIdentifierSM2WithSM3 returns {sm2-with-sm3, absent parameters}.
func AlgorithmIdentifierSM2WithSM3() pkix.AlgorithmIdentifier {
	return pkix.AlgorithmIdentifier{Algorithm: OIDSignatureSM2WithSM3}
}

// AlgorithmIdentifierSM2PublicKey returns {id-ecPublicKey, sm2p256v1}, the
// algorithm of an SM2 SubjectPublicKeyInfo.
func AlgorithmIdentifierSM2PublicKey() pkix.AlgorithmIdentifier {
	return pkix.AlgorithmIdentifier{Algorithm: OIDPublicKeyECDSA, Parameters: asn1.RawValue{FullBytes: mustMarshal(OIDNamedCurveSM2)}}
}

// AlgorithmIdentifierSM3 returns {sm3, absent parameters}.
func AlgorithmIdentifierSM3() pkix.AlgorithmIdentifier {
	return pkix.AlgorithmIdentifier{Algorithm: OIDSM3}
}

// AlgorithmIdentifierHMACWithSM3 returns {hmac-sm3, absent parameters}, the
// form GmSSL writes in PBKDF2 parameters (and the only one it reads).
func AlgorithmIdentifierHMACWithSM3() pkix.AlgorithmIdentifier {
	return pkix.AlgorithmIdentifier{Algorithm: OIDHMACWithSM3}
}

// AlgorithmIdentifierSM4CBC returns {sm4-cbc, iv}.
func AlgorithmIdentifierSM4CBC(iv []byte) pkix.AlgorithmIdentifier {
	return pkix.AlgorithmIdentifier{Algorithm: OIDSM4CBC, Parameters: asn1.RawValue{FullBytes: mustMarshal(iv)}}
}

func mustMarshal(v any) []byte {
	b, err := asn1.Marshal(v)
	if err != nil {
		panic("x509: internal error: " + err.Error())
	}
	return b
}
