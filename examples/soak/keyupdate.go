// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"

	"github.com/shangmi-go/shangmi/tlcp"
)

// updateKeys is the correct client that updates its keys: on a TLS 1.3
// connection it alternates echoes of 1 byte to 64 KiB with KeyUpdates,
// asking the server to update its keys too in about half, and checks
// every echo, so that each update is followed by data both ways under
// the new keys (the server's answer to a request comes before its echo).
// On a TLCP connection it checks that SendKeyUpdate refuses and leaves
// the connection working.
func (s *soak) updateKeys(v variant) error {
	cfg := v.fresh
	if mrand.IntN(2) == 0 {
		cfg = v.cfg
	}
	c, err := s.dial(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if c.ConnectionState().Version != tlcp.VersionTLS13 {
		if err := c.SendKeyUpdate(true); err == nil {
			return errors.New("SendKeyUpdate succeeded on a TLCP connection")
		}
		return s.exchange(c, 1+mrand.IntN(2000))
	}
	for i := range 4 + mrand.IntN(40) {
		request := mrand.IntN(2) == 0
		if err := c.SendKeyUpdate(request); err != nil {
			return fmt.Errorf("KeyUpdate %d (requested %v): %w", i, request, err)
		}
		s.keyUpdates.Add(1)
		if err := s.exchange(c, 1+mrand.IntN(64<<10)); err != nil {
			return fmt.Errorf("after KeyUpdate %d (requested %v): %w", i, request, err)
		}
	}
	return nil
}
