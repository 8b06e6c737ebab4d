// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/shangmi-go/shangmi/tlcp"
)

func init() {
	register(&command{
		name:    "s_client",
		summary: "connect to a TLCP server, print the connection, send -msg or standard input",
		run:     sClient,
	})
}

func sClient(args []string, stdout io.Writer) error {
	fs := newFlagSet("s_client")
	connect := fs.String("connect", "", "server `host:port`")
	serverName := fs.String("servername", "", "name to verify (default: the host of -connect)")
	sni := fs.Bool("sni", false, "send the server_name extension (off by default: many TLCP servers reject extensions)")
	insecure := fs.Bool("insecure", false, "do not verify the server's certificates")
	tf := addTLCPFlags(fs, "CA certificates that verify the server (PEM `file`)")
	ecdhe71 := fs.Bool("ecdhe71", false, "send the 71-byte u16-prefixed ECDHE ClientKeyExchange (GmSSL >= 3.2)")
	includeEnc := fs.Bool("include-enc", false, "send the encryption certificate with ECC client auth too (Tongsuo servers)")
	msg := fs.String("msg", "", "send this text, half-close, and print the reply")
	fromStdin := fs.Bool("stdin", false, "send standard input (up to EOF) instead of -msg, half-close, and print the reply")
	reconnect := fs.Bool("reconnect", false, "connect a second time, resuming the session")
	timeout := fs.Duration("timeout", 10*time.Second, "bound on each connection")
	rest, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("unexpected arguments %q", rest)
	}
	if *connect == "" {
		return usagef("%v", errNoConnect)
	}
	if *fromStdin {
		if *msg != "" {
			return usagef("-msg and -stdin exclude each other")
		}
		if *reconnect {
			return usagef("-stdin and -reconnect exclude each other (standard input can be read once)")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("reading standard input: %w", err)
		}
		if len(b) == 0 {
			return usagef("-stdin: standard input is empty")
		}
		*msg = string(b)
	}
	cfg := &tlcp.Config{
		ServerName:                     *serverName,
		SendServerName:                 *sni,
		InsecureSkipVerify:             *insecure,
		NextProtos:                     tf.protos(),
		ClientECDHEFraming71:           *ecdhe71,
		ClientCertIncludeEnc:           *includeEnc,
		CertificateVerifyRawTranscript: *tf.rawCV,
		ClientSessionCache:             tlcp.NewLRUClientSessionCache(1),
	}
	pair, err := tf.pair(false)
	if err != nil {
		return err
	}
	if pair != nil {
		cfg.Certificates = []tlcp.CertificatePair{*pair}
	}
	if cfg.RootCAs, err = tf.pool(); err != nil {
		return err
	}
	if cfg.RootCAs == nil && !*insecure {
		return usagef("-CAfile or -insecure is required (there are no built-in SM2 roots)")
	}
	if cfg.CipherSuites, err = tf.suites(); err != nil {
		return err
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(*connect)
		if err != nil {
			return usagef("-connect: %v", err)
		}
		cfg.ServerName = host
	}

	rounds := 1
	if *reconnect {
		rounds = 2
	}
	for range rounds {
		if err := clientRound(stdout, *connect, cfg, *msg, *timeout); err != nil {
			return err
		}
	}
	return nil
}

// stdin is what -stdin sends; tests replace it.
var stdin io.Reader = os.Stdin

func clientRound(stdout io.Writer, addr string, cfg *tlcp.Config, msg string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	d := &tlcp.Dialer{Config: cfg}
	start := time.Now()
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	conn := nc.(*tlcp.Conn)
	defer conn.Close()
	fmt.Fprintf(stdout, "CONNECTED %s (handshake %v)\n", conn.RemoteAddr(), time.Since(start).Round(time.Microsecond))
	printState(stdout, conn.ConnectionState(), "server")
	if msg == "" {
		return nil
	}
	conn.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(conn, msg); err != nil {
		return err
	}
	if err := conn.CloseWrite(); err != nil {
		return err
	}
	reply, err := io.ReadAll(conn)
	fmt.Fprintf(stdout, "reply (%d bytes): %s\n", len(reply), reply)
	return err
}
