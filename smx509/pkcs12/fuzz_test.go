// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pkcs12

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/internal/alloctest"
)

// allocationLimit bounds what parsing data may allocate: a constant for
// the key derivations and the MAC, and a multiple of the input for the
// certificates and keys it holds.
func allocationLimit(data []byte) uint64 { return 64<<10 + 48*uint64(len(data)) }

func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && (filepath.Ext(name) == ".p12" || filepath.Ext(name) == ".sm2") {
			f.Add(data)
		}
	}
	p := newTestPKI(f)
	pair := &TLCPPair{SignKey: p.signKey, SignCert: p.signCert, EncKey: p.encKey, EncCert: p.encCert}
	for _, e := range []Encoder{SM.WithIterations(1), Modern.WithIterations(1), {PlainCertificates: true, NoMAC: true, Iterations: 1}} {
		b, err := e.EncodeTLCP(pair, password)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParse parses anything with the seeds' password (so that mutations
// reach the bags), which must not panic nor allocate beyond the bound.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c *Contents
		var err error
		n := alloctest.Bytes(func() { c, err = Parse(data, password) })
		if limit := allocationLimit(data); n > limit {
			t.Fatalf("%d bytes allocated for a %d-byte input, over the limit of %d", n, len(data), limit)
		}
		if err != nil {
			return
		}
		if len(c.Keys)+len(c.Certificates) > maxBags {
			t.Fatalf("%d bags returned", len(c.Keys)+len(c.Certificates))
		}
		_, _, _, _ = DecodeChain(data, password)
		_, _ = DecodeTLCP(data, password)
	})
}
