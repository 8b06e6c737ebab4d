// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
)

func init() {
	register(&command{
		name:    "ocsp",
		group:   "Keys and certificates",
		summary: "OCSP client and responder (RFC 6960), shaped like openssl ocsp",
		about: `As a client (-issuer, -cert, and -url or -respin), asks a responder about each -cert and
verifies the answer: signed by the issuer, by a delegated responder certificate the issuer
signed with the OCSPSigning extended key usage, or by a -VAfile certificate; about this
certificate; inside its thisUpdate/nextUpdate window (widened by -validity_period); echoing
the nonce (-nonce is the default when asking over HTTP; a response without one is a warning,
as in openssl). -CAfile, when given, must verify the issuer. Prints "FILE: good|revoked|unknown"
and the window for each certificate; the exit status is 1 if a response does not verify.

As a responder (-index), answers GET and POST requests (RFC 6960, appendix A) on -port
about the certificates of -CA, from an OpenSSL CA database (index.txt: V, R with the
revocation date and reason, E; serials missing from it are "unknown"), signing with -rkey:
the key of -rsigner, a delegated responder certificate (or of -CA itself). -nrequest N stops
after N requests.`,
		example: []string{
			"smtool ocsp -issuer ca.pem -cert leaf.pem -url http://127.0.0.1:8888 -CAfile ca.pem -resp_text",
			"smtool ocsp -index index.txt -CA ca.pem -rsigner ocsp.pem -rkey ocsp.key -port 8888 -ndays 1",
			"smtool ocsp -issuer ca.pem -cert leaf.pem -respin resp.der",
		},
		run: ocspCommand,
	})
}

func ocspCommand(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	// Client.
	issuerFile := fs.String("issuer", "", "the issuer's certificate `FILE`")
	var certFiles listFlag
	fs.Var(&certFiles, "cert", "certificate `FILE` to ask about (repeat for several)")
	rawURL := fs.String("url", "", "the responder's `URL`")
	hostFlag := fs.String("host", "", "the responder as `host:port` (path from -path)")
	pathFlag := fs.String("path", "/", "with -host: the request `path`")
	caFile := fs.String("CAfile", "", "trusted CA certificates `FILE`: the issuer must verify against them")
	vaFile := fs.String("VAfile", "", "responder certificates `FILE` trusted directly")
	nonce := fs.Bool("nonce", false, "send a nonce (the default when asking over HTTP)")
	noNonce := fs.Bool("no_nonce", false, "send no nonce")
	md := fs.String("md", "sha1", "CertID `hash`: sha1, sha256, sha384, sha512 or sm3")
	fs.Bool("sha1", false, "CertID hash SHA-1 (the default)")
	fs.Bool("sha256", false, "CertID hash SHA-256")
	fs.Bool("sm3", false, "CertID hash SM3")
	reqout := fs.String("reqout", "", "write the DER request to `FILE`")
	respout := fs.String("respout", "", "write the DER response to `FILE`")
	respin := fs.String("respin", "", "verify the DER response in `FILE` instead of asking")
	reqin := fs.String("reqin", "", "send the DER request in `FILE` (or, with -index, answer it and write the response to -respout)")
	respText := fs.Bool("resp_text", false, "print the response")
	reqText := fs.Bool("req_text", false, "print the request")
	noVerify := fs.Bool("noverify", false, "do not verify the response (still print it)")
	validity := fs.Int("validity_period", 300, "allowed clock skew, in `seconds`, on thisUpdate and nextUpdate")
	timeout := fs.Int("timeout", 10, "HTTP timeout in `seconds`")
	// Responder.
	index := fs.String("index", "", "OpenSSL CA database `FILE` (index.txt): act as a responder")
	caCert := fs.String("CA", "", "with -index: the CA `FILE` whose certificates are answered for")
	rsigner := fs.String("rsigner", "", "with -index: the responder's certificate `FILE` (default: -CA)")
	rkey := fs.String("rkey", "", "with -index: the responder's private key `FILE`")
	passin := fs.String("passin", "", "`password` of -rkey: "+passUsage)
	port := fs.String("port", "", "with -index: listen on this `port` of localhost, or [host:]port")
	nrequest := fs.Int("nrequest", 0, "with -index: stop after this `many` requests (0: never)")
	ndays := fs.Int("ndays", 0, "with -index: nextUpdate this many `days` after thisUpdate")
	nmin := fs.Int("nmin", 0, "with -index: nextUpdate this many `minutes` after thisUpdate")
	respKeyID := fs.Bool("resp_key_id", false, "with -index: name the responder by key hash, not by name")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	hash, ok := ocsp.HashFromName(*md)
	if !ok {
		return usagef("-md %s: want sha1, sha256, sha384, sha512 or sm3", *md)
	}
	for _, n := range []string{"sha1", "sha256", "sm3"} {
		if fs.isSet(n) {
			hash, _ = ocsp.HashFromName(n)
		}
	}

	if *index != "" {
		if *caCert == "" || *rkey == "" {
			return usagef("a responder (-index) needs -CA and -rkey")
		}
		if *port == "" && *reqin == "" {
			return usagef("a responder (-index) needs -port, or -reqin to answer one request")
		}
		r, err := newResponder(e, *index, *caCert, *rsigner, *rkey, *passin)
		if err != nil {
			return err
		}
		r.nextUpdate = time.Duration(*ndays)*24*time.Hour + time.Duration(*nmin)*time.Minute
		r.byKey = *respKeyID
		if *reqin != "" {
			req, err := os.ReadFile(*reqin)
			if err != nil {
				return err
			}
			resp := r.answer(req)
			if *respout == "" {
				return usagef("-reqin with -index needs -respout")
			}
			return os.WriteFile(*respout, resp, 0o644)
		}
		return r.serve(e, *port, *nrequest)
	}

	if *issuerFile == "" || len(certFiles.values) == 0 {
		return usagef("a client needs -issuer and -cert (or -index to be a responder)")
	}
	if *rawURL == "" && *hostFlag == "" && *respin == "" {
		return usagef("give -url (or -host) to ask a responder, or -respin to check a saved response")
	}
	if *nonce && *noNonce {
		return usagef("-nonce and -no_nonce exclude each other")
	}
	issuer, err := readFirstCertificate(*issuerFile)
	if err != nil {
		return err
	}
	if *caFile != "" {
		if err := verifyIssuer(issuer, *caFile); err != nil {
			return err
		}
	}
	var trusted []*smx509.Certificate
	if *vaFile != "" {
		if trusted, err = readCertificates(*vaFile); err != nil {
			return err
		}
	}
	target := *rawURL
	if target == "" && *hostFlag != "" {
		target = "http://" + *hostFlag + *pathFlag
	}
	// As in openssl, a nonce is sent by default unless the response comes
	// from a file.
	sendNonce := !*noNonce && (*nonce || *respin == "")
	opts := ocsp.VerifyOptions{
		CurrentTime:       time.Now(),
		MaxClockSkew:      time.Duration(*validity) * time.Second,
		TrustedResponders: trusted,
	}
	failed := false
	for _, certFile := range certFiles.values {
		cert, err := readFirstCertificate(certFile)
		if err != nil {
			return err
		}
		var reqDER []byte
		var n []byte
		if *reqin != "" {
			if reqDER, err = os.ReadFile(*reqin); err != nil {
				return err
			}
			req, err := ocsp.ParseRequest(reqDER)
			if err != nil {
				return fmt.Errorf("%s: %w", *reqin, err)
			}
			n = req.Nonce
		} else {
			if sendNonce {
				n = make([]byte, 16)
				rand.Read(n)
			}
			if reqDER, err = ocsp.CreateRequest(cert, issuer, &ocsp.RequestOptions{Hash: hash, Nonce: n}); err != nil {
				return err
			}
		}
		if *reqout != "" {
			if err := os.WriteFile(*reqout, reqDER, 0o644); err != nil {
				return err
			}
		}
		if *reqText {
			if req, err := ocsp.ParseRequest(reqDER); err == nil {
				printOCSPRequest(e.stdout, req)
			}
		}
		var respDER []byte
		if *respin != "" {
			if respDER, err = os.ReadFile(*respin); err != nil {
				return err
			}
			respDER = derOf(respDER, "OCSP RESPONSE")
		} else if respDER, err = postOCSP(target, reqDER, time.Duration(*timeout)*time.Second); err != nil {
			return err
		}
		if *respout != "" {
			if err := os.WriteFile(*respout, respDER, 0o644); err != nil {
				return err
			}
		}
		if *respText {
			r, err := ocsp.ParseResponseForCert(respDER, cert, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", certFile, err)
			}
			printOCSPResponse(e.stdout, r)
		}
		opts.Nonce = n
		var r *ocsp.Response
		if *noVerify {
			r, err = ocsp.ParseResponseForCert(respDER, cert, nil)
		} else {
			r, err = ocsp.Verify(respDER, cert, issuer, opts)
			if errors.Is(err, ocsp.ErrNonceMissing) {
				e.warnf("no nonce in the response")
				err = nil
			}
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: Response Verify Failure: %v\n", certFile, err)
			failed = true
			continue
		}
		if !*noVerify {
			fmt.Fprintln(e.stderr, "Response verify OK")
		}
		fmt.Fprintf(e.stdout, "%s: %s\n", certFile, ocsp.StatusName(r.Status))
		fmt.Fprintf(e.stdout, "\tThis Update: %s\n", opensslTime(r.ThisUpdate))
		if !r.NextUpdate.IsZero() {
			fmt.Fprintf(e.stdout, "\tNext Update: %s\n", opensslTime(r.NextUpdate))
		}
		if r.Status == ocsp.Revoked {
			fmt.Fprintf(e.stdout, "\tReason: %s\n\tRevocation Time: %s\n", ocsp.ReasonName(r.RevocationReason), opensslTime(r.RevokedAt))
		}
	}
	if failed {
		return errors.New("a response did not verify")
	}
	return nil
}

// readFirstCertificate reads the first certificate of a file.
func readFirstCertificate(path string) (*smx509.Certificate, error) {
	certs, err := readCertificates(path)
	if err != nil {
		return nil, err
	}
	return certs[0], nil
}

// verifyIssuer checks the issuer against -CAfile: it is one of its
// certificates or chains to them.
func verifyIssuer(issuer *smx509.Certificate, caFile string) error {
	cas, err := readCertificates(caFile)
	if err != nil {
		return err
	}
	pool := smx509.NewCertPool()
	for _, c := range cas {
		if c.Equal(issuer) {
			return nil
		}
		pool.AddCert(c)
	}
	if _, err := issuer.Verify(smx509.VerifyOptions{Roots: pool, KeyUsages: []smx509.ExtKeyUsage{smx509.ExtKeyUsageAny}}); err != nil {
		return fmt.Errorf("-issuer does not verify against -CAfile %s: %w", caFile, err)
	}
	return nil
}

// derOf returns the DER of a PEM block of the given type, or data itself.
func derOf(data []byte, typ string) []byte {
	if b, _ := pem.Decode(data); b != nil && b.Type == typ {
		return b.Bytes
	}
	return data
}

// postOCSP sends a request to a responder by POST, as openssl does.
func postOCSP(target string, req []byte, timeout time.Duration) ([]byte, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, usagef("-url %q: want http://host[:port][/path]", target)
	}
	client := &http.Client{Timeout: timeout}
	resp, err := client.Post(target, "application/ocsp-request", bytes.NewReader(req))
	if err != nil {
		return nil, fmt.Errorf("asking %s: %w", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered HTTP %s", target, resp.Status)
	}
	return body, nil
}

func printOCSPRequest(w io.Writer, r *ocsp.Request) {
	fmt.Fprintf(w, "OCSP Request Data:\n    Certificate ID:\n      Hash Algorithm: %s\n      Issuer Name Hash: %X\n      Issuer Key Hash: %X\n      Serial Number: %s\n",
		r.HashName(), r.IssuerNameHash, r.IssuerKeyHash, serialHex(r.SerialNumber))
	if r.Nonce != nil {
		fmt.Fprintf(w, "    OCSP Nonce: %X\n", r.Nonce)
	}
}

func printOCSPResponse(w io.Writer, r *ocsp.Response) {
	fmt.Fprintf(w, "OCSP Response Data:\n    OCSP Response Status: successful (0x0)\n    Response Type: Basic OCSP Response\n")
	if r.RawResponderName != nil {
		fmt.Fprintf(w, "    Responder Id: %s\n", describeName(r.RawResponderName))
	} else {
		fmt.Fprintf(w, "    Responder Id: key hash %X\n", r.ResponderKeyHash)
	}
	fmt.Fprintf(w, "    Produced At: %s\n    Responses:\n    Certificate ID:\n      Hash Algorithm: %s\n      Issuer Name Hash: %X\n      Issuer Key Hash: %X\n      Serial Number: %s\n    Cert Status: %s\n",
		opensslTime(r.ProducedAt), r.HashName(), r.IssuerNameHash, r.IssuerKeyHash, serialHex(r.SerialNumber), ocsp.StatusName(r.Status))
	if r.Status == ocsp.Revoked {
		fmt.Fprintf(w, "    Revocation Time: %s\n    Revocation Reason: %s\n", opensslTime(r.RevokedAt), ocsp.ReasonName(r.RevocationReason))
	}
	fmt.Fprintf(w, "    This Update: %s\n", opensslTime(r.ThisUpdate))
	if !r.NextUpdate.IsZero() {
		fmt.Fprintf(w, "    Next Update: %s\n", opensslTime(r.NextUpdate))
	}
	if r.Nonce != nil {
		fmt.Fprintf(w, "    OCSP Nonce: %X\n", r.Nonce)
	}
	fmt.Fprintf(w, "    Signature Algorithm: %v\n", r.SignatureAlgorithm)
	for _, c := range r.Certificates {
		fmt.Fprintf(w, "    Certificate: %s (serial %s)\n", c.Subject.String(), serialHex(c.SerialNumber))
	}
}

// describeName prints a DER Name as its common name, or in hex.
func describeName(raw []byte) string {
	if cn := commonName(raw); cn != "" {
		return "CN=" + cn
	}
	return hex.EncodeToString(raw)
}

// responder answers OCSP requests from an OpenSSL CA database.
type responder struct {
	ca         *smx509.Certificate
	signer     *smx509.Certificate
	key        crypto.Signer
	index      map[string]indexEntry // upper-case hex serial
	nextUpdate time.Duration
	byKey      bool
}

type indexEntry struct {
	status    int
	revokedAt time.Time
	reason    int
}

func newResponder(e *env, indexFile, caFile, signerFile, keyFile, passin string) (*responder, error) {
	r := &responder{}
	var err error
	if r.ca, err = readFirstCertificate(caFile); err != nil {
		return nil, err
	}
	r.signer = r.ca
	if signerFile != "" {
		if r.signer, err = readFirstCertificate(signerFile); err != nil {
			return nil, err
		}
	}
	if r.key, err = loadPrivateKey(e, keyFile, "passin", passin); err != nil {
		return nil, err
	}
	if !samePublicKey(r.signer, r.key) {
		return nil, fmt.Errorf("-rkey %s is not the key of the responder certificate %s", keyFile, r.signer.Subject.String())
	}
	if r.signer != r.ca {
		if err := r.signer.CheckSignatureFrom(r.ca); err != nil {
			e.warnf("-rsigner is not signed by -CA (clients will refuse its responses): %v", err)
		}
	}
	data, err := os.ReadFile(indexFile)
	if err != nil {
		return nil, err
	}
	if r.index, err = parseIndex(data); err != nil {
		return nil, fmt.Errorf("%s: %w", indexFile, err)
	}
	return r, nil
}

// samePublicKey reports whether key is the private key of cert.
func samePublicKey(cert *smx509.Certificate, key crypto.Signer) bool {
	type equaler interface{ Equal(crypto.PublicKey) bool }
	pub, ok := key.Public().(equaler)
	return ok && pub.Equal(cert.PublicKey)
}

// parseIndex reads an OpenSSL CA database: tab-separated lines of status
// (V, R, E), expiry, revocation date[,reason], serial (hex), file name and
// subject.
func parseIndex(data []byte) (map[string]indexEntry, error) {
	out := map[string]indexEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: want at least 4 tab-separated fields (status, expiry, revocation, serial), got %d", line, len(f))
		}
		serial, ok := new(big.Int).SetString(f[3], 16)
		if !ok {
			return nil, fmt.Errorf("line %d: serial %q is not hexadecimal", line, f[3])
		}
		var ent indexEntry
		switch f[0] {
		case "V", "E":
			ent.status = ocsp.Good
		case "R":
			ent.status = ocsp.Revoked
			date, reason, _ := strings.Cut(f[2], ",")
			t, err := parseIndexTime(date)
			if err != nil {
				return nil, fmt.Errorf("line %d: revocation date: %w", line, err)
			}
			ent.revokedAt = t
			if reason != "" {
				reason, _, _ = strings.Cut(reason, ",")
				if ent.reason, ok = ocsp.ReasonFromName(reason); !ok {
					return nil, fmt.Errorf("line %d: unknown revocation reason %q", line, reason)
				}
			}
		default:
			return nil, fmt.Errorf("line %d: status %q is not V, R or E", line, f[0])
		}
		out[serialHex(serial)] = ent
	}
	return out, sc.Err()
}

// parseIndexTime reads YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ.
func parseIndexTime(s string) (time.Time, error) {
	layout := "060102150405Z"
	if len(s) == 15 {
		layout = "20060102150405Z"
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not YYMMDDHHMMSSZ", s)
	}
	return t, nil
}

// answer returns the DER response to a DER request.
func (r *responder) answer(der []byte) []byte {
	req, err := ocsp.ParseRequest(der)
	if err != nil {
		return ocsp.ErrorResponse(ocsp.Malformed)
	}
	if !req.HashAlgorithm.Available() || !req.IssuedBy(r.ca) {
		// Not a certificate of our CA, or a CertID we cannot match: RFC
		// 6960, 2.3's unauthorized.
		return ocsp.ErrorResponse(ocsp.Unauthorized)
	}
	now := time.Now()
	tmpl := ocsp.Response{
		Status:       ocsp.Unknown,
		SerialNumber: req.SerialNumber,
		IssuerHash:   req.HashAlgorithm,
		ProducedAt:   now,
		ThisUpdate:   now,
		Nonce:        req.Nonce,
	}
	if r.nextUpdate > 0 {
		tmpl.NextUpdate = now.Add(r.nextUpdate)
	}
	if r.byKey {
		tmpl.ResponderKeyHash = []byte{1}
	}
	if ent, ok := r.index[serialHex(req.SerialNumber)]; ok {
		tmpl.Status, tmpl.RevokedAt, tmpl.RevocationReason = ent.status, ent.revokedAt, ent.reason
	}
	resp, err := ocsp.CreateResponse(r.ca, r.signer, tmpl, r.key)
	if err != nil {
		return ocsp.ErrorResponse(ocsp.InternalError)
	}
	return resp
}

// serve answers requests over HTTP: POST with the DER body, or GET with
// the base64 request, URL-escaped, as the path's last part.
func (r *responder) serve(e *env, port string, nrequest int) error {
	addr, err := listenAddress(port, "", true)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "ocsp: waiting for OCSP client connections on %s\n", ln.Addr())
	var mu sync.Mutex
	served := 0
	done := make(chan struct{})
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		var der []byte
		switch q.Method {
		case http.MethodPost:
			b, err := io.ReadAll(io.LimitReader(q.Body, 64<<10))
			if err != nil {
				http.Error(w, "reading the request", http.StatusBadRequest)
				return
			}
			der = b
		case http.MethodGet:
			p := q.URL.EscapedPath()
			p = p[strings.LastIndex(p, "/")+1:]
			s, err := url.PathUnescape(p)
			if err == nil {
				der, err = base64.StdEncoding.DecodeString(s)
			}
			if err != nil {
				der = nil
			}
		default:
			http.Error(w, "OCSP takes GET or POST", http.StatusMethodNotAllowed)
			return
		}
		resp := r.answer(der)
		w.Header().Set("Content-Type", "application/ocsp-response")
		w.Write(resp)
		mu.Lock()
		served++
		if nrequest > 0 && served == nrequest {
			close(done)
		}
		mu.Unlock()
	})
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-done:
		// Shutdown lets the last answer reach the client.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(ctx)
	case err := <-errc:
		return err
	}
}
