// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/shangmi-go/shangmi/tlcp"
)

// keyUpdateRounds sends -keyupdates rounds on an established connection:
// a KeyUpdate (update_requested in the odd rounds, which the peer answers
// with its own before its next data), then msg, then whatever the server
// answers, which must come. It returns the bytes sent and received.
func keyUpdateRounds(c *tlcp.Conn, msg string) (sent, got int, err error) {
	buf := make([]byte, 4096)
	for r := 1; r <= *keyUpdates; r++ {
		requested := r%2 == 1
		if err := c.SendKeyUpdate(requested); err != nil {
			return sent, got, fmt.Errorf("KeyUpdate %d: %w", r, err)
		}
		n, err := io.WriteString(c, msg)
		sent += n
		if err != nil {
			return sent, got, fmt.Errorf("write after KeyUpdate %d: %w", r, err)
		}
		c.SetReadDeadline(time.Now().Add(*timeout))
		m, err := c.Read(buf)
		got += m
		if err != nil {
			return sent, got, fmt.Errorf("read after KeyUpdate %d (requested %v): %w", r, requested, err)
		}
		fmt.Printf("keyupdate %d (requested %v): read %q\n", r, requested, buf[:m])
	}
	return sent, got, nil
}
