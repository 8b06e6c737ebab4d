// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// passUsage is the help text of every password flag.
const passUsage = "pass:TEXT, env:VAR, file:PATH, fd:N, stdin, or the password itself"

// password resolves a password argument as openssl does (pass:, env:,
// file:, fd:, stdin); any other word is the password itself, as GmSSL's
// -pass takes it. flagName names the flag in errors. An empty spec is no
// password (nil).
func (e *env) password(flagName, spec string) ([]byte, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch {
	case spec == "":
		return nil, nil
	case kind == "pass":
		return []byte(arg), nil
	case kind == "env":
		v, ok := os.LookupEnv(arg)
		if !ok {
			return nil, fmt.Errorf("-%s env:%s: the environment variable is not set", flagName, arg)
		}
		return []byte(v), nil
	case kind == "file":
		f, err := os.Open(arg)
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", flagName, err)
		}
		defer f.Close()
		return firstLine(f, flagName, spec)
	case kind == "fd":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return nil, usagef("-%s %s: not a file descriptor number", flagName, spec)
		}
		f := os.NewFile(uintptr(n), "fd "+arg)
		if f == nil {
			return nil, fmt.Errorf("-%s %s: no such file descriptor", flagName, spec)
		}
		return firstLine(f, flagName, spec)
	case spec == "stdin":
		return firstLine(e.stdin, flagName, spec)
	}
	return []byte(spec), nil
}

// firstLine reads up to the first newline, one byte at a time so that
// nothing after it is consumed (standard input may carry data too).
func firstLine(r io.Reader, flagName, spec string) ([]byte, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if errors.Is(err, io.EOF) {
			if len(line) == 0 {
				return nil, fmt.Errorf("-%s %s: nothing to read", flagName, spec)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("-%s %s: %w", flagName, spec, err)
		}
	}
	return []byte(strings.TrimSuffix(string(line), "\r")), nil
}
