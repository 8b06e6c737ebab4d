// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// The benchmarks run both ends in one process over net.Pipe, beside the
// same measurements for crypto/tls TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256 on
// P-256, the nearest international equivalent.

func benchHandshake(b *testing.B, ccfg, scfg *Config, wantResume bool) {
	b.ReportAllocs()
	for b.Loop() {
		c, s := net.Pipe()
		client, server := Client(c, ccfg), Server(s, scfg)
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		if err := client.Handshake(); err != nil {
			b.Fatal(err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
		if client.didResume != wantResume {
			b.Fatalf("resumed = %v", client.didResume)
		}
		c.Close()
		s.Close()
	}
}

func BenchmarkHandshake(b *testing.B) {
	for _, id := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECDHE_SM4_GCM_SM3} {
		b.Run("Full/"+CipherSuiteName(id), func(b *testing.B) {
			ccfg, scfg := testClientConfig(b), testServerConfig(b)
			ccfg.CipherSuites = []uint16{id}
			scfg.SessionCacheSize = -1
			benchHandshake(b, ccfg, scfg, false)
		})
		b.Run("Resumed/"+CipherSuiteName(id), func(b *testing.B) {
			ccfg, scfg := testClientConfig(b), testServerConfig(b)
			ccfg.CipherSuites = []uint16{id}
			ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
			_, _, cerr, serr := handshakePair(b, ccfg, scfg)
			if cerr != nil || serr != nil {
				b.Fatal(cerr, serr)
			}
			benchHandshake(b, ccfg, scfg, true)
		})
		// Resumption from a ServerSessionCache: the sealed session is
		// opened and parsed each time (the store here is a map).
		b.Run("ResumedSharedStore/"+CipherSuiteName(id), func(b *testing.B) {
			ccfg, scfg := testClientConfig(b), testServerConfig(b)
			ccfg.CipherSuites = []uint16{id}
			ccfg.ClientSessionCache = NewLRUClientSessionCache(1)
			scfg.ServerSessionCache = newMapSessionCache()
			scfg.SetSessionCacheKeys([][SessionCacheKeySize]byte{{1}})
			_, _, cerr, serr := handshakePair(b, ccfg, scfg)
			if cerr != nil || serr != nil {
				b.Fatal(cerr, serr)
			}
			benchHandshake(b, ccfg, scfg, true)
		})
	}
}

// benchBulk moves 64 MiB per iteration from client to server.
func benchBulk(b *testing.B, w io.Writer, r io.Reader) {
	const total = 64 << 20
	buf := make([]byte, 1<<14)
	b.SetBytes(total)
	b.ReportAllocs()
	done := make(chan error, 1)
	go func() {
		rbuf := make([]byte, 1<<15)
		for {
			if _, err := r.Read(rbuf); err != nil {
				done <- err
				return
			}
		}
	}()
	for b.Loop() {
		for n := 0; n < total; n += len(buf) {
			if _, err := w.Write(buf); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkBulk(b *testing.B) {
	for _, s := range CipherSuites() {
		b.Run(s.Name, func(b *testing.B) {
			ccfg, scfg := testClientConfig(b), testServerConfig(b)
			ccfg.CipherSuites = []uint16{s.ID}
			scfg.CipherSuites = []uint16{s.ID}
			c, sc := net.Pipe()
			client, server := Client(c, ccfg), Server(sc, scfg)
			errc := make(chan error, 1)
			go func() { errc <- server.Handshake() }()
			if err := client.Handshake(); err != nil {
				b.Fatal(err)
			}
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			defer sc.Close()
			benchBulk(b, client, server)
		})
	}
}

// BenchmarkRawRecordProtection is the floor for BenchmarkBulk: Seal (the
// sender's work) and Open (the receiver's) of 16 KiB records with no
// connection around them. BenchmarkBulk runs both ends at once, so its
// bound is the slower of the two.
func BenchmarkRawRecordProtection(b *testing.B) {
	const total = 64 << 20
	const batch = 64 // records sealed once for the Open benchmark
	for _, s := range CipherSuites() {
		keys, _ := s.KeyBlock(make([]byte, 48), make([]byte, 32), make([]byte, 32))
		pt := make([]byte, 1<<14)
		b.Run("Seal/"+s.Name, func(b *testing.B) {
			seal, err := s.NewRecordProtection(keys)
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, 1<<14+256)
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				for n := 0; n < total; n += len(pt) {
					if _, err := seal.Seal(buf[:0], 23, pt, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run("Open/"+s.Name, func(b *testing.B) {
			seal, _ := s.NewRecordProtection(keys)
			var recs [][]byte
			for range batch {
				r, err := seal.Seal(nil, 23, pt, nil)
				if err != nil {
					b.Fatal(err)
				}
				recs = append(recs, r)
			}
			work := make([]byte, len(recs[0])+64)
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				for n := 0; n < total; n += batch * len(pt) {
					open, _ := s.NewRecordProtection(keys)
					for _, r := range recs {
						w := work[:len(r)]
						copy(w, r)
						if _, _, err := open.Open(23, w); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// Reference: crypto/tls, TLS 1.2, ECDHE-ECDSA-AES128-GCM-SHA256, P-256.

func stdTLSConfigs(b *testing.B) (*tls.Config, *tls.Config) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tls.test"},
		DNSNames:              []string{"tls.test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		b.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	suites := []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	scfg := &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		MinVersion:   tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: suites,
		CurvePreferences: []tls.CurveID{tls.CurveP256},
	}
	ccfg := &tls.Config{
		RootCAs: pool, ServerName: "tls.test",
		MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: suites,
		CurvePreferences: []tls.CurveID{tls.CurveP256},
	}
	return ccfg, scfg
}

func benchStdHandshake(b *testing.B, ccfg, scfg *tls.Config, wantResume bool) {
	b.ReportAllocs()
	for b.Loop() {
		c, s := net.Pipe()
		client, server := tls.Client(c, ccfg), tls.Server(s, scfg)
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		if err := client.Handshake(); err != nil {
			b.Fatal(err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
		if client.ConnectionState().DidResume != wantResume {
			b.Fatal("unexpected resumption state")
		}
		c.Close()
		s.Close()
	}
}

func BenchmarkStdTLS12(b *testing.B) {
	b.Run("Full", func(b *testing.B) {
		ccfg, scfg := stdTLSConfigs(b)
		scfg.SessionTicketsDisabled = true
		benchStdHandshake(b, ccfg, scfg, false)
	})
	b.Run("Resumed", func(b *testing.B) {
		ccfg, scfg := stdTLSConfigs(b)
		ccfg.ClientSessionCache = tls.NewLRUClientSessionCache(1)
		c, s := net.Pipe()
		go tls.Server(s, scfg).Handshake()
		if err := tls.Client(c, ccfg).Handshake(); err != nil {
			b.Fatal(err)
		}
		benchStdHandshake(b, ccfg, scfg, true)
	})
	b.Run("Bulk", func(b *testing.B) {
		ccfg, scfg := stdTLSConfigs(b)
		c, s := net.Pipe()
		client, server := tls.Client(c, ccfg), tls.Server(s, scfg)
		go server.Handshake()
		if err := client.Handshake(); err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		defer s.Close()
		benchBulk(b, client, server)
	})
}

// memConn is one end of an in-memory, unbuffered-by-goroutine transport:
// what one side writes the other reads, all in the caller's goroutine.
type memConn struct {
	net.Conn
	in, out *bytes.Buffer
}

func (c *memConn) Read(b []byte) (int, error)  { return c.in.Read(b) }
func (c *memConn) Write(b []byte) (int, error) { return c.out.Write(b) }

// BenchmarkRecordLayerOverhead measures, in one goroutine, Conn.Write plus
// Conn.Read of 16 KiB records against bare Seal plus Open of the same
// records: the difference is what the record layer adds.
func BenchmarkRecordLayerOverhead(b *testing.B) {
	const total = 16 << 20
	for _, id := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECC_ZUC128_SM3} {
		s := ciphersuite.Lookup(id)
		keys, _ := s.KeyBlock(make([]byte, 48), make([]byte, 32), make([]byte, 32))
		pt := make([]byte, 1<<14)
		b.Run("Conn/"+s.Name, func(b *testing.B) {
			var wire bytes.Buffer
			wire.Grow(1 << 15)
			client := Client(&memConn{in: new(bytes.Buffer), out: &wire}, &Config{})
			server := Server(&memConn{in: &wire, out: new(bytes.Buffer)}, &Config{})
			client.out.rp, _ = s.NewRecordProtection(keys)
			server.in.rp, _ = s.NewRecordProtection(keys)
			client.isHandshakeComplete.Store(true)
			server.isHandshakeComplete.Store(true)
			rbuf := make([]byte, len(pt))
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				for n := 0; n < total; n += len(pt) {
					if _, err := client.Write(pt); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(server, rbuf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run("Raw/"+s.Name, func(b *testing.B) {
			seal, _ := s.NewRecordProtection(keys)
			open, _ := s.NewRecordProtection(keys)
			buf := make([]byte, 0, 1<<14+256)
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				for n := 0; n < total; n += len(pt) {
					rec, err := seal.Seal(buf[:0], 23, pt, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, _, err := open.Open(23, rec); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
