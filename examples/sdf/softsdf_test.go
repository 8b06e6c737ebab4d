// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	smx "github.com/shangmi-go/shangmi/x509"
)

// TestSoftSDF runs against a real SDF library: GmSSL's SoftSDF, named by
// SHANGMI_SDF_LIB (its libsoftsdf.so). The keys are provisioned with
// SoftSDF's softsdfinit (SHANGMI_SDF_INIT, or bin/softsdfinit next to the
// library's lib directory) in a temporary directory, which becomes the
// working directory: SoftSDF keeps its keys in files there.
func TestSoftSDF(t *testing.T) {
	libPath := os.Getenv("SHANGMI_SDF_LIB")
	if libPath == "" {
		t.Skip("SHANGMI_SDF_LIB is not set: set it to SoftSDF's libsoftsdf.so (see README.md) to test against an SDF library")
	}
	initTool := os.Getenv("SHANGMI_SDF_INIT")
	if initTool == "" {
		initTool = filepath.Join(filepath.Dir(libPath), "..", "bin", "softsdfinit")
	}
	if _, err := os.Stat(initTool); err != nil {
		t.Fatalf("softsdfinit, which provisions SoftSDF's keys, not found: %v (set SHANGMI_SDF_INIT)", err)
	}
	const password = "P@ssw0rd"
	dir := t.TempDir()
	for _, idx := range []string{"1", "2"} {
		cmd := exec.Command(initTool, "-kek", idx, "-key", idx, "-pass", password)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("softsdfinit -key %s: %v\n%s", idx, err, out)
		}
	}
	t.Chdir(dir)

	d, err := Open(libPath, &Options{MaxSessions: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()

	// The keys in memory, from SoftSDF's own files, to check against.
	readKey := func(name string) *sm2.PrivateKey {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		k, err := smx.ParsePrivateKeyPEM(b, []byte(password))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return k.(*sm2.PrivateKey)
	}
	memSign, memEnc := readKey("sm2sign-1.pem"), readKey("sm2enc-2.pem")

	t.Run("errors", func(t *testing.T) {
		_, err := d.SignKey(7, []byte(password))
		if !errors.Is(err, CodeKeyNotExist) {
			t.Errorf("a missing key index: %v", err)
		}
		t.Log(err)
		_, err = d.SignKey(1, []byte("wrong"))
		var e *Error
		if !errors.As(err, &e) || e.Func != "SDF_GetPrivateKeyAccessRight" {
			t.Errorf("a wrong password: %v", err)
		}
		t.Log(err) // SoftSDF says SDR_BASE+0x100, its GmSSL failure code
		if _, err := d.SignPublicKey(7); !errors.Is(err, CodeKeyNotExist) {
			t.Errorf("SignPublicKey of a missing index: %v", err)
		}
	})

	sign, err := d.SignKey(1, []byte(password))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := d.EncKey(2, []byte(password))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("public keys", func(t *testing.T) {
		if !sign.Public().(*sm2.PublicKey).Equal(memSign.PublicKey()) || !enc.Public().(*sm2.PublicKey).Equal(memEnc.PublicKey()) {
			t.Fatal("the exported public keys are not those of SoftSDF's key files")
		}
		if p, err := d.EncPublicKey(2); err != nil || !p.Equal(memEnc.PublicKey()) {
			t.Errorf("EncPublicKey: %v", err)
		}
		if p, err := d.SignPublicKey(1); err != nil || !p.Equal(memSign.PublicKey()) {
			t.Errorf("SignPublicKey: %v", err)
		}
	})
	t.Run("sign", func(t *testing.T) {
		msg := []byte("signed inside SoftSDF")
		pub := sign.Public().(*sm2.PublicKey)
		sig, err := sign.Sign(rand.Reader, msg, &sm2.SignerOpts{})
		if err != nil || !sm2.VerifyASN1(pub, msg, nil, sig) {
			t.Fatalf("%v, or sm2.VerifyASN1 refuses the signature", err)
		}
		uid := []byte("alice@example.com")
		sig, err = sign.Sign(rand.Reader, msg, &sm2.SignerOpts{UID: uid})
		if err != nil || !sm2.VerifyASN1(pub, msg, uid, sig) {
			t.Fatalf("with a UID: %v", err)
		}
		e := make([]byte, 32)
		rand.Read(e)
		sig, err = sign.Sign(rand.Reader, e, digestOpts{})
		if err != nil || !sm2.VerifyDigestASN1(pub, e, sig) {
			t.Fatalf("a digest: %v", err)
		}
	})
	t.Run("decrypt", func(t *testing.T) {
		msg := []byte("the 48-byte premaster of a TLCP handshake ......")
		pub := enc.Public().(*sm2.PublicKey)
		for _, o := range []*sm2.EncrypterOpts{{ASN1: true}, {}, {Order: sm2.C1C2C3}, {CompressC1: true}} {
			ct, _ := sm2.Encrypt(rand.Reader, pub, msg, o)
			pt, err := enc.Decrypt(rand.Reader, ct, o)
			if err != nil || !bytes.Equal(pt, msg) {
				t.Errorf("%+v: %q, %v", o, pt, err)
			}
		}
		ct, _ := sm2.EncryptASN1(rand.Reader, pub, msg)
		ct[len(ct)-1] ^= 1
		_, err := enc.Decrypt(rand.Reader, ct, nil)
		if err == nil {
			t.Error("a tampered ciphertext decrypts")
		}
		t.Log(err)
		// SoftSDF's own encryption, mapped to DER, decrypts in memory.
		der, err := d.encryptInDevice(2, msg)
		if err != nil {
			t.Fatal(err)
		}
		if pt, err := sm2.DecryptASN1(memEnc, der); err != nil || !bytes.Equal(pt, msg) {
			t.Errorf("SDF_InternalEncrypt_ECC's ciphertext: %q, %v", pt, err)
		}
	})
	t.Run("TLCP", func(t *testing.T) {
		runTLCPSuites(t, d, 1, 2, password, memEnc)
	})
}
