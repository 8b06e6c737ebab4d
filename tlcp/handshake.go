// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import "github.com/shangmi-go/shangmi/ciphersuite"

// Steps and helpers that the TLCP and TLS 1.3 handshakes share.

// suiteNames lists suites by name for messages.
func suiteNames(ids []uint16) string {
	if len(ids) == 0 {
		return "none"
	}
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += ciphersuite.Name(id)
	}
	return s
}

// runSteps runs handshake steps in order and stops at the first failure,
// whose error (and alert) is the handshake's.
func runSteps(steps ...func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
