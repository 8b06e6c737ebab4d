package testvec

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLoad(t *testing.T) {
	type v struct {
		ID     string `json:"id"`
		Digest Hex    `json:"digest_hex"`
	}
	vs, err := Load[v]("sm3.json")
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].ID == "" || len(vs[0].Digest) != 32 {
		t.Fatalf("first vector looks wrong: %+v", vs[0])
	}
}

// TestDirInModule pins where the vectors are read from: inside the module,
// so that a clone or a module-cache copy tests itself with nothing beside it.
func TestDirInModule(t *testing.T) {
	t.Setenv("SHANGMI_TESTVECTORS", "")
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "testdata", "vectors"); dir != want {
		t.Fatalf("Dir() = %s, want %s", dir, want)
	}
}

// TestSameAsShared compares the module's copy of the vectors with the
// project's own collection (the testvectors folder of the "shared" directory
// that a development checkout has beside the module root), so that the two
// cannot drift apart unnoticed. A clone from the forge has no such
// directory, and the test skips.
func TestSameAsShared(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(filepath.Dir(root), "shared", "testvectors")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared vector collection at %s", shared)
	}
	ours := filepath.Join(root, "testdata", "vectors")
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if !e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out
	}
	a, b := names(ours), names(shared)
	if !slices.Equal(a, b) {
		t.Fatalf("testdata/vectors holds %v, %s holds %v: copy the collection into the module", a, shared, b)
	}
	for _, name := range a {
		x, err := os.ReadFile(filepath.Join(ours, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(shared, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("testdata/vectors/%s differs from %s: copy it into the module", name, filepath.Join(shared, name))
		}
	}
}
