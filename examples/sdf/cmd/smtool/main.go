// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command smtool is shangmi's smtool with SDF support: s_server and
// s_client take their keys from a cipher machine through the vendor's SDF
// library, loaded at run time:
//
//	smtool s_server -accept 4433 -sdf /path/libsdf.so -sdf_sign_index 1 -sdf_enc_index 1 \
//		-sdf_pass P@ssw0rd -sign_cert sign.pem -enc_cert enc.pem
//
// Everything else is the smtool of examples/smtool.
package main

import (
	"crypto"
	"os"
	"sync"

	"github.com/shangmi-go/shangmi/examples/sdf"
	"github.com/shangmi-go/shangmi/examples/smtool/cli"
)

// devices holds one open Device per library for the life of the process:
// SDF libraries such as SoftSDF allow one open device per process.
var devices = struct {
	sync.Mutex
	m map[string]*sdf.Device
}{m: map[string]*sdf.Device{}}

func openKeys(k cli.SDFKeys) (crypto.Signer, crypto.PrivateKey, error) {
	devices.Lock()
	d := devices.m[k.Library]
	if d == nil {
		var err error
		if d, err = sdf.Open(k.Library, nil); err != nil {
			devices.Unlock()
			return nil, nil, err
		}
		devices.m[k.Library] = d
	}
	devices.Unlock()
	sign, err := d.SignKey(k.SignIndex, k.Password)
	if err != nil {
		return nil, nil, err
	}
	if !k.HasEnc {
		return sign, nil, nil
	}
	enc, err := d.EncKey(k.EncIndex, k.Password)
	if err != nil {
		return nil, nil, err
	}
	return sign, enc, nil
}

func main() {
	cli.RegisterSDF(openKeys)
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
