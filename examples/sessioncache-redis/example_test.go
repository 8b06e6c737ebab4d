// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sessioncache_test

import (
	"encoding/hex"
	"log"
	"os"

	"github.com/redis/go-redis/v9"

	sessioncache "github.com/shangmi-go/shangmi/examples/sessioncache-redis"
	"github.com/shangmi-go/shangmi/tlcp"
)

// A server of a fleet: every server has the same certificates, the same
// Redis and the same session cache key (here from the environment, as 64
// hexadecimal digits; in practice from a secret store), so a client
// resumes its session on whichever server the load balancer picks.
func Example() {
	pair, err := tlcp.LoadCertificatePair("sign.pem", "sign.key", "enc.pem", "enc.key")
	if err != nil {
		log.Fatal(err)
	}
	secret, err := hex.DecodeString(os.Getenv("TLCP_SESSION_KEY"))
	if err != nil || len(secret) != tlcp.SessionCacheKeySize {
		log.Fatal("TLCP_SESSION_KEY must be 64 hexadecimal digits")
	}
	store := sessioncache.New(redis.NewClient(&redis.Options{Addr: "redis.internal:6379"}))
	store.OnError = func(op string, err error) { log.Printf("session cache %s: %v", op, err) }

	cfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}, ServerSessionCache: store}
	cfg.SetSessionCacheKeys([][tlcp.SessionCacheKeySize]byte{[tlcp.SessionCacheKeySize]byte(secret)})
	ln, err := tlcp.Listen("tcp", ":443", cfg)
	if err != nil {
		log.Fatal(err)
	}
	_ = ln // serve, e.g. tlcp.ServeHTTP(srv, ln, cfg)
}
