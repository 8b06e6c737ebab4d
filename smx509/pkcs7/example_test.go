package pkcs7_test

import (
	"bytes"
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log"
	"math/big"
	"time"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/pkcs7"
)

// exampleParty makes a root and a leaf certificate with the given key usage.
func exampleParty(cn string, ku smx509.KeyUsage) (root, leaf *smx509.Certificate, key *sm2.PrivateKey) {
	rootKey, _ := sm2.GenerateKey(rand.Reader)
	key, _ = sm2.GenerateKey(rand.Reader)
	nb, na := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	rt := &smx509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example root"},
		NotBefore: nb, NotAfter: na, KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	der, err := smx509.CreateCertificate(rand.Reader, rt, rt, rootKey.Public(), rootKey)
	if err != nil {
		log.Fatal(err)
	}
	root, _ = smx509.ParseCertificate(der)
	lt := &smx509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		NotBefore: nb, NotAfter: na, KeyUsage: ku, SubjectKeyId: []byte(cn)}
	der, err = smx509.CreateCertificate(rand.Reader, lt, root, key.Public(), rootKey)
	if err != nil {
		log.Fatal(err)
	}
	leaf, _ = smx509.ParseCertificate(der)
	return root, leaf, key
}

func ExampleSign() {
	root, cert, key := exampleParty("signer", smx509.KeyUsageDigitalSignature)
	der, err := pkcs7.Sign([]byte("payment order 42"), []pkcs7.Signer{{Certificate: cert, Key: key}}, nil)
	if err != nil {
		log.Fatal(err)
	}

	m, err := pkcs7.Parse(der)
	if err != nil {
		log.Fatal(err)
	}
	roots := smx509.NewCertPool()
	roots.AddCert(root)
	if err := m.Signed.Verify(pkcs7.VerifyOptions{Roots: roots, CurrentTime: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s in the %v family: %q\n", m.Type, m.Family, m.Signed.Content)

	// An altered message names the signer that failed and why.
	m.Signed.Content = []byte("payment order 43")
	err = m.Signed.Verify(pkcs7.VerifyOptions{Roots: roots})
	var se *pkcs7.SignerError
	if errors.As(err, &se) && errors.Is(err, pkcs7.ErrDigestMismatch) {
		fmt.Println("signer", se.Index, se.Certificate.Subject.CommonName, "failed: digest mismatch")
	}
	// Output:
	// signedData in the GM/T 0010 family: "payment order 42"
	// signer 0 signer failed: digest mismatch
}

func ExampleSignDetached() {
	root, cert, key := exampleParty("signer", smx509.KeyUsageDigitalSignature)
	content := bytes.Repeat([]byte("a large file "), 1<<16)
	// The content is read once, in constant memory; any io.Reader will do.
	der, err := pkcs7.SignDetached(bytes.NewReader(content), []pkcs7.Signer{{Certificate: cert, Key: key}},
		&pkcs7.SignOptions{Family: pkcs7.PKCS7})
	if err != nil {
		log.Fatal(err)
	}
	m, err := pkcs7.Parse(der)
	if err != nil {
		log.Fatal(err)
	}
	roots := smx509.NewCertPool()
	roots.AddCert(root)
	err = m.Signed.VerifyDetached(bytes.NewReader(content), pkcs7.VerifyOptions{Roots: roots, CurrentTime: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)})
	fmt.Println("detached:", m.Signed.Detached, "verified:", err == nil)
	// Output: detached: true verified: true
}

func ExampleEncrypt() {
	_, cert, key := exampleParty("recipient", smx509.KeyUsageKeyEncipherment)
	der, err := pkcs7.Encrypt([]byte("for your eyes only"), []pkcs7.Recipient{{Certificate: cert}},
		&pkcs7.EncryptOptions{Cipher: pkcs7.SM4GCM})
	if err != nil {
		log.Fatal(err)
	}
	m, err := pkcs7.Parse(der)
	if err != nil {
		log.Fatal(err)
	}
	// key may be any crypto.Decrypter that decrypts SM2, an HSM's included.
	content, err := m.Enveloped.Decrypt(cert, key)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", content)
	// Output: for your eyes only
}
