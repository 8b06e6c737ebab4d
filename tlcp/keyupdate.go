// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"net"
)

// A KeyUpdate on the application's request (RFC 8446 §4.6.3), as
// OpenSSL's and Tongsuo's SSL_key_update. It is sent by the code that
// sends the automatic update at keyUpdateInterval records and the answer
// to a peer's update_requested (updateWriteKeyLocked), so the three
// cannot differ.

var (
	errKeyUpdateBeforeHandshake = errors.New("tlcp: SendKeyUpdate before the handshake completed")
	errKeyUpdateRunFull         = fmt.Errorf("tlcp: SendKeyUpdate: this side has sent %d KeyUpdates with nothing after them, and the peer would end the connection at the next; none was sent (write data first)", maxKeyUpdatesInARow)
)

// SendKeyUpdate sends a TLS 1.3 KeyUpdate and moves this side's sending
// keys to the next traffic secret; the records that follow the message are
// protected under them. If requestPeerUpdate is set, the message is
// update_requested, which asks the peer to update its sending keys too (it
// answers with a KeyUpdate of its own before its next application data,
// which Read takes in); otherwise update_not_requested. These are
// OpenSSL's SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) and
// SSL_KEY_UPDATE_NOT_REQUESTED, followed by SSL_do_handshake: the
// message is written before SendKeyUpdate returns.
//
// The handshake must have completed (SendKeyUpdate does not start it),
// and the connection must be TLS 1.3: TLCP has no KeyUpdate (its keys
// change only with a new handshake, which it does not allow), and on a
// TLCP connection SendKeyUpdate sends nothing and returns an error. It
// may be called concurrently with Read and Write; it waits for a Write
// under way to finish, as another Write would. After close_notify it
// returns the error Write would.
//
// Peers bound the KeyUpdates they take with nothing between them (this
// package and BoringSSL at 32, then unexpected_message), since an endless
// run of them costs the receiver a key derivation each and carries
// nothing. Such a run can only come from a sender that writes no
// application data between its updates, where the later updates protect
// nothing: so once this side has sent that many KeyUpdates with no other
// record after them (counting the automatic ones and its answers to the
// peer's requests), SendKeyUpdate(false) sends nothing and returns nil,
// the sending keys being unused since the last update, and
// SendKeyUpdate(true) sends nothing and returns an error; the connection
// stays usable either way, and the next Write ends the run. An
// application that writes between its updates never meets this.
func (c *Conn) SendKeyUpdate(requestPeerUpdate bool) error {
	if !c.writers.enter() {
		return net.ErrClosed
	}
	defer c.writers.leave()
	if !c.isHandshakeComplete.Load() {
		return errKeyUpdateBeforeHandshake
	}
	if c.vers != VersionTLS13 {
		return fmt.Errorf("tlcp: SendKeyUpdate on a %s connection: KeyUpdate is a TLS 1.3 message, and %s changes keys only in a handshake; nothing was sent", versionName(c.vers), versionName(c.vers))
	}
	c.out.Lock()
	defer c.out.Unlock()
	if err := c.out.err; err != nil {
		return err
	}
	if c.closeNotifySent {
		return errShutdown
	}
	if c.keyUpdateRunFullLocked() {
		if !requestPeerUpdate {
			return nil
		}
		return errKeyUpdateRunFull
	}
	return c.updateWriteKeyLocked(requestPeerUpdate)
}

// keyUpdateRunFullLocked reports whether this side has sent
// maxKeyUpdatesInARow KeyUpdates with nothing after them, so that the
// peer would take one more as a flood (handleKeyUpdate's count). c.out is
// held.
func (c *Conn) keyUpdateRunFullLocked() bool {
	return c.out.rp.Sequence() == 0 && c.tls13.keyUpdatesSentInARow >= maxKeyUpdatesInARow
}
