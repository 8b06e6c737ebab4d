// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// seqLimit lets a RecordProtection handle left more records and then fails
// as ciphersuite does at the last sequence number. The ciphersuite API
// does not let a caller set the sequence number (its own tests do, and
// check that Seal and Open refuse 2^64-1), so this is how tlcp's handling
// of ErrSequenceOverflow is reached without sending 2^64 records.
type seqLimit struct {
	ciphersuite.RecordProtection
	left int
}

func (s *seqLimit) Seal(dst []byte, typ uint8, plaintext []byte, rand io.Reader) ([]byte, error) {
	if s.left == 0 {
		return dst, ciphersuite.ErrSequenceOverflow
	}
	s.left--
	return s.RecordProtection.Seal(dst, typ, plaintext, rand)
}

func (s *seqLimit) Open(typ uint8, fragment []byte) (uint8, []byte, error) {
	if s.left == 0 {
		return 0, nil, ciphersuite.ErrSequenceOverflow
	}
	s.left--
	return s.RecordProtection.Open(typ, fragment)
}

// TestSequenceOverflowSending: when the sending side runs out of sequence
// numbers, Write fails with an error that says so and wraps
// ErrSequenceOverflow, every later Write fails the same way, nothing more
// is sent, and Close still closes the transport.
func TestSequenceOverflowSending(t *testing.T) {
	for _, suite := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3} {
		t.Run(ciphersuite.Name(suite), func(t *testing.T) {
			client, server := established(t, suite)
			client.out.Lock()
			client.out.rp = &seqLimit{RecordProtection: client.out.rp, left: 1}
			client.out.Unlock()
			if _, err := client.Write([]byte("last")); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 4)
			if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "last" {
				t.Fatalf("server read %q, %v", buf, err)
			}
			_, err := client.Write([]byte("one too many"))
			if !errors.Is(err, ciphersuite.ErrSequenceOverflow) || !strings.Contains(err.Error(), "close it and reconnect") {
				t.Fatalf("Write error %v, want sequence exhaustion", err)
			}
			if _, err2 := client.Write([]byte("again")); !errors.Is(err2, ciphersuite.ErrSequenceOverflow) {
				t.Fatalf("second Write error %v, want the same", err2)
			}
			// No close_notify can be sent; Close says so and closes.
			if err := client.Close(); err == nil || !errors.Is(err, ciphersuite.ErrSequenceOverflow) {
				t.Fatalf("Close = %v, want it to report the unsendable close_notify", err)
			}
			// The server sees the transport end without close_notify:
			// nothing was sent after the last good record.
			if _, err := server.Read(buf); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("server Read error %v, want truncation", err)
			}
		})
	}
}

// TestSequenceOverflowReceiving: a receiver whose peer has used up the
// sequence numbers refuses the record, sends internal_error (its own
// direction still has numbers) and stops reading and writing.
func TestSequenceOverflowReceiving(t *testing.T) {
	client, server := established(t, ciphersuite.ECC_SM4_GCM_SM3)
	server.in.Lock()
	server.in.rp = &seqLimit{RecordProtection: server.in.rp, left: 0}
	server.in.Unlock()
	if _, err := client.Write([]byte("beyond the limit")); err != nil {
		t.Fatal(err)
	}
	_, err := server.Read(make([]byte, 16))
	if !errors.Is(err, ciphersuite.ErrSequenceOverflow) || !strings.Contains(err.Error(), "the peer has sent all") {
		t.Fatalf("server Read error %v, want sequence exhaustion", err)
	}
	wantAlert(t, err, alertInternalError)
	if _, err := server.Read(make([]byte, 1)); !errors.Is(err, ciphersuite.ErrSequenceOverflow) {
		t.Fatalf("second Read %v, want the same error", err)
	}
	if _, err := server.Write([]byte("x")); err == nil {
		t.Fatal("Write after the fatal alert succeeded")
	}
	_, err = client.Read(make([]byte, 1))
	var ae AlertError
	if !errors.As(err, &ae) || alert(ae) != alertInternalError {
		t.Fatalf("client Read error %v, want the server's internal_error alert", err)
	}
}
