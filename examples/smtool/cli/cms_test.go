// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCMS runs every cms subcommand in-process over the repository's TLCP
// PKI: sign and verify (attached, detached, DER, both families, GmSSL's
// form), encrypt and decrypt (EnvelopedData, SignedAndEnvelopedData,
// EncryptedData), DigestedData, show, and the failures a user meets.
func TestCMS(t *testing.T) {
	pki := func(name string) string { return moduleTestdata(t, "tlcp", name) }
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	content := "a message for smtool cms\n"
	if err := os.WriteFile(in, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	ok := func(args ...string) string {
		t.Helper()
		code, out, errOut := smtool(args...)
		if code != 0 {
			t.Fatalf("smtool %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out + errOut
	}
	fails := func(want string, args ...string) {
		t.Helper()
		code, _, errOut := smtool(args...)
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("smtool %s: exit %d, stderr %q, want %q", strings.Join(args, " "), code, errOut, want)
		}
	}
	sameContent := func(file string) {
		t.Helper()
		got, err := os.ReadFile(file)
		if err != nil || string(got) != content {
			t.Errorf("%s: %q, %v", file, got, err)
		}
	}
	signer := []string{"-signer", pki("server_sign.pem"), "-inkey", pki("server_sign.key")}
	verify := []string{"-CAfile", pki("ca.pem"), "-attime", "2030-01-01"}

	for _, variant := range [][]string{
		{"-nodetach"},
		{"-nodetach", "-family", "pkcs7", "-outform", "DER"},
		{"-nodetach", "-noattr"},
		{"-nodetach", "-noattr", "-noZ", "-keyid"},
		{"-gmssl"},
		{"-nodetach", "-outform", "PKCS7", "-sm2-1"},
	} {
		msg := path("signed")
		ok(append(append([]string{"cms", "sign", "-in", in, "-out", msg}, signer...), variant...)...)
		out := path("out")
		ok(append([]string{"cms", "verify", "-in", msg, "-out", out}, verify...)...)
		sameContent(out)
	}

	// Detached, with GmSSL's flag names.
	sig := path("detached.p7s")
	ok("cms", "sign", "-in", in, "-out", sig, "-cert", pki("server_sign.pem"), "-key", pki("server_sign.key"))
	ok(append([]string{"cms", "verify", "-in", sig, "-content", in}, verify...)...)
	fails("detached", append([]string{"cms", "verify", "-in", sig}, verify...)...)
	other := path("other.txt")
	os.WriteFile(other, []byte("another message\n"), 0o644)
	fails("message digest does not match", append([]string{"cms", "verify", "-in", sig, "-content", other}, verify...)...)
	fails("unknown authority", "cms", "verify", "-in", sig, "-content", in, "-CAfile", moduleTestdata(t, "openssl", "ca.pem"))
	ok("cms", "verify", "-in", sig, "-content", in, "-noverify")
	fails("-CAfile FILE is required", "cms", "verify", "-in", sig, "-content", in)
	fails("incompatible key usage", append([]string{"cms", "verify", "-in", sig, "-content", in, "-purpose", "clientAuth"}, verify...)...)
	show := ok("cms", "show", sig)
	mustContain(t, "cms show", show, "signedData (GM/T 0010", "content: detached", "signing time", "1 certificate(s)")

	// The recorded GmSSL and Tongsuo messages.
	for _, kat := range []string{"gmssl_signed.pem", "tongsuo_signed.pem", "tongsuo_signed_ber.der"} {
		out := ok(append([]string{"cms", "verify", "-in", filepath.Join("..", "..", "..", "smx509", "pkcs7", "testdata", kat)}, verify...)...)
		mustContain(t, kat, out, "shangmi CMS known-answer message", "Verification successful")
	}

	// EnvelopedData to two recipients, with either recipient's key.
	for _, variant := range [][]string{{}, {"-sm4-gcm", "-family", "pkcs7", "-keyid"}, {"-gmssl", "-outform", "DER"}} {
		env := path("env")
		ok(append([]string{"cms", "encrypt", "-in", in, "-out", env, "-recip", pki("server_enc.pem"), pki("client_enc.pem")}, variant...)...)
		for _, r := range []string{"server_enc", "client_enc"} {
			out := path("out_" + r)
			ok("cms", "decrypt", "-in", env, "-recip", pki(r+".pem"), "-inkey", pki(r+".key"), "-out", out)
			sameContent(out)
		}
		out := path("out_any")
		ok("cms", "decrypt", "-in", env, "-inkey", pki("client_enc.key"), "-out", out)
		sameContent(out)
		fails("no recipient", "cms", "decrypt", "-in", env, "-recip", pki("server_sign.pem"), "-inkey", pki("server_sign.key"))
		mustContain(t, "cms show", ok("cms", "show", env), "envelopedData", "recipient 1:")
	}

	// SignedAndEnvelopedData.
	sed := path("sed")
	ok(append([]string{"cms", "encrypt", "-in", in, "-out", sed, "-recip", pki("server_enc.pem")}, signer...)...)
	out := path("out_sed")
	ok(append([]string{"cms", "decrypt", "-in", sed, "-inkey", pki("server_enc.key"), "-out", out}, verify...)...)
	sameContent(out)
	mustContain(t, "cms show", ok("cms", "show", sed), "signedAndEnvelopedData", "signer 0:", "recipient 0:")

	// EncryptedData and DigestedData.
	key := "00112233445566778899aabbccddeeff"
	enc := path("enc")
	ok("cms", "encrypt", "-in", in, "-out", enc, "-secretkey", key)
	out = path("out_enc")
	ok("cms", "decrypt", "-in", enc, "-secretkey", key, "-out", out)
	sameContent(out)
	// EncryptedData has no integrity: a wrong key fails only when the CBC
	// padding it yields is invalid, which it is not about once in 256 tries.
	// Either way the content must not come back.
	wrong := path("out_wrong")
	if code, _, errOut := smtool("cms", "decrypt", "-in", enc, "-secretkey", "ffffffffffffffffffffffffffffffff", "-out", wrong); code == 0 {
		if got, _ := os.ReadFile(wrong); string(got) == content {
			t.Errorf("cms decrypt with a wrong -secretkey gave back the content")
		}
	} else if !strings.Contains(errOut, "content decryption failed") {
		t.Errorf("cms decrypt with a wrong -secretkey: stderr %q, want %q", errOut, "content decryption failed")
	}
	dig := path("dig")
	ok("cms", "sign", "-digest_create", "-in", in, "-out", dig)
	out = path("out_dig")
	ok("cms", "verify", "-in", dig, "-out", out)
	sameContent(out)

	fails("-signer FILE is required", "cms", "sign", "-in", in)
	fails("-recip FILE is required", "cms", "encrypt", "-in", in)
	fails("-md sha256", "cms", "sign", "-in", in, "-md", "sha256", "-signer", pki("server_sign.pem"), "-inkey", pki("server_sign.key"))
	fails("no CMS or PKCS7 PEM block", "cms", "show", pki("ca.pem"))
}
