// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build cgo && unix

package sdf

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// cBytes is b as a C array initialiser.
func cBytes(b []byte) string {
	var s strings.Builder
	for i, v := range b {
		if i > 0 {
			s.WriteString(",")
		}
		fmt.Fprintf(&s, "0x%02x", v)
	}
	return s.String()
}

// fakeSDFSource is a C SDF library that knows one signature and one
// decryption: the Go test computes them and writes them in, and the
// library checks that the structures it is given are byte for byte the
// ones GM/T 0018 lays out.
const fakeSDFSource = `
#include <string.h>
#define SDR_OK 0
#define SDR_BASE 0x01000000
#define SDR_KEYNOTEXIST (SDR_BASE + 0x08)
#define SDR_PRKRERR (SDR_BASE + 0x18)
#define SDR_INARGERR (SDR_BASE + 0x1D)
static unsigned char pub_struct[] = {%s};
static unsigned char digest[] = {%s};
static unsigned char sig_struct[] = {%s};
static unsigned char cipher_struct[] = {%s};
static unsigned char plain[] = {%s};
static int dev = 1, sessions = 0, sess_token = 7;
int SDF_OpenDevice(void **h) { *h = &dev; return SDR_OK; }
int SDF_CloseDevice(void *h) { return (h == &dev && sessions == 0) ? SDR_OK : SDR_INARGERR; }
int SDF_OpenSession(void *h, void **s) { if (h != &dev) return SDR_INARGERR; sessions++; *s = &sess_token; return SDR_OK; }
int SDF_CloseSession(void *s) { if (s != &sess_token) return SDR_INARGERR; sessions--; return SDR_OK; }
int SDF_GetPrivateKeyAccessRight(void *s, unsigned int i, unsigned char *p, unsigned int n) {
	if (s != &sess_token) return SDR_INARGERR;
	if (i != 1) return SDR_KEYNOTEXIST;
	return (n == 2 && memcmp(p, "pw", 2) == 0) ? SDR_OK : SDR_PRKRERR;
}
int SDF_ExportSignPublicKey_ECC(void *s, unsigned int i, void *out) {
	if (i != 1) return SDR_KEYNOTEXIST;
	memcpy(out, pub_struct, sizeof pub_struct); return SDR_OK;
}
int SDF_ExportEncPublicKey_ECC(void *s, unsigned int i, void *out) { return SDF_ExportSignPublicKey_ECC(s, i, out); }
int SDF_InternalSign_ECC(void *s, unsigned int i, unsigned char *e, unsigned int n, void *sig) {
	if (i != 1 || n != 32 || memcmp(e, digest, 32) != 0) return SDR_INARGERR;
	memcpy(sig, sig_struct, sizeof sig_struct); return SDR_OK;
}
int SDF_InternalDecrypt_ECC(void *s, unsigned int i, unsigned int alg, void *c, unsigned char *out, unsigned int *n) {
	if (i != 1 || alg != 0x00020800 || memcmp(c, cipher_struct, sizeof cipher_struct) != 0) return SDR_INARGERR;
	if (*n < sizeof plain) return SDR_INARGERR;
	memcpy(out, plain, sizeof plain); *n = sizeof plain; return SDR_OK;
}
`

// TestDlopen builds a small SDF library with gcc and goes through the
// dlopen binding with it: the calls' arguments, the structures' layout,
// the return codes and the session bookkeeping. It needs gcc, which cgo
// needs anyway.
func TestDlopen(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the fake SDF library")
	}
	k, _ := sm2.GenerateKey(rand.Reader)
	pub := k.PublicKey().Bytes()
	pubStruct := make([]byte, publicKeyStructLen)
	copy(pubStruct[4+32:], pub[1:33])
	copy(pubStruct[4+64+32:], pub[33:])
	putBits(pubStruct)
	e := make([]byte, 32)
	rand.Read(e)
	der, _ := sm2.SignDigestASN1(rand.Reader, k, e)
	r, s := derRS(t, der)
	sigStruct := make([]byte, signatureStructLen)
	copy(sigStruct[64-len(r):64], r)
	copy(sigStruct[128-len(s):], s)
	msg := []byte("premaster through dlopen")
	ct, _ := sm2.EncryptASN1(rand.Reader, k.PublicKey(), msg)
	c, err := ParseCiphertext(ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(fakeSDFSource, cBytes(pubStruct), cBytes(e), cBytes(sigStruct), cBytes(c.marshalStruct()), cBytes(msg))
	dir := t.TempDir()
	build := func(name, source string) string {
		cfile, lib := filepath.Join(dir, name+".c"), filepath.Join(dir, name+".so")
		if err := os.WriteFile(cfile, []byte(source), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, cfile).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		return lib
	}
	lib := build("fakesdf", src)

	d, err := Open(lib, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.SignKey(1, []byte("no")); !errors.Is(err, CodePrivateKeyRight) {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := d.SignKey(2, []byte("pw")); !errors.Is(err, CodeKeyNotExist) {
		t.Errorf("missing index: %v", err)
	}
	sk, err := d.SignKey(1, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	if !sk.Public().(*sm2.PublicKey).Equal(k.PublicKey()) {
		t.Error("public key differs")
	}
	sig, err := sk.Sign(nil, e, digestOpts{})
	if err != nil || !bytes.Equal(sig, der) {
		t.Errorf("Sign: %x, %v; want %x", sig, err, der)
	}
	ek, err := d.EncKey(1, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	pt, err := ek.Decrypt(nil, ct, &sm2.DecrypterOpts{ASN1: true})
	if err != nil || !bytes.Equal(pt, msg) {
		t.Errorf("Decrypt: %q, %v", pt, err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close (the fake refuses it with sessions open): %v", err)
	}

	// A library without the signing call is not taken for an SDF library.
	noSign := build("nosign", strings.Replace(src, "int SDF_InternalSign_ECC(", "static int unused_sign(", 1))
	if _, err := Open(noSign, nil); err == nil || !strings.Contains(err.Error(), "has no SDF_InternalSign_ECC") {
		t.Errorf("library without SDF_InternalSign_ECC: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.so"), nil); err == nil || !strings.Contains(err.Error(), "missing.so") {
		t.Errorf("missing library: %v", err)
	}
}
