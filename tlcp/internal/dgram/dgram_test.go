// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package dgram

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/internal/alloctest"
)

func frag(typ uint8, length int, seq uint16, off int, data []byte) (HandshakeHeader, []byte) {
	return HandshakeHeader{Type: typ, Length: length, Seq: seq, Offset: off, FragLen: len(data)}, data
}

func TestRecordHeaderRoundTrip(t *testing.T) {
	b := make([]byte, RecordHeaderLen+3)
	PutRecordHeader(b, 23, 1, 0x123456789abc, 3)
	copy(b[RecordHeaderLen:], "abc")
	h, body, rest, err := ParseRecord(append(b, 0xff))
	if err != nil || h.Type != 23 || h.Version != Version || h.Epoch != 1 || h.Seq != 0x123456789abc || string(body) != "abc" || len(rest) != 1 {
		t.Fatalf("%+v %q %q %v", h, body, rest, err)
	}
	if h.Seq64() != 1<<48|0x123456789abc {
		t.Fatalf("Seq64 %x", h.Seq64())
	}
	if _, _, _, err := ParseRecord(b[:len(b)-1]); err == nil {
		t.Fatal("short record accepted")
	}
}

// TestReassemblyOutOfOrder: fragments out of order, duplicated and
// overlapping (agreeing) make the message.
func TestReassemblyOutOfOrder(t *testing.T) {
	msg := []byte("0123456789abcdefghij")
	var r Reassembler
	for _, f := range [][2]int{{10, 20}, {0, 5}, {10, 20}, {3, 8}, {6, 12}} {
		if r.Complete() {
			t.Fatal("complete too early")
		}
		st, err := r.Add(frag(11, len(msg), 0, f[0], msg[f[0]:f[1]]))
		if err != nil || st != Stored {
			t.Fatal(st, err)
		}
	}
	typ, seq, body, ok := r.Take()
	if !ok || typ != 11 || seq != 0 || !bytes.Equal(body, msg) {
		t.Fatalf("%v %d %d %q", ok, typ, seq, body)
	}
	if st, _ := r.Add(frag(11, len(msg), 0, 0, msg[:4])); st != Old {
		t.Fatalf("fragment of a delivered message: %v, want Old", st)
	}
}

// TestReassemblyRejects: overlapping fragments that disagree, fragments
// whose type or length differ, and fragments past the message length are
// refused.
func TestReassemblyRejects(t *testing.T) {
	var r Reassembler
	if _, err := r.Add(frag(11, 10, 0, 0, []byte("abcdef"))); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(frag(11, 10, 0, 4, []byte("XXzz"))); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Fatalf("conflicting overlap: %v", err)
	}
	if _, err := r.Add(frag(12, 10, 0, 6, []byte("gh"))); err == nil {
		t.Fatal("type change accepted")
	}
	if _, err := r.Add(frag(11, 11, 0, 6, []byte("gh"))); err == nil {
		t.Fatal("length change accepted")
	}
	// Past the length: refused by the parser, before reassembly.
	b := make([]byte, HandshakeHeaderLen+4)
	PutHandshakeHeader(b, HandshakeHeader{Type: 11, Length: 10, Offset: 8, FragLen: 4})
	if _, _, _, err := ParseHandshake(b); err == nil || !strings.Contains(err.Error(), "past the message length") {
		t.Fatalf("fragment past the length: %v", err)
	}
	// Past the record.
	PutHandshakeHeader(b, HandshakeHeader{Type: 11, Length: 10, Offset: 0, FragLen: 5})
	if _, _, _, err := ParseHandshake(b); err == nil {
		t.Fatal("fragment past the record accepted")
	}
}

// TestReassemblyBounds: a message over its type's limit is refused
// before anything is allocated for it; messages far ahead, or beyond the
// buffer bound, are dropped.
func TestReassemblyBounds(t *testing.T) {
	r := Reassembler{MaxLen: func(uint8) int { return 1 << 16 }}
	if _, err := r.Add(frag(11, 1<<24-1, 0, 0, []byte("x"))); err == nil {
		t.Fatal("16 MiB message accepted")
	}
	if st, _ := r.Add(frag(11, 10, Window, 0, []byte("x"))); st != Ahead {
		t.Fatalf("message %d ahead: %v, want Ahead", Window, st)
	}
	r = Reassembler{}
	for i := range Window - 1 {
		r.Add(frag(11, MaxBuffered/4, uint16(i+1), 0, []byte("x")))
	}
	if r.buffered > MaxBuffered {
		t.Fatalf("buffered %d, over %d", r.buffered, MaxBuffered)
	}
}

func TestReplayWindow(t *testing.T) {
	var w ReplayWindow
	for _, s := range []uint64{5, 3, 70, 69, 8} {
		if !w.Check(s) {
			t.Fatalf("%d refused", s)
		}
		w.Mark(s)
	}
	for _, s := range []uint64{5, 3, 70, 69, 8} {
		if w.Check(s) {
			t.Fatalf("replay of %d accepted", s)
		}
	}
	if !w.Check(7) || !w.Check(68) || !w.Check(71) {
		t.Fatal("new numbers refused")
	}
	if w.Check(6) || w.Check(0) {
		t.Fatal("number below the window accepted") // 70-6 = 64
	}
}

func TestCookie(t *testing.T) {
	now := time.Unix(1000, 0)
	j := &CookieJar{Now: func() time.Time { return now }}
	c, err := j.Cookie("1.2.3.4:5", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if !j.Verify("1.2.3.4:5", []byte("hello"), c) {
		t.Fatal("own cookie refused")
	}
	if j.Verify("1.2.3.4:6", []byte("hello"), c) || j.Verify("1.2.3.4:5", []byte("hellO"), c) {
		t.Fatal("cookie accepted for another address or hello")
	}
	now = now.Add(CookieRotation + time.Second)
	if !j.Verify("1.2.3.4:5", []byte("hello"), c) {
		t.Fatal("cookie of the previous secret refused")
	}
	now = now.Add(CookieRotation + time.Second)
	if j.Verify("1.2.3.4:5", []byte("hello"), c) {
		t.Fatal("cookie two secrets old accepted")
	}
}

func TestCookieInsertSplit(t *testing.T) {
	body := append([]byte{1, 1}, make([]byte, 32)...)
	body = append(body, 2, 0xaa, 0xbb, 0, 2, 0xe0, 0x13, 1, 0)
	d, ok := InsertCookie(body, []byte("cookie"))
	if !ok {
		t.Fatal("InsertCookie failed")
	}
	back, cookie, ok := SplitCookie(d)
	if !ok || string(cookie) != "cookie" || !bytes.Equal(back, body) {
		t.Fatalf("%v %q %x", ok, cookie, back)
	}
}

// allocBound runs f and fails if it allocated more than limit bytes.
func allocBound(t *testing.T, limit uint64, f func()) {
	if got := alloctest.Bytes(f); got > limit {
		t.Fatalf("allocated %d bytes, over the bound of %d", got, limit)
	}
}

// FuzzRecords parses a datagram into records and their handshake
// fragments and feeds the fragments to a reassembler: nothing may panic,
// and the memory taken is bounded by the input and the reassembler's
// bound, whatever lengths the headers claim.
func FuzzRecords(f *testing.F) {
	seed := make([]byte, RecordHeaderLen+HandshakeHeaderLen+4)
	PutRecordHeader(seed, TypeHandshake, 0, 1, HandshakeHeaderLen+4)
	PutHandshakeHeader(seed[RecordHeaderLen:], HandshakeHeader{Type: 1, Length: 8, Seq: 0, Offset: 4, FragLen: 4})
	f.Add(seed)
	f.Add(append(append([]byte(nil), seed...), seed...))
	f.Add(HelloVerifyRequest(Hello{RecordSeq: 3, MsgSeq: 1}, make([]byte, 32)))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Reassembler
		allocBound(t, uint64(8*len(b))+2*MaxBuffered+4096, func() {
			// A fresh reassembler per run: allocBound runs this more than once.
			r = Reassembler{MaxLen: func(typ uint8) int {
				if typ == 11 {
					return 1 << 17
				}
				return 1 << 14
			}}
			ParseHello(b)
			for rest := b; len(rest) > 0; {
				h, body, next, err := ParseRecord(rest)
				if err != nil {
					return
				}
				rest = next
				_ = h.Seq64()
				for len(body) > 0 {
					hh, frag, more, err := ParseHandshake(body)
					if err != nil {
						break
					}
					body = more
					if _, err := r.Add(hh, frag); err != nil {
						continue
					}
					for {
						_, _, msg, ok := r.Take()
						if !ok {
							break
						}
						if len(msg) > 1<<17 {
							t.Fatalf("message of %d bytes", len(msg))
						}
					}
				}
			}
		})
		if r.buffered > MaxBuffered {
			t.Fatalf("buffered %d", r.buffered)
		}
	})
}

// FuzzFragments feeds fragments of one message, cut at fuzzer-chosen
// points and delivered in a fuzzer-chosen order with duplicates: every
// order that covers the message must give it back whole and unchanged.
func FuzzFragments(f *testing.F) {
	f.Add([]byte("the quick brown fox"), []byte{3, 9, 1, 0, 2})
	f.Fuzz(func(t *testing.T, msg, cuts []byte) {
		if len(msg) == 0 || len(msg) > 4096 || len(cuts) > 64 {
			return
		}
		var r Reassembler
		// Fragments [k*step, k*step+width) from the cut bytes.
		covered := make([]bool, len(msg))
		for _, c := range cuts {
			off := int(c) * len(msg) / 256
			end := min(len(msg), off+1+int(c)%7)
			if _, err := r.Add(frag(11, len(msg), 0, off, msg[off:end])); err != nil {
				t.Fatal(err)
			}
			for i := off; i < end; i++ {
				covered[i] = true
			}
		}
		all := true
		for _, c := range covered {
			all = all && c
		}
		if r.Complete() != all {
			t.Fatalf("Complete() = %v, coverage %v", r.Complete(), all)
		}
		if all {
			_, _, body, _ := r.Take()
			if !bytes.Equal(body, msg) {
				t.Fatalf("reassembled %q, want %q", body, msg)
			}
		}
	})
}
