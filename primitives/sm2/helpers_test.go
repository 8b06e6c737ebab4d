package sm2

import (
	"encoding/json"
	"github.com/shangmi-go/shangmi/internal/impl"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/internal/testvec"
)

func loadJSON[T any](name string) (*T, error) {
	dir, err := testvec.Dir()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	v := new(T)
	return v, json.Unmarshal(b, v)
}

type cryptobyteString cryptobyte.String

// readCiphertextParts splits a GM/T 0009 ciphertext without validating C1.
func (s cryptobyteString) readCiphertextParts() (x, y, h, c []byte, ok bool) {
	in := cryptobyte.String(s)
	var inner cryptobyte.String
	if !in.ReadASN1(&inner, asn1.SEQUENCE) {
		return
	}
	var xb, yb [32]byte
	ok1 := readCoordinate(&inner, &xb)
	ok2 := readCoordinate(&inner, &yb)
	var hh, cc cryptobyte.String
	if !ok1 || !ok2 || !inner.ReadASN1(&hh, asn1.OCTET_STRING) || !inner.ReadASN1(&cc, asn1.OCTET_STRING) {
		return
	}
	return xb[:], yb[:], hh, cc, true
}

// eachImpl runs f with the CPU's default choice of kernels, then once per
// implementation alone (the generic Go code and each field, point and
// lookup kernel this CPU has), so that every path is exercised.
func eachImpl(t *testing.T, f func(t *testing.T)) {
	t.Run("default", f)
	impl.ForEach("sm2", func(name string) { t.Run(name, f) })
}
