// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build cgo && unix

package sdf

/*
#cgo linux LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The SDF functions used here, with GM/T 0018-2012's prototypes; the
// structure arguments are passed as bytes laid out by structs.go. No
// vendor header is needed.
typedef int (*open_device_fn)(void **);
typedef int (*close_device_fn)(void *);
typedef int (*open_session_fn)(void *, void **);
typedef int (*close_session_fn)(void *);
typedef int (*access_right_fn)(void *, unsigned int, unsigned char *, unsigned int);
typedef int (*export_pub_fn)(void *, unsigned int, void *);
typedef int (*sign_fn)(void *, unsigned int, unsigned char *, unsigned int, void *);
typedef int (*decrypt_fn)(void *, unsigned int, unsigned int, void *, unsigned char *, unsigned int *);
typedef int (*encrypt_fn)(void *, unsigned int, unsigned int, unsigned char *, unsigned int, void *);

static int call_open_device(void *f, uintptr_t *dev) {
	void *h = NULL;
	int rv = ((open_device_fn)f)(&h);
	*dev = (uintptr_t)h;
	return rv;
}
static int call_close_device(void *f, uintptr_t dev) {
	return ((close_device_fn)f)((void *)dev);
}
static int call_open_session(void *f, uintptr_t dev, uintptr_t *sess) {
	void *h = NULL;
	int rv = ((open_session_fn)f)((void *)dev, &h);
	*sess = (uintptr_t)h;
	return rv;
}
static int call_close_session(void *f, uintptr_t sess) {
	return ((close_session_fn)f)((void *)sess);
}
static int call_access_right(void *f, uintptr_t sess, unsigned int index, unsigned char *pass, unsigned int len) {
	return ((access_right_fn)f)((void *)sess, index, pass, len);
}
static int call_export_pub(void *f, uintptr_t sess, unsigned int index, void *out) {
	return ((export_pub_fn)f)((void *)sess, index, out);
}
static int call_sign(void *f, uintptr_t sess, unsigned int index, unsigned char *e, unsigned int len, void *sig) {
	return ((sign_fn)f)((void *)sess, index, e, len, sig);
}
static int call_decrypt(void *f, uintptr_t sess, unsigned int index, unsigned int alg, void *cipher, unsigned char *out, unsigned int *outlen) {
	return ((decrypt_fn)f)((void *)sess, index, alg, cipher, out, outlen);
}
static int call_encrypt(void *f, uintptr_t sess, unsigned int index, unsigned int alg, unsigned char *data, unsigned int len, void *cipher) {
	return ((encrypt_fn)f)((void *)sess, index, alg, data, len, cipher);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// algSM2Encrypt is SGD_SM2_3, SM2 public key encryption (GM/T 0006).
const algSM2Encrypt = 0x00020800

// dlLibrary is an SDF library loaded with dlopen and its open device.
type dlLibrary struct {
	path   string
	handle unsafe.Pointer
	dev    C.uintptr_t

	fnOpenDevice, fnCloseDevice, fnOpenSession, fnCloseSession unsafe.Pointer
	fnAccessRight, fnExportSign, fnExportEnc                   unsafe.Pointer
	fnSign, fnDecrypt, fnEncrypt                               unsafe.Pointer
}

func openLibrary(path string) (library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.dlopen(cpath, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, fmt.Errorf("sdf: loading %s: %s", path, C.GoString(C.dlerror()))
	}
	l := &dlLibrary{path: path, handle: h}
	syms := []struct {
		name     string
		p        *unsafe.Pointer
		optional bool
	}{
		{"SDF_OpenDevice", &l.fnOpenDevice, false},
		{"SDF_CloseDevice", &l.fnCloseDevice, false},
		{"SDF_OpenSession", &l.fnOpenSession, false},
		{"SDF_CloseSession", &l.fnCloseSession, false},
		{"SDF_GetPrivateKeyAccessRight", &l.fnAccessRight, false},
		{"SDF_ExportSignPublicKey_ECC", &l.fnExportSign, false},
		{"SDF_ExportEncPublicKey_ECC", &l.fnExportEnc, false},
		{"SDF_InternalSign_ECC", &l.fnSign, false},
		{"SDF_InternalDecrypt_ECC", &l.fnDecrypt, false},
		{"SDF_InternalEncrypt_ECC", &l.fnEncrypt, true},
	}
	for _, s := range syms {
		cname := C.CString(s.name)
		*s.p = C.dlsym(h, cname)
		C.free(unsafe.Pointer(cname))
		if *s.p == nil && !s.optional {
			C.dlclose(h)
			return nil, fmt.Errorf("sdf: %s has no %s: is it an SDF (GM/T 0018) library?", path, s.name)
		}
	}
	if err := check("SDF_OpenDevice", uint32(C.call_open_device(l.fnOpenDevice, &l.dev))); err != nil {
		C.dlclose(h)
		return nil, fmt.Errorf("%w (library %s)", err, path)
	}
	return l, nil
}

func (l *dlLibrary) close() error {
	err := check("SDF_CloseDevice", uint32(C.call_close_device(l.fnCloseDevice, l.dev)))
	C.dlclose(l.handle)
	return err
}

func (l *dlLibrary) openSession() (uintptr, error) {
	var s C.uintptr_t
	if err := check("SDF_OpenSession", uint32(C.call_open_session(l.fnOpenSession, l.dev, &s))); err != nil {
		return 0, err
	}
	return uintptr(s), nil
}

func (l *dlLibrary) closeSession(s uintptr) error {
	return check("SDF_CloseSession", uint32(C.call_close_session(l.fnCloseSession, C.uintptr_t(s))))
}

// bytesPtr is the C view of a Go byte slice for the duration of one call;
// the slices hold no Go pointers, so cgo's rules allow passing them.
func bytesPtr(b []byte) *C.uchar { return (*C.uchar)(unsafe.Pointer(unsafe.SliceData(b))) }

func (l *dlLibrary) getPrivateKeyAccessRight(s uintptr, index uint32, password []byte) error {
	return check("SDF_GetPrivateKeyAccessRight", uint32(C.call_access_right(l.fnAccessRight, C.uintptr_t(s), C.uint(index), bytesPtr(password), C.uint(len(password)))))
}

func (l *dlLibrary) exportPublicKey(s uintptr, index uint32, enc bool, out []byte) error {
	f, name := l.fnExportSign, "SDF_ExportSignPublicKey_ECC"
	if enc {
		f, name = l.fnExportEnc, "SDF_ExportEncPublicKey_ECC"
	}
	return check(name, uint32(C.call_export_pub(f, C.uintptr_t(s), C.uint(index), unsafe.Pointer(bytesPtr(out)))))
}

func (l *dlLibrary) internalSign(s uintptr, index uint32, e, sig []byte) error {
	return check("SDF_InternalSign_ECC", uint32(C.call_sign(l.fnSign, C.uintptr_t(s), C.uint(index), bytesPtr(e), C.uint(len(e)), unsafe.Pointer(bytesPtr(sig)))))
}

func (l *dlLibrary) internalDecrypt(s uintptr, index uint32, cipher, out []byte) (int, error) {
	n := C.uint(len(out))
	err := check("SDF_InternalDecrypt_ECC", uint32(C.call_decrypt(l.fnDecrypt, C.uintptr_t(s), C.uint(index), algSM2Encrypt, unsafe.Pointer(bytesPtr(cipher)), bytesPtr(out), &n)))
	if err != nil {
		return 0, err
	}
	if int(n) > len(out) {
		return 0, fmt.Errorf("sdf: SDF_InternalDecrypt_ECC reports %d bytes written into a %d-byte buffer", n, len(out))
	}
	return int(n), nil
}

func (l *dlLibrary) internalEncrypt(s uintptr, index uint32, data, cipher []byte) error {
	if l.fnEncrypt == nil {
		return &Error{Func: "SDF_InternalEncrypt_ECC", Code: CodeNotSupported}
	}
	return check("SDF_InternalEncrypt_ECC", uint32(C.call_encrypt(l.fnEncrypt, C.uintptr_t(s), C.uint(index), algSM2Encrypt, bytesPtr(data), C.uint(len(data)), unsafe.Pointer(bytesPtr(cipher)))))
}
