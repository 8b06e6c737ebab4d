// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ocsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
)

// seedFiles adds every testdata file whose name ends with suffix.
func seedFiles(f *testing.F, suffix string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"+suffix))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
}

// fuzzAllocBound is what parsing an input of n bytes may allocate: linear
// in n, with room for the parsed certificates.
func fuzzAllocBound(n int) uint64 { return uint64(32*n + 16384) }

func FuzzParseResponse(f *testing.F) {
	p := pkiFor(f, "sm2")
	f.Add(mustCreate(f, p.ca, p.responder, goodTemplate(p), p.responderKey))
	f.Add(ErrorResponse(Unauthorized))
	seedFiles(f, ".resp.der")
	f.Fuzz(func(t *testing.T, der []byte) {
		r, err := ParseResponse(der, nil)
		if err == nil {
			// Whatever parses must be checkable without panicking.
			_ = r.CheckSignatureFrom(p.ca)
			_, _ = Verify(der, p.leaf, p.ca, VerifyOptions{CurrentTime: testTime, Nonce: []byte{1}})
		}
		if got := alloctest.Bytes(func() { _, _ = ParseResponse(der, nil) }); got > fuzzAllocBound(len(der)) {
			t.Fatalf("parsing %d bytes allocated %d", len(der), got)
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	p := pkiFor(f, "sm2")
	for _, h := range []Hash{SHA1, SHA256, SM3} {
		der, err := CreateRequest(p.leaf, p.ca, &RequestOptions{Hash: h, Nonce: []byte("n")})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(der)
	}
	seedFiles(f, ".req.der")
	f.Fuzz(func(t *testing.T, der []byte) {
		if r, err := ParseRequest(der); err == nil {
			_ = r.IsFor(p.ca, p.leaf.SerialNumber)
			_ = r.HashName()
			if _, err := r.Marshal(); err != nil && r.HashAlgorithm != 0 {
				t.Fatalf("a parsed request does not marshal: %v", err)
			}
		}
		if got := alloctest.Bytes(func() { _, _ = ParseRequest(der) }); got > fuzzAllocBound(len(der)) {
			t.Fatalf("parsing %d bytes allocated %d", len(der), got)
		}
	})
}
