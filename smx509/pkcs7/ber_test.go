package pkcs7

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/smx509"
)

// berOf rewrites a DER element in the BER a streaming Java writer uses:
// every constructed element with an indefinite length, and every OCTET
// STRING longer than chunk cut into a constructed string of chunks.
func berOf(t *testing.T, der []byte, chunk int) []byte {
	t.Helper()
	tag, length, hdr, _, err := berHeader(der)
	must(t, err)
	content := der[hdr : hdr+length]
	var out []byte
	switch {
	case tag == 0x04 && len(content) > chunk:
		out = append(out, 0x24, 0x80)
		for len(content) > 0 {
			n := min(chunk, len(content))
			out = append(out, 0x04, byte(n))
			out = append(out, content[:n]...)
			content = content[n:]
		}
		return append(out, 0, 0)
	case tag&0x20 != 0:
		out = append(out, tag, 0x80)
		for len(content) > 0 {
			_, l, h, _, err := berHeader(content)
			must(t, err)
			out = append(out, berOf(t, content[:h+l], chunk)...)
			content = content[h+l:]
		}
		return append(out, 0, 0)
	}
	return der
}

// TestBER parses messages rewritten as indefinite-length, chunked BER and
// checks that they verify and decrypt, and that the conversion gives back
// the DER.
func TestBER(t *testing.T) {
	pki := newTestPKI(t)
	content := bytes.Repeat([]byte("0123456789"), 50)
	signed, err := Sign(content, []Signer{pki.signer.signer()}, nil)
	must(t, err)
	enveloped, err := Encrypt(content, []Recipient{{Certificate: pki.encLeaf.cert}}, nil)
	must(t, err)
	for _, der := range [][]byte{signed, enveloped} {
		ber := berOf(t, der, 100)
		if bytes.Equal(ber, der) {
			t.Fatal("no BER made")
		}
		back, err := normalize(ber)
		must(t, err)
		if !bytes.Equal(back, der) {
			t.Fatal("BER did not convert back to the DER")
		}
		n := allocated(func() { normalize(ber) })
		if n > uint64(2*len(ber)) {
			t.Errorf("converting %d bytes of BER allocated %d", len(ber), n)
		}
		m, err := Parse(ber)
		must(t, err)
		switch m.Type {
		case SignedDataType:
			must(t, m.Signed.Verify(pki.verifyOptions()))
		case EnvelopedDataType:
			got, err := m.Enveloped.Decrypt(pki.encLeaf.cert, pki.encLeaf.key)
			must(t, err)
			if !bytes.Equal(got, content) {
				t.Error("wrong content")
			}
		}
	}
	for _, bad := range [][]byte{
		{0x30, 0x80},                   // no end-of-contents
		{0x30, 0x80, 0x04, 0x01, 0x00}, // no end-of-contents after an element
		{0x04, 0x80, 0x00, 0x00},       // indefinite primitive
		{0x30, 0x85, 1, 0, 0, 0, 0},    // 5 length bytes
		{0x30, 0x05, 0x04, 0x00},       // longer than the input
		{0x1f, 0x20, 0x00},             // high tag number
	} {
		if _, err := normalize(bad); err == nil {
			t.Errorf("%x accepted", bad)
		}
	}
	deep := bytes.Repeat([]byte{0x30, 0x80}, maxBERDepth+2)
	deep = append(deep, bytes.Repeat([]byte{0, 0}, maxBERDepth+2)...)
	if _, err := normalize(deep); err == nil {
		t.Error("nesting deeper than maxBERDepth accepted")
	}
}

// TestCRLsCarried checks that CRLs given to Sign come back parsed.
func TestCRLsCarried(t *testing.T) {
	pki := newTestPKI(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "openssl", "ca.crl"))
	must(t, err)
	crl, err := smx509.ParseRevocationList(pemBody(t, data))
	must(t, err)
	der, err := Sign([]byte("with a CRL"), []Signer{pki.signer.signer()}, &SignOptions{CRLs: []*smx509.RevocationList{crl}})
	must(t, err)
	m := parseOK(t, der)
	if len(m.Signed.CRLs) != 1 || !bytes.Equal(m.Signed.CRLs[0].Raw, crl.Raw) {
		t.Fatalf("%d CRLs", len(m.Signed.CRLs))
	}
	must(t, m.Signed.Verify(pki.verifyOptions()))
}
