// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

import (
	"errors"
	"fmt"
	"sync"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

// halfConn is one direction of the record layer, for both protocols: one
// protection (nil while records go in the clear) and the one that comes
// next. TLCP agrees its keys during the handshake and installs them at
// ChangeCipherSpec, so nextRP waits in between; TLS 1.3 installs each new
// protection at once (setTrafficSecret), with no message in between.
type halfConn struct {
	sync.Mutex
	err    error                        // first permanent error
	rp     ciphersuite.RecordProtection // nil: records in the clear
	nextRP ciphersuite.RecordProtection // TLCP: installed by ChangeCipherSpec

	// TLS 1.3: the suite and traffic secret rp was made from, from which
	// a KeyUpdate derives the next (RFC 8446 §7.2).
	suite13  *ciphersuite.TLS13Suite
	secret13 []byte
}

func (hc *halfConn) setErrorLocked(err error) error {
	if hc.err == nil {
		hc.err = err
	}
	return err
}

// changeCipherSpec switches to the pending protection; its sequence number
// starts at zero (INTEROP.md §1.4).
func (hc *halfConn) changeCipherSpec() error {
	if hc.nextRP == nil {
		return errorf(alertUnexpectedMessage, "tlcp: ChangeCipherSpec before keys were agreed")
	}
	hc.rp, hc.nextRP = hc.nextRP, nil
	return nil
}

// setTrafficSecret installs TLS 1.3 protection under a new traffic
// secret, with a sequence number from zero. The caller makes sure the
// change falls on a record boundary, no handshake message spanning it
// (RFC 8446 §5.1).
func (hc *halfConn) setTrafficSecret(suite *ciphersuite.TLS13Suite, secret []byte) error {
	rp, err := suite.NewRecordProtection(secret)
	if err != nil {
		return errorf(alertInternalError, "tlcp: %w", err)
	}
	hc.rp, hc.nextRP = rp, nil
	hc.suite13, hc.secret13 = suite, secret
	return nil
}

// overhead is the most that protection adds to a record.
func (hc *halfConn) overhead() int {
	if hc.rp == nil {
		return 0
	}
	return hc.rp.Overhead()
}

// openFailure turns an error of Open or OpenBatch into the error the
// connection fails with.
func openFailure(err error) error {
	var pe *protocolError
	switch {
	case errors.As(err, &pe):
		return err
	case errors.Is(err, ciphersuite.ErrSequenceOverflow):
		return errorf(alertFor(err), "tlcp: the peer has sent all 2^64-1 records a connection allows: %w", err)
	case errors.Is(err, ciphersuite.ErrMissingContentType):
		// RFC 8446 §5.4: an inner plaintext without a non-zero byte.
		return errorf(alertUnexpectedMessage, "tlcp: received a TLS 1.3 record without a content type: %w", err)
	}
	return errorf(alertFor(err), "tlcp: received record: %w", err)
}

// sealFailure turns an error of Seal or SealBatch into the error the
// connection's writes fail with from then on.
func sealFailure(err error) error {
	if errors.Is(err, ciphersuite.ErrSequenceOverflow) {
		// Nothing more can be sent, not even an alert (it too needs a
		// sequence number); the error is sticky, and Close closes the
		// transport.
		return fmt.Errorf("tlcp: this side has sent all 2^64-1 records a connection allows; close it and reconnect: %w", err)
	}
	return err
}

// checkInnerType refuses the inner content type that a protected TLS 1.3
// record may not have: ChangeCipherSpec only ever comes in the clear
// (RFC 8446 §5).
func checkInnerType(typ recordType) error {
	if typ == recordTypeChangeCipherSpec {
		return errorf(alertUnexpectedMessage, "tlcp: received a protected ChangeCipherSpec")
	}
	return nil
}

// maxUselessRecords bounds consecutive empty records and warnings. Tongsuo
// clients send one empty application_data record before real data, so some
// are legitimate.
const maxUselessRecords = 16
