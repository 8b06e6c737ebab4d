// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command peerserver runs a Go peer's TLCP server, for the by-hand
// scripts of examples/interop (scan.sh): tjfoc's gmtls (github.com/tjfoc/gmsm
// v1.4.1, from the module proxy) always, and gotlcp (gitee.com/Trisia/gotlcp
// v1.5.0) when built with the gotlcp tag against a gotlcp checkout, as
// scan.sh does (the module proxy does not serve gotlcp). Each connection
// gets back the lines it sends.
//
//	peerserver -impl tjfoc -listen 127.0.0.1:27300 -sign_cert s.pem -sign_key s.key -enc_cert e.pem -enc_key e.key [-CAfile ca.pem]
//
// With -CAfile the server asks for client certificates and verifies them
// against it (tjfoc: RequireAndVerifyClientCert; gotlcp: the same).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
)

type config struct {
	signCert, signKey, encCert, encKey, caFile string
}

// servers maps -impl to a function that listens; gotlcp's registers
// itself when built in.
var servers = map[string]func(addr string, c config) (net.Listener, error){
	"tjfoc": listenTjfoc,
}

func main() {
	impl := flag.String("impl", "tjfoc", "the peer: tjfoc, or gotlcp when built with -tags gotlcp")
	addr := flag.String("listen", "127.0.0.1:0", "address to listen on")
	var c config
	flag.StringVar(&c.signCert, "sign_cert", "", "signing certificate (PEM)")
	flag.StringVar(&c.signKey, "sign_key", "", "its key (PEM)")
	flag.StringVar(&c.encCert, "enc_cert", "", "encryption certificate (PEM)")
	flag.StringVar(&c.encKey, "enc_key", "", "its key (PEM)")
	flag.StringVar(&c.caFile, "CAfile", "", "require client certificates issued by these CAs (PEM)")
	flag.Parse()
	listen, ok := servers[*impl]
	if !ok {
		fmt.Fprintf(os.Stderr, "peerserver: no server %q in this build (gotlcp needs -tags gotlcp)\n", *impl)
		os.Exit(2)
	}
	l, err := listen(*addr, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "peerserver:", err)
		os.Exit(1)
	}
	fmt.Println("listening on", l.Addr())
	for {
		conn, err := l.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "peerserver:", err)
			os.Exit(1)
		}
		go echo(conn)
	}
}

// appendCAs adds the certificates of a PEM file to pool, which is either
// peer's CertPool.
func appendCAs(pool interface{ AppendCertsFromPEM([]byte) bool }, file string) error {
	pem, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("no certificate in %s", file)
	}
	return nil
}

// echo answers each line; a failed handshake ends the connection only.
func echo(conn net.Conn) {
	defer conn.Close()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "peerserver: connection from %v: panic: %v\n", conn.RemoteAddr(), r)
		}
	}()
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := conn.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
