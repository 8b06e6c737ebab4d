// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/internal/impl"
)

// TestSpeed runs every test of speed for a moment and checks the table.
func TestSpeed(t *testing.T) {
	code, out, errOut := smtool("speed", "-seconds", "0.01", "-bytes", "16,1024")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	mustContain(t, "speed header", out, "smtool speed: go", "CPU features: ", "implementations (the assembly kernels this CPU runs): sm2: ", "; sm3: ", "; sm4: ", "; zuc: ")
	for _, st := range speedTests() {
		if st.bulk {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(st.name) + ` +\d+\.\d\d +\d+\.\d\d$`).MatchString(out) {
				t.Errorf("no MB/s row for %s:\n%s", st.name, out)
			}
			mustContain(t, "progress", errOut, "Doing "+st.name+" for 10ms on 16 size blocks: ", "Doing "+st.name+" for 10ms on 1024 size blocks: ")
		} else {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(st.name) + ` +\d+\.\d +\d+\.\d$`).MatchString(out) {
				t.Errorf("no ops/s row for %s:\n%s", st.name, out)
			}
			mustContain(t, "progress", errOut, "Doing "+st.name+" for 10ms: ")
		}
	}
	mustContain(t, "speed", out, "MB/s (10^6 bytes per CPU second)", "16 bytes", "1024 bytes", "ops/s", "µs/op",
		"tlcp: full or resumed handshakes over loopback")
}

// TestSpeedNamesImplementations: the header says what impl.List says, and
// -impl selects one (the generic code always exists).
func TestSpeedNamesImplementations(t *testing.T) {
	for _, pkg := range []string{"sm2", "sm3", "sm4", "zuc"} {
		want := pkg + ": generic Go"
		if list := impl.List(pkg); len(list) > 0 {
			want = pkg + ": kernels " + strings.Join(list, ", ")
		}
		if got := strings.Join(implementations(nil), "; "); !strings.Contains(got, want) {
			t.Errorf("implementations: %q, want %q", got, want)
		}
	}
	code, out, errOut := smtool("speed", "-seconds", "0.01", "-bytes", "64", "-impl", "sm4=generic", "-elapsed", "sm4-ctr")
	if code != 0 {
		t.Fatal(errOut)
	}
	mustContain(t, "speed -impl", out, "sm4: ", "(running generic only: -impl)", "per wall-clock second")
	mustContain(t, "speed -impl", errOut, "(wall-clock)")
}
