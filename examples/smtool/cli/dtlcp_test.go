// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"strings"
	"testing"
)

// TestDTLCP: s_client -dtlcp and s_server -dtlcp talk DTLCP over UDP, with
// client certificates, resumption and data.
func TestDTLCP(t *testing.T) {
	for _, suite := range []string{"ECC_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"} {
		t.Run(suite, func(t *testing.T) {
			srv := startServer(t, "-dtlcp", "-naccept", "3", "-Verify", "1")
			code, out, errOut := smtoolIn("over udp\n", clientArgs(t, srv.addr, append([]string{"-dtlcp", "-reconnect", "2", "-cipher", suite}, clientCerts(t)...)...)...)
			if code != 0 {
				t.Fatalf("s_client exit %d: %s\n%s", code, errOut, out)
			}
			if strings.Count(out, "CONNECTED") != 3 || strings.Count(out, "Resumed   : true") != 2 || !strings.HasSuffix(out, "---\nover udp\n") {
				t.Fatalf("want three connections, two resumed, the data echoed on the last:\n%s%s", out, errOut)
			}
			scode, sout := srv.wait(t)
			if scode != 0 || !strings.Contains(sout, "Cipher    : "+suite) {
				t.Fatalf("s_server exit %d:\n%s", scode, sout)
			}
		})
	}
}
