// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command smtool is the toolbox for SM2 certificates and TLCP connections:
// keys, requests, a small CA and CRLs, certificate display and
// verification (key, req, ca, crl, cert), a TLCP client and server in the
// manner of openssl s_client / s_server, with handshake traces, key logs
// and the interop switches GmSSL and Tongsuo need (s_client, s_server),
// and a benchmark of the primitives and of handshakes (speed).
//
// Usage:
//
//	smtool <command> [subcommand] [flags] [arguments]
//	smtool help [command]
//
// Flags follow the openssl spelling where one exists, and accept the
// spellings of Tongsuo and GmSSL as aliases, so that a command copied from
// their documentation works. Every command prints its usage, flags and an
// example with -h.
package main

import (
	"os"

	"github.com/shangmi-go/shangmi/examples/smtool/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
