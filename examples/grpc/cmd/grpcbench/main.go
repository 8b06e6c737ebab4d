// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command grpcbench measures unary gRPC calls per second of CPU time over
// TLCP and TLS 1.3-SM (through tlcpcreds) against crypto/tls TLS 1.3
// (grpc's credentials.NewTLS), in one process over loopback, the
// protocols taking turns in short rounds so that the machine's state
// changes weigh on all alike.
//
//	go run ./cmd/grpcbench -time 6s -size 256 -callers 8
//
// Each protocol has its own server and channel, set up before timing
// starts; a round runs -callers goroutines calling one method on that
// channel. CPU time is the whole process's (client and server, every
// thread), from getrusage; the ratio column is each protocol's calls per
// CPU second over crypto/tls's.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/examples/grpc/internal/echo"
	"github.com/shangmi-go/shangmi/examples/grpc/internal/stdtls"
	"github.com/shangmi-go/shangmi/examples/grpc/tlcpcreds"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

func main() {
	total := flag.Duration("time", 6*time.Second, "total timed duration per protocol")
	rounds := flag.Int("rounds", 6, "rounds each protocol's time is cut into")
	size := flag.Int("size", 256, "request and response size in bytes")
	callers := flag.Int("callers", 8, "concurrent callers per round")
	certs := flag.String("certs", filepath.Join("..", "..", "testdata", "tlcp"), "folder with the double certificates (the main module's testdata/tlcp)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed rounds to this file")
	flag.Parse()

	protos := []*proto{
		{name: "TLCP ECC_SM4_GCM_SM3", client: tlcpcreds.NewClient(smClient(*certs, ciphersuite.ECC_SM4_GCM_SM3)), server: tlcpcreds.NewServer(smServer(*certs))},
		{name: "TLCP ECDHE_SM4_GCM_SM3", client: tlcpcreds.NewClient(smClient(*certs, ciphersuite.ECDHE_SM4_GCM_SM3)), server: tlcpcreds.NewServer(smServer(*certs))},
		{name: "TLS 1.3-SM TLS_SM4_GCM_SM3", client: tlcpcreds.NewClient(smClient(*certs, ciphersuite.TLS_SM4_GCM_SM3)), server: tlcpcreds.NewServer(smServer(*certs))},
	}
	stdServer, stdClient, err := stdtls.Configs()
	if err != nil {
		log.Fatal(err)
	}
	stdServer.MinVersion, stdClient.MinVersion = tls.VersionTLS13, tls.VersionTLS13
	std := &proto{name: "crypto/tls TLS 1.3 (AES-128-GCM)", client: credentials.NewTLS(stdClient), server: credentials.NewTLS(stdServer)}
	protos = append(protos, std)

	payload := make([]byte, *size)
	for _, p := range protos {
		p.start(payload)
		defer p.stop()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	per := *total / time.Duration(*rounds)
	for r := 0; r < *rounds; r++ {
		// Each round starts with the next protocol, and the garbage of the
		// turn before is collected untimed, so that no protocol always
		// follows the same one and pays for collecting its garbage.
		for i := range protos {
			runtime.GC()
			protos[(r+i)%len(protos)].round(per, *callers, payload)
		}
	}
	fmt.Printf("unary RPCs, %d-byte messages, %d callers, %d rounds of %v each, interleaved; CPU = whole process\n", *size, *callers, *rounds, per)
	fmt.Printf("%-34s %12s %10s %14s %8s %12s %12s\n", "protocol", "calls", "CPU s", "calls/CPU-s", "ratio", "wire B/call", "srv I/O/call")
	for _, p := range protos {
		rate := float64(p.calls) / p.cpu.Seconds()
		fmt.Printf("%-34s %12d %10.2f %14.0f %8.3f %12.0f %12.2f\n", p.name, p.calls, p.cpu.Seconds(), rate, rate/(float64(std.calls)/std.cpu.Seconds()),
			float64(p.wireBytes)/float64(p.calls), float64(p.wireWrites)/float64(p.calls))
	}
}

type proto struct {
	name           string
	client, server credentials.TransportCredentials
	srv            *grpc.Server
	cc             *grpc.ClientConn
	calls          int64
	cpu            time.Duration

	// The server's transport traffic, both directions (see wireCount),
	// in the timed rounds.
	wire                  wireCount
	wireBytes, wireWrites int64
}

func (p *proto) start(payload []byte) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	p.srv = grpc.NewServer(append(echo.ServerOptions(), grpc.Creds(p.server))...)
	echo.Register(p.srv, nil)
	go p.srv.Serve(countingListener{ln, &p.wire})
	p.cc, err = grpc.NewClient(ln.Addr().String(), append(echo.DialOptions(), grpc.WithTransportCredentials(p.client))...)
	if err != nil {
		log.Fatal(err)
	}
	// Connect and warm up before any timing.
	for range 200 {
		if _, err := echo.Unary(context.Background(), p.cc, payload); err != nil {
			log.Fatalf("%s: %v", p.name, err)
		}
	}
}

func (p *proto) stop() {
	p.cc.Close()
	p.srv.Stop()
}

func (p *proto) round(d time.Duration, callers int, payload []byte) {
	var n atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cpu0 := processCPU()
	b0, w0 := p.wire.bytes.Load(), p.wire.writes.Load()+p.wire.reads.Load()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, err := echo.Unary(context.Background(), p.cc, payload); err != nil {
					log.Fatalf("%s: %v", p.name, err)
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	p.cpu += processCPU() - cpu0
	p.calls += n.Load()
	p.wireBytes += p.wire.bytes.Load() - b0
	p.wireWrites += p.wire.writes.Load() + p.wire.reads.Load() - w0
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func load(dir, who string) tlcp.CertificatePair {
	f := func(n string) string { return filepath.Join(dir, who+"_"+n) }
	p, err := tlcp.LoadCertificatePair(f("sign.pem"), f("sign.key"), f("enc.pem"), f("enc.key"))
	if err != nil {
		log.Fatal(err)
	}
	return p
}

func pool(dir string) *smx509.CertPool {
	b, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		log.Fatal(err)
	}
	p := smx509.NewCertPool()
	p.AppendCertsFromPEM(b)
	return p
}

func smServer(dir string) *tlcp.Config {
	return &tlcp.Config{Certificates: []tlcp.CertificatePair{load(dir, "server")}}
}

func smClient(dir string, suite uint16) *tlcp.Config {
	return &tlcp.Config{
		RootCAs:      pool(dir),
		CipherSuites: []uint16{suite},
		// The ECDHE suites need the client's double certificate.
		Certificates: []tlcp.CertificatePair{load(dir, "client")},
	}
}
