package testvec

import "testing"

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
