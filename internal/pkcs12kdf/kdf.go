// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package pkcs12kdf is the key derivation of RFC 7292 appendix B, which
// PKCS #12 uses for its MAC key and for its own (pre-PBES2) password-based
// ciphers. x509 decrypts the legacy ciphers and smx509/pkcs12 computes the
// MAC; both derive through this one function.
package pkcs12kdf

import (
	"errors"
	"hash"
	"unicode/utf16"
	"unicode/utf8"
)

// Purposes of a derived value (RFC 7292 B.3, the diversifier ID).
const (
	KeyMaterial byte = 1
	IV          byte = 2
	MACKey      byte = 3
)

// BMPPassword encodes password as RFC 7292 B.1 asks: big-endian UTF-16
// with a terminating NUL. An empty password becomes just the NUL, as
// OpenSSL encodes "". Characters outside the BMP are refused, as BMPString
// cannot hold them.
func BMPPassword(password []byte) ([]byte, error) {
	if !utf8.Valid(password) {
		return nil, errors.New("pkcs12: the password is not valid UTF-8")
	}
	s := string(password)
	out := make([]byte, 0, 2*len(s)+2)
	for _, r := range s {
		if utf16.IsSurrogate(r) || r > 0xffff {
			return nil, errors.New("pkcs12: the password has a character outside the Basic Multilingual Plane")
		}
		out = append(out, byte(r>>8), byte(r))
	}
	return append(out, 0, 0), nil
}

// Derive returns size bytes derived from the BMP-encoded password and salt
// with the given hash (whose block size is v, output size u), iteration
// count and purpose.
func Derive(newHash func() hash.Hash, bmpPassword, salt []byte, iterations int, id byte, size int) []byte {
	h := newHash()
	u, v := h.Size(), h.BlockSize()

	// D is v copies of id; I is S || P, each repeated to a multiple of v.
	d := make([]byte, v)
	for i := range d {
		d[i] = id
	}
	fill := func(in []byte) []byte {
		if len(in) == 0 {
			return nil
		}
		n := v * ((len(in) + v - 1) / v)
		out := make([]byte, n)
		for i := range out {
			out[i] = in[i%len(in)]
		}
		return out
	}
	i := append(fill(salt), fill(bmpPassword)...)

	out := make([]byte, 0, size+u)
	b := make([]byte, v)
	var a []byte
	for len(out) < size {
		h.Reset()
		h.Write(d)
		h.Write(i)
		a = h.Sum(a[:0])
		for range iterations - 1 {
			h.Reset()
			h.Write(a)
			a = h.Sum(a[:0])
		}
		out = append(out, a...)
		if len(out) >= size {
			break
		}
		// B is A repeated to v bytes; each v-byte block of I becomes
		// (I_j + B + 1) mod 2^(8v).
		for k := range b {
			b[k] = a[k%u]
		}
		for j := 0; j < len(i); j += v {
			carry := 1
			for k := v - 1; k >= 0; k-- {
				x := int(i[j+k]) + int(b[k]) + carry
				i[j+k] = byte(x)
				carry = x >> 8
			}
		}
	}
	clear(i)
	return out[:size]
}
