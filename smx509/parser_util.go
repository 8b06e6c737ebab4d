package smx509

import (
	"encoding/asn1"
	"strings"
	"time"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// This file holds the pieces that keep certificate parsing cheap in
// allocations, which is where most of its time goes: a certificate has a few
// dozen strings and object identifiers, and allocating each separately costs
// more than decoding them.

// derStrings hands out strings that are substrings of one conversion of a
// certificate's DER, so that all its names, SANs and URLs share a single
// allocation. The strings keep that conversion alive, which for an
// ordinary certificate (a few hundred bytes to a few KiB) is no more than
// its Raw field already holds. A larger certificate is large because of
// something other than its strings (a long extension, many names), so
// copying all of it to share a few strings would double what it holds:
// its strings are copied one by one instead (newDERStrings returns nil).
type derStrings struct {
	base []byte // the DER every string comes from
	s    string // string(base)
}

// maxSharedStrings is the largest DER whose strings are shared.
const maxSharedStrings = 4 << 10

func newDERStrings(der []byte) *derStrings {
	if len(der) > maxSharedStrings {
		return nil
	}
	return &derStrings{base: der, s: string(der)}
}

// str returns v, which must be a sub-slice of t.base for the saving to apply,
// as a string. Any other slice (or a nil t) gets a fresh copy, so callers
// cannot get a wrong string by passing the wrong slice.
func (t *derStrings) str(v []byte) string {
	if t == nil || len(v) == 0 {
		return string(v)
	}
	// A sub-slice of base ends where base's capacity ends, so the
	// difference in capacity is v's offset in base. The comparison guards
	// against slices of other arrays whose capacity happens to fit.
	off := cap(t.base) - cap(v)
	if off < 0 || off > len(t.s)-len(v) || t.s[off:off+len(v)] != string(v) {
		return string(v)
	}
	return t.s[off : off+len(v)]
}

// oidBuffer is the backing store of the object identifiers of one name or
// one extension list. Each identifier is a capacity-limited window of it, so
// appending to one never writes into its neighbour; if the buffer grows, the
// windows already handed out keep the old array.
type oidBuffer []int

// read decodes an OBJECT IDENTIFIER from s into the buffer. It accepts and
// rejects exactly what cryptobyte's ReadASN1ObjectIdentifier does (minimal
// base-128 components of at most 31 bits), which the tests check.
func (b *oidBuffer) read(s *cryptobyte.String) (asn1.ObjectIdentifier, bool) {
	var der cryptobyte.String
	if !s.ReadASN1(&der, cbasn1.OBJECT_IDENTIFIER) || len(der) == 0 {
		return nil, false
	}
	buf := *b
	start := len(buf)
	first := true
	for len(der) > 0 {
		v, ok := readBase128(&der)
		if !ok {
			*b = buf[:start]
			return nil, false
		}
		if first {
			first = false
			if v < 80 {
				buf = append(buf, v/40, v%40)
			} else {
				buf = append(buf, 2, v-80)
			}
			continue
		}
		buf = append(buf, v)
	}
	*b = buf
	return asn1.ObjectIdentifier(buf[start:len(buf):len(buf)]), true
}

// validDomain reports whether domainToReverseLabels accepts domain: not
// empty, no empty label, only printable ASCII other than space. It
// allocates nothing, for the parser's checks.
func validDomain(domain string) bool {
	if domain == "" || domain[0] == '.' || domain[len(domain)-1] == '.' || strings.Contains(domain, "..") {
		return false
	}
	for i := 0; i < len(domain); i++ {
		if c := domain[i]; c < 33 || c > 126 {
			return false
		}
	}
	return true
}

// skipOID reads an OBJECT IDENTIFIER from s without decoding it into a
// slice, and returns its number of components. It accepts exactly what
// oidBuffer.read accepts.
func skipOID(s *cryptobyte.String) (components int, ok bool) {
	var der cryptobyte.String
	if !s.ReadASN1(&der, cbasn1.OBJECT_IDENTIFIER) || len(der) == 0 {
		return 0, false
	}
	for len(der) > 0 {
		if _, ok := readBase128(&der); !ok {
			return 0, false
		}
		components++
	}
	// The first subidentifier encodes two components.
	return components + 1, true
}

// readBase128 reads one minimally encoded base-128 OID component that fits
// in 31 bits.
func readBase128(s *cryptobyte.String) (int, bool) {
	ret := 0
	for i := 0; len(*s) > 0; i++ {
		if i == 5 || ret >= 1<<(31-7) {
			return 0, false
		}
		c := (*s)[0]
		*s = (*s)[1:]
		if i == 0 && c == 0x80 {
			return 0, false
		}
		ret = ret<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return ret, true
		}
	}
	return 0, false
}

// oidContent returns the content octets of the DER encoding of oid. DER
// admits one encoding per identifier, so comparing these octets is the same
// as decoding and comparing the identifier, without the allocation.
func oidContent(oid asn1.ObjectIdentifier) []byte {
	var b cryptobyte.Builder
	b.AddASN1ObjectIdentifier(oid)
	der := cryptobyte.String(b.BytesOrPanic())
	var content cryptobyte.String
	if !der.ReadASN1(&content, cbasn1.OBJECT_IDENTIFIER) {
		panic("smx509: internal error: cannot encode " + oid.String())
	}
	return content
}

// readTime reads a UTCTime or GeneralizedTime. The forms DER requires,
// YYMMDDHHMMSSZ and YYYYMMDDHHMMSSZ, are decoded here; anything else goes to
// cryptobyte, which accepts and rejects the rest as crypto/x509 does.
func readTime(der *cryptobyte.String, out *time.Time) bool {
	probe := *der
	var v cryptobyte.String
	var tag cbasn1.Tag
	if !probe.ReadAnyASN1(&v, &tag) {
		return false
	}
	var t time.Time
	var ok bool
	switch tag {
	case cbasn1.UTCTime:
		if len(v) == 13 && v[12] == 'Z' {
			var yy int
			if yy, ok = digits2(v[0:2]); ok {
				// RFC 5280, 4.1.2.5.1: 50-99 are 1950-1999.
				if yy >= 50 {
					yy += 1900
				} else {
					yy += 2000
				}
				t, ok = canonicalTime(yy, v[2:12])
			}
		}
		if !ok {
			return der.ReadASN1UTCTime(out)
		}
	case cbasn1.GeneralizedTime:
		if len(v) == 15 && v[14] == 'Z' {
			hi, ok1 := digits2(v[0:2])
			lo, ok2 := digits2(v[2:4])
			if ok1 && ok2 {
				t, ok = canonicalTime(hi*100+lo, v[4:14])
			}
		}
		if !ok {
			return der.ReadASN1GeneralizedTime(out)
		}
	default:
		return false
	}
	*der = probe
	*out = t
	return true
}

// canonicalTime decodes MMDDHHMMSS of the given year, rejecting values out of
// range (which time.Parse would also reject).
func canonicalTime(year int, v []byte) (time.Time, bool) {
	var f [5]int
	for i := range f {
		d, ok := digits2(v[2*i : 2*i+2])
		if !ok {
			return time.Time{}, false
		}
		f[i] = d
	}
	month, day, hour, minute, sec := f[0], f[1], f[2], f[3], f[4]
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
}

func digits2(b []byte) (int, bool) {
	if b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
