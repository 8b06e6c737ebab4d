package sm2

import (
	"crypto/elliptic"
	"math/big"

	"github.com/shangmi-go/shangmi/primitives/sm2/internal/sm2ec"
)

// Curve parameters of sm2p256v1 (GB/T 32918.5-2017).
var (
	paramP, _  = new(big.Int).SetString("fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff", 16)
	paramN, _  = new(big.Int).SetString("fffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123", 16)
	paramB, _  = new(big.Int).SetString("28e9fa9e9d9f5e344d5a9e4bcf6509a7f39789f515ab8f92ddbcbd414d940e93", 16)
	paramGx, _ = new(big.Int).SetString("32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7", 16)
	paramGy, _ = new(big.Int).SetString("bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0", 16)
)

// sm2Curve implements elliptic.Curve on top of the package's own constant
// time point arithmetic rather than the generic, variable-time CurveParams
// methods.
type sm2Curve struct {
	params *elliptic.CurveParams
}

var curve = &sm2Curve{params: &elliptic.CurveParams{
	P: paramP, N: paramN, B: paramB, Gx: paramGx, Gy: paramGy,
	BitSize: 256, Name: "sm2p256v1",
}}

// P256 returns an elliptic.Curve for sm2p256v1, for the crypto/ecdsa bridge
// (PublicKey.ECDSA and the like) and elliptic.Marshal-style code; see "Key
// representation" in the package documentation. Its methods follow the
// elliptic.Curve conventions: (0, 0) stands for the point at infinity, and
// since the interface has no error returns an invalid input point yields
// (0, 0) rather than a panic. Prefer the package's typed API.
func P256() elliptic.Curve { return curve }

func (c *sm2Curve) Params() *elliptic.CurveParams { return c.params }

// pointFromAffine converts big.Int coordinates into a point; (0, 0) is the
// identity.
func pointFromAffine(x, y *big.Int) (*sm2ec.Point, bool) {
	if x.Sign() == 0 && y.Sign() == 0 {
		return sm2ec.NewPoint(), true
	}
	if x.Sign() < 0 || y.Sign() < 0 || x.BitLen() > 256 || y.BitLen() > 256 {
		return nil, false
	}
	var buf [65]byte
	buf[0] = 4
	x.FillBytes(buf[1:33])
	y.FillBytes(buf[33:])
	p, err := sm2ec.NewPoint().SetBytes(buf[:])
	return p, err == nil
}

func pointToAffine(p *sm2ec.Point) (x, y *big.Int) {
	b := p.Bytes()
	if len(b) != 65 {
		return new(big.Int), new(big.Int)
	}
	return new(big.Int).SetBytes(b[1:33]), new(big.Int).SetBytes(b[33:])
}

func (c *sm2Curve) IsOnCurve(x, y *big.Int) bool {
	if x.Sign() == 0 && y.Sign() == 0 {
		return false // the identity is not on the curve in affine terms
	}
	_, ok := pointFromAffine(x, y)
	return ok
}

func (c *sm2Curve) Add(x1, y1, x2, y2 *big.Int) (x, y *big.Int) {
	p1, ok1 := pointFromAffine(x1, y1)
	p2, ok2 := pointFromAffine(x2, y2)
	if !ok1 || !ok2 {
		return new(big.Int), new(big.Int)
	}
	return pointToAffine(p1.Add(p1, p2))
}

func (c *sm2Curve) Double(x1, y1 *big.Int) (x, y *big.Int) {
	p, ok := pointFromAffine(x1, y1)
	if !ok {
		return new(big.Int), new(big.Int)
	}
	return pointToAffine(p.Double(p))
}

// curveScalar reduces an arbitrary-length big-endian scalar modulo n into
// 32 bytes, as elliptic.Curve allows scalars of any length.
func curveScalar(k []byte) []byte {
	if len(k) == 32 {
		return k
	}
	s := new(big.Int).SetBytes(k)
	s.Mod(s, paramN)
	return s.FillBytes(make([]byte, 32))
}

func (c *sm2Curve) ScalarMult(x1, y1 *big.Int, k []byte) (x, y *big.Int) {
	p, ok := pointFromAffine(x1, y1)
	if !ok {
		return new(big.Int), new(big.Int)
	}
	q, _ := sm2ec.NewPoint().ScalarMult(p, curveScalar(k))
	return pointToAffine(q)
}

func (c *sm2Curve) ScalarBaseMult(k []byte) (x, y *big.Int) {
	// The caller's k may be a long-term key: blinded (see sm2ec).
	q, _ := sm2ec.NewPoint().ScalarBaseMultBlinded(curveScalar(k))
	return pointToAffine(q)
}
