// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// The TLS 1.3 record batches through a Conn, for both suites: SM4-CCM's
// records are opened in the lanes of sm4.CCMOpenMulti, SM4-GCM's one by
// one, and both must behave alike.

// receiver13 is receiver for a TLS 1.3 suite: a Conn reading from a
// recordedConn, and the protection that seals what it reads.
func receiver13(t testing.TB, suite uint16) (*Conn, *recordedConn, ciphersuite.BatchProtection) {
	t.Helper()
	s := ciphersuite.LookupTLS13(suite)
	secret := make([]byte, ciphersuite.TLS13SecretLen)
	rp, err := s.NewRecordProtection(secret)
	if err != nil {
		t.Fatal(err)
	}
	wr, _ := s.NewRecordProtection(secret)
	rc := &recordedConn{}
	c := Client(rc, &Config{})
	c.in.rp = rp
	c.vers = VersionTLS13
	c.isHandshakeComplete.Store(true)
	return c, rc, wr.(ciphersuite.BatchProtection)
}

// sealWire13 is sealWire for TLS 1.3 records (outer header 23 03 03).
func sealWire13(t testing.TB, wr ciphersuite.BatchProtection, lens []int) (wire []byte, starts []int) {
	t.Helper()
	pos := 0
	for _, n := range lens {
		pt := make([]byte, n)
		fillStream(pt, pos)
		pos += n
		start := len(wire)
		starts = append(starts, start)
		wire = append(wire, 23, 3, 3, 0, 0)
		var err error
		if wire, err = wr.Seal(wire, 23, pt, nil); err != nil {
			t.Fatal(err)
		}
		l := len(wire) - start - recordHeaderLen
		wire[start+3], wire[start+4] = byte(l>>8), byte(l)
	}
	return wire, starts
}

// TestTLS13BatchCorruptedRecord: ten records arrive at once and one is
// corrupted: the reader gets exactly the data before it, in place or
// opened into its buffer, then bad_record_mac, final.
func TestTLS13BatchCorruptedRecord(t *testing.T) {
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		for _, size := range []int{1000, maxPlaintext, 10 * maxPlaintext, 1 << 20} {
			for _, bad := range []int{0, 5, 9} {
				t.Run(fmt.Sprintf("%s/read%d/bad%d", ciphersuite.Name(id), size, bad), func(t *testing.T) {
					c, rc, wr := receiver13(t, id)
					lens := slices.Repeat([]int{maxPlaintext}, 10)
					lens[3] = 100
					wire, starts := sealWire13(t, wr, lens)
					wire[starts[bad]+recordHeaderLen+40] ^= 0x08
					rc.chunks = [][]byte{wire}
					got, err := readAll(t, c, size)
					want := 0
					for _, n := range lens[:bad] {
						want += n
					}
					if got != want {
						t.Fatalf("read %d bytes before the error, want %d", got, want)
					}
					wantAlert(t, err, alertBadRecordMAC)
					if _, err2 := c.Read(make([]byte, 10)); err2 == nil || err2.Error() != err.Error() {
						t.Fatalf("second Read: %v, want %v", err2, err)
					}
				})
			}
		}
	}
}

// TestTLS13BatchAllArrived: many records arriving at once, in every
// size of Read, give back the stream, for both suites.
func TestTLS13BatchAllArrived(t *testing.T) {
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		for _, size := range []int{1, 1000, maxPlaintext, 3*maxPlaintext + 7, 1 << 20} {
			c, rc, wr := receiver13(t, id)
			lens := []int{maxPlaintext, 1, 0, 5000, maxPlaintext, maxPlaintext - 1}
			lens = append(lens, slices.Repeat([]int{maxPlaintext}, 2*ciphersuite.MaxBatch+1)...)
			wire, _ := sealWire13(t, wr, lens)
			rc.chunks = [][]byte{wire}
			got, _ := readAll(t, c, size)
			want := 0
			for _, n := range lens {
				want += n
			}
			if got != want {
				t.Fatalf("%s read size %d: %d bytes, want %d", ciphersuite.Name(id), size, got, want)
			}
		}
	}
}

// TestTLS13KeyUpdateInsideBatchAllSuites is TestTLS13KeyUpdateInsideBatch
// for every TLS 1.3 suite: records under the next key right behind a
// KeyUpdate, all arrived at once, are opened under that key.
func TestTLS13KeyUpdateInsideBatchAllSuites(t *testing.T) {
	for _, id := range ciphersuite.TLS13DefaultPreference() {
		for _, readSize := range []int{1 << 20, 100} {
			ccfg, scfg := protocolCases[1].configs(t)
			ccfg.CipherSuites = []uint16{id}
			client, server, cerr, serr := handshakePair(t, ccfg, scfg)
			if cerr != nil || serr != nil {
				t.Fatal(cerr, serr)
			}
			if st := client.ConnectionState(); st.CipherSuite != id {
				t.Fatalf("negotiated %x", st.CipherSuite)
			}
			want := make([]byte, 0, 6*maxPlaintext)
			for i := range 3 {
				msg := make([]byte, 2*maxPlaintext+i)
				for j := range msg {
					msg[j] = byte(i*7 + j)
				}
				if _, err := server.Write(msg); err != nil {
					t.Fatal(err)
				}
				want = append(want, msg...)
				if i < 2 {
					server.out.Lock()
					err := server.updateWriteKeyLocked(i == 1)
					server.out.Unlock()
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			time.Sleep(50 * time.Millisecond) // let it all arrive, to be read in one go
			got := make([]byte, 0, len(want))
			buf := make([]byte, readSize)
			for len(got) < len(want) {
				n, err := client.Read(buf)
				if err != nil {
					t.Fatalf("%s read size %d, after %d bytes: %v", ciphersuite.Name(id), readSize, len(got), err)
				}
				got = append(got, buf[:n]...)
			}
			if string(got) != string(want) {
				t.Fatalf("%s read size %d: data differs", ciphersuite.Name(id), readSize)
			}
			if string(client.in.secret13) != string(server.out.secret13) {
				t.Errorf("%s read size %d: the client did not follow the KeyUpdates", ciphersuite.Name(id), readSize)
			}
		}
	}
}
