// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sdf

import "fmt"

// Code is a return value of an SDF function (GM/T 0018-2012, appendix A).
// Every code but CodeOK is an error; its Error names the standard's
// symbol, so a log line says SDR_KEYNOTEXIST rather than 16777224.
// errors.Is(err, sdf.CodeKeyNotExist) matches an *Error carrying it.
type Code uint32

// The codes of GM/T 0018-2012. Codes from codeBase+0x100 on are the
// vendor's own (SoftSDF returns codeBase+0x100 for a GmSSL failure).
const (
	CodeOK               Code = 0
	codeBase             Code = 0x01000000
	CodeUnknown          Code = codeBase + 0x01 // SDR_UNKNOWERR
	CodeNotSupported     Code = codeBase + 0x02 // SDR_NOTSUPPORT
	CodeCommFail         Code = codeBase + 0x03 // SDR_COMMFAIL
	CodeHardFail         Code = codeBase + 0x04 // SDR_HARDFAIL
	CodeOpenDevice       Code = codeBase + 0x05 // SDR_OPENDEVICE
	CodeOpenSession      Code = codeBase + 0x06 // SDR_OPENSESSION
	CodePermissionDenied Code = codeBase + 0x07 // SDR_PARDENY
	CodeKeyNotExist      Code = codeBase + 0x08 // SDR_KEYNOTEXIST
	CodeAlgNotSupported  Code = codeBase + 0x09 // SDR_ALGNOTSUPPORT
	CodeAlgModeNotSupp   Code = codeBase + 0x0A // SDR_ALGMODNOTSUPPORT
	CodePublicKeyOp      Code = codeBase + 0x0B // SDR_PKOPERR
	CodePrivateKeyOp     Code = codeBase + 0x0C // SDR_SKOPERR
	CodeSign             Code = codeBase + 0x0D // SDR_SIGNERR
	CodeVerify           Code = codeBase + 0x0E // SDR_VERIFYERR
	CodeSymmetricOp      Code = codeBase + 0x0F // SDR_SYMOPERR
	CodeStep             Code = codeBase + 0x10 // SDR_STEPERR
	CodeFileSize         Code = codeBase + 0x11 // SDR_FILESIZEERR
	CodeFileNotExist     Code = codeBase + 0x12 // SDR_FILENOEXIST
	CodeFileOffset       Code = codeBase + 0x13 // SDR_FILEOFSERR
	CodeKeyType          Code = codeBase + 0x14 // SDR_KEYTYPEERR
	CodeKey              Code = codeBase + 0x15 // SDR_KEYERR
	CodeEncData          Code = codeBase + 0x16 // SDR_ENCDATAERR
	CodeRandom           Code = codeBase + 0x17 // SDR_RANDERR
	CodePrivateKeyRight  Code = codeBase + 0x18 // SDR_PRKRERR
	CodeMAC              Code = codeBase + 0x19 // SDR_MACERR
	CodeFileExists       Code = codeBase + 0x1A // SDR_FILEEXISTS
	CodeFileWrite        Code = codeBase + 0x1B // SDR_FILEWERR
	CodeNoBuffer         Code = codeBase + 0x1C // SDR_NOBUFFER
	CodeInArg            Code = codeBase + 0x1D // SDR_INARGERR
	CodeOutArg           Code = codeBase + 0x1E // SDR_OUTARGERR
)

// codeNames holds each code's symbol and the standard's description.
var codeNames = map[Code][2]string{
	CodeOK:               {"SDR_OK", "success"},
	CodeUnknown:          {"SDR_UNKNOWERR", "unknown error"},
	CodeNotSupported:     {"SDR_NOTSUPPORT", "function not supported"},
	CodeCommFail:         {"SDR_COMMFAIL", "communication with the device failed"},
	CodeHardFail:         {"SDR_HARDFAIL", "the cryptographic module does not respond"},
	CodeOpenDevice:       {"SDR_OPENDEVICE", "opening the device failed"},
	CodeOpenSession:      {"SDR_OPENSESSION", "creating the session failed"},
	CodePermissionDenied: {"SDR_PARDENY", "no private key access right"},
	CodeKeyNotExist:      {"SDR_KEYNOTEXIST", "key does not exist"},
	CodeAlgNotSupported:  {"SDR_ALGNOTSUPPORT", "algorithm not supported"},
	CodeAlgModeNotSupp:   {"SDR_ALGMODNOTSUPPORT", "algorithm mode not supported"},
	CodePublicKeyOp:      {"SDR_PKOPERR", "public key operation failed"},
	CodePrivateKeyOp:     {"SDR_SKOPERR", "private key operation failed"},
	CodeSign:             {"SDR_SIGNERR", "signing failed"},
	CodeVerify:           {"SDR_VERIFYERR", "signature verification failed"},
	CodeSymmetricOp:      {"SDR_SYMOPERR", "symmetric operation failed"},
	CodeStep:             {"SDR_STEPERR", "steps in the wrong order"},
	CodeFileSize:         {"SDR_FILESIZEERR", "file too large or data longer than the file"},
	CodeFileNotExist:     {"SDR_FILENOEXIST", "file does not exist"},
	CodeFileOffset:       {"SDR_FILEOFSERR", "file offset out of range"},
	CodeKeyType:          {"SDR_KEYTYPEERR", "wrong key type"},
	CodeKey:              {"SDR_KEYERR", "wrong key"},
	CodeEncData:          {"SDR_ENCDATAERR", "ECC ciphertext is invalid"},
	CodeRandom:           {"SDR_RANDERR", "random number generation failed"},
	CodePrivateKeyRight:  {"SDR_PRKRERR", "getting the private key access right failed (wrong password?)"},
	CodeMAC:              {"SDR_MACERR", "MAC failed"},
	CodeFileExists:       {"SDR_FILEEXISTS", "file already exists"},
	CodeFileWrite:        {"SDR_FILEWERR", "writing the file failed"},
	CodeNoBuffer:         {"SDR_NOBUFFER", "out of memory"},
	CodeInArg:            {"SDR_INARGERR", "invalid input argument"},
	CodeOutArg:           {"SDR_OUTARGERR", "invalid output argument"},
}

// Name returns the standard's symbol for c (SDR_KEYNOTEXIST), or
// SDR_BASE+0x… for a vendor's code, 0x… for anything else.
func (c Code) Name() string {
	if n, ok := codeNames[c]; ok {
		return n[0]
	}
	if c > codeBase && c < codeBase+0x01000000 {
		return fmt.Sprintf("SDR_BASE+0x%X", uint32(c-codeBase))
	}
	return fmt.Sprintf("0x%08X", uint32(c))
}

func (c Code) Error() string {
	if n, ok := codeNames[c]; ok {
		return fmt.Sprintf("%s (0x%08X): %s", n[0], uint32(c), n[1])
	}
	if c >= codeBase+0x100 && c < codeBase+0x01000000 {
		return fmt.Sprintf("%s (0x%08X): vendor-specific error", c.Name(), uint32(c))
	}
	return fmt.Sprintf("%s: not an SDF error code", c.Name())
}

// Error is a failed SDF call: the function and the code it returned.
type Error struct {
	Func string // "SDF_InternalSign_ECC"
	Code Code
}

func (e *Error) Error() string { return "sdf: " + e.Func + ": " + e.Code.Error() }

// Unwrap returns the code, for errors.Is(err, sdf.CodeKeyNotExist).
func (e *Error) Unwrap() error { return e.Code }

// check turns an SDF return value into an error.
func check(fn string, rv uint32) error {
	if Code(rv) == CodeOK {
		return nil
	}
	return &Error{Func: fn, Code: Code(rv)}
}
