// Package testvec loads the project's known-answer vectors, which live in the
// module under testdata/vectors (see the README there for the schema and
// where each vector comes from).
package testvec

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Dir returns the directory holding the vector files: testdata/vectors at
// the root of the main module. It walks up from the working directory (a
// package directory under go test, also inside a read-only module cache) to
// the directory whose go.mod declares the main module; nested modules such as
// examples/bench have go.mod files of their own and are passed over.
// SHANGMI_TESTVECTORS overrides the search.
func Dir() (string, error) {
	if d := os.Getenv("SHANGMI_TESTVECTORS"); d != "" {
		return d, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	v := filepath.Join(root, "testdata", "vectors")
	if _, err := os.Stat(v); err != nil {
		return "", fmt.Errorf("testvec: vectors not found at %s: %w", v, err)
	}
	return v, nil
}

// ModuleRoot returns the root directory of the main module, found by
// walking up from the working directory.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if isModuleRoot(d) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("testvec: no github.com/shangmi-go/shangmi go.mod above %s", wd)
		}
	}
}

// isModuleRoot reports whether d holds the main module's go.mod (nested
// modules such as examples/bench have their own go.mod and are skipped).
func isModuleRoot(d string) bool {
	b, err := os.ReadFile(filepath.Join(d, "go.mod"))
	if err != nil {
		return false
	}
	const want = "module github.com/shangmi-go/shangmi\n"
	return len(b) >= len(want) && string(b[:len(want)]) == want
}

// File is the common shape of every vector file; Vectors is decoded by the
// caller into its own struct type.
type File[V any] struct {
	Algorithm string `json:"algorithm"`
	Vectors   []V    `json:"vectors"`
}

// Load reads name (for example "sm3.json") into a File of V.
func Load[V any](name string) ([]V, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	var f File[V]
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("testvec: %s: %w", name, err)
	}
	if len(f.Vectors) == 0 {
		return nil, fmt.Errorf("testvec: %s has no vectors", name)
	}
	return f.Vectors, nil
}

// Hex is a byte string that decodes from a JSON hex string.
type Hex []byte

func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(s)
	if err != nil {
		return err
	}
	*h = v
	return nil
}
