// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelp: "smtool help" lists every command with an example, and every
// command's -h prints its synopsis, flags and examples.
func TestHelp(t *testing.T) {
	code, out, _ := smtool("help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, c := range commands {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.name) + ` +\S.*\n +e\.g\. smtool ` + regexp.QuoteMeta(c.name) + `\b`).MatchString(out) {
			t.Errorf("help does not list %q with an example:\n%s", c.name, out)
		}
	}
	mustContain(t, "help", out, "pass:TEXT", "Keys and certificates:", "TLCP and TLS 1.3-SM connections:", "Performance:")
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 90 && !strings.Contains(line, "e.g. smtool") {
			t.Errorf("help line longer than 90 characters: %q", line)
		}
	}
	if code, out2, _ := smtool(); code != 2 || out2 != out {
		t.Errorf("no arguments: exit %d", code)
	}

	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			args := append(strings.Fields(c.name), "-h")
			code, out, errOut := smtool(args...)
			if code != 0 || errOut != "" {
				t.Fatalf("-h: exit %d, stderr %q", code, errOut)
			}
			if !strings.HasPrefix(out, "usage: smtool "+c.name+" [flags]") {
				t.Errorf("-h does not start with the synopsis:\n%s", out)
			}
			mustContain(t, c.name+" -h", out, "\nflags:\n  ", "\nexample:\n  smtool "+c.name)
			for _, line := range strings.Split(out, "\n") {
				if len(line) > 100 && !strings.HasPrefix(line, "  smtool ") {
					t.Errorf("line longer than 100 characters: %q", line)
				}
			}
			if _, viaHelp, _ := smtool(append([]string{"help"}, strings.Fields(c.name)...)...); viaHelp != out {
				t.Errorf("smtool help %s differs from -h", c.name)
			}
			// Every flag of every example exists: the examples parse, up
			// to the -h added at their end.
			for _, ex := range c.example {
				if i := strings.Index(ex, "| "); i >= 0 {
					ex = ex[i+2:]
				}
				f := strings.Fields(ex)
				if f[0] != "smtool" {
					t.Fatalf("example %q does not start with smtool", ex)
				}
				if code, _, errOut := smtool(append(f[1:], "-h")...); code != 0 {
					t.Errorf("example %q does not parse: %s", ex, errOut)
				}
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // on stderr
		out  string // on stdout
	}{
		{[]string{"nope"}, 2, `smtool: unknown command "nope"`, ""},
		{[]string{"cert"}, 2, "smtool cert: missing subcommand", "usage: smtool cert <subcommand>"},
		{[]string{"cert", "-h"}, 0, "", "  verify "},
		{[]string{"cert", "frob"}, 2, `unknown subcommand "frob" (want gen, show, verify)`, ""},
		{[]string{"help", "frob"}, 2, `unknown command "frob"`, ""},
		{[]string{"help", "crl"}, 0, "", "  gen "},
		{[]string{"cert", "gen"}, 2, "-out DIR is required", ""},
		{[]string{"cert", "gen", "-bogus"}, 2, "flag provided but not defined: -bogus", ""},
		{[]string{"cert", "show"}, 2, "missing FILE", ""},
		{[]string{"cert", "show", "/does/not/exist"}, 1, "no such file", ""},
		{[]string{"cert", "show", "-out", "x", local("sign.pem")}, 2, "-out needs -outform", ""},
		{[]string{"cert", "show", "-inform", "p12", local("sign.pem")}, 2, "-inform: unknown", ""},
		{[]string{"cert", "show", local("gen.sh")}, 1, "not a PEM file", ""},
		{[]string{"crl", "show", local("sign.pem")}, 1, "no CRL found; it holds 1 certificate", ""},
		{[]string{"speed", "frob"}, 2, `unknown test "frob"`, ""},
		{[]string{"speed", "-bytes", "15", "sm3"}, 2, "multiple of 16", ""},
		{[]string{"speed", "-impl", "sm4"}, 2, "want PKG=NAME", ""},
		{[]string{"speed", "-impl", "sm4=nosuchkernel", "sm4"}, 1, `no "nosuchkernel" implementation of sm4`, ""},
		{[]string{"version", "x"}, 2, "unexpected arguments", ""},
	} {
		code, out, errOut := smtool(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") > 1 || !strings.Contains(out, tc.out) {
			t.Errorf("smtool %q: exit %d (want %d), stderr %q (want %q), stdout %.80q", tc.args, code, tc.code, errOut, tc.want, out)
		}
	}
}
