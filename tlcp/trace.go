// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

// traceMessage reports a handshake message, ChangeCipherSpec or alert to
// Config.MessageTrace. The call sites are where the record layer writes
// these (writeHandshake, writeChangeCipherSpec, sendAlertLocked) and
// where it takes them in (readHandshake, after reassembly and decryption;
// handleRecord, for ChangeCipherSpec and alerts), so every message of
// either direction is reported once, Finished and post-handshake
// messages included.
func (c *Conn) traceMessage(sent bool, typ recordType, msg []byte) {
	if c.config != nil && c.config.MessageTrace != nil {
		c.config.MessageTrace(c, sent, uint8(typ), msg)
	}
}
