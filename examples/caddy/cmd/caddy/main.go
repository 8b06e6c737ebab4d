// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command caddy is Caddy v2 with its standard modules and the caddytlcp
// plugin, as xcaddy would build it:
//
//	go build -o caddy ./cmd/caddy
//	./caddy run --config Caddyfile
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/shangmi-go/shangmi/examples/caddy/caddytlcp"
)

func main() {
	caddycmd.Main()
}
