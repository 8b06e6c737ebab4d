// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// These tests check the PRF and the CBC and ZUC record formats against the
// OpenSSL command line (TLS1-PRF with SM3, SM4-CBC, HMAC-SM3), an independent
// implementation. OpenSSL 3.0 has neither SM4-GCM nor ZUC; the GCM records are
// covered by the tlcp/INTEROP.md §10 values and the ZUC keystream by its own vectors.

func openssl(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	path, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not installed")
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openssl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// opensslHex decodes OpenSSL's "AA:BB:…" or "AABB…" hex output.
func opensslHex(t *testing.T, out []byte) []byte {
	t.Helper()
	s := strings.ReplaceAll(strings.TrimSpace(string(out)), ":", "")
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("openssl output %q: %v", out, err)
	}
	return b
}

func randBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPRFOpenSSL(t *testing.T) {
	for _, n := range []int{12, 48, 100} {
		secret, seed := randBytes(t, 48), randBytes(t, 64)
		const label = "key expansion"
		got := make([]byte, n)
		PRF(got, secret, label, seed)
		want := opensslHex(t, openssl(t, nil, "kdf", "-keylen", strconv.Itoa(n),
			"-kdfopt", "digest:SM3",
			"-kdfopt", "hexsecret:"+hex.EncodeToString(secret),
			"-kdfopt", "hexseed:"+hex.EncodeToString([]byte(label))+hex.EncodeToString(seed),
			"TLS1-PRF"))
		if !bytes.Equal(got, want) {
			t.Errorf("PRF(%d) = %x, openssl %x", n, got, want)
		}
	}
}

func opensslHMAC(t *testing.T, key, msg []byte) []byte {
	return opensslHex(t, openssl(t, msg, "mac", "-digest", "SM3", "-macopt", "hexkey:"+hex.EncodeToString(key), "HMAC"))
}

func TestCBCRecordOpenSSL(t *testing.T) {
	s := Lookup(ECDHE_SM4_CBC_SM3)
	k := randomKeys(t, s)
	wr, _ := s.NewRecordProtection(k)
	for seq, n := range []int{0, 13, 100} {
		pt := randBytes(t, n)
		frag, err := wr.Seal(nil, 22, pt, nil)
		if err != nil {
			t.Fatal(err)
		}
		body := openssl(t, frag[16:], "enc", "-d", "-sm4-cbc", "-nopad",
			"-K", hex.EncodeToString(k.Key), "-iv", hex.EncodeToString(frag[:16]))
		padLen := 15 - (n+32)%16
		if len(body) != n+32+padLen+1 {
			t.Fatalf("record %d: %d bytes after decryption", seq, len(body))
		}
		if !bytes.Equal(body[:n], pt) || !bytes.Equal(body[n+32:], padding(padLen)) {
			t.Fatalf("record %d: plaintext or padding differ", seq)
		}
		var hdr [13]byte
		putHeader(&hdr, seqNum(seq), 22, n)
		if want := opensslHMAC(t, k.MAC, append(hdr[:], pt...)); !bytes.Equal(body[n:n+32], want) {
			t.Errorf("record %d: MAC %x, openssl %x", seq, body[n:n+32], want)
		}
	}
}

func TestZUCRecordMACOpenSSL(t *testing.T) {
	s := Lookup(ECC_ZUC128_SM3)
	k := randomKeys(t, s)
	wr, _ := s.NewRecordProtection(k)
	for seq, n := range []int{0, 100} {
		frag, err := wr.Seal(nil, 23, randBytes(t, n), nil)
		if err != nil {
			t.Fatal(err)
		}
		var hdr [13]byte
		putHeader(&hdr, seqNum(seq), 23, n)
		if want := opensslHMAC(t, k.MAC, append(hdr[:], frag[:n]...)); !bytes.Equal(frag[n:], want) {
			t.Errorf("record %d: MAC %x, openssl %x", seq, frag[n:], want)
		}
	}
}
