// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build unix

// Command sdfbench measures full TLCP handshakes per second with the
// server's keys inside an SDF device against the same keys in memory, and
// the two private key operations alone. Client and server run in this
// process over net.Pipe, so the CPU time (user + system, from getrusage)
// is both sides' and the device library's; the difference between the
// rows is the device's.
//
// With SoftSDF the keys are read into memory from its own key files in
// -dir (sm2sign-N.pem, sm2enc-N.pem), so both rows use the same keys:
//
//	sdfbench -lib /work/peers/softsdf/lib/libsoftsdf.so -dir /work/peers/softsdf/device -pass P@ssw0rd
package main

import (
	"crypto"
	"crypto/rand"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/examples/sdf"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	smx "github.com/shangmi-go/shangmi/x509"
)

func main() {
	lib := flag.String("lib", "", "the SDF library (`FILE`)")
	dir := flag.String("dir", ".", "working `folder` of the device (SoftSDF keeps its key files there)")
	signIdx := flag.Uint("sign_index", 1, "the signing key's `index`")
	encIdx := flag.Uint("enc_index", 1, "the encryption key's `index`")
	pass := flag.String("pass", "", "the keys' access `password`")
	n := flag.Int("n", 1000, "handshakes per row")
	conc := flag.String("c", "1,4", "comma-separated `concurrencies`")
	sessions := flag.Int("sessions", 0, "sdf.Options.MaxSessions (0: the default)")
	flag.Parse()
	if err := run(*lib, *dir, uint32(*signIdx), uint32(*encIdx), *pass, *n, *conc, *sessions); err != nil {
		fmt.Fprintln(os.Stderr, "sdfbench:", err)
		os.Exit(1)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(lib, dir string, signIdx, encIdx uint32, pass string, n int, conc string, sessions int) error {
	if lib == "" || pass == "" {
		return errors.New("-lib and -pass are required")
	}
	if err := os.Chdir(dir); err != nil {
		return err
	}
	d, err := sdf.Open(lib, &sdf.Options{MaxSessions: sessions})
	if err != nil {
		return err
	}
	defer d.Close()
	devSign, err := d.SignKey(signIdx, []byte(pass))
	if err != nil {
		return err
	}
	devEnc, err := d.EncKey(encIdx, []byte(pass))
	if err != nil {
		return err
	}
	memSign, err := readKey(fmt.Sprintf("sm2sign-%d.pem", signIdx), pass)
	if err != nil {
		return fmt.Errorf("the signing key in memory: %w", err)
	}
	memEnc, err := readKey(fmt.Sprintf("sm2enc-%d.pem", encIdx), pass)
	if err != nil {
		return fmt.Errorf("the encryption key in memory: %w", err)
	}
	if !memSign.PublicKey().Equal(devSign.Public()) || !memEnc.PublicKey().Equal(devEnc.Public()) {
		return errors.New("the key files are not the device's keys")
	}

	ca, caKey, err := newCA()
	if err != nil {
		return err
	}
	signDER, err := issue(ca, caKey, memSign.PublicKey(), false)
	if err != nil {
		return err
	}
	encDER, err := issue(ca, caKey, memEnc.PublicKey(), true)
	if err != nil {
		return err
	}
	roots := smx509.NewCertPool()
	roots.AddCert(ca)
	pairOf := func(sign crypto.Signer, enc crypto.PrivateKey) tlcp.CertificatePair {
		return tlcp.CertificatePair{
			Sign: tlcp.Certificate{Certificate: [][]byte{signDER}, PrivateKey: sign},
			Enc:  tlcp.Certificate{Certificate: [][]byte{encDER}, PrivateKey: enc},
		}
	}

	var cs []int
	for _, f := range strings.Split(conc, ",") {
		c, err := strconv.Atoi(f)
		if err != nil || c < 1 {
			return fmt.Errorf("-c: %q is not a concurrency", f)
		}
		cs = append(cs, c)
	}

	fmt.Printf("%d full handshakes per row, ECC_SM4_GCM_SM3, client and server in one process over net.Pipe\n\n", n)
	fmt.Println("| keys | concurrency | handshakes/s (wall) | CPU ms per handshake (both sides) |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, c := range cs {
		for _, row := range []struct {
			name string
			pair tlcp.CertificatePair
		}{
			{"in SoftSDF (sign + enc)", pairOf(devSign, devEnc)},
			{"in memory", pairOf(memSign, memEnc)},
		} {
			// Warm the pool and the caches first.
			if _, _, err := handshakes(row.pair, roots, 4*c, c); err != nil {
				return err
			}
			wall, cpu, err := handshakes(row.pair, roots, n, c)
			if err != nil {
				return err
			}
			fmt.Printf("| %s | %d | %.0f | %.2f |\n", row.name, c, float64(n)/wall.Seconds(), float64(cpu.Microseconds())/1000/float64(n))
		}
	}

	fmt.Println("\n| operation | keys | ops/s (one goroutine) |")
	fmt.Println("| --- | --- | ---: |")
	msg := make([]byte, 100)
	ct, err := sm2.EncryptASN1(rand.Reader, memEnc.PublicKey(), make([]byte, 48))
	if err != nil {
		return err
	}
	opts := &sm2.DecrypterOpts{ASN1: true}
	for _, op := range []struct {
		name, keys string
		f          func() error
	}{
		{"sign (SM3(Z‖M), SM2)", "SoftSDF", func() error { _, err := devSign.Sign(rand.Reader, msg, &sm2.SignerOpts{}); return err }},
		{"sign (SM3(Z‖M), SM2)", "memory", func() error { _, err := memSign.Sign(rand.Reader, msg, &sm2.SignerOpts{}); return err }},
		{"decrypt 48-byte premaster", "SoftSDF", func() error { _, err := devEnc.Decrypt(rand.Reader, ct, opts); return err }},
		{"decrypt 48-byte premaster", "memory", func() error { _, err := memEnc.Decrypt(rand.Reader, ct, opts); return err }},
	} {
		start := time.Now()
		count := 0
		for time.Since(start) < time.Second {
			if err := op.f(); err != nil {
				return err
			}
			count++
		}
		fmt.Printf("| %s | %s | %.0f |\n", op.name, op.keys, float64(count)/time.Since(start).Seconds())
	}
	return nil
}

// handshakes runs n full handshakes, c at a time, and returns the wall and
// CPU time they took.
func handshakes(pair tlcp.CertificatePair, roots *smx509.CertPool, n, c int) (time.Duration, time.Duration, error) {
	srvCfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair}, SessionCacheSize: -1}
	cliCfg := &tlcp.Config{RootCAs: roots, ServerName: "sdfbench.test", CipherSuites: []uint16{ciphersuite.ECC_SM4_GCM_SM3}}
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	errs := make(chan error, c)
	start, cpu0 := time.Now(), cpuTime()
	for range c {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				a, b := net.Pipe()
				srv := tlcp.Server(a, srvCfg)
				done := make(chan error, 1)
				go func() { done <- srv.Handshake() }()
				cli := tlcp.Client(b, cliCfg)
				err := cli.Handshake()
				if serr := <-done; err == nil {
					err = serr
				}
				a.Close()
				b.Close()
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	wall, cpu := time.Since(start), cpuTime()-cpu0
	close(errs)
	return wall, cpu, <-errs
}

func readKey(path, pass string) (*sm2.PrivateKey, error) {
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	k, err := smx.ParsePrivateKeyPEM(b, []byte(pass))
	if err != nil {
		return nil, err
	}
	sk, ok := k.(*sm2.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an SM2 key", path)
	}
	return sk, nil
}

func newCA() (*smx509.Certificate, *sm2.PrivateKey, error) {
	k, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &smx509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sdfbench CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: smx509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := smx509.CreateCertificate(rand.Reader, tmpl, tmpl, k.PublicKey(), k)
	if err != nil {
		return nil, nil, err
	}
	c, err := smx509.ParseCertificate(der)
	return c, k, err
}

func issue(ca *smx509.Certificate, caKey *sm2.PrivateKey, pub *sm2.PublicKey, enc bool) ([]byte, error) {
	ku := smx509.KeyUsageDigitalSignature
	if enc {
		ku = smx509.KeyUsageKeyEncipherment | smx509.KeyUsageDataEncipherment
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, err
	}
	tmpl := &smx509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "sdfbench.test"}, DNSNames: []string{"sdfbench.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: ku,
		ExtKeyUsage: []smx509.ExtKeyUsage{smx509.ExtKeyUsageServerAuth},
	}
	return smx509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
}
