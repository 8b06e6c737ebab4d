// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto"
	"errors"
	"testing"
)

// TestSDFFlagsDefaultBuild checks that the default build, which registers
// no SDF opener, refuses -sdf with the way to the build that has it.
func TestSDFFlagsDefaultBuild(t *testing.T) {
	if sdfOpener != nil {
		t.Skip("an SDF opener is registered")
	}
	for _, cmd := range []string{"s_server", "s_client"} {
		code, _, stderr := smtool(cmd, "-sdf", "/opt/vendor/libsdf.so", "-sdf_sign_index", "1", "-sdf_enc_index", "1", "-sdf_pass", "pw",
			"-sign_cert", "s.pem", "-enc_cert", "e.pem")
		if code != 2 {
			t.Errorf("%s -sdf: exit %d, want 2", cmd, code)
		}
		oneLineError(t, stderr, cmd, "cd examples/sdf && go run ./cmd/smtool")
	}
	code, _, stderr := smtool("s_server", "-sdf_sign_index", "1")
	if code != 2 {
		t.Errorf("-sdf_sign_index alone: exit %d", code)
	}
	oneLineError(t, stderr, "s_server", "go with -sdf LIB")
}

// TestSDFFlagsWithOpener checks what reaches a registered opener and the
// usage errors in front of it.
func TestSDFFlagsWithOpener(t *testing.T) {
	var got SDFKeys
	old := sdfOpener
	defer func() { sdfOpener = old }()
	RegisterSDF(func(k SDFKeys) (crypto.Signer, crypto.PrivateKey, error) {
		got = k
		return nil, nil, errors.New("opener called")
	})
	srv := serverCerts(t)
	signCert, encCert := srv[1], srv[5]
	t.Setenv("SDF_TEST_PASS", "secret")
	code, _, stderr := smtool("s_server", "-sdf", "/lib/x.so", "-sdf_sign_index", "3", "-sdf_enc_index", "4",
		"-sdf_pass", "env:SDF_TEST_PASS", "-sign_cert", signCert, "-enc_cert", encCert)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	oneLineError(t, stderr, "s_server", "opener called")
	want := SDFKeys{Library: "/lib/x.so", SignIndex: 3, EncIndex: 4, HasEnc: true, Password: []byte("secret")}
	if got.Library != want.Library || got.SignIndex != want.SignIndex || got.EncIndex != want.EncIndex || !got.HasEnc || string(got.Password) != "secret" {
		t.Errorf("opener got %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"s_server", "-sdf", "x.so", "-sdf_sign_index", "1", "-sign_cert", signCert}, "a TLCP server needs its encryption certificate"},
		{[]string{"s_server", "-sdf", "x.so", "-sdf_sign_index", "1", "-sign_cert", signCert, "-enc_cert", encCert}, "go together"},
		{[]string{"s_client", "-sdf", "x.so", "-sign_cert", signCert}, "-sdf_sign_index N"},
		{[]string{"s_client", "-sdf", "x.so", "-sdf_sign_index", "1", "-sign_cert", signCert, "-sign_key", srv[3]}, "not -sign_key"},
	} {
		code, _, stderr := smtool(c.args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", c.args, code)
		}
		oneLineError(t, stderr, c.args[0], c.want)
	}
}
