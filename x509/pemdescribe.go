package x509

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"strconv"
	"strings"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// DescribePEM says in a few words what data holds, for error messages that
// must tell a user what a file is when it is not what was expected: for
// example "2 certificates and 1 SM2 private key (PKCS #8)", "1 encrypted
// private key (PKCS #8, PBES2: PBKDF2-HMAC-SHA256, 2048 iterations,
// AES-256-CBC)" or "no PEM data (DER: a certificate)". It decrypts nothing
// and never fails. Certificates are only counted: package smx509 parses them.
func DescribePEM(data []byte) string {
	var d describer
	rest := data
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		d.add(describeBlock(block))
	}
	if len(d.items) == 0 {
		return describeNonPEM(data)
	}
	return d.String()
}

// phrase is a counted noun phrase: prefix + noun (+ "s") + suffix.
type phrase struct{ prefix, noun, suffix string }

type describer struct {
	items  []phrase
	counts []int
}

func (d *describer) add(p phrase) {
	for i, q := range d.items {
		if q == p {
			d.counts[i]++
			return
		}
	}
	d.items = append(d.items, p)
	d.counts = append(d.counts, 1)
}

func (d *describer) String() string {
	parts := make([]string, len(d.items))
	for i, p := range d.items {
		noun := p.noun
		if d.counts[i] != 1 {
			noun += "s" // every noun used here takes a plain -s
		}
		parts[i] = strconv.Itoa(d.counts[i]) + " " + p.prefix + noun + p.suffix
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func describeBlock(b *pem.Block) phrase {
	switch b.Type {
	case PEMTypeCertificate, "X509 CERTIFICATE":
		return phrase{noun: "certificate"}
	case "TRUSTED CERTIFICATE":
		return phrase{noun: "certificate", suffix: " (OpenSSL TRUSTED CERTIFICATE)"}
	case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST":
		return phrase{noun: "certificate request"}
	case "X509 CRL":
		return phrase{noun: "CRL"}
	case PEMTypePublicKey:
		if pub, err := ParsePKIXPublicKey(b.Bytes); err == nil {
			return phrase{prefix: keyAlgorithm(pub) + " ", noun: "public key"}
		}
		return phrase{prefix: "malformed ", noun: "public key"}
	case PEMTypeECParameters, PEMTypeSM2Parameters:
		name := "unsupported curve"
		if oid, err := parseECParameters(cryptobyte.String(b.Bytes)); err == nil {
			name = curveName(oid)
		}
		return phrase{prefix: b.Type + " ", noun: "block", suffix: " (" + name + ")"}
	case "DSA PRIVATE KEY":
		return phrase{prefix: "DSA ", noun: "private key", suffix: " (unsupported)"}
	case "OPENSSH PRIVATE KEY":
		return phrase{prefix: "OpenSSH ", noun: "private key", suffix: " (unsupported; convert it with ssh-keygen -p -m PKCS8)"}
	}
	if !isPrivateKeyType(b.Type) {
		return phrase{prefix: strconv.Quote(b.Type) + " ", noun: "block"}
	}
	c, _, legacy, err := legacyPEMInfo(b)
	switch {
	case err != nil:
		return phrase{prefix: "encrypted ", noun: "private key", suffix: " (" + b.Type + ", unreadable encryption headers)"}
	case legacy:
		alg := map[string]string{PEMTypeRSAPrivateKey: "RSA ", PEMTypeSM2PrivateKey: "SM2 ", PEMTypeECPrivateKey: "EC "}[b.Type]
		return phrase{prefix: "encrypted " + alg, noun: "private key", suffix: " (" + formatName(b.Type) + ", legacy PEM encryption " + c.name + ")"}
	case b.Type == PEMTypeEncryptedPrivateKey:
		p, _, err := parseEncryptedPrivateKeyInfo(b.Bytes)
		if err != nil {
			return phrase{prefix: "encrypted ", noun: "private key", suffix: " (PKCS #8, " + pkcs8SchemeProblem(b.Bytes) + ")"}
		}
		return phrase{prefix: "encrypted ", noun: "private key", suffix: " (PKCS #8, " + p.String() + ")"}
	}
	key, err := parseKeyDER(b.Type, b.Bytes, nil, nil)
	if err != nil {
		return phrase{prefix: "malformed ", noun: "private key", suffix: " (" + formatName(b.Type) + ")"}
	}
	return phrase{prefix: keyAlgorithm(key) + " ", noun: "private key", suffix: " (" + formatName(b.Type) + ")"}
}

// pkcs8SchemeProblem names what makes an EncryptedPrivateKeyInfo unreadable.
func pkcs8SchemeProblem(der []byte) string {
	s := cryptobyte.String(der)
	var seq, algo cryptobyte.String
	var oid asn1.ObjectIdentifier
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) || !seq.ReadASN1(&algo, cbasn1.SEQUENCE) || !algo.ReadASN1ObjectIdentifier(&oid) {
		return "malformed"
	}
	for _, e := range pbes1Names {
		if oid.Equal(e.oid) {
			return "PBES1 " + e.name + ", unsupported"
		}
	}
	if !oid.Equal(OIDPBES2) {
		return "unsupported scheme " + oid.String()
	}
	_, _, err := parseEncryptedPrivateKeyInfo(der)
	return "PBES2, " + strings.TrimPrefix(err.Error(), "x509: ")
}

func formatName(pemType string) string {
	switch pemType {
	case PEMTypePrivateKey:
		return "PKCS #8"
	case PEMTypeECPrivateKey, PEMTypeSM2PrivateKey:
		return "SEC 1 " + pemType
	case PEMTypeRSAPrivateKey:
		return "PKCS #1"
	}
	return pemType
}

// keyAlgorithm names the algorithm of a public or private key: "SM2",
// "RSA-2048", "ECDSA P-256", "Ed25519", "X25519".
func keyAlgorithm(key any) string {
	switch k := key.(type) {
	case *sm2.PrivateKey, *sm2.PublicKey:
		return "SM2"
	case *rsa.PrivateKey:
		return "RSA-" + strconv.Itoa(k.N.BitLen())
	case *rsa.PublicKey:
		return "RSA-" + strconv.Itoa(k.N.BitLen())
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case ed25519.PrivateKey, ed25519.PublicKey:
		return "Ed25519"
	case *ecdh.PrivateKey:
		return ecdhName(k.Curve())
	case *ecdh.PublicKey:
		return ecdhName(k.Curve())
	}
	return fmt.Sprintf("%T", key)
}

func ecdhName(c ecdh.Curve) string {
	if c == ecdh.X25519() {
		return "X25519"
	}
	return "ECDH " + fmt.Sprint(c)
}

// keyName is keyAlgorithm with an article, for sentences.
func keyName(key any) string {
	return "an " + keyAlgorithm(key) + " key"
}

func curveName(oid asn1.ObjectIdentifier) string {
	switch {
	case oid.Equal(OIDNamedCurveSM2):
		return "SM2"
	case oid.Equal(OIDNamedCurveP224):
		return "P-224"
	case oid.Equal(OIDNamedCurveP256):
		return "P-256"
	case oid.Equal(OIDNamedCurveP384):
		return "P-384"
	case oid.Equal(OIDNamedCurveP521):
		return "P-521"
	}
	return "curve " + oid.String()
}

// describeNonPEM describes data in which pem.Decode finds no block.
func describeNonPEM(data []byte) string {
	if len(strings.TrimSpace(string(data))) == 0 {
		return "nothing (it is empty)"
	}
	if strings.Contains(string(data), "-----BEGIN") {
		return "no readable PEM block (a BEGIN line without a matching END line, or bad base64)"
	}
	s := cryptobyte.String(data)
	var seq cryptobyte.String
	if !s.ReadASN1(&seq, cbasn1.SEQUENCE) {
		return "no PEM data"
	}
	what := "DER data"
	if !s.Empty() {
		what = "DER data followed by other bytes"
	}
	switch {
	case looksLikeCertificate(seq):
		return "no PEM data (" + what + ": a certificate; PEM-encode it with `openssl x509 -inform DER`)"
	}
	if k, err := ParsePKCS8PrivateKey(data); err == nil {
		return "no PEM data (" + what + ": " + keyAlgorithm(k) + " private key, PKCS #8; PEM-encode it with `openssl pkey -inform DER`)"
	}
	if _, _, err := parseEncryptedPrivateKeyInfo(data); err == nil {
		return "no PEM data (" + what + ": an encrypted PKCS #8 private key)"
	}
	if k, err := ParseECPrivateKey(data); err == nil {
		return "no PEM data (" + what + ": " + keyAlgorithm(k) + " private key, SEC 1)"
	}
	return "no PEM data (" + what + ")"
}

// looksLikeCertificate reports whether the content of a SEQUENCE has the
// shape of a Certificate: SEQUENCE { SEQUENCE tbs, SEQUENCE alg, BIT STRING }.
func looksLikeCertificate(seq cryptobyte.String) bool {
	var tbs cryptobyte.String
	return seq.ReadASN1(&tbs, cbasn1.SEQUENCE) &&
		seq.SkipASN1(cbasn1.SEQUENCE) && seq.SkipASN1(cbasn1.BIT_STRING) && seq.Empty() &&
		(tbs.PeekASN1Tag(cbasn1.Tag(0).Constructed().ContextSpecific()) || tbs.PeekASN1Tag(cbasn1.INTEGER))
}
