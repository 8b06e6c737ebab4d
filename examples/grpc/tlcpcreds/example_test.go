// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcpcreds_test

import (
	"context"
	"log"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/shangmi-go/shangmi/examples/grpc/tlcpcreds"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// A gRPC server on TLCP and TLS 1.3-SM that requires client certificates.
func ExampleNewServer() {
	pair, err := tlcp.LoadCertificatePair("sign.pem", "sign.key", "enc.pem", "enc.key")
	if err != nil {
		log.Fatal(err)
	}
	clientCAs := smx509.NewCertPool() // add the CA certificates of your clients
	srv := grpc.NewServer(grpc.Creds(tlcpcreds.NewServer(&tlcp.Config{
		Certificates: []tlcp.CertificatePair{pair},
		ClientCAs:    clientCAs,
		ClientAuth:   tlcp.RequireAndVerifyClientCert,
	})))
	// Register services on srv, then:
	ln, err := net.Listen("tcp", ":8443")
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(srv.Serve(ln))
}

// A client speaking TLCP with its double certificate, resuming sessions
// when it reconnects.
func ExampleNewClient() {
	pair, err := tlcp.LoadCertificatePair("client_sign.pem", "client_sign.key", "client_enc.pem", "client_enc.key")
	if err != nil {
		log.Fatal(err)
	}
	roots := smx509.NewCertPool() // add the server's CA
	cc, err := grpc.NewClient("server.example.cn:8443", grpc.WithTransportCredentials(tlcpcreds.NewClient(&tlcp.Config{
		RootCAs:            roots,
		Certificates:       []tlcp.CertificatePair{pair},
		ClientSessionCache: tlcp.NewLRUClientSessionCache(64),
	})))
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	// Use cc with generated clients.
}

// A handler reads the client's two certificates.
func ExampleAuthInfo() {
	handler := func(ctx context.Context) {
		p, _ := peer.FromContext(ctx)
		if info, ok := p.AuthInfo.(tlcpcreds.AuthInfo); ok {
			log.Printf("%s %s: sign %s, enc %v", info.AuthType(), tlcp.CipherSuiteName(info.State.CipherSuite),
				info.State.PeerSignCertificate.Subject, info.State.PeerEncCertificate != nil)
		}
	}
	_ = handler
}
