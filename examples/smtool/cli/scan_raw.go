// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
	"golang.org/x/crypto/cryptobyte"
)

// The extension probes send a TLCP ClientHello of their own making and
// read the server's first record only: tlcp's client cannot be asked to
// send an unknown extension or renegotiation_info, and need not be.

// rawExt is one extension of a crafted ClientHello.
type rawExt struct {
	typ  uint16
	body []byte
}

// sniExt is a server_name extension naming host.
func sniExt(host string) rawExt {
	var b cryptobyte.Builder
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint8(0) // host_name
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(host)) })
	})
	return rawExt{0, b.BytesOrPanic()}
}

// rawHello is a TLCP ClientHello record offering suites, with exts (nil:
// no extensions block at all).
func rawHello(suites []uint16, exts []rawExt) ([]byte, error) {
	return rawHelloWith(suites, exts, tlcp.VersionTLCP, []byte{0})
}

// rawHelloWith is rawHello with the record-layer version and the
// compression methods given.
func rawHelloWith(suites []uint16, exts []rawExt, recordVersion uint16, compression []byte) ([]byte, error) {
	random := make([]byte, 32)
	if _, err := rand.Read(random); err != nil {
		return nil, err
	}
	var b cryptobyte.Builder
	b.AddUint8(22)
	b.AddUint16(recordVersion)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint8(1) // client_hello
		b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16(tlcp.VersionTLCP)
			b.AddBytes(random)
			b.AddUint8(0) // no session ID
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, s := range suites {
					b.AddUint16(s)
				}
			})
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(compression) })
			if exts == nil {
				return
			}
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, e := range exts {
					b.AddUint16(e.typ)
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(e.body) })
				}
			})
		})
	})
	return b.Bytes()
}

// rawAnswer is the server's first record after a crafted ClientHello.
type rawAnswer struct {
	hello helloSeen // got is set if it was a ServerHello
	alert int       // -1 unless an alert came
	err   error     // nothing usable came
}

func (a rawAnswer) String() string {
	switch {
	case a.hello.got:
		return "accepted"
	case a.alert >= 0:
		return alertNames[uint8(a.alert)]
	case a.err != nil:
		return a.err.Error()
	}
	return "no answer"
}

// refusal is probe.refusal for a crafted hello.
func (a rawAnswer) refusal() string {
	switch {
	case a.hello.got:
		return ""
	case a.alert >= 0:
		return alertName(uint8(a.alert))
	case a.err != nil && isClosed(a.err):
		return "closed"
	}
	return "error"
}

// raw sends one crafted ClientHello offering the default suites.
func (s *scanner) raw(exts []rawExt) rawAnswer {
	return s.rawSuites(ciphersuite.DefaultPreference(), exts)
}

// rawSuites sends one crafted ClientHello and reads the answer.
func (s *scanner) rawSuites(suites []uint16, exts []rawExt) rawAnswer {
	rec, err := rawHello(suites, exts)
	return s.rawRecord(rec, err)
}

// rawRecord sends a crafted record and reads the answer.
func (s *scanner) rawRecord(rec []byte, err error) rawAnswer {
	ans := rawAnswer{hello: helloSeen{alert: -1}, alert: -1}
	if err != nil {
		ans.err = err
		return ans
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	nc, err := s.dial(ctx)
	if err != nil {
		ans.err = err
		return ans
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(s.timeout))
	if _, err := nc.Write(rec); err != nil {
		ans.err = err
		return ans
	}
	var hdr [5]byte
	if _, err := io.ReadFull(nc, hdr[:]); err != nil {
		ans.err = fmt.Errorf("connection closed without an answer (%v)", err)
		return ans
	}
	n := int(hdr[3])<<8 | int(hdr[4])
	if n > 1<<14+2048 {
		ans.err = fmt.Errorf("record of %d bytes", n)
		return ans
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(nc, body); err != nil {
		ans.err = err
		return ans
	}
	switch {
	case hdr[0] == 21 && n >= 2:
		ans.alert = int(body[1])
	case hdr[0] == 22 && n >= 4 && body[0] == 2:
		hl := int(body[1])<<16 | int(body[2])<<8 | int(body[3])
		ans.hello.parse(body[4:min(4+hl, len(body))])
	default:
		ans.err = fmt.Errorf("record type %d", hdr[0])
	}
	return ans
}

// extensions probes extension tolerance and the renegotiation answer.
func (s *scanner) extensions() ScanExtensions {
	var x ScanExtensions
	x.NoExtensions = s.raw(nil).hello.got
	host := orElse(s.sni, "localhost")
	sni := s.raw([]rawExt{sniExt(host)})
	x.SNI = sni.hello.got
	x.SNIEchoed = sni.hello.got && containsExt(sni.hello.extensions, 0)
	// 0x5A5A is a GREASE value (RFC 8701): reserved, so never a real
	// extension, and a server must ignore it.
	unknown := s.raw([]rawExt{sniExt(host), {0x5A5A, nil}})
	x.Unknown = unknown.hello.got
	if !x.Unknown {
		x.UnknownAlert = unknown.refusal()
	}
	// renegotiation_info, empty as in an initial handshake (RFC 5746).
	reneg := s.raw([]rawExt{{0xff01, []byte{0}}})
	switch {
	case reneg.hello.got && containsExt(reneg.hello.extensions, 0xff01):
		x.Renegotiation = "secure renegotiation signalled (renegotiation_info echoed)"
	case reneg.hello.got:
		x.Renegotiation = "not signalled (renegotiation_info ignored)"
	default:
		x.Renegotiation = "renegotiation_info refused: " + reneg.refusal()
	}
	// Two hellos TLCP forbids, whose alerts tell implementations apart:
	// no null compression method (GB/T 38636 6.4.5.2.1 and RFC 5246
	// require it), and a record-layer version of TLS 1.2.
	x.NoNullCompression = s.rawRecord(rawHelloWith(ciphersuite.DefaultPreference(), nil, tlcp.VersionTLCP, []byte{1})).verdict()
	x.RecordVersionTLS12 = s.rawRecord(rawHelloWith(ciphersuite.DefaultPreference(), nil, 0x0303, []byte{0})).verdict()
	return x
}

// verdict is "accepted" or the refusal.
func (a rawAnswer) verdict() string {
	if a.hello.got {
		return "accepted"
	}
	return a.refusal()
}

func containsExt(list []uint16, x uint16) bool {
	for _, e := range list {
		if e == x {
			return true
		}
	}
	return false
}
