// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package caddytlcp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/tlcp"
)

func tlcpFile(n string) string { return filepath.Join(testdata, "tlcp", n) }

// TestCaddyfileAndJSON: the Caddyfile form and the JSON form of one
// configuration give the same tlcp.Config.
func TestCaddyfileAndJSON(t *testing.T) {
	src := `tlcp {
		sign ` + tlcpFile("server_sign.pem") + ` ` + tlcpFile("server_sign.key") + `
		enc ` + tlcpFile("server_enc.pem") + ` ` + tlcpFile("server_enc.key") + `
		client_auth require_and_verify ` + tlcpFile("ca.pem") + `
		cipher_suites ECDHE_SM4_GCM_SM3 ecc_sm4_cbc_sm3 TLS_SM4_GCM_SM3
		protocols tlcp
		alpn h2 http/1.1
		handshake_timeout 3s
	}`
	var fromFile Listener
	if err := fromFile.UnmarshalCaddyfile(caddyfile.NewTestDispenser(src)); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(fromFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"sign_cert":`, `"enc_key":`, `"mode":"require_and_verify"`, `"trusted_ca_cert_files":[`, `"protocols":["tlcp"]`, `"handshake_timeout":3000000000`} {
		if !strings.Contains(string(js), w) {
			t.Errorf("JSON %s lacks %s", js, w)
		}
	}
	var fromJSON Listener
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*Listener{&fromFile, &fromJSON} {
		cfg, err := l.Config.build(caddy.NewReplacer())
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Certificates) != 1 || cfg.ClientAuth != tlcp.RequireAndVerifyClientCert || cfg.ClientCAs == nil ||
			!slices.Equal(cfg.CipherSuites, []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.TLS_SM4_GCM_SM3}) ||
			cfg.MaxVersion != tlcp.VersionTLCP || !slices.Equal(cfg.NextProtos, []string{"h2", "http/1.1"}) ||
			l.handshakeTimeout().Seconds() != 3 {
			t.Errorf("config: %+v", cfg)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	pair := `sign ` + tlcpFile("server_sign.pem") + ` ` + tlcpFile("server_sign.key") + `
		enc ` + tlcpFile("server_enc.pem") + ` ` + tlcpFile("server_enc.key")
	for _, c := range []struct{ src, want string }{
		{`tlcp {
			sign a b
		}`, "needs both sign and enc"},
		{`tlcp {
			sign a
		}`, "needs a certificate file and a key file"},
		{`tlcp {
			frobnicate
		}`, "unknown tlcp option"},
		{`tlcp {
			sign a b
			sign c d
		}`, "two sign certificates"},
	} {
		var l Listener
		err := l.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{`tlcp {
		}`, "no certificates"},
		{`tlcp {
			sign ` + tlcpFile("server_enc.pem") + ` ` + tlcpFile("server_enc.key") + `
			enc ` + tlcpFile("server_sign.pem") + ` ` + tlcpFile("server_sign.key") + `
		}`, "swapped"},
		{`tlcp {
			` + pair + `
			cipher_suites AES_128_GCM
		}`, "unknown cipher suite"},
		{`tlcp {
			` + pair + `
			protocols tls1.2
		}`, "unknown protocol"},
		{`tlcp {
			` + pair + `
			client_auth require_and_verify /nonexistent/ca.pem
		}`, "no such file"},
	} {
		var l Listener
		if err := l.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.src)); err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		_, err := l.Config.build(caddy.NewReplacer())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}
