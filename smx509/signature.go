package smx509

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
)

// ErrUnsupportedAlgorithm results from attempting an operation with an
// algorithm this package does not implement.
var ErrUnsupportedAlgorithm = errors.New("x509: cannot verify signature: algorithm unimplemented")

// InsecureAlgorithmError indicates that the SignatureAlgorithm used to
// generate the signature is not secure, and the signature has been rejected.
type InsecureAlgorithmError SignatureAlgorithm

func (e InsecureAlgorithmError) Error() string {
	return fmt.Sprintf("x509: cannot verify signature: insecure algorithm %v", SignatureAlgorithm(e))
}

// ConstraintViolationError results when a requested usage is not permitted
// by a certificate, for example a signature by a non-CA certificate.
type ConstraintViolationError struct{}

func (ConstraintViolationError) Error() string {
	return "x509: invalid signature: parent certificate cannot sign this kind of certificate"
}

func errUnsupportedSignatureAlgorithm(algo SignatureAlgorithm) error {
	return fmt.Errorf("x509: unsupported signature algorithm %v", algo)
}

// CheckSignatureFrom verifies that the signature on c is a valid signature
// from parent. The parent must be a CA (when it has basic constraints, or is
// a v3 certificate) and, if it has a key-usage extension, allow keyCertSign.
// SHA-1 and MD5 signatures are rejected.
func (c *Certificate) CheckSignatureFrom(parent *Certificate) error {
	if parent.Version == 3 && !parent.BasicConstraintsValid ||
		parent.BasicConstraintsValid && !parent.IsCA {
		return ConstraintViolationError{}
	}
	if parent.KeyUsage != 0 && parent.KeyUsage&KeyUsageCertSign == 0 {
		return ConstraintViolationError{}
	}
	if parent.PublicKeyAlgorithm == UnknownPublicKeyAlgorithm {
		return ErrUnsupportedAlgorithm
	}
	return checkSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature, parent.PublicKey, false)
}

// CheckSignature verifies that signature is a valid signature over signed
// from c's public key. SHA-1 signatures are accepted here, as in
// crypto/x509, because this is a low-level primitive.
func (c *Certificate) CheckSignature(algo SignatureAlgorithm, signed, signature []byte) error {
	return checkSignature(algo, signed, signature, c.PublicKey, true)
}

// checkSignature verifies a signature of algorithm algo over signed with
// publicKey.
func checkSignature(algo SignatureAlgorithm, signed, signature []byte, publicKey any, allowSHA1 bool) error {
	pubKeyAlgo, hashType, isPSS, ok := signatureAlgorithmInfo(algo)
	if !ok {
		return ErrUnsupportedAlgorithm
	}
	switch hashType {
	case crypto.MD5:
		return InsecureAlgorithmError(algo)
	case crypto.SHA1:
		if !allowSHA1 {
			return InsecureAlgorithmError(algo)
		}
	}

	if pubKeyAlgo == SM2 {
		pub, ok := publicKey.(*sm2.PublicKey)
		if !ok {
			return errors.New("x509: signature algorithm specifies an SM2 public key, but have public key of type " + fmt.Sprintf("%T", publicKey))
		}
		if !verifySM2(pub, signed, signature) {
			return errors.New("x509: SM2 verification failure")
		}
		return nil
	}

	var digest []byte
	if hashType != 0 {
		if !hashType.Available() {
			return ErrUnsupportedAlgorithm
		}
		h := hashType.New()
		h.Write(signed)
		digest = h.Sum(nil)
	}
	switch pub := publicKey.(type) {
	case *rsa.PublicKey:
		if pubKeyAlgo != RSA {
			return signaturePublicKeyAlgoMismatchError(pubKeyAlgo, pub)
		}
		if isPSS {
			return rsa.VerifyPSS(pub, hashType, digest, signature, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		}
		return rsa.VerifyPKCS1v15(pub, hashType, digest, signature)
	case *ecdsa.PublicKey:
		if pubKeyAlgo != ECDSA {
			return signaturePublicKeyAlgoMismatchError(pubKeyAlgo, pub)
		}
		if !ecdsa.VerifyASN1(pub, digest, signature) {
			return errors.New("x509: ECDSA verification failure")
		}
		return nil
	case ed25519.PublicKey:
		if pubKeyAlgo != Ed25519 {
			return signaturePublicKeyAlgoMismatchError(pubKeyAlgo, pub)
		}
		if !ed25519.Verify(pub, signed, signature) {
			return errors.New("x509: Ed25519 verification failure")
		}
		return nil
	}
	return ErrUnsupportedAlgorithm
}

func signaturePublicKeyAlgoMismatchError(expected PublicKeyAlgorithm, pubKey any) error {
	return fmt.Errorf("x509: signature algorithm specifies an %s public key, but have public key of type %T", expected, pubKey)
}

// verifySM2 checks an SM2-with-SM3 signature, first with the default signer
// ID (GM/T 0009) and then with the empty ID that OpenSSL 3.0 uses when no
// distid is configured. See the package documentation.
func verifySM2(pub *sm2.PublicKey, signed, sig []byte) bool {
	return sm2.VerifyASN1(pub, signed, nil, sig) || sm2.VerifyASN1(pub, signed, emptyUID, sig)
}

// emptyUID is the empty signer ID: sm2 reads a nil ID as the default one and
// an empty, non-nil one as empty (ENTL = 0).
var emptyUID = []byte{}

// signingParams picks the signature algorithm for key, honouring requested
// if it is compatible.
func signingParams(key crypto.Signer, requested SignatureAlgorithm) (SignatureAlgorithm, error) {
	var pubAlgo PublicKeyAlgorithm
	var def SignatureAlgorithm
	switch pub := key.Public().(type) {
	case *sm2.PublicKey:
		pubAlgo, def = SM2, SM2WithSM3
	case *rsa.PublicKey:
		pubAlgo, def = RSA, SHA256WithRSA
	case *ecdsa.PublicKey:
		pubAlgo = ECDSA
		switch pub.Curve {
		case elliptic.P256():
			def = ECDSAWithSHA256
		case elliptic.P384():
			def = ECDSAWithSHA384
		case elliptic.P521():
			def = ECDSAWithSHA512
		default:
			// When the curve is SM2's, package x509 says why and names the
			// conversion: an SM2 key is an *sm2.PrivateKey here, and an
			// *ecdsa.PrivateKey would sign ECDSA, not SM2.
			var err error
			if k, ok := key.(*ecdsa.PrivateKey); ok {
				_, err = smx.MarshalPKCS8PrivateKey(k)
			} else {
				_, err = smx.MarshalPKIXPublicKey(pub)
			}
			if err != nil {
				return 0, err
			}
			return 0, errors.New("x509: unsupported elliptic curve")
		}
	case ed25519.PublicKey:
		pubAlgo, def = Ed25519, PureEd25519
	default:
		return 0, errors.New("x509: only SM2, RSA, ECDSA and Ed25519 keys supported")
	}
	if requested == UnknownSignatureAlgorithm {
		return def, nil
	}
	reqPub, hashType, _, ok := signatureAlgorithmInfo(requested)
	if !ok || reqPub != pubAlgo {
		return 0, errors.New("x509: requested SignatureAlgorithm does not match private key type")
	}
	if hashType == crypto.MD5 || hashType == crypto.SHA1 {
		return 0, InsecureAlgorithmError(requested)
	}
	return requested, nil
}

// asSigner returns key as a crypto.Signer.
func asSigner(key any) (crypto.Signer, error) {
	s, ok := key.(crypto.Signer)
	if !ok || s == nil {
		return nil, errors.New("x509: certificate private key does not implement crypto.Signer")
	}
	return s, nil
}

// signData signs tbs with key using algo.
func signData(rand io.Reader, key crypto.Signer, algo SignatureAlgorithm, tbs []byte) ([]byte, error) {
	_, hashType, isPSS, ok := signatureAlgorithmInfo(algo)
	if !ok {
		return nil, errUnsupportedSignatureAlgorithm(algo)
	}
	switch {
	case algo == SM2WithSM3:
		// The signer hashes Z(default ID) || tbs itself.
		return key.Sign(rand, tbs, &sm2.SignerOpts{UID: []byte(sm2.DefaultUID)})
	case algo == PureEd25519:
		return key.Sign(rand, tbs, crypto.Hash(0))
	}
	h := hashType.New()
	h.Write(tbs)
	digest := h.Sum(nil)
	var opts crypto.SignerOpts = hashType
	if isPSS {
		opts = &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: hashType}
	}
	return key.Sign(rand, digest, opts)
}
