// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCodeNames(t *testing.T) {
	// Every code of GM/T 0018-2012's table, by its symbol.
	want := []string{"SDR_UNKNOWERR", "SDR_NOTSUPPORT", "SDR_COMMFAIL", "SDR_HARDFAIL",
		"SDR_OPENDEVICE", "SDR_OPENSESSION", "SDR_PARDENY", "SDR_KEYNOTEXIST",
		"SDR_ALGNOTSUPPORT", "SDR_ALGMODNOTSUPPORT", "SDR_PKOPERR", "SDR_SKOPERR",
		"SDR_SIGNERR", "SDR_VERIFYERR", "SDR_SYMOPERR", "SDR_STEPERR", "SDR_FILESIZEERR",
		"SDR_FILENOEXIST", "SDR_FILEOFSERR", "SDR_KEYTYPEERR", "SDR_KEYERR",
		"SDR_ENCDATAERR", "SDR_RANDERR", "SDR_PRKRERR", "SDR_MACERR", "SDR_FILEEXISTS",
		"SDR_FILEWERR", "SDR_NOBUFFER", "SDR_INARGERR", "SDR_OUTARGERR"}
	for i, name := range want {
		c := codeBase + Code(i+1)
		if c.Name() != name {
			t.Errorf("code 0x%08X: Name %q, want %q", uint32(c), c.Name(), name)
		}
		msg := c.Error()
		if !strings.HasPrefix(msg, name+" (0x") || !strings.Contains(msg, fmt.Sprintf("%08X", uint32(c))) {
			t.Errorf("code 0x%08X: Error %q does not name it", uint32(c), msg)
		}
	}
	if len(codeNames) != len(want)+1 {
		t.Errorf("codeNames has %d entries, want %d", len(codeNames), len(want)+1)
	}
	if CodeOK.Name() != "SDR_OK" {
		t.Errorf("CodeOK.Name() = %q", CodeOK.Name())
	}
	for c, want := range map[Code]string{
		codeBase + 0x100: "SDR_BASE+0x100 (0x01000100): vendor-specific error",
		codeBase + 0x1F:  "SDR_BASE+0x1F: not an SDF error code",
		0x12:             "0x00000012: not an SDF error code",
	} {
		if got := c.Error(); got != want {
			t.Errorf("Code(0x%08X).Error() = %q, want %q", uint32(c), got, want)
		}
	}
}

func TestErrorWrapsCode(t *testing.T) {
	if check("SDF_OpenSession", 0) != nil {
		t.Fatal("check(0) is an error")
	}
	err := fmt.Errorf("context: %w", check("SDF_InternalSign_ECC", uint32(CodeKeyNotExist)))
	if !errors.Is(err, CodeKeyNotExist) || errors.Is(err, CodeInArg) {
		t.Errorf("errors.Is does not match the code: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Func != "SDF_InternalSign_ECC" || e.Code != CodeKeyNotExist {
		t.Errorf("errors.As: %#v", e)
	}
	want := "context: sdf: SDF_InternalSign_ECC: SDR_KEYNOTEXIST (0x01000008): key does not exist"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
