package pkcs7

import "errors"

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
//
// The rewriting takes two passes over the input: the first records the DER
// content length of every constructed element, in the order they start,
// the second writes. Its allocations are the output, at most the input's
// size plus four bytes per indefinite-length element, and one int per
// constructed element.
func normalize(in []byte) ([]byte, error) {
	n, der, constructed, err := scanBER(in, 0)
	if err != nil {
		return nil, err
	}
	if n != len(in) {
		return nil, errors.New("pkcs7: trailing data after the message")
	}
	if der {
		return in, nil
	}
	c := berConverter{lengths: make([]int, 0, constructed)}
	_, total := c.measure(in)
	c.out = make([]byte, 0, total)
	c.emit(in)
	return c.out, nil
}

// scanBER walks the element at the start of in and returns its encoded
// length, whether it (and everything in it) is already DER, and how many
// constructed elements it holds (itself included).
func scanBER(in []byte, depth int) (n int, der bool, constructed int, err error) {
	if depth > maxBERDepth {
		return 0, false, 0, errors.New("pkcs7: encoding nested too deeply")
	}
	tag, length, hdr, der, err := berHeader(in)
	if err != nil {
		return 0, false, 0, err
	}
	if isStringTag(tag) {
		der = false
	}
	if tag&0x20 == 0 {
		return hdr + length, der, 0, nil
	}
	constructed = 1
	off := hdr
	for {
		if length >= 0 && off == hdr+length {
			return off, der, constructed, nil
		}
		if length < 0 && len(in)-off >= 2 && in[off] == 0 && in[off+1] == 0 {
			return off + 2, false, constructed, nil
		}
		end := len(in)
		if length >= 0 {
			end = hdr + length
		}
		if off >= end {
			return 0, false, 0, errBER
		}
		n, d, c, err := scanBER(in[off:end], depth+1)
		if err != nil {
			return 0, false, 0, err
		}
		der = der && d
		constructed += c
		off += n
	}
}

// berConverter rewrites BER that scanBER has checked as DER.
type berConverter struct {
	lengths []int // DER content length of each constructed element, in pre-order
	next    int   // the next entry of lengths emit uses
	out     []byte
}

// derHeaderLen is the length of a DER header for content of length n.
func derHeaderLen(n int) int {
	if n < 0x80 {
		return 2
	}
	h := 2
	for ; n > 0; n >>= 8 {
		h++
	}
	return h
}

// children calls f for each element inside the constructed element at the
// start of in and returns in's encoded length.
func children(in []byte, f func(child []byte) int) int {
	_, length, hdr, _, _ := berHeader(in)
	off := hdr
	for {
		if length >= 0 && off == hdr+length {
			return off
		}
		if length < 0 && in[off] == 0 && in[off+1] == 0 {
			return off + 2
		}
		off += f(in[off:])
	}
}

// measure returns the encoded length of the element at the start of in and
// the length of its DER encoding, recording constructed elements' lengths.
func (c *berConverter) measure(in []byte) (n, der int) {
	tag, length, hdr, _, _ := berHeader(in)
	if tag&0x20 == 0 {
		return hdr + length, derHeaderLen(length) + length
	}
	slot := len(c.lengths)
	c.lengths = append(c.lengths, 0)
	content := 0
	if isStringTag(tag) {
		n = joined(in, func(chunk []byte) { content += len(chunk) })
	} else {
		n = children(in, func(child []byte) int {
			cn, cd := c.measure(child)
			content += cd
			return cn
		})
	}
	c.lengths[slot] = content
	return n, derHeaderLen(content) + content
}

// joined walks the chunks of the string element at the start of in,
// primitive or constructed (of chunks that may be constructed in turn),
// calls f with each primitive chunk's content, and returns in's encoded
// length.
func joined(in []byte, f func(chunk []byte)) int {
	tag, length, hdr, _, _ := berHeader(in)
	if tag&0x20 == 0 {
		f(in[hdr : hdr+length])
		return hdr + length
	}
	return children(in, func(child []byte) int { return joined(child, f) })
}

// emit writes the element at the start of in as DER and returns its
// encoded length.
func (c *berConverter) emit(in []byte) int {
	tag, length, hdr, _, _ := berHeader(in)
	if tag&0x20 == 0 {
		c.header(tag, length)
		c.out = append(c.out, in[hdr:hdr+length]...)
		return hdr + length
	}
	content := c.lengths[c.next]
	c.next++
	if isStringTag(tag) {
		c.header(tag&^0x20, content)
		return joined(in, func(chunk []byte) { c.out = append(c.out, chunk...) })
	}
	c.header(tag, content)
	return children(in, c.emit)
}

func (c *berConverter) header(tag byte, n int) {
	c.out = append(c.out, tag)
	if n < 0x80 {
		c.out = append(c.out, byte(n))
		return
	}
	l := derHeaderLen(n) - 2
	c.out = append(c.out, 0x80|byte(l))
	for i := l - 1; i >= 0; i-- {
		c.out = append(c.out, byte(n>>(8*i)))
	}
}
