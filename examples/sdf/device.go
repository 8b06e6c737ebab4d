// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
)

// library is one loaded SDF library with its device open: the calls this
// package makes, on raw session handles and the C structures' bytes. The
// cgo build implements it over dlopen (dl_cgo.go); tests implement it in
// Go.
type library interface {
	openSession() (uintptr, error)
	closeSession(s uintptr) error
	getPrivateKeyAccessRight(s uintptr, index uint32, password []byte) error
	// exportPublicKey fills an ECCrefPublicKey.
	exportPublicKey(s uintptr, index uint32, enc bool, out []byte) error
	// internalSign signs the 32-byte e into an ECCSignature.
	internalSign(s uintptr, index uint32, e, sig []byte) error
	// internalDecrypt decrypts an ECCCipher into out, returning the length.
	internalDecrypt(s uintptr, index uint32, cipher, out []byte) (int, error)
	// internalEncrypt encrypts data to the index's encryption key into an
	// ECCCipher of len(cipher) bytes.
	internalEncrypt(s uintptr, index uint32, data, cipher []byte) error
	// close closes the device and unloads the library.
	close() error
}

// Options tune a Device.
type Options struct {
	// MaxSessions bounds the sessions open at once, which is the number
	// of private key operations in flight; further callers wait for a
	// session. Zero means 2 × GOMAXPROCS.
	MaxSessions int
}

// A Device is an open SDF device with a pool of sessions. Its keys are
// safe for concurrent use: each operation takes a session from the pool
// (opening one, up to Options.MaxSessions, when none is idle) and gives it
// back, so concurrent handshakes run in parallel on separate sessions and
// sessions are reused rather than opened per operation.
type Device struct {
	lib library

	// listMu makes opening and closing sessions exclusive with every
	// other call. GM/T 0018 does not say whether a device's session table
	// may change while other sessions work, and SoftSDF keeps it in an
	// unlocked linked list that each call walks.
	listMu sync.RWMutex

	slots   chan struct{} // one token per session in use
	closeMu sync.Mutex    // one Close at a time

	mu       sync.Mutex
	idle     []*session
	closed   bool
	password map[uint32][]byte // the access password of each key index in use
}

// session is a pooled session and the key indexes it has access rights to.
type session struct {
	h      uintptr
	rights map[uint32]bool
}

var errClosed = errors.New("sdf: device is closed")

// Open loads the SDF library at libPath (a vendor's .so, SoftSDF's
// libsoftsdf.so) at run time and opens its device. Nothing is linked at
// build time; a build without cgo returns an error here.
//
// Many SDF libraries allow one open device per process (SoftSDF does):
// share the Device rather than opening the library twice.
func Open(libPath string, opts *Options) (*Device, error) {
	lib, err := openLibrary(libPath)
	if err != nil {
		return nil, err
	}
	return newDevice(lib, opts), nil
}

func newDevice(lib library, opts *Options) *Device {
	n := 2 * runtime.GOMAXPROCS(0)
	if opts != nil && opts.MaxSessions > 0 {
		n = opts.MaxSessions
	}
	return &Device{lib: lib, slots: make(chan struct{}, n), password: map[uint32][]byte{}}
}

// Close waits for the operations in flight, closes every session and the
// device, and unloads the library. Keys of a closed device return errors.
func (d *Device) Close() error {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	// Holding every slot waits for the operations in flight; the slots are
	// given back at the end, and callers that get one then see closed.
	for range cap(d.slots) {
		d.slots <- struct{}{}
	}
	defer func() {
		for range cap(d.slots) {
			<-d.slots
		}
	}()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errClosed
	}
	d.closed = true
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	var errs []error
	d.listMu.Lock()
	for _, s := range idle {
		errs = append(errs, d.lib.closeSession(s.h))
	}
	d.listMu.Unlock()
	errs = append(errs, d.lib.close())
	return errors.Join(errs...)
}

// acquire takes an idle session or opens one, waiting while MaxSessions
// are in use.
func (d *Device) acquire() (*session, error) {
	d.slots <- struct{}{}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		<-d.slots
		return nil, errClosed
	}
	if n := len(d.idle); n > 0 {
		s := d.idle[n-1]
		d.idle = d.idle[:n-1]
		d.mu.Unlock()
		return s, nil
	}
	d.mu.Unlock()
	d.listMu.Lock()
	h, err := d.lib.openSession()
	d.listMu.Unlock()
	if err != nil {
		<-d.slots
		return nil, err
	}
	return &session{h: h, rights: map[uint32]bool{}}, nil
}

// release returns s to the pool, or closes it if broken.
func (d *Device) release(s *session, broken bool) {
	if broken {
		d.listMu.Lock()
		d.lib.closeSession(s.h) // a broken session's close error says nothing new
		d.listMu.Unlock()
	} else {
		d.mu.Lock()
		d.idle = append(d.idle, s)
		d.mu.Unlock()
	}
	<-d.slots
}

// sessionBroken reports whether err means the session cannot be trusted
// with another call.
func sessionBroken(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case CodeCommFail, CodeHardFail, CodeOpenSession, CodeStep, CodeUnknown:
		return true
	}
	return false
}

// do runs fn on a pooled session that holds the access right to index
// (none if needKey is false).
func (d *Device) do(index uint32, needKey bool, fn func(h uintptr) error) error {
	s, err := d.acquire()
	if err != nil {
		return err
	}
	if needKey && !s.rights[index] {
		d.mu.Lock()
		pass, ok := d.password[index]
		d.mu.Unlock()
		if !ok {
			d.release(s, false)
			return fmt.Errorf("sdf: no access password for key index %d", index)
		}
		d.listMu.RLock()
		err := d.lib.getPrivateKeyAccessRight(s.h, index, pass)
		d.listMu.RUnlock()
		if err != nil {
			d.release(s, sessionBroken(err))
			return fmt.Errorf("%w (key index %d)", err, index)
		}
		s.rights[index] = true
	}
	d.listMu.RLock()
	err = fn(s.h)
	d.listMu.RUnlock()
	d.release(s, sessionBroken(err))
	return err
}

// setPassword records the access password of index for every session.
func (d *Device) setPassword(index uint32, password []byte) error {
	if len(password) == 0 {
		return fmt.Errorf("sdf: key index %d: empty access password", index)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if old, ok := d.password[index]; ok {
		if !bytes.Equal(old, password) {
			return fmt.Errorf("sdf: key index %d is already in use with another access password", index)
		}
		return nil
	}
	d.password[index] = bytes.Clone(password)
	return nil
}

// forgetPassword undoes setPassword after the device refused the password,
// so that a retry with the right one can succeed.
func (d *Device) forgetPassword(index uint32) {
	d.mu.Lock()
	delete(d.password, index)
	for _, s := range d.idle {
		delete(s.rights, index)
	}
	d.mu.Unlock()
}

// SignPublicKey exports the public key of the signing key pair at index
// (SDF_ExportSignPublicKey_ECC). It needs no access right: it is how a
// certificate request for a key in the device is made.
func (d *Device) SignPublicKey(index uint32) (*sm2.PublicKey, error) {
	return d.publicKey(index, false)
}

// EncPublicKey exports the public key of the encryption key pair at index
// (SDF_ExportEncPublicKey_ECC).
func (d *Device) EncPublicKey(index uint32) (*sm2.PublicKey, error) {
	return d.publicKey(index, true)
}

func (d *Device) publicKey(index uint32, enc bool) (*sm2.PublicKey, error) {
	return d.exportPublicKey(index, enc, false)
}

// exportPublicKey exports a public key on a session that holds the access
// right to index if needKey.
func (d *Device) exportPublicKey(index uint32, enc, needKey bool) (*sm2.PublicKey, error) {
	var pub *sm2.PublicKey
	err := d.do(index, needKey, func(h uintptr) error {
		b := make([]byte, publicKeyStructLen)
		if err := d.lib.exportPublicKey(h, index, enc, b); err != nil {
			return err
		}
		var err error
		pub, err = parsePublicKeyStruct(b)
		return err
	})
	return pub, err
}

// key gets the access right to index with password on a session, which
// checks the password, and exports the key's public key.
func (d *Device) key(index uint32, password []byte, enc bool) (*sm2.PublicKey, error) {
	if err := d.setPassword(index, password); err != nil {
		return nil, err
	}
	pub, err := d.exportPublicKey(index, enc, true)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Func == "SDF_GetPrivateKeyAccessRight" {
			d.forgetPassword(index)
		}
		return nil, err
	}
	return pub, nil
}

// SignKey returns the SM2 signing key at index, unlocked with its access
// password (SDF_GetPrivateKeyAccessRight, on each session as the pool
// hands it out).
func (d *Device) SignKey(index uint32, password []byte) (*SignKey, error) {
	pub, err := d.key(index, password, false)
	if err != nil {
		return nil, err
	}
	return &SignKey{d: d, index: index, pub: pub, z: pub.Z(nil)}, nil
}

// EncKey returns the SM2 encryption key at index, unlocked with its access
// password.
func (d *Device) EncKey(index uint32, password []byte) (*EncKey, error) {
	pub, err := d.key(index, password, true)
	if err != nil {
		return nil, err
	}
	return &EncKey{d: d, index: index, pub: pub}, nil
}

// SignKey is an SM2 signing key inside the device: a crypto.Signer that
// tlcp, smx509 and the cms package take where they take an
// *sm2.PrivateKey.
type SignKey struct {
	d     *Device
	index uint32
	pub   *sm2.PublicKey
	z     []byte // Z for the default identifier, which TLCP always uses
}

// Public returns the key's *sm2.PublicKey.
func (k *SignKey) Public() crypto.PublicKey { return k.pub }

// Index returns the key's index in the device.
func (k *SignKey) Index() uint32 { return k.index }

var errDigestLength = errors.New("sdf: a digest to sign must be 32 bytes, SM3(Z ‖ M)")

// Sign signs with SDF_InternalSign_ECC, which takes the digest
// e = SM3(Z ‖ M). As for *sm2.PrivateKey: if opts is nil or its HashFunc
// is 0 (an *sm2.SignerOpts, what tlcp passes), msg is the message and e is
// computed here with the identifier of the *sm2.SignerOpts, the default
// one otherwise; for any other opts msg is e itself. The signature is the
// DER SEQUENCE { r, s } that sm2.VerifyASN1 checks. rand is not used: the
// device makes its own nonce.
func (k *SignKey) Sign(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	var e []byte
	if opts == nil || opts.HashFunc() == 0 {
		z := k.z
		if o, ok := opts.(*sm2.SignerOpts); ok && o != nil && len(o.UID) > 0 {
			if z = k.pub.Z(o.UID); z == nil {
				return nil, errors.New("sdf: user identifier longer than 8191 bytes")
			}
		}
		h := sm3.New()
		h.Write(z)
		h.Write(msg)
		e = h.Sum(nil)
	} else {
		if len(msg) != 32 {
			return nil, errDigestLength
		}
		e = msg
	}
	sig := make([]byte, signatureStructLen)
	err := k.d.do(k.index, true, func(h uintptr) error {
		return k.d.lib.internalSign(h, k.index, e, sig)
	})
	if err != nil {
		return nil, err
	}
	return signatureFromStruct(sig)
}

// EncKey is an SM2 encryption key inside the device: a crypto.Decrypter,
// what tlcp needs of a server's (or an ECC client's) encryption key.
//
// It is not a tlcp.SM2KeyExchanger, so a TLCP server whose encryption key
// is in the device negotiates the ECC suites only (see the README): GM/T
// 0018's key agreement (SDF_GenerateAgreementDataWithECC,
// SDF_GenerateKeyWithECC) leaves the agreed key inside the device as a
// key handle, and TLCP needs the premaster's bytes for its PRF.
type EncKey struct {
	d     *Device
	index uint32
	pub   *sm2.PublicKey
}

// Public returns the key's *sm2.PublicKey.
func (k *EncKey) Public() crypto.PublicKey { return k.pub }

// Index returns the key's index in the device.
func (k *EncKey) Index() uint32 { return k.index }

// Decrypt decrypts with SDF_InternalDecrypt_ECC. The ciphertext's format
// follows opts as for *sm2.PrivateKey (see ParseCiphertext); tlcp passes
// the GM/T 0009 DER form with *sm2.DecrypterOpts{ASN1: true}. A malformed
// ciphertext is sm2.ErrDecryption; a device failure is an *Error (SoftSDF
// reports a wrong C3 as SDR_PKOPERR).
func (k *EncKey) Decrypt(_ io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	c, err := ParseCiphertext(ciphertext, opts)
	if err != nil {
		return nil, err
	}
	in := c.marshalStruct()
	out := make([]byte, len(c.C))
	var n int
	err = k.d.do(k.index, true, func(h uintptr) error {
		var err error
		n, err = k.d.lib.internalDecrypt(h, k.index, in, out)
		return err
	})
	if err != nil {
		return nil, err
	}
	if n != len(c.C) {
		return nil, fmt.Errorf("sdf: SDF_InternalDecrypt_ECC returned %d bytes for a %d-byte message", n, len(c.C))
	}
	return out, nil
}

// encryptInDevice encrypts msg to the encryption key at index inside the
// device (SDF_InternalEncrypt_ECC) and returns the GM/T 0009 DER form. Its
// use is checking the ECCCipher mapping against a device.
func (d *Device) encryptInDevice(index uint32, msg []byte) ([]byte, error) {
	if len(msg) == 0 || len(msg) > maxCipherC {
		return nil, fmt.Errorf("sdf: cannot encrypt %d bytes", len(msg))
	}
	buf := make([]byte, cipherHeaderLen+maxCipherC)
	err := d.do(index, false, func(h uintptr) error {
		return d.lib.internalEncrypt(h, index, msg, buf)
	})
	if err != nil {
		return nil, err
	}
	c, err := parseCipherStruct(buf)
	if err != nil {
		return nil, err
	}
	return c.MarshalASN1()
}
