// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// streamByte is the content of byte pos of the test streams: not periodic
// at any record or block size, so that a misplaced or repeated record
// shows.
func streamByte(pos int) byte {
	return byte(uint32(pos)*2654435761>>13) ^ byte(pos>>16)
}

func fillStream(b []byte, pos int) {
	for i := range b {
		b[i] = streamByte(pos + i)
	}
}

// matrixSizes are the Write sizes of the stream test: every size up to a
// few hundred bytes, every record and batch boundary up to 300 KiB and the
// sizes right next to them, and random sizes in between.
func matrixSizes(rng *rand.Rand, short bool) []int {
	var sizes []int
	small := 1100
	if short {
		small = 80
	}
	for n := range small {
		sizes = append(sizes, n)
	}
	for k := 1; k*maxPlaintext <= 300<<10+2; k++ {
		if short && k%4 != 1 && k != batchRecords {
			continue
		}
		for d := -2; d <= 2; d++ {
			sizes = append(sizes, k*maxPlaintext+d)
		}
	}
	random := 40
	if short {
		random = 6
	}
	for range random {
		sizes = append(sizes, rng.IntN(300<<10+1))
	}
	sizes = append(sizes, 300<<10)
	rng.Shuffle(len(sizes), func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
	return sizes
}

// readSizes are the Read buffer sizes the reader picks from: smaller than
// a record (in-place batches, copied out), around a record (one opened
// into the buffer), and large enough for a whole batch.
var readSizes = []int{1, 7, 100, 4096, 8192, maxPlaintext - 1, maxPlaintext, maxPlaintext + 24, maxPlaintext + 64,
	2*maxPlaintext + 100, 64 << 10, 300 << 10, 1 << 20}

// TestStreamMatrix: on every suite, over net.Pipe (every Write is read in
// pieces the size of the reader's buffer) and TCP (the kernel splits and
// merges), a stream of Writes of the matrixSizes arrives intact through
// Reads of random sizes. Writes of more than one record go out in
// batches, and whole records that arrive together are opened in batches,
// in place or into the Read buffer.
func TestStreamMatrix(t *testing.T) {
	for _, s := range CipherSuites() {
		for _, transport := range []string{"pipe", "tcp"} {
			t.Run(s.Name+"/"+transport, func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(s.ID), uint64(len(transport))))
				sizes := matrixSizes(rng, testing.Short())
				client, server := connectedPair(t, s.ID, transport)
				total := 0
				for _, n := range sizes {
					total += n
				}
				errc := make(chan error, 1)
				go func() {
					buf := make([]byte, 300<<10)
					pos := 0
					for _, n := range sizes {
						fillStream(buf[:n], pos)
						if m, err := client.Write(buf[:n]); err != nil || m != n {
							errc <- fmt.Errorf("Write(%d) = %d, %v", n, m, err)
							return
						}
						pos += n
					}
					errc <- nil
				}()
				rbuf := make([]byte, 1<<20)
				pos := 0
				for pos < total {
					b := rbuf[:readSizes[rng.IntN(len(readSizes))]]
					n, err := server.Read(b)
					if err != nil {
						t.Fatalf("Read at %d of %d: %v", pos, total, err)
					}
					for i := range n {
						if b[i] != streamByte(pos+i) {
							t.Fatalf("byte %d of the stream differs (Read of %d bytes returned %d)", pos+i, len(b), n)
						}
					}
					pos += n
				}
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
				// Close: the reader sees a clean end.
				go client.Close()
				if n, err := server.Read(rbuf); n != 0 || err != io.EOF {
					t.Fatalf("Read after close_notify = %d, %v", n, err)
				}
			})
		}
	}
}

// connectedPair returns a client and a server that have completed a
// handshake on suite over transport ("pipe" or "tcp").
func connectedPair(t testing.TB, suite uint16, transport string) (*Conn, *Conn) {
	t.Helper()
	ccfg, scfg := testClientConfig(t), testServerConfig(t)
	ccfg.CipherSuites = []uint16{suite}
	scfg.CipherSuites = []uint16{suite}
	var c, s net.Conn
	if transport == "pipe" {
		c, s = net.Pipe()
		t.Cleanup(func() { c.Close(); s.Close() })
	} else {
		c, s = tcpPair(t)
	}
	client, server := Client(c, ccfg), Server(s, scfg)
	errc := make(chan error, 1)
	go func() { errc <- server.Handshake() }()
	if err := client.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return client, server
}

// recordedConn is a reader over a prepared byte stream of records, for
// tests that must control exactly what arrives at once.
type recordedConn struct {
	discardConn
	chunks [][]byte // each Read returns at most one chunk
}

func (c *recordedConn) Read(b []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(b, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// receiver returns a server-side Conn past its handshake, reading records
// of suite from chunks, and the matching sender's protection.
func receiver(t testing.TB, suite uint16) (*Conn, *recordedConn, ciphersuite.BatchProtection) {
	t.Helper()
	s := ciphersuite.Lookup(suite)
	k, _ := s.KeyBlock(make([]byte, 48), make([]byte, 32), make([]byte, 32))
	rp, err := s.NewRecordProtection(k)
	if err != nil {
		t.Fatal(err)
	}
	wr, _ := s.NewRecordProtection(k)
	rc := &recordedConn{}
	c := Server(rc, &Config{})
	c.in.rp = rp
	c.vers = VersionTLCP
	c.isHandshakeComplete.Store(true)
	return c, rc, wr.(ciphersuite.BatchProtection)
}

// sealWire seals records of the given plaintext lengths (of type
// application data, with stream content from pos) and returns them as one
// byte string, and where each record starts.
func sealWire(t testing.TB, wr ciphersuite.BatchProtection, typ recordType, lens []int, pos int) (wire []byte, starts []int) {
	t.Helper()
	for _, n := range lens {
		pt := make([]byte, n)
		fillStream(pt, pos)
		pos += n
		starts = append(starts, len(wire))
		wire = append(wire, byte(typ), 1, 1, 0, 0)
		var err error
		if wire, err = wr.Seal(wire, uint8(typ), pt, nil); err != nil {
			t.Fatal(err)
		}
		l := len(wire) - starts[len(starts)-1] - recordHeaderLen
		wire[starts[len(starts)-1]+3], wire[starts[len(starts)-1]+4] = byte(l>>8), byte(l)
	}
	return wire, starts
}

// readAll reads from c with buffers of size until an error, checking the
// stream content, and returns the bytes read and the error.
func readAll(t testing.TB, c *Conn, size int) (int, error) {
	t.Helper()
	buf := make([]byte, size)
	pos := 0
	for {
		n, err := c.Read(buf)
		for i := range n {
			if buf[i] != streamByte(pos+i) {
				t.Fatalf("byte %d differs", pos+i)
			}
		}
		pos += n
		if err != nil {
			return pos, err
		}
	}
}

// TestBatchCorruptedRecord: when every record arrives at once and the
// sixth of ten is corrupted, a reader gets exactly the five before it, in
// place or opened into its buffer, then bad_record_mac, and nothing of the
// records after it; the alert goes to the peer.
func TestBatchCorruptedRecord(t *testing.T) {
	for _, s := range CipherSuites() {
		for _, size := range []int{1000, maxPlaintext, 10 * maxPlaintext, 1 << 20} {
			for _, bad := range []int{0, 5, 9} {
				t.Run(fmt.Sprintf("%s/read%d/bad%d", s.Name, size, bad), func(t *testing.T) {
					c, rc, wr := receiver(t, s.ID)
					lens := slices.Repeat([]int{maxPlaintext}, 10)
					lens[3] = 100 // one short record among them
					wire, starts := sealWire(t, wr, recordTypeApplicationData, lens, 0)
					wire[starts[bad]+recordHeaderLen+40] ^= 0x08
					rc.chunks = [][]byte{wire}
					got, err := readAll(t, c, size)
					want := 0
					for _, n := range lens[:bad] {
						want += n
					}
					if got != want {
						t.Fatalf("read %d bytes before the error, want %d (the %d records before the bad one)", got, want, bad)
					}
					wantAlert(t, err, alertBadRecordMAC)
					// The error is final.
					if _, err2 := c.Read(make([]byte, 10)); !errors.Is(err2, err) && err2.Error() != err.Error() {
						t.Fatalf("second Read: %v, want %v", err2, err)
					}
				})
			}
		}
	}
}

// TestBatchStopsAtOtherRecords: a batch takes only application data; an
// alert, a handshake record or a bad header in the middle of the arrived
// records ends the batch before it, and it is handled in its turn after
// the data before it has been delivered.
func TestBatchStopsAtOtherRecords(t *testing.T) {
	for _, s := range CipherSuites() {
		for _, size := range []int{1000, 1 << 20} {
			t.Run(fmt.Sprintf("%s/read%d", s.Name, size), func(t *testing.T) {
				// close_notify after three records.
				c, rc, wr := receiver(t, s.ID)
				wire, _ := sealWire(t, wr, recordTypeApplicationData, []int{5000, 6000, 7000}, 0)
				alertWire, _ := sealWireRaw(t, wr, recordTypeAlert, []byte{alertLevelWarning, byte(alertCloseNotify)})
				more, _ := sealWire(t, wr, recordTypeApplicationData, []int{100}, 18000)
				rc.chunks = [][]byte{slices.Concat(wire, alertWire, more)}
				if got, err := readAll(t, c, size); got != 18000 || err != io.EOF {
					t.Fatalf("read %d, %v; want 18000, EOF", got, err)
				}

				// A record with a wrong version after two.
				c, rc, wr = receiver(t, s.ID)
				wire, starts := sealWire(t, wr, recordTypeApplicationData, []int{5000, 6000, 7000}, 0)
				wire[starts[2]+2] = 3
				rc.chunks = [][]byte{wire}
				got, err := readAll(t, c, size)
				if got != 11000 {
					t.Fatalf("read %d before the bad header, want 11000", got)
				}
				wantAlert(t, err, alertProtocolVersion)
			})
		}
	}
}

// sealWireRaw seals one record of any type and content.
func sealWireRaw(t testing.TB, wr ciphersuite.BatchProtection, typ recordType, data []byte) ([]byte, int) {
	t.Helper()
	out := []byte{byte(typ), 1, 1, 0, 0}
	out, err := wr.Seal(out, uint8(typ), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(out) - recordHeaderLen
	out[3], out[4] = byte(n>>8), byte(n)
	return out, n
}

// TestBatchUselessRecords: empty records that arrive together count one by
// one towards the limit, whether they are opened in place or into the
// Read buffer: 16 in a row pass, 17 are refused.
func TestBatchUselessRecords(t *testing.T) {
	for _, s := range CipherSuites() {
		for _, size := range []int{10, 1 << 20} {
			for _, empties := range []int{maxUselessRecords, maxUselessRecords + 1, 40} {
				t.Run(fmt.Sprintf("%s/read%d/%d", s.Name, size, empties), func(t *testing.T) {
					c, rc, wr := receiver(t, s.ID)
					lens := append(slices.Repeat([]int{0}, empties), 1000)
					wire, _ := sealWire(t, wr, recordTypeApplicationData, lens, 0)
					rc.chunks = [][]byte{wire}
					got, err := readAll(t, c, size)
					if empties <= maxUselessRecords {
						if got != 1000 || !errors.Is(err, io.ErrUnexpectedEOF) {
							t.Fatalf("read %d, %v; want the data, then truncation", got, err)
						}
						return
					}
					if got != 0 {
						t.Fatalf("read %d bytes after %d empty records", got, empties)
					}
					wantAlert(t, err, alertUnexpectedMessage)
				})
			}
		}
	}
}

// TestBatchNeverWaits: a record that has arrived whole is delivered even
// though the transport's read came back full and more may follow: the
// reader does not wait for a batch to fill. The peer here sends one record
// and then waits for the answer.
func TestBatchNeverWaits(t *testing.T) {
	for _, s := range CipherSuites() {
		t.Run(s.Name, func(t *testing.T) {
			client, server := connectedPair(t, s.ID, "pipe")
			msg := make([]byte, 3*maxPlaintext)
			fillStream(msg, 0)
			errc := make(chan error, 1)
			go func() {
				// A bulk write first, to put the reader in streaming mode,
				// then one record at a time, each answered.
				if _, err := client.Write(msg); err != nil {
					errc <- err
					return
				}
				for i := range 20 {
					if _, err := client.Write(msg[:maxPlaintext-i]); err != nil {
						errc <- err
						return
					}
					if _, err := io.ReadFull(client, make([]byte, 1)); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			if _, err := io.ReadFull(server, make([]byte, len(msg))); err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				buf := make([]byte, maxPlaintext-i)
				if _, err := io.ReadFull(server, buf); err != nil {
					t.Fatal(err)
				}
				if _, err := server.Write([]byte{1}); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-errc:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the exchange stalled")
			}
		})
	}
}

// TestReadBufferReturned: a receiver that streamed gives its batch buffer
// back once it has processed everything and a read comes back small, and
// a sender holds none between Writes.
func TestReadBufferReturned(t *testing.T) {
	client, server := connectedPair(t, ciphersuite.ECC_SM4_GCM_SM3, "pipe")
	big := make([]byte, 512<<10)
	go func() {
		client.Write(big)
		client.Write([]byte("small"))
		client.Write([]byte("again"))
	}()
	if _, err := io.ReadFull(server, make([]byte, len(big))); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(server, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	server.in.Lock()
	defer server.in.Unlock()
	if server.rawInput.pooled != nil {
		t.Fatal("the receiver still holds a batch buffer after small reads")
	}
	if len(server.rawInput.own) > oneRecordSize {
		t.Fatalf("the receiver's own buffer grew to %d bytes", len(server.rawInput.own))
	}
}

// TestPausedReaderHoldsNoBatchBuffer: a receiver that has read everything
// that arrived and then stops calling Read (the peer keeps the connection
// open) holds no batch buffer while it waits, whichever suite, whether the
// last records were opened into its buffer or in place.
func TestPausedReaderHoldsNoBatchBuffer(t *testing.T) {
	for _, s := range CipherSuites() {
		for _, readSize := range []int{1000, 64 << 10, 1 << 20} {
			t.Run(fmt.Sprintf("%s/read%d", s.Name, readSize), func(t *testing.T) {
				client, server := connectedPair(t, s.ID, "pipe")
				big := make([]byte, 1<<20)
				go client.Write(big)
				buf := make([]byte, readSize)
				for got := 0; got < len(big); {
					n, err := server.Read(buf[:min(len(buf), len(big)-got)])
					if err != nil {
						t.Fatal(err)
					}
					got += n
				}
				server.in.Lock()
				defer server.in.Unlock()
				if server.rawInput.pooled != nil {
					t.Fatal("a paused receiver holds a batch buffer")
				}
				if !server.rawInput.streaming {
					t.Fatal("the receiver left streaming mode")
				}
			})
		}
	}
}

// TestZeroAllocsBulk: batched Writes and Reads of every suite allocate
// nothing per record, into a large Read buffer and through small ones.
func TestZeroAllocsBulk(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation test")
	}
	for _, s := range CipherSuites() {
		t.Run(s.Name, func(t *testing.T) {
			client, server := connectedPair(t, s.ID, "tcp")
			wbuf := make([]byte, 256<<10)
			big, small := make([]byte, len(wbuf)), make([]byte, 8<<10)
			// One writer goroutine for all steps: starting one per step
			// would allocate.
			start, done := make(chan bool), make(chan error)
			go func() {
				for range start {
					_, err := client.Write(wbuf)
					done <- err
				}
			}()
			defer close(start)
			step := func(rbuf []byte) {
				start <- true
				for got := 0; got < len(wbuf); {
					n, err := server.Read(rbuf[:min(len(rbuf), len(wbuf)-got)])
					if err != nil {
						t.Fatal(err)
					}
					got += n
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
			step(big)
			step(small)
			for _, rbuf := range [][]byte{big, small} {
				if n := testing.AllocsPerRun(20, func() { step(rbuf) }); n > 0 {
					t.Errorf("%v allocations per 256 KiB Write and its Reads of %d bytes", n, len(rbuf))
				}
			}
		})
	}
}

// batchSeqLimit lets a BatchProtection seal left more records, then fails
// as ciphersuite does at the last sequence number, part-way through a
// batch.
type batchSeqLimit struct {
	ciphersuite.BatchProtection
	left int
}

func (s *batchSeqLimit) SealBatch(recs []ciphersuite.BatchRecord, rand io.Reader) (int, error) {
	if len(recs) <= s.left {
		s.left -= len(recs)
		return s.BatchProtection.SealBatch(recs, rand)
	}
	n, err := s.BatchProtection.SealBatch(recs[:s.left], rand)
	s.left = 0
	if err != nil {
		return n, err
	}
	return n, ciphersuite.ErrSequenceOverflow
}

// TestBatchSequenceOverflowSending: a batched Write that runs out of
// sequence numbers in the middle of a batch sends the records sealed
// before that, reports how much of the data they carried and the
// exhaustion, and sends nothing more.
func TestBatchSequenceOverflowSending(t *testing.T) {
	for _, s := range CipherSuites() {
		t.Run(s.Name, func(t *testing.T) {
			client, server := connectedPair(t, s.ID, "tcp")
			client.out.Lock()
			client.out.rp = &batchSeqLimit{BatchProtection: client.out.rp.(ciphersuite.BatchProtection), left: 20}
			client.out.Unlock()
			msg := make([]byte, 30*maxPlaintext)
			fillStream(msg, 0)
			n, err := client.Write(msg)
			if n != 20*maxPlaintext || !errors.Is(err, ciphersuite.ErrSequenceOverflow) {
				t.Fatalf("Write = %d, %v; want %d and sequence exhaustion", n, err, 20*maxPlaintext)
			}
			client.Close()
			got, err := readAll(t, server, 1<<20)
			if got != 20*maxPlaintext || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("server read %d, %v; want %d then truncation", got, err, 20*maxPlaintext)
			}
		})
	}
}
