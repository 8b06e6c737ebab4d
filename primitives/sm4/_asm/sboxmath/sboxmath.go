// Package sboxmath derives, from the SM4 S-box table alone, the constants
// that let x86 GFNI, AES-NI and the arm64 AES instructions compute it.
package sboxmath

import "math/bits"

// SM4's S-box is affine-equivalent to inversion in GF(2⁸): S(x) =
// A·inv(A·x ⊕ c) ⊕ c with a circulant matrix A, inversion modulo
// x⁸+x⁷+x⁶+x⁵+x⁴+x²+1 and c = 0xd3. Inversion in that field and in the AES
// field (modulo x⁸+x⁴+x³+x+1) are conjugate under a field isomorphism φ, so
// S(x) = A2·invAES(A1·x ⊕ c1) ⊕ c2 with A1 = φ·A, c1 = φ(c), A2 = A·φ⁻¹ and
// c2 = c. findSM4Affine searches the circulant A and c; the isomorphism is
// found from a root of the SM4 field polynomial in the AES field.

// sm4SBox is the S-box of GB/T 32907-2016.
var sm4SBox = [256]byte{
	0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05,
	0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99,
	0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62,
	0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6,
	0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8,
	0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35,
	0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87,
	0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e,
	0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
	0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3,
	0x1d, 0xf6, 0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f,
	0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51,
	0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8,
	0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0,
	0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
	0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,
}

const (
	polySM4 = 0x1f5 // x⁸+x⁷+x⁶+x⁵+x⁴+x²+1
	polyAES = 0x11b // x⁸+x⁴+x³+x+1
)

func gfMul(a, b byte, poly uint) byte {
	var p uint
	x, y := uint(a), uint(b)
	for y != 0 {
		if y&1 != 0 {
			p ^= x
		}
		y >>= 1
		x <<= 1
		if x&0x100 != 0 {
			x ^= poly
		}
	}
	return byte(p)
}

// gfInv returns the inverse of a modulo poly, and 0 for 0.
func gfInv(a byte, poly uint) byte {
	// a^254 = a⁻¹ in GF(2⁸).
	r := byte(1)
	for range 254 {
		r = gfMul(r, a, poly)
	}
	return r
}

// matrix is a linear map on bytes over GF(2): row i is the mask of input bits
// whose parity gives output bit i.
type matrix [8]byte

func (m matrix) apply(x byte) byte {
	var y byte
	for i, row := range m {
		y |= byte(bits.OnesCount8(row&x)&1) << i
	}
	return y
}

// matrixOf returns the matrix of a linear map given as a function.
func matrixOf(f func(byte) byte) matrix {
	var m matrix
	for j := range 8 {
		col := f(1 << j)
		for i := range 8 {
			m[i] |= (col >> i & 1) << j
		}
	}
	return m
}

func (m matrix) mul(n matrix) matrix {
	return matrixOf(func(x byte) byte { return m.apply(n.apply(x)) })
}

func (m matrix) inverse() matrix {
	var inv [256]byte
	seen := 0
	for x := range 256 {
		y := m.apply(byte(x))
		if inv[y] == 0 && y != 0 {
			seen++
		}
		inv[y] = byte(x)
	}
	if seen != 255 {
		panic("singular matrix")
	}
	return matrixOf(func(y byte) byte { return inv[y] })
}

// gfni returns m in the operand layout of VGF2P8AFFINEQB: the row that
// gives output bit i is byte 7−i of the quadword.
func (m matrix) gfni() uint64 {
	var q uint64
	for i, row := range m {
		q |= uint64(row) << (8 * (7 - i))
	}
	return q
}

// circulant returns the matrix whose row i is row0 rotated left by i.
func circulant(row0 byte) matrix {
	var m matrix
	for i := range m {
		m[i] = bits.RotateLeft8(row0, i)
	}
	return m
}

// sboxAffine holds S(x) = A2·invAES(A1·x ⊕ C1) ⊕ C2.
type sboxAffine struct {
	A1, A2 matrix
	C1, C2 byte
}

func derive() sboxAffine {
	// The SM4 field description: A circulant, S(x) = A·invSM4(A·x ⊕ c) ⊕ c.
	var a matrix
	var c byte
	found := false
search:
	for row := 1; row < 256; row++ {
		m := circulant(byte(row))
		for cc := range 256 {
			ok := true
			for x := range 256 {
				y := m.apply(byte(x)) ^ byte(cc)
				if m.apply(gfInv(y, polySM4))^byte(cc) != sm4SBox[x] {
					ok = false
					break
				}
			}
			if ok {
				a, c, found = m, byte(cc), true
				break search
			}
		}
	}
	if !found {
		panic("no circulant affine description of the S-box")
	}
	// φ maps α (the class of x in the SM4 field) to a root β of the SM4
	// polynomial in the AES field; as a linear map it sends αⁱ to βⁱ.
	for beta := 2; beta < 256; beta++ {
		// Evaluate polySM4 at beta in the AES field.
		var v, p byte = 0, 1
		for i := range 9 {
			if polySM4>>i&1 != 0 {
				v ^= p
			}
			p = gfMul(p, byte(beta), polyAES)
		}
		if v != 0 {
			continue
		}
		phi := matrixOf(func(x byte) byte {
			var r, p byte = 0, 1
			for i := range 8 {
				if x>>i&1 != 0 {
					r ^= p
				}
				p = gfMul(p, byte(beta), polyAES)
			}
			return r
		})
		s := sboxAffine{A1: phi.mul(a), C1: phi.apply(c), A2: a.mul(phi.inverse()), C2: c}
		if s.check() {
			return s
		}
	}
	panic("no isomorphism found")
}

func (s sboxAffine) check() bool {
	for x := range 256 {
		if s.A2.apply(gfInv(s.A1.apply(byte(x))^s.C1, polyAES))^s.C2 != sm4SBox[x] {
			return false
		}
	}
	return true
}

// The AES S-box is SubBytes(x) = Aaes·invAES(x) ⊕ 0x63 with Aaes the
// circulant matrix of 0xf1 (FIPS 197, 5.1.1).
var aesAffine = circulant(0xf1)

const aesConst = 0x63

// AESSBox returns the AES S-box value of x, computed from its definition.
func AESSBox(x byte) byte { return aesAffine.apply(gfInv(x, polyAES)) ^ aesConst }

// Nibble tables evaluate an affine map M·x ⊕ c on bytes as
// lo[x & 15] ⊕ hi[x >> 4], which VPSHUFB and TBL do 16 or more bytes at a
// time.
type Nibble struct{ Lo, Hi [16]byte }

func nibbleTables(m matrix, c byte) Nibble {
	var t Nibble
	for n := range 16 {
		t.Lo[n] = m.apply(byte(n)) ^ c
		t.Hi[n] = m.apply(byte(n << 4))
	}
	return t
}

// Constants is everything the kernels need, derived once.
type Constants struct {
	// S(x) = A2·invAES(A1·x ⊕ C1) ⊕ C2, as VGF2P8AFFINEQB operands.
	A1, A2 uint64
	C1, C2 byte
	// A1Inv maps the A1 domain back (the latency kernel's output).
	A1Inv uint64

	// The AES-instruction S-box: S(x) = Post(SubBytesAES(Pre(x))).
	Pre, Post Nibble

	// The latency kernel keeps the state words in the A1 domain,
	// y = A1·x per byte, and computes A1·L(S(t)) from w = invAES(u),
	// u = A1·t ⊕ C1, as E0·w ⊕ R8(E1·w) ⊕ R16(E1·w) ⊕ R24(E2·w) ⊕ K0 with
	// Rk the rotation of 32-bit words left by k bits. See Latency.
	E0, E1, E2 uint64
	K0         uint32

	// The same for the AES instructions: with v = SubBytesAES(u) =
	// Aaes·w ⊕ 0x63, E_j·w = LatAES[j] applied to v (nibble tables, the
	// constant folded into Lo). MapIn and MapOut are A1 and A1⁻¹ without
	// constants, as nibble tables.
	LatAES        [3]Nibble
	MapIn, MapOut Nibble
}

// shl2 and shr6 shift each byte: rotating a 32-bit word left by 2 moves
// the low six bits of every byte up by two and the top two into the next
// byte, so R2(z) = Shl2(z) ⊕ R8(Shr6(z)) byte-wise.
var (
	shl2 = matrixOf(func(x byte) byte { return x << 2 })
	shr6 = matrixOf(func(x byte) byte { return x >> 6 })
)

func linear(b uint32) uint32 {
	return b ^ bits.RotateLeft32(b, 2) ^ bits.RotateLeft32(b, 10) ^
		bits.RotateLeft32(b, 18) ^ bits.RotateLeft32(b, 24)
}

func applyWord(m matrix, w uint32) uint32 {
	var r uint32
	for i := range 4 {
		r |= uint32(m.apply(byte(w>>(8*i)))) << (8 * i)
	}
	return r
}

// Derive computes the constants and checks every one of them against the
// S-box table exhaustively; it panics if any check fails.
func Derive() Constants {
	s := derive()
	var k Constants
	k.A1, k.A2, k.C1, k.C2 = s.A1.gfni(), s.A2.gfni(), s.C1, s.C2
	k.A1Inv = s.A1.inverse().gfni()

	// SubBytesAES(y) = Aaes·inv(y) ⊕ 0x63, so inv(y) = Aaes⁻¹·(SB(y) ⊕ 0x63)
	// and S(x) = B·SB(y) ⊕ (B·0x63 ⊕ C2) with B = A2·Aaes⁻¹.
	b := s.A2.mul(aesAffine.inverse())
	k.Pre = nibbleTables(s.A1, s.C1)
	k.Post = nibbleTables(b, b.apply(aesConst)^s.C2)
	for x := range 256 {
		y := k.Pre.Lo[x&15] ^ k.Pre.Hi[x>>4]
		z := AESSBox(y)
		if k.Post.Lo[z&15]^k.Post.Hi[z>>4] != sm4SBox[x] {
			panic("nibble tables do not give the S-box")
		}
	}

	// A1·L(A2·w) = P·w ⊕ R24(P·w) ⊕ (I ⊕ R8 ⊕ R16)(Q·w ⊕ R8(S·w)) with
	// P = A1·A2, Q = A1·Shl2·A2, S = A1·Shr6·A2; grouping the terms by
	// rotation gives (P⊕Q)·w ⊕ R8((Q⊕S)·w) ⊕ R16((Q⊕S)·w) ⊕ R24((P⊕S)·w).
	p := s.A1.mul(s.A2)
	q := s.A1.mul(shl2).mul(s.A2)
	r := s.A1.mul(shr6).mul(s.A2)
	xor := func(a, b matrix) (m matrix) {
		for i := range m {
			m[i] = a[i] ^ b[i]
		}
		return m
	}
	e0, e1, e2 := xor(p, q), xor(q, r), xor(p, r)
	k.E0, k.E1, k.E2 = e0.gfni(), e1.gfni(), e2.gfni()
	aesInv := aesAffine.inverse()
	for j, e := range []matrix{e0, e1, e2} {
		m := e.mul(aesInv)
		k.LatAES[j] = nibbleTables(m, m.apply(aesConst))
		for u := range 256 {
			v := AESSBox(byte(u))
			if k.LatAES[j].Lo[v&15]^k.LatAES[j].Hi[v>>4] != e.apply(gfInv(byte(u), polyAES)) {
				panic("AES latency tables do not match")
			}
		}
	}
	k.MapIn = nibbleTables(s.A1, 0)
	k.MapOut = nibbleTables(s.A1.inverse(), 0)
	k.K0 = applyWord(s.A1, linear(uint32(s.C2)*0x01010101))
	// Check the formula on every byte value in every position.
	for x := range 256 {
		for pos := range 4 {
			t := uint32(x) << (8 * pos)
			var sw uint32
			for i := range 4 {
				sw |= uint32(sm4SBox[byte(t>>(8*i))]) << (8 * i)
			}
			want := applyWord(s.A1, linear(sw))
			u := applyWord(s.A1, t) ^ uint32(s.C1)*0x01010101
			var w uint32
			for i := range 4 {
				w |= uint32(gfInv(byte(u>>(8*i)), polyAES)) << (8 * i)
			}
			e1w := applyWord(e1, w)
			got := applyWord(e0, w) ^ bits.RotateLeft32(e1w, 8) ^ bits.RotateLeft32(e1w, 16) ^
				bits.RotateLeft32(applyWord(e2, w), 24) ^ k.K0
			if got != want {
				panic("latency-domain round does not match")
			}
		}
	}
	return k
}
