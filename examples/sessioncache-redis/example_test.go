// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sessioncache_test

import (
	"context"
	"encoding/hex"
	"log"
	"os"
	"time"

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

// A fleet whose session cache keys rotate by themselves: each server is
// given only the WrapKey (here from the environment), and the ring in Redis
// gives all of them the same session cache keys, a new one every day.
func ExampleKeyRing() {
	pair, err := tlcp.LoadCertificatePair("sign.pem", "sign.key", "enc.pem", "enc.key")
	if err != nil {
		log.Fatal(err)
	}
	wrap, err := hex.DecodeString(os.Getenv("TLCP_KEYRING_WRAP_KEY"))
	if err != nil || len(wrap) != 32 {
		log.Fatal("TLCP_KEYRING_WRAP_KEY must be 64 hexadecimal digits")
	}
	rc := redis.NewClient(&redis.Options{Addr: "redis.internal:6379"})
	cfg := &tlcp.Config{
		Certificates:       []tlcp.CertificatePair{pair},
		ServerSessionCache: sessioncache.New(rc),
		SessionLifetime:    time.Hour,
	}
	ring := &sessioncache.KeyRing{
		Client:   rc,
		WrapKey:  [32]byte(wrap),
		Period:   24 * time.Hour,
		Lifetime: cfg.SessionLifetime,
		OnError:  func(op string, err error) { log.Printf("key ring %s: %v", op, err) },
	}
	ring.Use(cfg)
	go ring.Run(context.Background()) // refreshes every minute
	ln, err := tlcp.Listen("tcp", ":443", cfg)
	if err != nil {
		log.Fatal(err)
	}
	_ = ln // serve, e.g. tlcp.ServeHTTP(srv, ln, cfg)
}
