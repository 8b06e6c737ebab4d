package pkcs7

import (
	"bytes"
	"io"
	"testing"
)

// zeros is an endless reader of zero bytes that allocates nothing.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestDetachedConstantMemory signs and verifies 8 MiB read from a stream
// and checks that neither allocates in proportion to it.
func TestDetachedConstantMemory(t *testing.T) {
	pki := newTestPKI(t)
	const size = 8 << 20
	const limit = 256 << 10
	for _, noAttrs := range []bool{false, true} {
		var der []byte
		var err error
		n := allocated(func() {
			der, err = SignDetached(io.LimitReader(zeros{}, size), []Signer{pki.signer.signer()}, &SignOptions{NoAttributes: noAttrs})
		})
		must(t, err)
		if n > limit {
			t.Errorf("noAttrs=%v: signing %d streamed bytes allocated %d bytes", noAttrs, size, n)
		}
		m, err := Parse(der)
		must(t, err)
		n = allocated(func() { err = m.Signed.VerifyDetached(io.LimitReader(zeros{}, size), pki.verifyOptions()) })
		must(t, err)
		if n > limit {
			t.Errorf("noAttrs=%v: verifying %d streamed bytes allocated %d bytes", noAttrs, size, n)
		}
		if err := m.Signed.VerifyDetached(io.LimitReader(zeros{}, size-1), pki.verifyOptions()); err == nil {
			t.Error("a shorter stream verified")
		}
		if err := m.Signed.VerifyDetached(bytes.NewReader(nil), pki.verifyOptions()); err == nil {
			t.Error("an empty stream verified")
		}
	}
}
