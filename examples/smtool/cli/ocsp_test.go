// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shangmi-go/shangmi/smx509/ocsp"
)

// ocspPKI makes, with smtool itself, a CA with leaves (good, revoked and
// unlisted in index.txt), a delegated responder and a responder
// certificate without OCSPSigning, in a new folder it returns.
func ocspPKI(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	p := func(n string) string { return filepath.Join(d, n) }
	must := func(args ...string) {
		t.Helper()
		if code, out, errOut := smtool(args...); code != 0 {
			t.Fatalf("smtool %s: %d %s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	must("cert gen", "-out", p("pki"))
	for _, r := range []string{"ocsp", "noeku"} {
		must("key", "gen", "-out", p(r+".key"))
		must("req", "-key", p(r+".key"), "-subj", "/CN="+r+" responder", "-out", p(r+".csr"))
	}
	must("ca", "sign", "-in", p("ocsp.csr"), "-CA", p("pki/ca.pem"), "-CAkey", p("pki/ca.key"), "-key_usage", "digitalSignature", "-eku", "OCSPSigning", "-out", p("ocsp.pem"))
	must("ca", "sign", "-in", p("noeku.csr"), "-CA", p("pki/ca.pem"), "-CAkey", p("pki/ca.key"), "-key_usage", "digitalSignature", "-out", p("noeku.pem"))
	index := fmt.Sprintf("V\t361231000000Z\t\t%s\tunknown\t/CN=good\nR\t361231000000Z\t261101000000Z,keyCompromise\t%s\tunknown\t/CN=revoked\n",
		serialHexOf(t, p("pki/server_sign.pem")), serialHexOf(t, p("pki/client_sign.pem")))
	if err := os.WriteFile(p("index.txt"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

var ocspListening = regexp.MustCompile(`connections on (\S+)\n`)

// startResponder runs "smtool ocsp -index" on 127.0.0.1 port 0 for n
// requests and returns its URL and a function waiting for it to exit.
func startResponder(t *testing.T, d string, n int, extra ...string) (string, func() (int, string)) {
	t.Helper()
	args := append([]string{"ocsp", "-index", filepath.Join(d, "index.txt"), "-CA", filepath.Join(d, "pki/ca.pem"),
		"-port", "127.0.0.1:0", "-nrequest", fmt.Sprint(n), "-ndays", "1"}, extra...)
	out, errOut := new(syncBuffer), new(syncBuffer)
	done := make(chan int, 1)
	go func() { done <- run(args, &env{stdin: strings.NewReader(""), stdout: out, stderr: errOut}) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := ocspListening.FindStringSubmatch(out.String()); m != nil {
			return "http://" + m[1], func() (int, string) {
				select {
				case code := <-done:
					return code, out.String() + errOut.String()
				case <-time.After(20 * time.Second):
					t.Fatalf("the responder did not exit: %s%s", out, errOut)
					return 0, ""
				}
			}
		}
		select {
		case code := <-done:
			t.Fatalf("the responder exited with %d before listening: %s%s", code, out, errOut)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the responder did not report its address: %s", out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestOCSPRoundTrip asks smtool's responder, delegated and CA-signed,
// about a good, a revoked and an unlisted certificate with each CertID
// hash, over POST, and checks what the client prints and saves.
func TestOCSPRoundTrip(t *testing.T) {
	d := ocspPKI(t)
	p := func(n string) string { return filepath.Join(d, n) }
	for _, signer := range [][]string{
		{"-rsigner", p("ocsp.pem"), "-rkey", p("ocsp.key")},
		{"-rkey", p("pki/ca.key"), "-resp_key_id"},
	} {
		u, wait := startResponder(t, d, 3, signer...)
		for _, c := range []struct {
			cert, md, want string
		}{
			{"pki/server_sign.pem", "sha1", ": good"},
			{"pki/client_sign.pem", "sm3", ": revoked\n"},
			{"pki/server_enc.pem", "sha256", ": unknown"},
		} {
			code, out, errOut := smtool("ocsp", "-issuer", p("pki/ca.pem"), "-cert", p(c.cert), "-url", u, "-CAfile", p("pki/ca.pem"),
				"-md", c.md, "-resp_text", "-reqout", p("req.der"), "-respout", p("resp.der"))
			if code != 0 {
				t.Fatalf("%s: %d %s%s", c.cert, code, out, errOut)
			}
			mustContain(t, "ocsp client", out, c.want, "This Update:", "Next Update:", "OCSP Nonce:", "Signature Algorithm: SM2-SM3")
			mustContain(t, "ocsp client", errOut, "Response verify OK")
			mustNotContain(t, "ocsp client", errOut, "warning")
			if c.md == "sm3" {
				mustContain(t, "ocsp client", out, "Reason: keyCompromise", "Revocation Time: Nov  1 00:00:00 2026 GMT", "Hash Algorithm: SM3")
			}
			req, err := os.ReadFile(p("req.der"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ocsp.ParseRequest(req); err != nil {
				t.Fatalf("-reqout: %v", err)
			}
			// The saved response verifies again from the file (no nonce:
			// -respin sends none, so expects none).
			code, out, errOut = smtool("ocsp", "-issuer", p("pki/ca.pem"), "-cert", p(c.cert), "-respin", p("resp.der"))
			if code != 0 || !strings.Contains(out, c.want) {
				t.Fatalf("-respin: %d %s%s", code, out, errOut)
			}
		}
		if code, out := wait(); code != 0 {
			t.Fatalf("responder: %d %s", code, out)
		}
	}
}

// TestOCSPResponderHTTP speaks HTTP to the responder directly: GET with
// the base64 request in the path (RFC 6960, A.1), a malformed request and
// one about another CA's certificate.
func TestOCSPResponderHTTP(t *testing.T) {
	d := ocspPKI(t)
	other := ocspPKI(t)
	p := func(n string) string { return filepath.Join(d, n) }
	u, wait := startResponder(t, d, 3, "-rsigner", p("ocsp.pem"), "-rkey", p("ocsp.key"))
	// Neither GET nor POST: refused, and not counted in -nrequest.
	if resp, err := http.Head(u); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("HEAD: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	ca, _ := readFirstCertificate(p("pki/ca.pem"))
	leaf, _ := readFirstCertificate(p("pki/server_sign.pem"))
	req, err := ocsp.CreateRequest(leaf, ca, &ocsp.RequestOptions{Nonce: []byte("0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) []byte {
		resp, err := http.Get(u + "/" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/ocsp-response" {
			t.Errorf("Content-Type %q", ct)
		}
		body, _ := io.ReadAll(resp.Body)
		return body
	}
	body := get(url.PathEscape(base64.StdEncoding.EncodeToString(req)))
	r, err := ocsp.Verify(body, leaf, ca, ocsp.VerifyOptions{Nonce: []byte("0123456789abcdef"), RequireGood: true})
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	if r.Certificate == nil || r.Certificate.Subject.CommonName != "ocsp responder" {
		t.Fatalf("GET: responder %v", r.Certificate)
	}
	if _, err := ocsp.ParseResponse(get("bm90IGFuIE9DU1AgcmVxdWVzdA=="), nil); err == nil || !strings.Contains(err.Error(), "malformedRequest") {
		t.Fatalf("a malformed request: %v", err)
	}
	oca, _ := readFirstCertificate(filepath.Join(other, "pki/ca.pem"))
	oleaf, _ := readFirstCertificate(filepath.Join(other, "pki/server_sign.pem"))
	oreq, _ := ocsp.CreateRequest(oleaf, oca, nil)
	resp, err := http.Post(u, "application/ocsp-request", bytes.NewReader(oreq))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if _, err := ocsp.ParseResponse(body, nil); err == nil || !strings.Contains(err.Error(), "unauthorized") {
		t.Fatalf("a request for another CA: %v", err)
	}
	if code, out := wait(); code != 0 {
		t.Fatalf("responder: %d %s", code, out)
	}
}

// TestOCSPClientRefuses checks that the client refuses, with exit status 1
// and the reason, a responder without OCSPSigning, one delegated by
// another CA unless it is a -VAfile, and an issuer -CAfile does not trust.
func TestOCSPClientRefuses(t *testing.T) {
	d := ocspPKI(t)
	other := ocspPKI(t)
	p := func(n string) string { return filepath.Join(d, n) }
	ask := func(u string, extra ...string) (int, string, string) {
		return smtool(append([]string{"ocsp", "-issuer", p("pki/ca.pem"), "-cert", p("pki/server_sign.pem"), "-url", u}, extra...)...)
	}

	u, wait := startResponder(t, d, 1, "-rsigner", p("noeku.pem"), "-rkey", p("noeku.key"))
	code, _, errOut := ask(u)
	if code != 1 || !strings.Contains(errOut, "lacks the id-kp-OCSPSigning extended key usage") {
		t.Errorf("a responder without OCSPSigning: %d %s", code, errOut)
	}
	wait()

	// The other PKI's responder answers for our CA's index, signing as a
	// responder our CA never delegated.
	op := func(n string) string { return filepath.Join(other, n) }
	u, wait = startResponder(t, d, 2, "-rsigner", op("ocsp.pem"), "-rkey", op("ocsp.key"))
	code, _, errOut = ask(u)
	if code != 1 || !strings.Contains(errOut, "is not signed by the issuer") {
		t.Errorf("an undelegated responder: %d %s", code, errOut)
	}
	code, out, errOut := ask(u, "-VAfile", op("ocsp.pem"))
	if code != 0 || !strings.Contains(out, ": good") {
		t.Errorf("a -VAfile responder: %d %s%s", code, out, errOut)
	}
	wait()

	code, _, errOut = ask("http://127.0.0.1:1", "-CAfile", op("pki/ca.pem"))
	if code != 1 || !strings.Contains(errOut, "-issuer does not verify against -CAfile") {
		t.Errorf("an untrusted issuer: %d %s", code, errOut)
	}
}

// TestOCSPUsage checks the command-line errors.
func TestOCSPUsage(t *testing.T) {
	d := ocspPKI(t)
	p := func(n string) string { return filepath.Join(d, n) }
	bad := filepath.Join(d, "bad.txt")
	os.WriteFile(bad, []byte("R\t361231000000Z\tyesterday\t0A\tunknown\t/CN=x\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ocsp", "-cert", p("pki/server_sign.pem"), "-url", "http://x"}, 2, "needs -issuer and -cert"},
		{[]string{"ocsp", "-issuer", p("pki/ca.pem"), "-cert", p("pki/server_sign.pem")}, 2, "give -url"},
		{[]string{"ocsp", "-issuer", p("pki/ca.pem"), "-cert", p("pki/server_sign.pem"), "-url", "http://x", "-md", "md5"}, 2, "-md md5"},
		{[]string{"ocsp", "-issuer", p("pki/ca.pem"), "-cert", p("pki/server_sign.pem"), "-url", "http://x", "-nonce", "-no_nonce"}, 2, "exclude each other"},
		{[]string{"ocsp", "-index", p("index.txt"), "-port", "0"}, 2, "needs -CA and -rkey"},
		{[]string{"ocsp", "-index", bad, "-CA", p("pki/ca.pem"), "-rkey", p("pki/ca.key"), "-port", "0"}, 1, `line 1: revocation date: "yesterday" is not YYMMDDHHMMSSZ`},
		{[]string{"ocsp", "-index", p("index.txt"), "-CA", p("pki/ca.pem"), "-rsigner", p("ocsp.pem"), "-rkey", p("pki/ca.key"), "-port", "0"}, 1, "is not the key of the responder certificate"},
	} {
		code, _, errOut := smtool(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: %d %q, want %d and %q", strings.Join(c.args[1:], " "), code, errOut, c.code, c.want)
		}
	}
}

// TestOCSPIndex reads an OpenSSL CA database.
func TestOCSPIndex(t *testing.T) {
	idx, err := parseIndex([]byte("V\t361231000000Z\t\t0A\tunknown\t/CN=a\n" +
		"R\t361231000000Z\t20261101000000Z,CACompromise\t0b\tunknown\t/CN=b\n" +
		"R\t361231000000Z\t261101000000Z\t0C\tunknown\t/CN=c\n" +
		"E\t201231000000Z\t\t0D\tunknown\t/CN=d\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Keyed as the responder looks serials up (serialHex, which keeps
	// openssl's leading zero).
	want := map[string]indexEntry{
		serialHex(big.NewInt(0xA)): {status: ocsp.Good},
		serialHex(big.NewInt(0xB)): {status: ocsp.Revoked, revokedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), reason: ocsp.CACompromise},
		serialHex(big.NewInt(0xC)): {status: ocsp.Revoked, revokedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		serialHex(big.NewInt(0xD)): {status: ocsp.Good},
	}
	for k, w := range want {
		if g, ok := idx[k]; !ok || g.status != w.status || !g.revokedAt.Equal(w.revokedAt) || g.reason != w.reason {
			t.Errorf("serial %s: %+v, want %+v", k, g, w)
		}
	}
	for _, bad := range []string{"V\t1\t\tZZ\n", "X\t1\t\t0A\n", "R\t1\t261101000000Z,sideways\t0A\n", "V\t1\n"} {
		if _, err := parseIndex([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
