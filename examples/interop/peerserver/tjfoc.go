// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"fmt"
	"net"

	"github.com/tjfoc/gmsm/gmtls"
	"github.com/tjfoc/gmsm/x509"
)

func listenTjfoc(addr string, c config) (net.Listener, error) {
	sign, err := gmtls.LoadX509KeyPair(c.signCert, c.signKey)
	if err != nil {
		return nil, fmt.Errorf("gmtls: signing pair: %w", err)
	}
	enc, err := gmtls.LoadX509KeyPair(c.encCert, c.encKey)
	if err != nil {
		return nil, fmt.Errorf("gmtls: encryption pair: %w", err)
	}
	cfg := &gmtls.Config{
		GMSupport: gmtls.NewGMSupport(),
		// SIGN first, ENC second: the order gmtls sends them in.
		Certificates: []gmtls.Certificate{sign, enc},
	}
	if c.caFile != "" {
		pool := x509.NewCertPool()
		if err := appendCAs(pool, c.caFile); err != nil {
			return nil, fmt.Errorf("gmtls: %w", err)
		}
		cfg.ClientAuth, cfg.ClientCAs = gmtls.RequireAndVerifyClientCert, pool
	}
	return gmtls.Listen("tcp", addr, cfg)
}
