// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
)

func init() {
	register(&command{
		name:    "key gen",
		group:   "Keys and certificates",
		summary: "make an SM2 private key: PKCS #8 or SEC 1, plain or encrypted",
		about: `The key is written as PKCS #8 ("PRIVATE KEY") by default, or SEC 1 ("EC PRIVATE KEY",
as GmSSL and Tongsuo write it) with -format sec1. With -pass it is encrypted (PKCS #8
PBES2; SEC 1 keys are never written encrypted) in the form -pbe names: gmssl (SM4-CBC,
PBKDF2-HMAC-SM3, what GmSSL 3 reads and writes), tongsuo (SM4-CBC with Tongsuo's
HMAC-SM3 identifier) or openssl (AES-256-CBC, PBKDF2-HMAC-SHA256, which OpenSSL 3,
Tongsuo and most other readers take).`,
		example: []string{
			"smtool key gen -out server.key",
			"smtool key gen -out server.key -pass pass:P@ssw0rd -pbe openssl -pubout server.pub",
		},
		run: keyGen,
	})
	register(&command{
		name:    "key convert",
		group:   "Keys and certificates",
		summary: "rewrite any OpenSSL/GmSSL/Tongsuo key in another form or encryption",
		args:    "[-in] FILE",
		example: []string{
			"smtool key convert -in gmssl_key.pem -passin pass:P@ssw0rd -out plain.key",
			"smtool key convert -in plain.key -pass env:KEYPASS -pbe gmssl -out for_gmssl.pem",
		},
		run: keyConvert,
	})
}

// keyOutFlags are the output options of key gen and key convert.
type keyOutFlags struct {
	out, pubout, format, pass, pbe *string
}

func addKeyOutFlags(fs *flagSet, passName string) *keyOutFlags {
	k := &keyOutFlags{
		out:    fs.String("out", "", "write the private key to `FILE` (mode 0600; default: standard output)"),
		pubout: fs.String("pubout", "", "also write the public key (PEM) to `FILE`"),
		format: fs.String("format", "pkcs8", "`pkcs8` or sec1"),
		pass:   fs.String(passName, "", "encrypt the key with this `password`: "+passUsage),
		pbe:    fs.String("pbe", "gmssl", "encryption for -"+passName+": `gmssl`, tongsuo or openssl"),
	}
	fs.alias("format", "outform")
	return k
}

// pbesOptions returns the PBES2 options a -pbe name stands for.
func pbesOptions(name string) (*smx.PBES2Options, error) {
	switch name {
	case "gmssl", "sm4":
		return nil, nil // the x509 default: GmSSL's form
	case "tongsuo":
		return smx.PBES2OptionsForTongsuo(), nil
	case "openssl", "aes-256-cbc":
		return smx.PBES2OptionsForOpenSSL(), nil
	}
	return nil, usagef("-pbe: unknown %q (want gmssl, tongsuo or openssl)", name)
}

// write encodes key as the flags say and writes it (and its public key).
func (k *keyOutFlags) write(e *env, key crypto.Signer, passFlag string) error {
	pw, err := e.password(passFlag, *k.pass)
	if err != nil {
		return err
	}
	opts, err := pbesOptions(*k.pbe)
	if err != nil {
		return err
	}
	var out []byte
	switch *k.format {
	case "pkcs8", "PEM", "pem":
		if pw != nil {
			out, err = smx.MarshalPrivateKeyPEMWithPassword(rand.Reader, key, pw, opts)
		} else {
			out, err = smx.MarshalPrivateKeyPEM(key)
		}
	case "sec1":
		if pw != nil {
			return usagef("-format sec1 with -%s: SEC 1 keys are written unencrypted only; encrypted keys are PKCS #8 (the default)", passFlag)
		}
		var der []byte
		if der, err = smx.MarshalECPrivateKey(key); err == nil {
			out = pem.EncodeToMemory(&pem.Block{Type: smx.PEMTypeECPrivateKey, Bytes: der})
		}
	default:
		return usagef("-format: unknown %q (want pkcs8 or sec1)", *k.format)
	}
	if err != nil {
		return err
	}
	if err := writeOutput(e, *k.out, out, 0o600); err != nil {
		return err
	}
	if *k.pubout != "" {
		pub, err := smx.MarshalPublicKeyPEM(key.Public())
		if err != nil {
			return err
		}
		if err := os.WriteFile(*k.pubout, pub, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeOutput writes data to path, or to standard output if path is ""
// or "-".
func writeOutput(e *env, path string, data []byte, mode os.FileMode) error {
	if path == "" || path == "-" {
		_, err := e.stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, mode)
}

func keyGen(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	k := addKeyOutFlags(fs, "pass")
	fs.alias("pass", "passout")
	algo := fs.String("algorithm", "SM2", "key `algorithm`: SM2 only")
	fs.alias("algorithm", "algo")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	if *algo != "SM2" && *algo != "sm2" {
		return usagef("-algorithm %s: smtool makes SM2 keys only", *algo)
	}
	key, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	return k.write(e, key, "pass")
}

func keyConvert(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	in := fs.String("in", "", "the key `FILE` (any form x509.ParsePrivateKeyPEM reads)")
	passin := fs.String("passin", "", "`password` of the input key: "+passUsage)
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
	if *in == "" {
		return usagef("-in FILE is required")
	}
	key, err := loadPrivateKey(e, *in, "passin", *passin)
	if err != nil {
		return err
	}
	return k.write(e, key, "pass")
}

// loadPrivateKey reads the one private key of a file, decrypting it with
// the password passSpec names (flag passFlag, for the messages).
func loadPrivateKey(e *env, path, passFlag, passSpec string) (crypto.Signer, error) {
	keys, err := loadPrivateKeys(e, path, passFlag, passSpec)
	if err != nil {
		return nil, err
	}
	if len(keys) != 1 {
		return nil, fmt.Errorf("%s holds %d private keys (a GmSSL signing and encryption pair?); give a file with one", path, len(keys))
	}
	return keys[0], nil
}

// loadPrivateKeys reads every private key of a file. The errors name the
// file and the flag that gives the password.
func loadPrivateKeys(e *env, path, passFlag, passSpec string) ([]crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pw, err := e.password(passFlag, passSpec)
	if err != nil {
		return nil, err
	}
	keys, err := smx.ParsePrivateKeysPEM(data, pw)
	switch {
	case errors.Is(err, smx.ErrPasswordRequired):
		return nil, fmt.Errorf("%s: the key is encrypted; give its password with -%s: %w", path, passFlag, err)
	case errors.Is(err, smx.ErrIncorrectPassword):
		return nil, fmt.Errorf("%s: wrong password (-%s): %w", path, passFlag, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return keys, nil
}
