// Command gengmsm writes the known-answer files made with gmsm v0.44.1
// that smx509/pkcs12 and x509 test against: a CFCA SM2 key file
// (cfca.ParseSM2's format) and GB/T 35276 SM2EnvelopedKey values
// (sm2.MarshalEnvelopedPrivateKey). It lives in the bench's module, which
// already requires gmsm, so that the main module never depends on it; run
// it from examples/bench with
//
//	go run ./cmd/gengmsm
//
// It also checks the other direction: an envelope and a CFCA file made by
// shangmi (x509.MarshalSM2EnvelopedKey, pkcs12.EncodeCFCA) are opened by
// gmsm.
// The keys and certificates are the Tongsuo-made ones in
// smx509/pkcs12/testdata (make.sh there).
package main

import (
	"crypto/rand"
	"encoding/pem"
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/emmansun/gmsm/cfca"
	"github.com/emmansun/gmsm/sm2"
	"github.com/emmansun/gmsm/smx509"
	oursm2 "github.com/shangmi-go/shangmi/primitives/sm2"
	oursmx509 "github.com/shangmi-go/shangmi/smx509"
	ourpkcs12 "github.com/shangmi-go/shangmi/smx509/pkcs12"
	ours "github.com/shangmi-go/shangmi/x509"
)

func readPEM(name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	return blk.Bytes
}

func readKey(name string) *sm2.PrivateKey {
	k, err := smx509.ParsePKCS8PrivateKey(readPEM(name))
	if err != nil {
		log.Fatal(err)
	}
	return k.(*sm2.PrivateKey)
}

// root is the shangmi checkout, relative to where the command runs.
var root = flag.String("root", "../..", "the module root (from examples/bench)")

func main() {
	flag.Parse()
	sign := readKey(filepath.Join(*root, "smx509/pkcs12/testdata/sign.key"))
	enc := readKey(filepath.Join(*root, "smx509/pkcs12/testdata/enc.key"))
	cert, err := smx509.ParseCertificate(readPEM(filepath.Join(*root, "smx509/pkcs12/testdata/sign.pem")))
	if err != nil {
		log.Fatal(err)
	}
	cf, err := cfca.MarshalSM2([]byte("shangmi"), sign, cert)
	if err != nil {
		log.Fatal(err)
	}
	if _, _, err := cfca.ParseSM2([]byte("shangmi"), cf); err != nil {
		log.Fatal(err)
	}
	must(os.WriteFile(filepath.Join(*root, "smx509/pkcs12/testdata/cfca_sign.sm2"), cf, 0o644))

	// The encryption key enveloped to the signing key, twice (the
	// SM2 ciphertext is randomized), so the tests see two encodings.
	for _, name := range []string{filepath.Join(*root, "x509/testdata/envelopedkey/gmsm_enveloped_1.der"), filepath.Join(*root, "x509/testdata/envelopedkey/gmsm_enveloped_2.der")} {
		env, err := sm2.MarshalEnvelopedPrivateKey(rand.Reader, &sign.PublicKey, enc)
		must(err)
		back, err := sm2.ParseEnvelopedPrivateKey(sign, env)
		must(err)
		if !back.Equal(enc) {
			log.Fatal("gmsm does not read back its own enveloped key")
		}
		must(os.WriteFile(name, env, 0o644))
	}

	// shangmi -> gmsm.
	ourSign, err := ours.ParsePrivateKeyPEM(mustRead(filepath.Join(*root, "smx509/pkcs12/testdata/sign.key")), nil)
	must(err)
	ourEnc, err := ours.ParsePrivateKeyPEM(mustRead(filepath.Join(*root, "smx509/pkcs12/testdata/enc.key")), nil)
	must(err)
	ourEnv, err := ours.MarshalSM2EnvelopedKey(rand.Reader, ourSign.(*oursm2.PrivateKey).PublicKey(), ourEnc.(*oursm2.PrivateKey))
	must(err)
	back, err := sm2.ParseEnvelopedPrivateKey(sign, ourEnv)
	must(err)
	if !back.Equal(enc) {
		log.Fatal("gmsm opened shangmi's envelope to another key")
	}
	log.Print("gmsm opens shangmi's SM2EnvelopedKey")
	ourCert, err := oursmx509.ParseCertificatePEM(mustRead(filepath.Join(*root, "smx509/pkcs12/testdata/sign.pem")))
	must(err)
	ourCF, err := ourpkcs12.EncodeCFCA(ourSign.(*oursm2.PrivateKey), ourCert, "shangmi")
	must(err)
	k, _, err := cfca.ParseSM2([]byte("shangmi"), ourCF)
	must(err)
	if !k.Equal(sign) {
		log.Fatal("gmsm read another key from shangmi's CFCA file")
	}
	log.Print("gmsm reads shangmi's CFCA SM2 file")
}

func mustRead(name string) []byte {
	b, err := os.ReadFile(name)
	must(err)
	return b
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
