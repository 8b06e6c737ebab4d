// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build gotlcp

package main

import (
	"fmt"
	"net"

	"gitee.com/Trisia/gotlcp/tlcp"
	"github.com/emmansun/gmsm/smx509"
)

func init() { servers["gotlcp"] = listenGotlcp }

func listenGotlcp(addr string, c config) (net.Listener, error) {
	sign, err := tlcp.LoadX509KeyPair(c.signCert, c.signKey)
	if err != nil {
		return nil, fmt.Errorf("gotlcp: signing pair: %w", err)
	}
	enc, err := tlcp.LoadX509KeyPair(c.encCert, c.encKey)
	if err != nil {
		return nil, fmt.Errorf("gotlcp: encryption pair: %w", err)
	}
	cfg := &tlcp.Config{Certificates: []tlcp.Certificate{sign, enc}, SessionCache: tlcp.NewLRUSessionCache(64)}
	if c.caFile != "" {
		pool := smx509.NewCertPool()
		if err := appendCAs(pool, c.caFile); err != nil {
			return nil, fmt.Errorf("gotlcp: %w", err)
		}
		cfg.ClientAuth, cfg.ClientCAs = tlcp.RequireAndVerifyClientCert, pool
	}
	return tlcp.Listen("tcp", addr, cfg)
}
