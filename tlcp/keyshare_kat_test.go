// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/mlkem"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
)

// TestHybridKAT checks the hybrid against Tongsuo's, recorded in
// testdata/tls13/hybrid/kat.json by kat.py there: the client's share from
// a known SM2 scalar and ML-KEM seed, the 64-byte secret from Tongsuo's
// server share (its libcrypto encapsulated to that client share), and the
// handshake secrets of that secret, as kat.py's HKDF-SM3 and Tongsuo's
// kdf command derive them.
func TestHybridKAT(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "tls13", "hybrid", "kat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]string
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	x := func(field string) []byte {
		b, err := hex.DecodeString(v[field])
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v", field, err)
		}
		return b
	}
	priv, err := sm2.NewPrivateKey(x("client_sm2_private_hex"))
	if err != nil {
		t.Fatal(err)
	}
	dk, err := mlkem.NewDecapsulationKey768(x("client_mlkem768_seed_hex"))
	if err != nil {
		t.Fatal(err)
	}
	k := &clientKeyShare{group: CurveSM2MLKEM768, ecdh: priv, kem: dk}
	if ks := k.keyShare(); ks.group != 0x11EE || !bytes.Equal(ks.data, x("client_share_hex")) {
		t.Fatal("the client share is not the recorded one (SM2 point, then the encapsulation key)")
	}
	secret, err := k.sharedSecret(x("server_share_hex"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(secret, x("shared_secret_hex")) {
		t.Fatalf("shared secret\n got %x\nwant %x", secret, x("shared_secret_hex"))
	}
	hs := ciphersuite.NewTLS13EarlySecret(nil).HandshakeSecret(secret)
	th := x("hello_hash_hex")
	if got := hs.ClientHandshakeTrafficSecret(th); !bytes.Equal(got, x("client_handshake_traffic_secret_hex")) {
		t.Errorf("client_handshake_traffic_secret %x", got)
	}
	if got := hs.ServerHandshakeTrafficSecret(th); !bytes.Equal(got, x("server_handshake_traffic_secret_hex")) {
		t.Errorf("server_handshake_traffic_secret %x", got)
	}
}
