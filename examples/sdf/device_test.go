// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/tlcp"
)

var pass = []byte("P@ssw0rd")

func TestPoolBoundedAndReused(t *testing.T) {
	lib := newFakeLibrary(t, 1)
	d := newDevice(lib, &Options{MaxSessions: 3})
	k, err := d.SignKey(1, pass)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			msg := []byte("concurrent")
			sig, err := k.Sign(rand.Reader, msg, &sm2.SignerOpts{})
			if err == nil && !sm2.VerifyASN1(k.Public().(*sm2.PublicKey), msg, nil, sig) {
				err = errors.New("signature does not verify")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if lib.opened > 3 {
		t.Errorf("%d sessions opened, MaxSessions 3", lib.opened)
	}
	if m := lib.maxInUse.Load(); m < 2 || m > 3 {
		t.Errorf("%d operations in flight at most, want 2 or 3 (parallel, bounded)", m)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(lib.sessions) != 0 || !lib.closed {
		t.Errorf("after Close: %d sessions open, device closed %v", len(lib.sessions), lib.closed)
	}
	if _, err := k.Sign(rand.Reader, []byte("x"), nil); !errors.Is(err, errClosed) {
		t.Errorf("Sign after Close: %v", err)
	}
	if err := d.Close(); !errors.Is(err, errClosed) {
		t.Errorf("second Close: %v", err)
	}
}

func TestAccessRights(t *testing.T) {
	lib := newFakeLibrary(t, 1, 2)
	d := newDevice(lib, &Options{MaxSessions: 2})
	defer d.Close()
	_, err := d.SignKey(1, []byte("wrong"))
	if !errors.Is(err, CodePrivateKeyRight) || !strings.Contains(err.Error(), "SDF_GetPrivateKeyAccessRight: SDR_PRKRERR") {
		t.Fatalf("wrong password: %v", err)
	}
	// The refused password is forgotten: the right one works afterwards.
	s, err := d.SignKey(1, pass)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Public().(*sm2.PublicKey).Equal(lib.keys[1].sign.PublicKey()) {
		t.Error("SignKey's public key is not the device's")
	}
	if _, err := d.EncKey(1, []byte("other")); err == nil || !strings.Contains(err.Error(), "another access password") {
		t.Errorf("a second password for index 1: %v", err)
	}
	if _, err := d.SignKey(9, pass); !errors.Is(err, CodeKeyNotExist) {
		t.Errorf("missing index: %v", err)
	}
	e, err := d.EncKey(2, pass)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Public().(*sm2.PublicKey).Equal(lib.keys[2].enc.PublicKey()) {
		t.Error("EncKey's public key is not the device's")
	}
	if pub, err := d.EncPublicKey(2); err != nil || !pub.Equal(e.Public()) {
		t.Errorf("EncPublicKey: %v", err)
	}
	if pub, err := d.SignPublicKey(2); err != nil || !pub.Equal(lib.keys[2].sign.PublicKey()) {
		t.Errorf("SignPublicKey: %v", err)
	}
	// Sessions opened later get the rights as they are used.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := s.Sign(rand.Reader, []byte("m"), nil); err != nil {
				t.Error(err)
			}
			ct, _ := sm2.EncryptASN1(rand.Reader, e.Public().(*sm2.PublicKey), []byte("m"))
			if _, err := e.Decrypt(rand.Reader, ct, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestBrokenSessionDiscarded(t *testing.T) {
	lib := newFakeLibrary(t, 1)
	d := newDevice(lib, &Options{MaxSessions: 1})
	defer d.Close()
	k, err := d.SignKey(1, pass)
	if err != nil {
		t.Fatal(err)
	}
	lib.fail["SDF_InternalSign_ECC"] = CodeHardFail
	_, err = k.Sign(rand.Reader, []byte("m"), nil)
	if !errors.Is(err, CodeHardFail) || !strings.Contains(err.Error(), "SDR_HARDFAIL") {
		t.Fatalf("Sign on a failing device: %v", err)
	}
	delete(lib.fail, "SDF_InternalSign_ECC")
	if _, err := k.Sign(rand.Reader, []byte("m"), nil); err != nil {
		t.Fatal(err)
	}
	if lib.opened != 2 || len(lib.sessions) != 1 {
		t.Errorf("%d sessions opened, %d open; want the broken one replaced", lib.opened, len(lib.sessions))
	}
	// A plain refusal keeps the session.
	lib.fail["SDF_InternalSign_ECC"] = CodeInArg
	k.Sign(rand.Reader, []byte("m"), nil)
	delete(lib.fail, "SDF_InternalSign_ECC")
	k.Sign(rand.Reader, []byte("m"), nil)
	if lib.opened != 2 {
		t.Errorf("%d sessions opened after SDR_INARGERR, want the session kept", lib.opened)
	}
	lib.fail["SDF_OpenSession"] = CodeOpenSession
	d2 := newDevice(lib, nil)
	if _, err := d2.SignKey(1, pass); !errors.Is(err, CodeOpenSession) {
		t.Errorf("OpenSession failing: %v", err)
	}
}

// digestOpts is a SignerOpts saying msg is already the digest e.
type digestOpts struct{}

func (digestOpts) HashFunc() crypto.Hash { return crypto.SHA256 }

func TestSignForms(t *testing.T) {
	lib := newFakeLibrary(t, 1)
	d := newDevice(lib, nil)
	defer d.Close()
	k, err := d.SignKey(1, pass)
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public().(*sm2.PublicKey)
	msg := []byte("message")
	for name, opts := range map[string]crypto.SignerOpts{"nil": nil, "SignerOpts": &sm2.SignerOpts{}} {
		sig, err := k.Sign(rand.Reader, msg, opts)
		if err != nil || !sm2.VerifyASN1(pub, msg, nil, sig) {
			t.Errorf("%s: %v, or the signature does not verify", name, err)
		}
	}
	uid := []byte("alice@example.com")
	sig, err := k.Sign(rand.Reader, msg, &sm2.SignerOpts{UID: uid})
	if err != nil || !sm2.VerifyASN1(pub, msg, uid, sig) || sm2.VerifyASN1(pub, msg, nil, sig) {
		t.Errorf("with a UID: %v, or verified with the wrong UID", err)
	}
	e := make([]byte, 32)
	rand.Read(e)
	sig, err = k.Sign(rand.Reader, e, digestOpts{})
	if err != nil || !sm2.VerifyDigestASN1(pub, e, sig) {
		t.Errorf("digest: %v", err)
	}
	if _, err := k.Sign(rand.Reader, e[:31], digestOpts{}); !errors.Is(err, errDigestLength) {
		t.Errorf("31-byte digest: %v", err)
	}
	if _, err := k.Sign(rand.Reader, msg, &sm2.SignerOpts{UID: make([]byte, 8192)}); err == nil {
		t.Error("a UID of 8192 bytes is accepted")
	}
}

func TestDecryptForms(t *testing.T) {
	lib := newFakeLibrary(t, 1)
	d := newDevice(lib, nil)
	defer d.Close()
	k, err := d.EncKey(1, pass)
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public().(*sm2.PublicKey)
	msg := []byte("premaster")
	for _, o := range []*sm2.EncrypterOpts{{ASN1: true}, {}, {Order: sm2.C1C2C3}, {CompressC1: true}} {
		ct, _ := sm2.Encrypt(rand.Reader, pub, msg, o)
		pt, err := k.Decrypt(rand.Reader, ct, o)
		if err != nil || !bytes.Equal(pt, msg) {
			t.Errorf("%+v: %q, %v", o, pt, err)
		}
	}
	ct, _ := sm2.EncryptASN1(rand.Reader, pub, msg)
	ct[len(ct)-1] ^= 1
	if _, err := k.Decrypt(rand.Reader, ct, nil); !errors.Is(err, CodePublicKeyOp) {
		t.Errorf("tampered ciphertext: %v", err)
	}
	if _, err := k.Decrypt(rand.Reader, ct[:20], nil); err != sm2.ErrDecryption {
		t.Errorf("malformed ciphertext: %v", err)
	}
	// The device's own encryption maps back to a DER form our Decrypt
	// reads.
	der, err := d.encryptInDevice(1, msg)
	if err != nil {
		t.Fatal(err)
	}
	if pt, err := sm2.DecryptASN1(lib.keys[1].enc, der); err != nil || !bytes.Equal(pt, msg) {
		t.Errorf("device ciphertext: %q, %v", pt, err)
	}
}

// TestTLCPWithDeviceKeys runs a TLCP server whose two keys are in a
// (fake) device through every suite: the ECC ones complete, the ECDHE
// ones are refused since the encryption key cannot do the SM2 key
// exchange, and complete with the encryption key in memory.
func TestTLCPWithDeviceKeys(t *testing.T) {
	lib := newFakeLibrary(t, 1)
	d := newDevice(lib, &Options{MaxSessions: 2})
	defer d.Close()
	runTLCPSuites(t, d, 1, 1, string(pass), lib.keys[1].enc)
}

// runTLCPSuites is the TLCP check for a device with keys at signIdx and
// encIdx; memEnc is the encryption key in memory, for the ECDHE suites.
func runTLCPSuites(t *testing.T, d *Device, signIdx, encIdx uint32, password string, memEnc *sm2.PrivateKey) {
	sign, err := d.SignKey(signIdx, []byte(password))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := d.EncKey(encIdx, []byte(password))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := any(enc).(tlcp.SM2KeyExchanger); ok {
		t.Fatal("EncKey claims to be an SM2KeyExchanger")
	}
	pki := newTestPKI(t)
	client := pki.memoryPair(t, "client.test")
	both := pki.serverPair(t, "server.test", sign, enc)
	addr := serve(t, both)
	var fallback string
	if memEnc != nil {
		p := both
		p.Enc.PrivateKey = memEnc
		fallback = serve(t, p)
	}
	for _, s := range allSuites {
		t.Run(s.name, func(t *testing.T) {
			st, err := handshake(addr, pki, s.id, client)
			if !s.ecdhe {
				if err != nil {
					t.Fatal(err)
				}
				if st.CipherSuite != s.id {
					t.Fatalf("suite 0x%04X negotiated", st.CipherSuite)
				}
				return
			}
			if err == nil {
				t.Fatal("an ECDHE suite completed with the encryption key in the device")
			}
			if fallback == "" {
				t.Skip("ECDHE needs the encryption key in memory; none given")
			}
			st, err = handshake(fallback, pki, s.id, client)
			if err != nil || st.CipherSuite != s.id {
				t.Fatalf("ECDHE, signing key in the device and encryption key in memory: %v", err)
			}
		})
	}
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				suite := allSuites[i%2].id
				if _, err := handshake(addr, pki, suite, client); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	})
}

func TestOpenWithoutLibrary(t *testing.T) {
	_, err := Open("/nonexistent/libsdf.so", nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/libsdf.so") {
		t.Fatalf("Open of a missing library: %v", err)
	}
	t.Log(err)
}
