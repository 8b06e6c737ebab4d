// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

// fakeLibrary is an SDF device in Go, for the tests that need no device:
// it keeps its key pairs in memory and checks what a device checks.
type fakeLibrary struct {
	mu       sync.Mutex
	keys     map[uint32]fakeKeys
	sessions map[uintptr]map[uint32]bool // open sessions and their rights
	next     uintptr
	opened   int // sessions ever opened
	inUse    atomic.Int32
	maxInUse atomic.Int32
	fail     map[string]Code // calls to fail, by function name
	closed   bool
}

type fakeKeys struct {
	sign, enc *sm2.PrivateKey
	password  string
}

func newFakeLibrary(t testing.TB, indexes ...uint32) *fakeLibrary {
	f := &fakeLibrary{keys: map[uint32]fakeKeys{}, sessions: map[uintptr]map[uint32]bool{}, fail: map[string]Code{}}
	for _, i := range indexes {
		s, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		e, err := sm2.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		f.keys[i] = fakeKeys{sign: s, enc: e, password: "P@ssw0rd"}
	}
	return f
}

func (f *fakeLibrary) failing(fn string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.fail[fn]; ok {
		return &Error{Func: fn, Code: c}
	}
	return nil
}

func (f *fakeLibrary) openSession() (uintptr, error) {
	if err := f.failing("SDF_OpenSession"); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.opened++
	f.sessions[f.next] = map[uint32]bool{}
	return f.next, nil
}

func (f *fakeLibrary) closeSession(s uintptr) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.sessions[s]; !ok {
		return &Error{Func: "SDF_CloseSession", Code: CodeInArg}
	}
	delete(f.sessions, s)
	return nil
}

func (f *fakeLibrary) getPrivateKeyAccessRight(s uintptr, index uint32, password []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.keys[index]
	if !ok {
		return &Error{Func: "SDF_GetPrivateKeyAccessRight", Code: CodeKeyNotExist}
	}
	if string(password) != k.password {
		return &Error{Func: "SDF_GetPrivateKeyAccessRight", Code: CodePrivateKeyRight}
	}
	f.sessions[s][index] = true
	return nil
}

// use marks a call in flight on s and returns the keys at index, checking
// the access right if needRight.
func (f *fakeLibrary) use(fn string, s uintptr, index uint32, needRight bool) (fakeKeys, func(), error) {
	if err := f.failing(fn); err != nil {
		return fakeKeys{}, nil, err
	}
	f.mu.Lock()
	rights, ok := f.sessions[s]
	k, kok := f.keys[index]
	f.mu.Unlock()
	if !ok {
		return k, nil, &Error{Func: fn, Code: CodeInArg}
	}
	if !kok {
		return k, nil, &Error{Func: fn, Code: CodeKeyNotExist}
	}
	if needRight && !rights[index] {
		return k, nil, &Error{Func: fn, Code: CodePermissionDenied}
	}
	n := f.inUse.Add(1)
	for {
		m := f.maxInUse.Load()
		if n <= m || f.maxInUse.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(time.Millisecond) // so that concurrent calls overlap
	return k, func() { f.inUse.Add(-1) }, nil
}

func (f *fakeLibrary) exportPublicKey(s uintptr, index uint32, enc bool, out []byte) error {
	k, done, err := f.use("SDF_ExportSignPublicKey_ECC", s, index, false)
	if err != nil {
		return err
	}
	defer done()
	pub := k.sign.PublicKey().Bytes()
	if enc {
		pub = k.enc.PublicKey().Bytes()
	}
	binary.NativeEndian.PutUint32(out, 256)
	copy(out[4+32:], pub[1:33])
	copy(out[4+64+32:], pub[33:])
	return nil
}

func (f *fakeLibrary) internalSign(s uintptr, index uint32, e, sig []byte) error {
	k, done, err := f.use("SDF_InternalSign_ECC", s, index, true)
	if err != nil {
		return err
	}
	defer done()
	if len(e) != 32 {
		return &Error{Func: "SDF_InternalSign_ECC", Code: CodeInArg}
	}
	der, err := sm2.SignDigestASN1(rand.Reader, k.sign, e)
	if err != nil {
		return err
	}
	in := cryptobyte.String(der)
	var seq cryptobyte.String
	var r, ss big.Int
	if !in.ReadASN1(&seq, asn1.SEQUENCE) || !seq.ReadASN1Integer(&r) || !seq.ReadASN1Integer(&ss) {
		return errors.New("fake: bad signature")
	}
	r.FillBytes(sig[32:64])
	ss.FillBytes(sig[96:128])
	return nil
}

func (f *fakeLibrary) internalDecrypt(s uintptr, index uint32, cipher, out []byte) (int, error) {
	k, done, err := f.use("SDF_InternalDecrypt_ECC", s, index, true)
	if err != nil {
		return 0, err
	}
	defer done()
	c, err := parseCipherStruct(cipher)
	if err != nil {
		return 0, &Error{Func: "SDF_InternalDecrypt_ECC", Code: CodeInArg}
	}
	raw := append(append(append([]byte{4}, c.X[:]...), c.Y[:]...), c.M[:]...)
	msg, err := sm2.Decrypt(k.enc, append(raw, c.C...), nil)
	if err != nil {
		return 0, &Error{Func: "SDF_InternalDecrypt_ECC", Code: CodePublicKeyOp}
	}
	return copy(out, msg), nil
}

func (f *fakeLibrary) internalEncrypt(s uintptr, index uint32, data, cipher []byte) error {
	k, done, err := f.use("SDF_InternalEncrypt_ECC", s, index, false)
	if err != nil {
		return err
	}
	defer done()
	raw, err := sm2.Encrypt(rand.Reader, k.enc.PublicKey(), data, nil)
	if err != nil {
		return err
	}
	c, err := ParseCiphertext(raw, &sm2.DecrypterOpts{})
	if err != nil {
		return err
	}
	copy(cipher, c.marshalStruct())
	return nil
}

func (f *fakeLibrary) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sessions) != 0 {
		return errors.New("fake: device closed with sessions open")
	}
	f.closed = true
	return nil
}

// testPKI issues TLCP certificates from an in-memory CA.
type testPKI struct {
	caCert *smx509.Certificate
	caKey  *sm2.PrivateKey
	pool   *smx509.CertPool
	serial int64
}

func newTestPKI(t testing.TB) *testPKI {
	k, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &smx509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sdf test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, tmpl, k.PublicKey(), k)
	if err != nil {
		t.Fatal(err)
	}
	c, err := smx509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	p := smx509.NewCertPool()
	p.AddCert(c)
	return &testPKI{caCert: c, caKey: k, pool: p, serial: 1}
}

// issue makes a certificate for pub: a signing one or an encryption one.
func (p *testPKI) issue(t testing.TB, name string, pub *sm2.PublicKey, enc bool) []byte {
	p.serial++
	ku := smx509.KeyUsageDigitalSignature
	if enc {
		ku = smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement
	}
	tmpl := &smx509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: ku, DNSNames: []string{name},
		ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth, smx509.ExtKeyUsageClientAuth},
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, p.caCert, pub, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// pair makes a TLCP certificate pair for the two keys.
func (p *testPKI) pair(t testing.TB, name string, sign, enc crypto.Signer) tlcp.CertificatePair {
	return tlcp.CertificatePair{
		Sign: tlcp.Certificate{Certificate: [][]byte{p.issue(t, name, sign.Public().(*sm2.PublicKey), false)}, PrivateKey: sign},
		Enc:  tlcp.Certificate{Certificate: [][]byte{p.issue(t, name, publicOf(enc), true)}, PrivateKey: enc},
	}
}

func publicOf(k any) *sm2.PublicKey {
	return k.(interface{ Public() crypto.PublicKey }).Public().(*sm2.PublicKey)
}

// memoryPair is a client pair with both keys in memory.
func (p *testPKI) memoryPair(t testing.TB, name string) tlcp.CertificatePair {
	s, _ := sm2.GenerateKey(rand.Reader)
	e, _ := sm2.GenerateKey(rand.Reader)
	return p.pair(t, name, s, e)
}

// serverPair is pair with the keys given as any (an *EncKey is not a
// crypto.Signer).
func (p *testPKI) serverPair(t testing.TB, name string, sign crypto.Signer, enc any) tlcp.CertificatePair {
	return tlcp.CertificatePair{
		Sign: tlcp.Certificate{Certificate: [][]byte{p.issue(t, name, sign.Public().(*sm2.PublicKey), false)}, PrivateKey: sign},
		Enc:  tlcp.Certificate{Certificate: [][]byte{p.issue(t, name, publicOf(enc), true)}, PrivateKey: enc},
	}
}

// serve runs a TLCP server with pair on 127.0.0.1 that echoes one line per
// connection, and returns its address.
func serve(t testing.TB, pair tlcp.CertificatePair) string {
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 64)
				n, err := c.Read(buf)
				if err == nil {
					c.Write(buf[:n])
				}
			}(c)
		}
	}()
	return ln.Addr().String()
}

// handshake connects to addr with one suite and a client pair (ECDHE
// needs one), sends a line and checks the echo.
func handshake(addr string, pki *testPKI, suite uint16, client tlcp.CertificatePair) (tlcp.ConnectionState, error) {
	cfg := &tlcp.Config{RootCAs: pki.pool, ServerName: "server.test", CipherSuites: []uint16{suite}, Certificates: []tlcp.CertificatePair{client}}
	d := &net.Dialer{Timeout: 10 * time.Second}
	c, err := tlcp.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return tlcp.ConnectionState{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return tlcp.ConnectionState{}, err
	}
	buf := make([]byte, 5)
	if _, err := c.Read(buf); err != nil {
		return tlcp.ConnectionState{}, err
	}
	if !bytes.Equal(buf, []byte("ping\n")) {
		return tlcp.ConnectionState{}, errors.New("echo mismatch")
	}
	return c.ConnectionState(), nil
}

var allSuites = []struct {
	name  string
	id    uint16
	ecdhe bool
}{
	{"ECC_SM4_GCM_SM3", ciphersuite.ECC_SM4_GCM_SM3, false},
	{"ECC_SM4_CBC_SM3", ciphersuite.ECC_SM4_CBC_SM3, false},
	{"ECDHE_SM4_GCM_SM3", ciphersuite.ECDHE_SM4_GCM_SM3, true},
	{"ECDHE_SM4_CBC_SM3", ciphersuite.ECDHE_SM4_CBC_SM3, true},
}
