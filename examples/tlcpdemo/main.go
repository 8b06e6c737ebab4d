// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command tlcpdemo shows TLCP (GB/T 38636-2020), TLS 1.3 with the ShangMi
// suites (RFC 8998) and ordinary TLS on one port, end to end, in one process
// and with nothing on disk: it makes a CA and double certificates (signing +
// encryption) for a server and a client and an ECDSA certificate for
// crypto/tls, serves HTTPS on 127.0.0.1 through tlcp.NewAutoListener and
// tlcp.ServeHTTP, and fetches a page over every TLCP and TLS 1.3-SM cipher
// suite, with and without client authentication, then again on a resumed
// session, and once more with a crypto/tls client (HTTP/2), printing what
// was negotiated, handshake times and download throughput.
//
//	go run ./examples/tlcpdemo               # the table, then exit
//	go run ./examples/tlcpdemo -n 9          # medians of 9 measurements instead of 5
//	go run ./examples/tlcpdemo -serve        # keep the server up for a browser or smtool
//
// A single measurement of one handshake varied 2× between runs on a
// shared machine, and a resumed handshake sometimes came out slower than a
// full one: the first connection of a suite pays for cold caches and
// code, and a busy machine delays either at random. So each handshake
// column is the fastest of -n handshakes (other work only ever adds time,
// never takes it away), full and resumed taken in turn, after one of each
// that is not counted. A TLCP resumption skips all the public-key work; a
// TLS 1.3 one (psk_dhe_ke) still does the key exchange and skips only the
// certificate signature and its verification, so there the two columns
// are closer. The download rate is the median of -n downloads of 4 MiB
// over one kept-alive connection, HTTP framing included.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
)

const downloadSize = 4 << 20

var (
	repeats = flag.Int("n", 5, "measurements per figure; the table shows their median")
	serve   = flag.Bool("serve", false, "keep the server running (until interrupted) and print its URL, instead of running the clients")
	addr    = flag.String("addr", "127.0.0.1:0", "address the server listens on (port 0: any free port)")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tlcpdemo: ")
	flag.Parse()
	if flag.NArg() > 0 || *repeats < 1 {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()

	// 1. An in-memory PKI: one root, double certificates for both ends.
	ca, caKey := issue(&smx509.Certificate{
		Subject:               pkix.Name{CommonName: "tlcpdemo Root CA", Organization: []string{"shangmi"}},
		KeyUsage:              smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, nil, nil)
	roots := smx509.NewCertPool()
	roots.AddCert(ca)
	serverPair := doubleCert(ca, caKey, "localhost", smx509.ExtKeyUsageServerAuth)
	clientPair := doubleCert(ca, caKey, "demo client", smx509.ExtKeyUsageClientAuth)
	fmt.Printf("PKI: root %q; server and client each hold a signing and an encryption certificate (SM2)\n",
		ca.Subject.CommonName)

	// 2. One port, three protocols: tlcp.NewAutoListener reads each
	// ClientHello and hands TLCP and TLS 1.3-SM to this package, ordinary
	// TLS (browsers) to crypto/tls with an ECDSA certificate; the
	// http.Server is served by tlcp.ServeHTTP, which bounds each handshake
	// and logs failures to ErrorLog, as net/http does for TLS. Every suite
	// is enabled, including this project's opt-in ZUC-128 suites; client
	// certificates are verified when sent (ECDHE suites always send them).
	var all []uint16
	for _, s := range tlcp.CipherSuites() {
		all = append(all, s.ID)
	}
	all = append(all, ciphersuite.TLS13DefaultPreference()...)
	serverConfig := &tlcp.Config{
		Certificates: []tlcp.CertificatePair{serverPair},
		ClientCAs:    roots,
		ClientAuth:   tlcp.VerifyClientCertIfGiven,
		CipherSuites: all,
	}
	ecdsaCert, ecdsaRoots := ecdsaCertificate()
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{ecdsaCert}, NextProtos: []string{"h2", "http/1.1"}}
	inner, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ln := tlcp.NewAutoListener(inner, serverConfig, tlsConfig)
	srv := &http.Server{
		Handler:           http.HandlerFunc(handle),
		ReadHeaderTimeout: 5 * time.Second, // also bounds each TLCP handshake
		ErrorLog:          log.New(os.Stderr, "tlcpdemo: server: ", 0),
	}
	go tlcp.ServeHTTP(srv, ln, serverConfig)
	defer srv.Close()
	base := "https://" + ln.Addr().String()
	fmt.Printf("server: HTTPS over TLCP, TLS 1.3-SM and TLS on one port, %s\n", base)
	if *serve {
		serveUntilInterrupted(base)
		return
	}

	// 3. A page over every TLCP and TLS 1.3-SM suite.
	fmt.Printf("full, resumed: the client's handshake time, the fastest of %d taken in turn after one of each not counted\n", *repeats)
	fmt.Printf("download: the median rate (elapsed time) of %d downloads of %d MiB each over one kept-alive connection, HTTP included\n\n", *repeats, downloadSize>>20)
	fmt.Printf("%-8s %-18s %-11s %10s %10s %8s %11s  %s\n", "protocol", "suite", "client cert", "full", "resumed", "resumed?", "download", "page")
	for _, s := range tlcp.CipherSuites() {
		for _, auth := range []bool{false, true} {
			if s.KeyExchange == ciphersuite.KeyExchangeECDHE && !auth {
				continue // ECDHE always authenticates the client (§3.2)
			}
			if err := runSuite(base, "TLCP", s.ID, auth, roots, clientPair); err != nil {
				log.Fatalf("%s: %v", s.Name, err)
			}
		}
	}
	for _, s := range ciphersuite.TLS13Suites() {
		for _, auth := range []bool{false, true} {
			if err := runSuite(base, "TLS 1.3", s.ID, auth, roots, clientPair); err != nil {
				log.Fatalf("%s: %v", s.Name, err)
			}
		}
	}

	// 4. An ordinary TLS client (a browser's part) on the same port.
	if err := runStdTLS(base, ecdsaRoots); err != nil {
		log.Fatalf("crypto/tls: %v", err)
	}
	fmt.Printf("\nECDHE suites always use client authentication: the SM2 key exchange needs the client's encryption key.\n")
	fmt.Printf("TLS 1.3 uses the signing certificate of each pair only; ZUC-128 suites are this project's private, opt-in suites.\n")
	fmt.Printf("done in %.1f s\n", time.Since(start).Seconds())
}

// handle serves "/" (a page describing the connection) and "/bulk?n=N"
// (N bytes of zeros).
func handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/bulk" {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		buf := make([]byte, 32<<10)
		for n > 0 {
			m := min(n, len(buf))
			if _, err := w.Write(buf[:m]); err != nil {
				return
			}
			n -= m
		}
		return
	}
	// r.TLS is set for every protocol; the TLCP and TLS 1.3-SM details,
	// both of a TLCP client's certificates among them, come from
	// ConnectionStateFromRequest, which reports false for crypto/tls.
	if r.TLS == nil {
		http.Error(w, "not over TLS", http.StatusInternalServerError)
		return
	}
	st, ok := tlcp.ConnectionStateFromRequest(r)
	if !ok {
		fmt.Fprintf(w, "hello browser, over %s %s", r.Proto, tls.CipherSuiteName(r.TLS.CipherSuite))
		return
	}
	who := "anonymous client"
	if st.PeerSignCertificate != nil {
		who = fmt.Sprintf("client %q", st.PeerSignCertificate.Subject.CommonName)
	}
	fmt.Fprintf(w, "hello %s, over %s", who, tlcp.CipherSuiteName(st.CipherSuite))
}

// serveUntilInterrupted keeps the server of main running until SIGINT or
// SIGTERM, after saying how to reach it.
func serveUntilInterrupted(base string) {
	fmt.Printf("\nserving until interrupted (Ctrl-C). Try:\n")
	fmt.Printf("  a browser:   %s/   (ordinary TLS, a self-signed ECDSA certificate for localhost: accept the warning)\n", base)
	fmt.Printf("  TLCP:        go run ./examples/smtool s_client -insecure -connect %s   (the SM2 root is in memory only, so nothing can verify it)\n", base[len("https://"):])
	fmt.Printf("  a download:  %s/bulk?n=%d\n", base, downloadSize)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	fmt.Println("tlcpdemo: stopped")
}

// runSuite measures one suite of TLCP or TLS 1.3 (naming a TLS 1.3 suite
// makes the client speak TLS 1.3): full and resumed handshakes in turn,
// then the page and -n downloads over the HTTP transport.
func runSuite(base, protocol string, id uint16, auth bool, roots *smx509.CertPool, pair tlcp.CertificatePair) error {
	cfg := &tlcp.Config{
		RootCAs:            roots,
		ServerName:         "localhost",
		CipherSuites:       []uint16{id},
		ClientSessionCache: tlcp.NewLRUClientSessionCache(1),
	}
	if auth {
		cfg.Certificates = []tlcp.CertificatePair{pair}
	}
	hostPort := base[len("https://"):]
	handshake := func(c *tlcp.Config) (time.Duration, bool, error) {
		t0 := time.Now()
		conn, err := tlcp.Dial("tcp", hostPort, c)
		if err != nil {
			return 0, false, err
		}
		d := time.Since(t0)
		resumed := conn.ConnectionState().DidResume
		// A TLS 1.3 ticket arrives after the handshake: one request,
		// outside the timing, so that the client reads it.
		err = requestOnce(conn)
		conn.Close()
		return d, resumed, err
	}
	// A full handshake: a config whose session cache is empty every time.
	full := func() (time.Duration, error) {
		c := cfg.Clone()
		c.ClientSessionCache = nil
		d, resumed, err := handshake(c)
		if err == nil && resumed {
			err = fmt.Errorf("a client without a session cache resumed")
		}
		return d, err
	}
	var fulls, resumes []time.Duration
	allResumed := true
	for i := 0; i <= *repeats; i++ {
		f, err := full()
		if err != nil {
			return err
		}
		if i == 0 {
			// The session the resumed handshakes resume.
			if _, _, err := handshake(cfg); err != nil {
				return err
			}
		}
		r, resumed, err := handshake(cfg)
		if err != nil {
			return err
		}
		if i == 0 {
			continue // the warm-up pair
		}
		allResumed = allResumed && resumed
		fulls, resumes = append(fulls, f), append(resumes, r)
	}

	tr := tlcp.NewHTTPTransport(cfg)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	page, err := get(client, base+"/")
	if err != nil {
		return err
	}
	rate, err := downloadRate(client, base)
	if err != nil {
		return err
	}
	authText := "no"
	if auth {
		authText = "yes"
	}
	fmt.Printf("%-8s %-18s %-11s %10s %10s %8v %8.1f MB/s  %s\n", protocol, tlcp.CipherSuiteName(id), authText,
		fastest(fulls).Round(10*time.Microsecond), fastest(resumes).Round(10*time.Microsecond), allResumed,
		rate, page)
	return nil
}

// downloadRate returns the median rate of -n downloads of downloadSize
// bytes, in MB/s, over client's kept-alive connection.
func downloadRate(client *http.Client, base string) (float64, error) {
	var rates []float64
	for range *repeats {
		t0 := time.Now()
		body, err := get(client, base+"/bulk?n="+strconv.Itoa(downloadSize))
		if err != nil {
			return 0, err
		}
		if len(body) != downloadSize {
			return 0, fmt.Errorf("downloaded %d bytes, want %d", len(body), downloadSize)
		}
		rates = append(rates, float64(downloadSize)/time.Since(t0).Seconds()/1e6)
	}
	slices.Sort(rates)
	return rates[len(rates)/2], nil
}

// fastest returns the shortest of ds: other work on the machine only ever
// adds to a handshake's time, so the fastest of several is the steadiest
// estimate of what the handshake itself takes.
func fastest(ds []time.Duration) time.Duration { return slices.Min(ds) }

func get(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// doubleCert issues the signing and the encryption certificate of one
// entity, with the same subject and names (tlcp/INTEROP.md §5).
func doubleCert(ca *smx509.Certificate, caKey *sm2.PrivateKey, cn string, eku smx509.ExtKeyUsage) tlcp.CertificatePair {
	leaf := func(ku smx509.KeyUsage) tlcp.Certificate {
		cert, key := issue(&smx509.Certificate{
			Subject:               pkix.Name{CommonName: cn, Organization: []string{"shangmi"}},
			DNSNames:              []string{"localhost"},
			IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
			KeyUsage:              ku,
			ExtKeyUsage:           []smx509.ExtKeyUsage{eku},
			BasicConstraintsValid: true,
		}, ca, caKey)
		return tlcp.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
	}
	return tlcp.CertificatePair{
		Sign: leaf(smx509.KeyUsageDigitalSignature),
		Enc:  leaf(smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment | smx509.KeyUsageKeyAgreement),
	}
}

// issue makes a key and a certificate for it, signed by parent or, if
// parent is nil, self-signed.
func issue(tmpl, parent *smx509.Certificate, parentKey *sm2.PrivateKey) (*smx509.Certificate, *sm2.PrivateKey) {
	key, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 63))
	if err != nil {
		log.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		log.Fatal(err)
	}
	cert, err := smx509.ParseCertificate(der)
	if err != nil {
		log.Fatal(err)
	}
	return cert, key
}

// requestOnce sends a minimal HTTP/1.1 request for the page on conn and
// reads the answer to its end.
func requestOnce(conn net.Conn) error {
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, conn)
	return err
}

// runStdTLS measures crypto/tls (TLS 1.3) as runSuite does our suites,
// and fetches the page and the downloads over HTTP/2, as a browser would.
func runStdTLS(base string, roots *x509.CertPool) error {
	cfg := &tls.Config{RootCAs: roots, ServerName: "localhost", ClientSessionCache: tls.NewLRUClientSessionCache(1),
		NextProtos: []string{"http/1.1"}}
	hostPort := base[len("https://"):]
	handshake := func(c *tls.Config) (time.Duration, bool, error) {
		t0 := time.Now()
		conn, err := tls.Dial("tcp", hostPort, c)
		if err != nil {
			return 0, false, err
		}
		d := time.Since(t0)
		resumed := conn.ConnectionState().DidResume
		err = requestOnce(conn)
		conn.Close()
		return d, resumed, err
	}
	var fulls, resumes []time.Duration
	allResumed := true
	for i := 0; i <= *repeats; i++ {
		c := cfg.Clone()
		c.ClientSessionCache = nil
		f, _, err := handshake(c)
		if err != nil {
			return err
		}
		if i == 0 {
			if _, _, err := handshake(cfg); err != nil {
				return err
			}
		}
		r, resumed, err := handshake(cfg)
		if err != nil {
			return err
		}
		if i == 0 {
			continue
		}
		allResumed = allResumed && resumed
		fulls, resumes = append(fulls, f), append(resumes, r)
	}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, ServerName: "localhost"},
		ForceAttemptHTTP2: true,
	}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	page, err := get(client, base+"/")
	if err != nil {
		return err
	}
	rate, err := downloadRate(client, base)
	if err != nil {
		return err
	}
	fmt.Printf("%-8s %-18s %-11s %10s %10s %8v %8.1f MB/s  %s\n", "TLS", "(crypto/tls)", "no",
		fastest(fulls).Round(10*time.Microsecond), fastest(resumes).Round(10*time.Microsecond), allResumed,
		rate, page)
	return nil
}

// ecdsaCertificate makes a self-signed ECDSA P-256 certificate for
// localhost, the ordinary-TLS side of the port, and a pool trusting it.
func ecdsaCertificate() (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "localhost"},
		DNSNames:              []string{"localhost"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		log.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}
