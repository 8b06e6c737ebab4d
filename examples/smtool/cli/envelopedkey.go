// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "key import-enveloped",
		group:   "Keys and certificates",
		summary: "unwrap a KMC-issued encryption key (GB/T 35276)",
		args:    "[-in] FILE",
		about: `A CA's key management centre delivers the encryption key pair as an SM2EnvelopedKey
encrypted to the holder's signing key. This unwraps it with -sign_key, checks the key
against the envelope's public key and, with -enc_cert, against the encryption
certificate (and its key usage), and writes it as a private key file (the -out, -pass,
-pbe and -format flags of "key gen"). The envelope may be DER, PEM or base64 text.`,
		example: []string{
			"smtool key import-enveloped -sign_key sign.key -in enc_envelope.der -enc_cert enc.pem -out enc.key",
		},
		run: keyImportEnveloped,
	})
}

func keyImportEnveloped(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	in := fs.String("in", "", "the SM2EnvelopedKey `FILE` (DER, PEM or base64)")
	signKeyFile := fs.String("sign_key", "", "the signing private key `FILE` the envelope is encrypted to")
	passin := fs.String("passin", "", "`password` of -sign_key: "+passUsage)
	signCertFile := fs.String("sign_cert", "", "the signing certificate `FILE`, checked against -sign_key (optional)")
	encCertFile := fs.String("enc_cert", "", "the encryption certificate `FILE`, checked against the unwrapped key (recommended)")
	k := addKeyOutFlags(fs, "pass")
	fs.alias("pass", "passout")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if *in == "" && len(rest) == 1 {
		*in, rest = rest[0], nil
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if *in == "" || *signKeyFile == "" {
		return usagef("-in FILE and -sign_key FILE are required")
	}
	signKey, err := loadPrivateKey(e, *signKeyFile, "passin", *passin)
	if err != nil {
		return err
	}
	dec, ok := signKey.(crypto.Decrypter)
	if !ok {
		return fmt.Errorf("%s: the signing key cannot decrypt (not an SM2 key)", *signKeyFile)
	}
	der, err := readEnvelope(*in)
	if err != nil {
		return err
	}
	var signCert *smx509.Certificate
	if *signCertFile != "" {
		if signCert, err = readOneCertificate(*signCertFile); err != nil {
			return err
		}
	}
	var key *sm2.PrivateKey
	if *encCertFile != "" {
		encCert, err := readOneCertificate(*encCertFile)
		if err != nil {
			return err
		}
		if key, err = smx509.UnwrapSM2EnvelopedKey(der, dec, signCert, encCert); err != nil {
			return fmt.Errorf("%s: %w", *in, err)
		}
	} else {
		e.warnf("no -enc_cert: the key is checked against the envelope's public key only")
		if signCert != nil {
			if err := signCert.CheckPrivateKey(signKey); err != nil {
				return fmt.Errorf("%s: %w", *signCertFile, err)
			}
		}
		env, err := smx.ParseSM2EnvelopedKey(der)
		if err != nil {
			return fmt.Errorf("%s: %w", *in, err)
		}
		if key, err = env.Unwrap(rand.Reader, dec); err != nil {
			return fmt.Errorf("%s: %w", *in, err)
		}
	}
	return k.write(e, key, "pass")
}

// readEnvelope reads DER, the first PEM block, or base64 text.
func readEnvelope(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if block, _ := pem.Decode(data); block != nil {
		return block.Bytes, nil
	}
	if len(data) > 0 && data[0] == 0x30 {
		return data, nil
	}
	text := bytes.Join(bytes.Fields(data), nil)
	der, err := base64.StdEncoding.DecodeString(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: neither DER, PEM nor base64", path)
	}
	return der, nil
}

func readOneCertificate(path string) (*smx509.Certificate, error) {
	certs, err := readCertificates(path)
	if err != nil {
		return nil, err
	}
	if len(certs) != 1 {
		return nil, fmt.Errorf("%s holds %d certificates; give a file with one", path, len(certs))
	}
	return certs[0], nil
}
