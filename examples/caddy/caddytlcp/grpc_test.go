// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/examples/grpc/tlcpcreds"
	"github.com/shangmi-go/shangmi/tlcp"
)

// TestCaddyGRPC: a gRPC client on tlcpcreds (examples/grpc) calls a gRPC
// service behind Caddy, over TLCP and TLS 1.3-SM with HTTP/2 (alpn h2),
// Caddy proxying to the service over h2c and passing the {tlcp.*}
// placeholders on as request metadata.
func TestCaddyGRPC(t *testing.T) {
	// The service: grpc's health service, recording the metadata of each
	// call.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []metadata.MD
	srv := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		mu.Lock()
		seen = append(seen, md)
		mu.Unlock()
		return h(ctx, req)
	}))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(ln)
	defer srv.Stop()

	dir := t.TempDir()
	installServerPair(t, "tlcp", dir)
	writeECDSA(t, dir)
	port := freePort(t)
	src := strings.Replace(testCaddyfile, "client_auth verify_if_given {CA}", "client_auth verify_if_given {CA}\n\t\t\t\talpn h2 http/1.1", 1)
	src = strings.Replace(src, "reverse_proxy {BACKEND} {", "reverse_proxy h2c://{BACKEND} {", 1)
	startCaddyWith(t, src, dir, port, ln.Addr().String())

	for _, suite := range []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.TLS_SM4_GCM_SM3} {
		cc, err := grpc.NewClient("127.0.0.1:"+port, grpc.WithTransportCredentials(tlcpcreds.NewClient(&tlcp.Config{
			RootCAs: smRoots(t, "tlcp"), Certificates: []tlcp.CertificatePair{clientPair(t)}, CipherSuites: []uint16{suite},
		})))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		cc.Close()
		if err != nil || resp.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("%s: health check through Caddy: %v, %v", tlcp.CipherSuiteName(suite), resp, err)
		}
		mu.Lock()
		md := seen[len(seen)-1]
		mu.Unlock()
		if got := md.Get("x-tlcp-suite"); len(got) != 1 || got[0] != tlcp.CipherSuiteName(suite) {
			t.Errorf("%s: the service saw x-tlcp-suite %q", tlcp.CipherSuiteName(suite), got)
		}
		if got := md.Get("x-tlcp-client-sign"); len(got) != 1 || got[0] != clientSubject {
			t.Errorf("%s: the service saw x-tlcp-client-sign %q", tlcp.CipherSuiteName(suite), got)
		}
	}
}
