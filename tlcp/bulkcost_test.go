// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build unix

package tlcp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/tls"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm4"
)

// BenchmarkBulkCost splits a bulk transfer's CPU time into the cipher's
// and the record layer's: "Conn" rows move 64 MiB over one connection in
// 256 KiB writes (both ends in this process, over net.Pipe, as
// examples/bench's bulk rows), "Kernel" rows seal and open the same bytes
// as 16 KiB messages with the AEAD alone. Each reports the process CPU
// nanoseconds per byte moved (cpu-ns/B, both ends), so that
//
//	record layer cost = Conn cpu-ns/B − Kernel cpu-ns/B
//	closeness         = Kernel cpu-ns/B ÷ Conn cpu-ns/B
//
// compare like for like between this package (SM4-GCM, SM4-CCM) and
// crypto/tls (AES-128-GCM), each against its own cipher's ceiling.
func BenchmarkBulkCost(b *testing.B) {
	const total = 64 << 20
	const write = 256 << 10
	conns := []struct {
		name  string
		setup func(b *testing.B) (io.Writer, io.Reader, func())
	}{
		{"Conn/TLCP-ECC_SM4_GCM_SM3", tlcpBulkPair(VersionTLCP, ciphersuite.ECC_SM4_GCM_SM3)},
		{"Conn/TLS13-SM4_GCM_SM3", tlcpBulkPair(VersionTLS13, ciphersuite.TLS_SM4_GCM_SM3)},
		{"Conn/TLS13-SM4_CCM_SM3", tlcpBulkPair(VersionTLS13, ciphersuite.TLS_SM4_CCM_SM3)},
		{"Conn/cryptotls-TLS12-AES128GCM", stdBulkPair(tls.VersionTLS12)},
		{"Conn/cryptotls-TLS13-AES128GCM", stdBulkPair(tls.VersionTLS13)},
	}
	for _, c := range conns {
		b.Run(c.name, func(b *testing.B) {
			w, r, done := c.setup(b)
			defer done()
			buf := make([]byte, write)
			errc := make(chan error, 1)
			go func() {
				rbuf := make([]byte, write)
				for {
					if _, err := r.Read(rbuf); err != nil {
						errc <- err
						return
					}
				}
			}()
			b.SetBytes(total)
			b.ReportAllocs()
			cpu := processCPUTime()
			for b.Loop() {
				for n := 0; n < total; n += len(buf) {
					if _, err := w.Write(buf); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			reportCPUPerByte(b, processCPUTime()-cpu, total)
		})
	}

	sm4Key := make([]byte, 16)
	sm4GCM, _ := sm4.NewGCMWithKey(sm4Key)
	sm4Block, _ := sm4.NewCipher(sm4Key)
	sm4CCM, _ := sm4.NewCCM(sm4Block, 12, 16)
	aesBlock, _ := aes.NewCipher(make([]byte, 16))
	aesGCM, _ := cipher.NewGCM(aesBlock)
	for _, k := range []struct {
		name string
		aead cipher.AEAD
	}{
		{"Kernel/SM4-GCM", sm4GCM},
		{"Kernel/SM4-CCM", sm4CCM},
		{"Kernel/AES128-GCM", aesGCM},
	} {
		b.Run(k.name, func(b *testing.B) {
			const rec = 1 << 14
			pt := make([]byte, rec)
			sealed := make([]byte, 0, rec+16)
			out := make([]byte, rec)
			nonce, ad := make([]byte, 12), make([]byte, 13)
			b.SetBytes(total)
			b.ReportAllocs()
			cpu := processCPUTime()
			for b.Loop() {
				for n := 0; n < total; n += rec {
					ct := k.aead.Seal(sealed[:0], nonce, pt, ad)
					if _, err := k.aead.Open(out[:0], nonce, ct, ad); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			reportCPUPerByte(b, processCPUTime()-cpu, total)
		})
	}

	// The CCM kernel with the MACs of 16 records in lanes: the ceiling of
	// the batched CCM record layer.
	b.Run("Kernel/SM4-CCM-16lanes", func(b *testing.B) {
		const rec = 1 << 14
		var dst, nonces, pts, ads [sm4.MaxCBCLanes][]byte
		for i := range dst {
			dst[i] = make([]byte, rec+16)
			pts[i] = dst[i][:rec]
			nonces[i] = make([]byte, 12)
			nonces[i][0] = byte(i)
			ads[i] = make([]byte, 5)
		}
		b.SetBytes(total)
		b.ReportAllocs()
		cpu := processCPUTime()
		for b.Loop() {
			for n := 0; n < total; n += rec * sm4.MaxCBCLanes {
				sm4.CCMSealMulti(sm4CCM, dst[:], nonces[:], pts[:], ads[:])
				if sm4.CCMOpenMulti(sm4CCM, pts[:], nonces[:], dst[:], ads[:]) != sm4.MaxCBCLanes {
					b.Fatal("open failed")
				}
			}
		}
		b.StopTimer()
		reportCPUPerByte(b, processCPUTime()-cpu, total)
	})
}

func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPUPerByte(b *testing.B, cpu time.Duration, total int) {
	if b.N > 0 {
		perByte := float64(cpu) / float64(b.N) / float64(total)
		b.ReportMetric(perByte, "cpu-ns/B")
		b.ReportMetric(1e3/perByte, "cpu-MB/s")
	}
}

func tlcpBulkPair(vers uint16, suite uint16) func(b *testing.B) (io.Writer, io.Reader, func()) {
	return tlcpPairOver(net.Pipe, vers, suite)
}

// loopback returns a connected pair of TCP connections over 127.0.0.1.
func loopback() (net.Conn, net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		ch <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	return c, <-ch
}

func tlcpPairOver(transport func() (net.Conn, net.Conn), vers uint16, suite uint16) func(b *testing.B) (io.Writer, io.Reader, func()) {
	return func(b *testing.B) (io.Writer, io.Reader, func()) {
		ccfg, scfg := testClientConfig(b), testServerConfig(b)
		ccfg.MinVersion, ccfg.MaxVersion = vers, vers
		scfg.MinVersion, scfg.MaxVersion = vers, vers
		ccfg.CipherSuites = []uint16{suite}
		scfg.CipherSuites = []uint16{suite}
		c, s := transport()
		client, server := Client(c, ccfg), Server(s, scfg)
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		if err := client.Handshake(); err != nil {
			b.Fatal(err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
		if st := client.ConnectionState(); st.Version != vers || st.CipherSuite != suite {
			b.Fatalf("negotiated %x %x", st.Version, st.CipherSuite)
		}
		return client, server, func() { c.Close(); s.Close() }
	}
}

func stdBulkPair(vers uint16) func(b *testing.B) (io.Writer, io.Reader, func()) {
	return stdPairOver(net.Pipe, vers)
}

func stdPairOver(transport func() (net.Conn, net.Conn), vers uint16) func(b *testing.B) (io.Writer, io.Reader, func()) {
	return func(b *testing.B) (io.Writer, io.Reader, func()) {
		ccfg, scfg := stdTLSConfigs(b)
		ccfg.MinVersion, ccfg.MaxVersion = vers, vers
		scfg.MinVersion, scfg.MaxVersion = vers, vers
		c, s := transport()
		client, server := tls.Client(c, ccfg), tls.Server(s, scfg)
		errc := make(chan error, 1)
		go func() { errc <- server.Handshake() }()
		if err := client.Handshake(); err != nil {
			b.Fatal(err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
		if st := client.ConnectionState(); st.Version != vers || st.CipherSuite != tls.TLS_AES_128_GCM_SHA256 && st.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
			b.Fatalf("negotiated %x %x", st.Version, st.CipherSuite)
		}
		return client, server, func() { c.Close(); s.Close() }
	}
}

// BenchmarkSmallEcho is the per-message cost that an RPC pays: the client
// writes size bytes, the server reads them and writes them back, the
// client reads them, over net.Pipe; the CPU time of both ends per round
// trip is cpu-ns/op. TLCP and TLS 1.3-SM against crypto/tls TLS 1.3 and
// TLS 1.2 (AES-128-GCM).
func BenchmarkSmallEcho(b *testing.B) {
	for _, size := range []int{64, 256, 1024, 4096} {
		for _, c := range []struct {
			name  string
			setup func(b *testing.B) (io.Writer, io.Reader, func())
			std   bool
		}{
			{"TLCP-ECC_SM4_GCM_SM3", tlcpBulkPair(VersionTLCP, ciphersuite.ECC_SM4_GCM_SM3), false},
			{"TLS13-SM4_GCM_SM3", tlcpBulkPair(VersionTLS13, ciphersuite.TLS_SM4_GCM_SM3), false},
			{"cryptotls-TLS13-AES128GCM", stdBulkPair(tls.VersionTLS13), true},
			{"cryptotls-TLS12-AES128GCM", stdBulkPair(tls.VersionTLS12), true},
			{"TCP/TLCP-ECC_SM4_GCM_SM3", tlcpPairOver(loopback, VersionTLCP, ciphersuite.ECC_SM4_GCM_SM3), false},
			{"TCP/TLS13-SM4_GCM_SM3", tlcpPairOver(loopback, VersionTLS13, ciphersuite.TLS_SM4_GCM_SM3), false},
			{"TCP/cryptotls-TLS13-AES128GCM", stdPairOver(loopback, tls.VersionTLS13), true},
		} {
			b.Run(c.name+"/"+itoa(size), func(b *testing.B) {
				w, r, done := c.setup(b)
				defer done()
				// The server end: r is also a Writer.
				srv := r.(io.ReadWriter)
				cli := w.(io.ReadWriter)
				go func() {
					buf := make([]byte, size)
					for {
						if _, err := io.ReadFull(srv, buf); err != nil {
							return
						}
						if _, err := srv.Write(buf); err != nil {
							return
						}
					}
				}()
				msg := make([]byte, size)
				in := make([]byte, size)
				b.ReportAllocs()
				cpu := processCPUTime()
				for b.Loop() {
					if _, err := cli.Write(msg); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(cli, in); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if b.N > 0 {
					b.ReportMetric(float64(processCPUTime()-cpu)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}

// BenchmarkKernelSizes is Seal plus Open of one message of each size with
// the AEAD alone, the cipher's part of BenchmarkSmallEcho's round trip
// (which seals and opens two such messages).
func BenchmarkKernelSizes(b *testing.B) {
	sm4GCM, _ := sm4.NewGCMWithKey(make([]byte, 16))
	aesBlock, _ := aes.NewCipher(make([]byte, 16))
	aesGCM, _ := cipher.NewGCM(aesBlock)
	for _, size := range []int{64, 256, 1024, 4096, 16384} {
		for _, k := range []struct {
			name string
			aead cipher.AEAD
		}{{"SM4-GCM", sm4GCM}, {"AES128-GCM", aesGCM}} {
			b.Run(k.name+"/"+itoa(size), func(b *testing.B) {
				pt := make([]byte, size)
				sealed := make([]byte, 0, size+16)
				out := make([]byte, size)
				nonce, ad := make([]byte, 12), make([]byte, 13)
				b.SetBytes(int64(size))
				cpu := processCPUTime()
				for b.Loop() {
					ct := k.aead.Seal(sealed[:0], nonce, pt, ad)
					if _, err := k.aead.Open(out[:0], nonce, ct, ad); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if b.N > 0 {
					b.ReportMetric(float64(processCPUTime()-cpu)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
