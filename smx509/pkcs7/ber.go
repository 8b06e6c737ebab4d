package pkcs7

import (
	"errors"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Java writers (BouncyCastle, CFCA's SDK) stream their messages and write
// BER: indefinite lengths closed by end-of-contents octets, OCTET STRINGs
// cut into constructed chunks, and lengths in more bytes than needed. The
// parsers of this package read DER only, so normalize rewrites such input
// as DER once, before parsing. It allocates at most one buffer a little
// larger than its input, and only when the input is not DER already.

// maxBERDepth bounds the nesting the conversion follows. CMS messages nest
// about a dozen levels deep (a certificate inside a SignedData); the bound
// keeps a hostile input from driving the recursion arbitrarily deep.
const maxBERDepth = 64

var errBER = errors.New("pkcs7: malformed BER/DER encoding")

// berHeader reads the identifier and length octets at the start of in. It
// returns the tag byte, the content length (-1 for indefinite), the header
// length and whether the header is in DER form.
func berHeader(in []byte) (tag byte, length, hdr int, der bool, err error) {
	if len(in) < 2 {
		return 0, 0, 0, false, errBER
	}
	tag = in[0]
	if tag&0x1f == 0x1f {
		// High tag numbers appear nowhere in CMS, X.509 or the SM formats.
		return 0, 0, 0, false, errors.New("pkcs7: high-tag-number form is not supported")
	}
	l := in[1]
	switch {
	case l < 0x80:
		if int(l) > len(in)-2 {
			return 0, 0, 0, false, errBER
		}
		return tag, int(l), 2, true, nil
	case l == 0x80:
		if tag&0x20 == 0 {
			return 0, 0, 0, false, errBER // indefinite length needs constructed form
		}
		return tag, -1, 2, false, nil
	case l > 0x84:
		return 0, 0, 0, false, errBER
	}
	n := int(l & 0x7f)
	if len(in) < 2+n {
		return 0, 0, 0, false, errBER
	}
	length = 0
	for _, b := range in[2 : 2+n] {
		length = length<<8 | int(b)
	}
	if length < 0 || length > len(in)-2-n {
		return 0, 0, 0, false, errBER
	}
	// DER: no leading zero octet, and the long form only from 128 on.
	der = in[2] != 0 && length >= 0x80
	return tag, length, 2 + n, der, nil
}

// isStringTag reports whether tag is a constructed universal string type
// whose chunks DER joins into one primitive string.
func isStringTag(tag byte) bool {
	if tag&0xe0 != 0x20 { // universal and constructed
		return false
	}
	switch tag & 0x1f {
	case 4, 12, 19, 20, 22, 26, 30: // OCTET STRING and the character strings
		return true
	}
	return false
}

// normalize returns in unchanged if it is one DER element (in the sense
// above: definite minimal lengths, primitive strings), and otherwise a DER
// rewriting of it. Trailing bytes after the element are an error.
func normalize(in []byte) ([]byte, error) {
	n, der, err := scanBER(in, 0)
	if err != nil {
		return nil, err
	}
	if n != len(in) {
		return nil, errors.New("pkcs7: trailing data after the message")
	}
	if der {
		return in, nil
	}
	b := cryptobyte.NewBuilder(make([]byte, 0, len(in)+len(in)/8+16))
	if _, err := convertBER(b, in, 0); err != nil {
		return nil, err
	}
	return b.Bytes()
}

// scanBER walks the element at the start of in and returns its encoded
// length and whether it (and everything in it) is already DER.
func scanBER(in []byte, depth int) (int, bool, error) {
	if depth > maxBERDepth {
		return 0, false, errors.New("pkcs7: encoding nested too deeply")
	}
	tag, length, hdr, der, err := berHeader(in)
	if err != nil {
		return 0, false, err
	}
	if isStringTag(tag) {
		der = false
	}
	if length >= 0 {
		if tag&0x20 != 0 {
			for content := in[hdr : hdr+length]; len(content) > 0; {
				n, d, err := scanBER(content, depth+1)
				if err != nil {
					return 0, false, err
				}
				der = der && d
				content = content[n:]
			}
		}
		return hdr + length, der, nil
	}
	off := hdr
	for {
		if len(in)-off >= 2 && in[off] == 0 && in[off+1] == 0 {
			return off + 2, false, nil
		}
		if off >= len(in) {
			return 0, false, errBER
		}
		n, _, err := scanBER(in[off:], depth+1)
		if err != nil {
			return 0, false, err
		}
		off += n
	}
}

// convertBER writes the element at the start of in, already checked by
// scanBER, to b as DER and returns its encoded length.
func convertBER(b *cryptobyte.Builder, in []byte, depth int) (int, error) {
	tag, length, hdr, _, err := berHeader(in)
	if err != nil {
		return 0, err
	}
	total := hdr + length
	if isStringTag(tag) {
		var n int
		b.AddASN1(cbasn1.Tag(tag&^0x20), func(b *cryptobyte.Builder) {
			n, err = joinChunks(b, in, depth)
		})
		return n, err
	}
	if tag&0x20 == 0 {
		b.AddASN1(cbasn1.Tag(tag), func(b *cryptobyte.Builder) { b.AddBytes(in[hdr:total]) })
		return total, nil
	}
	off := hdr
	b.AddASN1(cbasn1.Tag(tag), func(b *cryptobyte.Builder) {
		for err == nil {
			if length >= 0 && off == total {
				return
			}
			if length < 0 && in[off] == 0 && in[off+1] == 0 {
				off += 2
				return
			}
			var n int
			n, err = convertBER(b, in[off:], depth+1)
			off += n
		}
	})
	return off, err
}

// joinChunks writes the contents of the string element at the start of in,
// primitive or constructed from chunks (themselves possibly constructed),
// and returns the element's encoded length.
func joinChunks(b *cryptobyte.Builder, in []byte, depth int) (int, error) {
	tag, length, hdr, _, err := berHeader(in)
	if err != nil {
		return 0, err
	}
	if tag&0x20 == 0 {
		b.AddBytes(in[hdr : hdr+length])
		return hdr + length, nil
	}
	off := hdr
	for {
		if length >= 0 && off == hdr+length {
			return off, nil
		}
		if length < 0 && in[off] == 0 && in[off+1] == 0 {
			return off + 2, nil
		}
		n, err := joinChunks(b, in[off:], depth+1)
		if err != nil {
			return 0, err
		}
		off += n
	}
}
