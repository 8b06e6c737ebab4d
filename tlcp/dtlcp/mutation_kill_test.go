// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dtlcp

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp/internal/dgram"
)

// TestForgedRecordsDropped: after the handshake, behind each of the
// client's application data records comes a forgery of it: its body
// altered, under a sequence number 1000 ahead. The server must drop each
// forgery silently (RFC 6347 §4.1.2.7) and keep its replay window where
// the authenticated records put it, so that every echo comes back. Removing
// the authentication check (mutant dtlcp-record-auth) ends the connection
// at the first GCM forgery; marking the window before authenticating
// (dtlcp-replay-mark-before-auth) moves it past the client's next records,
// which are then dropped as too old. TestReplayDropped replays genuine
// records only, which authenticate.
func TestForgedRecordsDropped(t *testing.T) {
	loadPKI(t)
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3} {
		t.Run(ciphersuite.Name(suite), func(t *testing.T) {
			l := listen(t, serverConfig(false), fastOptions())
			go serve(t, l)
			r := newRelay(t, l.Addr(), 0, 0, 0, 1)
			c := handshakeVia(t, r, clientConfig(suite, false))
			defer c.Close()
			forged := 0
			r.mu.Lock()
			r.tamper = func(toServer bool, b []byte) [][]byte {
				if !toServer || b[0] != 23 {
					return [][]byte{b}
				}
				h, body, rest, err := dgram.ParseRecord(b)
				if err != nil || len(rest) != 0 || h.Epoch != 1 || len(body) == 0 {
					return [][]byte{b}
				}
				f := make([]byte, dgram.RecordHeaderLen+len(body))
				dgram.PutRecordHeader(f, h.Type, h.Epoch, h.Seq+1000, len(body))
				copy(f[dgram.RecordHeaderLen:], body)
				f[len(f)-1] ^= 1
				forged++
				return [][]byte{b, f}
			}
			r.mu.Unlock()
			echoes(t, c, r, 20, "a forged record ended the connection or moved the replay window")
			r.mu.Lock()
			n := forged
			r.mu.Unlock()
			if n < 20 {
				t.Fatalf("only %d records forged", n)
			}
		})
	}
}
