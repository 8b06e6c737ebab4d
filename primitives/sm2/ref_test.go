package sm2

import (
	"bytes"
	"math/big"

	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// refCurve is a slow, obviously-correct SM2 on math/big for any short
// Weierstrass curve over a prime field. It checks the example-curve vectors
// of GB/T 32918 (whose a is not -3) and cross-checks the fast code.
type refCurve struct {
	p, a, b, n *big.Int
	g          *refPoint
}

// refPoint is an affine point; nil is the identity.
type refPoint struct{ x, y *big.Int }

func hexBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("bad hex " + s)
	}
	return v
}

func (c *refCurve) add(a, b *refPoint) *refPoint {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	p := c.p
	var l *big.Int
	if a.x.Cmp(b.x) == 0 {
		s := new(big.Int).Add(a.y, b.y)
		if s.Mod(s, p).Sign() == 0 {
			return nil
		}
		num := new(big.Int).Mul(a.x, a.x)
		num.Mul(num, big.NewInt(3)).Add(num, c.a)
		den := new(big.Int).Lsh(a.y, 1)
		l = num.Mul(num, den.ModInverse(den.Mod(den, p), p))
	} else {
		num := new(big.Int).Sub(b.y, a.y)
		den := new(big.Int).Sub(b.x, a.x)
		l = num.Mul(num, den.ModInverse(den.Mod(den, p), p))
	}
	l.Mod(l, p)
	x := new(big.Int).Mul(l, l)
	x.Sub(x, a.x).Sub(x, b.x).Mod(x, p)
	y := new(big.Int).Sub(a.x, x)
	y.Mul(y, l).Sub(y, a.y).Mod(y, p)
	return &refPoint{x, y}
}

func (c *refCurve) mul(q *refPoint, k *big.Int) *refPoint {
	var acc *refPoint
	for i := k.BitLen() - 1; i >= 0; i-- {
		acc = c.add(acc, acc)
		if k.Bit(i) == 1 {
			acc = c.add(acc, q)
		}
	}
	return acc
}

func (c *refCurve) onCurve(q *refPoint) bool {
	lhs := new(big.Int).Mul(q.y, q.y)
	rhs := new(big.Int).Mul(q.x, q.x)
	rhs.Add(rhs, c.a).Mul(rhs, q.x).Add(rhs, c.b)
	return lhs.Sub(lhs, rhs).Mod(lhs, c.p).Sign() == 0
}

func fe32(x *big.Int) []byte { return new(big.Int).Set(x).FillBytes(make([]byte, 32)) }

func (q *refPoint) bytes() []byte {
	if q == nil {
		return []byte{0}
	}
	return append(append([]byte{4}, fe32(q.x)...), fe32(q.y)...)
}

func refPointFrom(b []byte) *refPoint {
	if len(b) != 65 || b[0] != 4 {
		return nil
	}
	return &refPoint{new(big.Int).SetBytes(b[1:33]), new(big.Int).SetBytes(b[33:])}
}

func (c *refCurve) z(uid []byte, pub *refPoint) []byte {
	h := sm3.New()
	entl := len(uid) * 8
	h.Write([]byte{byte(entl >> 8), byte(entl)})
	h.Write(uid)
	for _, v := range []*big.Int{c.a, c.b, c.g.x, c.g.y, pub.x, pub.y} {
		h.Write(fe32(v))
	}
	return h.Sum(nil)
}

// sign returns (r, s) for digest e with nonce k, or nil values if k is
// unusable.
func (c *refCurve) sign(d, e, k *big.Int) (r, s *big.Int) {
	p1 := c.mul(c.g, k)
	r = new(big.Int).Add(e, p1.x)
	r.Mod(r, c.n)
	if r.Sign() == 0 || new(big.Int).Add(r, k).Cmp(c.n) == 0 {
		return nil, nil
	}
	inv := new(big.Int).Add(d, big.NewInt(1))
	inv.ModInverse(inv, c.n)
	s = new(big.Int).Mul(r, d)
	s.Sub(k, s).Mul(s, inv).Mod(s, c.n)
	return r, s
}

func (c *refCurve) verify(pub *refPoint, e, r, s *big.Int) bool {
	if r.Sign() <= 0 || s.Sign() <= 0 || r.Cmp(c.n) >= 0 || s.Cmp(c.n) >= 0 {
		return false
	}
	t := new(big.Int).Add(r, s)
	if t.Mod(t, c.n).Sign() == 0 {
		return false
	}
	q := c.add(c.mul(c.g, s), c.mul(pub, t))
	if q == nil {
		return false
	}
	v := new(big.Int).Add(e, q.x)
	return v.Mod(v, c.n).Cmp(r) == 0
}

// encrypt returns C1, C3, C2 for nonce k.
func (c *refCurve) encrypt(pub *refPoint, msg []byte, k *big.Int) (c1, c3, c2 []byte) {
	c1 = c.mul(c.g, k).bytes()
	s := c.mul(pub, k)
	x2, y2 := fe32(s.x), fe32(s.y)
	t := sm3.KDF(append(append([]byte{}, x2...), y2...), len(msg))
	c2 = make([]byte, len(msg))
	for i := range msg {
		c2[i] = msg[i] ^ t[i]
	}
	h := sm3.New()
	h.Write(x2)
	h.Write(msg)
	h.Write(y2)
	return c1, h.Sum(nil), c2
}

func (c *refCurve) decrypt(d *big.Int, c1, c3, c2 []byte) []byte {
	p := refPointFrom(c1)
	if p == nil || !c.onCurve(p) {
		return nil
	}
	s := c.mul(p, d)
	x2, y2 := fe32(s.x), fe32(s.y)
	t := sm3.KDF(append(append([]byte{}, x2...), y2...), len(c2))
	m := make([]byte, len(c2))
	for i := range c2 {
		m[i] = c2[i] ^ t[i]
	}
	h := sm3.New()
	h.Write(x2)
	h.Write(m)
	h.Write(y2)
	if !bytes.Equal(h.Sum(nil), c3) {
		return nil
	}
	return m
}

// keyExchange computes the shared point for the side with static key d and
// ephemeral key r (own ephemeral point own), against the peer's static key
// and ephemeral point.
func (c *refCurve) sharedPoint(d, r *big.Int, own, peerPub, peerR *refPoint) *refPoint {
	w := uint((c.n.BitLen()+1)/2 - 1)
	xbar := func(x *big.Int) *big.Int {
		m := new(big.Int).Lsh(big.NewInt(1), w)
		v := new(big.Int).Mod(x, m)
		return v.Add(v, m)
	}
	t := new(big.Int).Mul(xbar(own.x), r)
	t.Add(t, d).Mod(t, c.n)
	q := c.add(peerPub, c.mul(peerR, xbar(peerR.x)))
	return c.mul(q, t)
}

func refConfirm(prefix byte, v *refPoint, zA, zB []byte, rA, rB *refPoint) []byte {
	h := sm3.New()
	h.Write(fe32(v.x))
	h.Write(zA)
	h.Write(zB)
	h.Write(rA.bytes()[1:])
	h.Write(rB.bytes()[1:])
	inner := h.Sum(nil)
	h.Reset()
	h.Write([]byte{prefix})
	h.Write(fe32(v.y))
	h.Write(inner)
	return h.Sum(nil)
}
