// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package hostile

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCorpusRoundTrip: every kept script parses, and writes back to the
// bytes it was read from.
func TestCorpusRoundTrip(t *testing.T) {
	scripts, err := Load("../../testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scripts {
		again, err := Parse(s.Name, s.Marshal())
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !bytes.Equal(again.Marshal(), s.Marshal()) || again.Description != s.Description {
			t.Fatalf("%s does not round-trip", s.Name)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"":                               "no steps",
		"# only a comment\n":             "no steps",
		"send zz\nexpect-close\n":        "send needs hex",
		"send\nexpect-close\n":           "send needs hex",
		"read-until 300\nexpect-close":   "from 0 to 255",
		"expect-alert x\n":               "from 0 to 255",
		"expect-close now\n":             "takes no argument",
		"jump 3\nexpect-close\n":         "unknown step",
		"send 16\n":                      "ends with what the server must do",
		strings.Repeat("#", maxScript+1): "over",
	} {
		if _, err := Parse("t", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: error %v, want %q", text, err, want)
		}
	}
}

// fakeServer answers on one connection with reply, then closes, or holds
// the connection open if hold.
func fakeServer(t *testing.T, reply []byte, hold bool) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 64)
		c.Read(buf)
		c.Write(reply)
		if hold {
			time.Sleep(2 * time.Second)
		}
		c.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRun(t *testing.T) {
	script := func(text string) *Script {
		s, err := Parse("t", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	alert50 := []byte{21, 1, 1, 0, 2, 2, 50}
	hello := []byte{22, 1, 1, 0, 4, 14, 0, 0, 0} // a ServerHelloDone
	for _, tc := range []struct {
		name, text string
		reply      []byte
		hold       bool
		wantErr    string
	}{
		{"alert then close", "send 16\nexpect-alert 50\n", alert50, false, ""},
		{"another alert", "send 16\nexpect-alert 40\n", alert50, false, "want fatal 40"},
		{"alert but no close", "send 16\nexpect-alert 50\n", append(alert50, 23, 1, 1, 0, 1, 0), true, "instead of closing"},
		{"silence", "send 16\nexpect-alert 50\n", nil, true, "timeout"},
		{"read until", "send 16\nread-until 14\nexpect-close\n", hello, false, ""},
		{"alert while reading", "send 16\nread-until 14\nexpect-close\n", alert50, false, "alert 50"},
		{"close", "send 16\nexpect-close\n", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := script(tc.text).Run(fakeServer(t, tc.reply, tc.hold), 500*time.Millisecond)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
