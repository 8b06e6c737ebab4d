package x509

import (
	"encoding/asn1"
	"errors"
	"math/big"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// oidPrimeField is prime-field (X9.62), the field type of every curve here.
var oidPrimeField = asn1.ObjectIdentifier{1, 2, 840, 10045, 1, 1}

var errExplicitNotSM2 = errors.New("x509: EC key has explicit curve parameters that are not those of SM2; only named curves (and SM2 written out explicitly) are supported")

// parseECParameters parses the ECParameters CHOICE of SEC 1 (a named curve
// OID or explicit SpecifiedECDomain) from params, which must be exactly one
// element. Explicit parameters are accepted only when they are those of
// sm2p256v1, which `openssl ec -param_enc explicit` writes; the result is
// then OIDNamedCurveSM2. implicitCA (NULL) is refused.
func parseECParameters(params cryptobyte.String) (asn1.ObjectIdentifier, error) {
	if params.PeekASN1Tag(cbasn1.OBJECT_IDENTIFIER) {
		var oid asn1.ObjectIdentifier
		if !params.ReadASN1ObjectIdentifier(&oid) || !params.Empty() {
			return nil, errors.New("x509: malformed EC curve identifier")
		}
		return oid, nil
	}
	var spec cryptobyte.String
	if !params.ReadASN1(&spec, cbasn1.SEQUENCE) || !params.Empty() {
		return nil, errors.New("x509: malformed or unsupported EC curve parameters")
	}
	if !isSM2SpecifiedDomain(spec) {
		return nil, errExplicitNotSM2
	}
	return OIDNamedCurveSM2, nil
}

// isSM2SpecifiedDomain reports whether the content of a SpecifiedECDomain,
//
//	SEQUENCE { version INTEGER (1..3), fieldID SEQUENCE { prime-field, p },
//	           curve SEQUENCE { a OCTET STRING, b OCTET STRING, seed BIT STRING OPTIONAL },
//	           base OCTET STRING, order INTEGER, cofactor INTEGER OPTIONAL, ... }
//
// describes sm2p256v1. The values are public, so plain comparisons do.
func isSM2SpecifiedDomain(s cryptobyte.String) bool {
	var version int
	var field, curve cryptobyte.String
	var fieldType asn1.ObjectIdentifier
	p, n, h := new(big.Int), new(big.Int), big.NewInt(1)
	var a, b, base []byte
	if !s.ReadASN1Integer(&version) || version < 1 || version > 3 ||
		!s.ReadASN1(&field, cbasn1.SEQUENCE) ||
		!field.ReadASN1ObjectIdentifier(&fieldType) || !fieldType.Equal(oidPrimeField) ||
		!field.ReadASN1Integer(p) || !field.Empty() ||
		!s.ReadASN1(&curve, cbasn1.SEQUENCE) ||
		!curve.ReadASN1Bytes(&a, cbasn1.OCTET_STRING) ||
		!curve.ReadASN1Bytes(&b, cbasn1.OCTET_STRING) ||
		!curve.SkipOptionalASN1(cbasn1.BIT_STRING) || !curve.Empty() ||
		!s.ReadASN1Bytes(&base, cbasn1.OCTET_STRING) ||
		!s.ReadASN1Integer(n) {
		return false
	}
	if s.PeekASN1Tag(cbasn1.INTEGER) && !s.ReadASN1Integer(h) {
		return false
	}
	// Version 2 and 3 may add a hash identifier; it changes nothing here.
	if !s.SkipOptionalASN1(cbasn1.SEQUENCE) || !s.Empty() {
		return false
	}
	params := sm2.P256().Params()
	aWant := new(big.Int).Sub(params.P, big.NewInt(3))
	if p.Cmp(params.P) != 0 || n.Cmp(params.N) != 0 || h.Cmp(big.NewInt(1)) != 0 ||
		new(big.Int).SetBytes(a).Cmp(aWant) != 0 || new(big.Int).SetBytes(b).Cmp(params.B) != 0 {
		return false
	}
	// The base point, uncompressed or compressed.
	g := make([]byte, 65)
	g[0] = 4
	params.Gx.FillBytes(g[1:33])
	params.Gy.FillBytes(g[33:])
	switch {
	case len(base) == 65:
		return string(base) == string(g)
	case len(base) == 33:
		return base[0] == 2+byte(params.Gy.Bit(0)) && string(base[1:]) == string(g[1:33])
	}
	return false
}
