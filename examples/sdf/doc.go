// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package sdf reaches SM2 keys held in a cipher machine (密码机) through
// the SDF interface of GM/T 0018-2012: it loads the vendor's SDF library
// by path at run time (dlopen; nothing is linked at build time), opens
// the device and a pool of sessions, and returns, for an internal key
// index and its access password, a signing key (a crypto.Signer over
// SDF_InternalSign_ECC) and an encryption key (a crypto.Decrypter over
// SDF_InternalDecrypt_ECC) that tlcp.Certificate takes as its PrivateKey.
//
// It is a separate module because it needs cgo, which the shangmi module
// does not use. A build without cgo compiles and fails in Open with an
// error that says so.
//
//	dev, err := sdf.Open("/opt/vendor/lib/libsdf.so", nil)
//	sign, err := dev.SignKey(1, []byte("password"))
//	enc, err := dev.EncKey(1, []byte("password"))
//	pair := tlcp.CertificatePair{
//		Sign: tlcp.Certificate{Certificate: [][]byte{signDER}, PrivateKey: sign},
//		Enc:  tlcp.Certificate{Certificate: [][]byte{encDER}, PrivateKey: enc},
//	}
//
// Every failing SDF call is an *Error naming the function and the
// standard's return code (SDR_KEYNOTEXIST, …); errors.Is matches a Code.
//
// The encryption key is not a tlcp.SM2KeyExchanger: GM/T 0018's key
// agreement leaves the agreed key inside the device, and TLCP needs its
// bytes. A TLCP server with its encryption key in a device negotiates the
// ECC suites; see the README.
package sdf
