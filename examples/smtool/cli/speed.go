// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto/hmac"
	"crypto/rand"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/internal/impl"
	"github.com/shangmi-go/shangmi/primitives/sm2"
	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/primitives/zuc"
	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/tlcp"
	"golang.org/x/sys/cpu"
)

func init() {
	register(&command{
		name:    "speed",
		group:   "Performance",
		summary: "measure the primitives and TLCP handshakes, like openssl speed",
		args:    "[sm2|sm3|sm4|zuc|tlcp|TEST...]",
		about: `Each test runs for -seconds (3 by default, as openssl) at each size of 16, 64, 256, 1024,
8192 and 16384 bytes (-bytes picks one), printing a progress line on standard error, and
then a table. Rates are per second of this process's CPU time, which a machine busy with
other work disturbs less than the wall clock (-elapsed uses the wall clock); the TLCP
handshakes count the CPU of both ends, which run in this process. The header names the
Go build, the CPU's features and, per primitive, the assembly kernels the CPU can run
(none: the generic Go code); -impl PKG=NAME runs one of them alone (or generic) to
compare. The tests, by group:
  sm3   sm3 hmac-sm3                  sm4   sm4-cbc sm4-cbc-decrypt sm4-ctr sm4-gcm
  zuc   zuc-128 zuc-eia3              tlcp  tlcp-ecc tlcp-ecdhe tlcp-resume
  sm2   sm2-keygen sm2-sign sm2-verify sm2-encrypt sm2-decrypt`,
		example: []string{
			"smtool speed",
			"smtool speed -seconds 1 sm4 tlcp",
			"smtool speed -impl sm4=generic -bytes 8192 sm4-gcm",
		},
		run: speed,
	})
}

// speedTest is one row of the table.
type speedTest struct {
	group, name string
	bulk        bool // MB/s at each size, else ops/s
	// setup prepares the test for size (bulk) and returns one operation;
	// cleanup, if not nil, releases what setup made.
	setup func(size int) (op func() error, cleanup func(), err error)
}

var speedSizes = []int{16, 64, 256, 1024, 8192, 16384}

func speedTests() []speedTest {
	key := make([]byte, 16)
	iv := make([]byte, 16)
	rand.Read(key)
	buf := func(n int) []byte { return make([]byte, n) }
	bulk := func(group, name string, mk func(b []byte) (func() error, error)) speedTest {
		return speedTest{group: group, name: name, bulk: true, setup: func(size int) (func() error, func(), error) {
			op, err := mk(buf(size))
			return op, nil, err
		}}
	}
	sm4Block := func() *sm4.Block {
		b, err := sm4.NewCipher(key)
		if err != nil {
			panic(err)
		}
		return b.(*sm4.Block)
	}
	tests := []speedTest{
		bulk("sm3", "sm3", func(b []byte) (func() error, error) {
			return func() error { sm3.Sum(b); return nil }, nil
		}),
		bulk("sm3", "hmac-sm3", func(b []byte) (func() error, error) {
			h := hmac.New(sm3.New, key)
			var out [32]byte
			return func() error { h.Reset(); h.Write(b); h.Sum(out[:0]); return nil }, nil
		}),
		bulk("sm4", "sm4-cbc", func(b []byte) (func() error, error) {
			m := sm4Block().NewCBCEncrypter(iv)
			return func() error { m.CryptBlocks(b, b); return nil }, nil
		}),
		bulk("sm4", "sm4-cbc-decrypt", func(b []byte) (func() error, error) {
			m := sm4Block().NewCBCDecrypter(iv)
			return func() error { m.CryptBlocks(b, b); return nil }, nil
		}),
		bulk("sm4", "sm4-ctr", func(b []byte) (func() error, error) {
			s := sm4Block().NewCTR(iv)
			return func() error { s.XORKeyStream(b, b); return nil }, nil
		}),
		bulk("sm4", "sm4-gcm", func(b []byte) (func() error, error) {
			a, err := sm4Block().NewGCM(12, 16)
			if err != nil {
				return nil, err
			}
			nonce := make([]byte, 12)
			out := make([]byte, 0, len(b)+16)
			return func() error { a.Seal(out[:0], nonce, b, nil); return nil }, nil
		}),
		bulk("zuc", "zuc-128", func(b []byte) (func() error, error) {
			s, err := zuc.NewCipher(key, iv)
			if err != nil {
				return nil, err
			}
			c := s.(*zuc.Cipher)
			// A fresh keystream per message, as a record or packet uses.
			return func() error { c.Reset(iv); c.XORKeyStream(b, b); return nil }, nil
		}),
		bulk("zuc", "zuc-eia3", func(b []byte) (func() error, error) {
			h, err := zuc.NewEIA3(key, 0x12345678, 5, 1)
			if err != nil {
				return nil, err
			}
			var out [4]byte
			return func() error { h.Reset(); h.Write(b); h.Sum(out[:0]); return nil }, nil
		}),
	}
	priv, _ := sm2.GenerateKey(rand.Reader)
	msg := make([]byte, 32)
	sig, _ := sm2.SignASN1(rand.Reader, priv, msg, nil)
	ct, _ := sm2.EncryptASN1(rand.Reader, priv.PublicKey(), msg)
	op := func(name string, f func() error) speedTest {
		return speedTest{group: "sm2", name: name, setup: func(int) (func() error, func(), error) { return f, nil, nil }}
	}
	tests = append(tests,
		op("sm2-keygen", func() error { _, err := sm2.GenerateKey(rand.Reader); return err }),
		op("sm2-sign", func() error { _, err := sm2.SignASN1(rand.Reader, priv, msg, nil); return err }),
		op("sm2-verify", func() error {
			if !sm2.VerifyASN1(priv.PublicKey(), msg, nil, sig) {
				return fmt.Errorf("signature does not verify")
			}
			return nil
		}),
		op("sm2-encrypt", func() error { _, err := sm2.EncryptASN1(rand.Reader, priv.PublicKey(), msg); return err }),
		op("sm2-decrypt", func() error { _, err := sm2.DecryptASN1(priv, ct); return err }),
	)
	for _, t := range []struct {
		name   string
		suite  uint16
		resume bool
	}{
		{"tlcp-ecc", ciphersuite.ECC_SM4_GCM_SM3, false},
		{"tlcp-ecdhe", ciphersuite.ECDHE_SM4_GCM_SM3, false},
		{"tlcp-resume", ciphersuite.ECC_SM4_GCM_SM3, true},
	} {
		tests = append(tests, speedTest{group: "tlcp", name: t.name, setup: func(int) (func() error, func(), error) {
			return handshakeBench(t.suite, t.resume)
		}})
	}
	return tests
}

// handshakeBench starts a server on the loopback and returns an operation
// that makes one handshake with it.
func handshakeBench(suite uint16, resume bool) (func() error, func(), error) {
	set, err := generateTLCP(genConfig{NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		Hosts: sans{dns: []string{"localhost"}}})
	if err != nil {
		return nil, nil, err
	}
	pair := func(sign, enc issued) tlcp.CertificatePair {
		return tlcp.CertificatePair{
			Sign: tlcp.Certificate{Certificate: [][]byte{sign.Cert.Raw}, PrivateKey: sign.Key, Leaf: sign.Cert},
			Enc:  tlcp.Certificate{Certificate: [][]byte{enc.Cert.Raw}, PrivateKey: enc.Key, Leaf: enc.Cert},
		}
	}
	scfg := &tlcp.Config{Certificates: []tlcp.CertificatePair{pair(set.ServerSign, set.ServerEnc)}}
	ln, err := tlcp.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		return nil, nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c.(*tlcp.Conn).Handshake()
				io.Copy(io.Discard, c) // until the client's close_notify
				c.Close()
			}()
		}
	}()
	roots := smx509.NewCertPool()
	roots.AddCert(set.CA.Cert)
	ccfg := &tlcp.Config{
		RootCAs: roots, ServerName: "localhost", CipherSuites: []uint16{suite},
		Certificates: []tlcp.CertificatePair{pair(set.ClientSign, set.ClientEnc)},
	}
	if resume {
		ccfg.ClientSessionCache = tlcp.NewLRUClientSessionCache(1)
	}
	addr := ln.Addr().String()
	once := func() error {
		c, err := tlcp.Dial("tcp", addr, ccfg)
		if err != nil {
			return err
		}
		return c.Close()
	}
	if resume {
		// The first handshake fills the cache; every later one resumes.
		if err := once(); err != nil {
			ln.Close()
			return nil, nil, err
		}
	}
	return once, func() { ln.Close() }, nil
}

// speedResult is one measurement.
type speedResult struct {
	ops  int
	secs float64
}

func (r speedResult) rate() float64 {
	if r.secs <= 0 {
		return 0
	}
	return float64(r.ops) / r.secs
}

// measure runs op repeatedly for d of wall time and returns the count and
// the CPU (or with elapsed the wall) seconds it took.
func measure(op func() error, d time.Duration, elapsed bool) (speedResult, error) {
	// Warm up (and fail early).
	if err := op(); err != nil {
		return speedResult{}, err
	}
	startWall, startCPU := time.Now(), processCPU()
	ops, batch := 0, 1
	for {
		for range batch {
			if err := op(); err != nil {
				return speedResult{}, err
			}
		}
		ops += batch
		if time.Since(startWall) >= d {
			break
		}
		if batch < 1<<16 && time.Since(startWall) < d/100 {
			batch *= 2
		}
	}
	secs := time.Since(startWall).Seconds()
	if cpuSecs := (processCPU() - startCPU).Seconds(); !elapsed && cpuSecs > 0 {
		secs = cpuSecs
	}
	return speedResult{ops, secs}, nil
}

func speed(e *env, cmd *command, args []string) error {
	fs := newFlags(cmd)
	seconds := &secondsFlag{d: 3 * time.Second}
	fs.Var(seconds, "seconds", "run each test for `N` seconds (3, 0.5 or 500ms)")
	bytesFlag := fs.String("bytes", "", "measure the bulk tests at these `sizes` only (comma-separated byte counts)")
	elapsed := fs.Bool("elapsed", false, "rates per second of wall-clock time instead of CPU time")
	implFlag := &listFlag{split: true}
	fs.Var(implFlag, "impl", "run `PKG=NAME` only (sm4=generic, sm4=gfni, ...; may be repeated), instead of the CPU's choice")
	rest, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	sizes := speedSizes
	if *bytesFlag != "" {
		sizes = nil
		for _, s := range strings.Split(*bytesFlag, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n <= 0 || n%16 != 0 || n > 1<<24 {
				return usagef("-bytes: %q is not a positive multiple of 16 up to 16 MiB", s)
			}
			sizes = append(sizes, n)
		}
	}
	for _, sel := range implFlag.values {
		pkg, name, ok := strings.Cut(sel, "=")
		if !ok {
			return usagef("-impl %q: want PKG=NAME, e.g. sm4=generic", sel)
		}
		if !impl.Select(pkg, name) {
			return fmt.Errorf("-impl %s: this CPU has no %q implementation of %s (it has: generic%s)", sel, name, pkg, prefixEach(", ", impl.List(pkg)))
		}
		defer impl.Reset(pkg)
	}
	all := speedTests()
	var tests []speedTest
	for _, a := range rest {
		found := false
		for _, t := range all {
			if t.group == a || t.name == a {
				found = true
				if !slices.ContainsFunc(tests, func(x speedTest) bool { return x.name == t.name }) {
					tests = append(tests, t)
				}
			}
		}
		if !found {
			var names []string
			for _, t := range all {
				names = append(names, t.name)
			}
			return usagef("unknown test %q (want sm2, sm3, sm4, zuc, tlcp or one of %s)", a, strings.Join(names, " "))
		}
	}
	if len(tests) == 0 {
		tests = all
	}

	printSpeedHeader(e.stdout, implFlag.values)
	clock := "CPU"
	if *elapsed {
		clock = "wall-clock"
	}
	results := map[string][]speedResult{}
	for _, t := range tests {
		ss := []int{0}
		if t.bulk {
			ss = sizes
		}
		for _, size := range ss {
			op, cleanup, err := t.setup(size)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			if t.bulk {
				fmt.Fprintf(e.stderr, "Doing %s for %v on %d size blocks: ", t.name, seconds.d, size)
			} else {
				fmt.Fprintf(e.stderr, "Doing %s for %v: ", t.name, seconds.d)
			}
			res, err := measure(op, seconds.d, *elapsed)
			if cleanup != nil {
				cleanup()
			}
			if err != nil {
				fmt.Fprintln(e.stderr, "failed")
				return fmt.Errorf("%s: %w", t.name, err)
			}
			fmt.Fprintf(e.stderr, "%d %s's in %.2fs (%s)\n", res.ops, t.name, res.secs, clock)
			results[t.name] = append(results[t.name], res)
		}
	}

	w := e.stdout
	hasBulk, hasOps := false, false
	for _, t := range tests {
		hasBulk = hasBulk || t.bulk
		hasOps = hasOps || !t.bulk
	}
	if hasBulk {
		fmt.Fprintf(w, "\nMB/s (10^6 bytes per %s second)\n%-16s", clock, "type")
		for _, s := range sizes {
			fmt.Fprintf(w, " %12s", strconv.Itoa(s)+" bytes")
		}
		fmt.Fprintln(w)
		for _, t := range tests {
			if !t.bulk {
				continue
			}
			fmt.Fprintf(w, "%-16s", t.name)
			for i, r := range results[t.name] {
				fmt.Fprintf(w, " %12.2f", r.rate()*float64(sizes[i])/1e6)
			}
			fmt.Fprintln(w)
		}
	}
	if hasOps {
		fmt.Fprintf(w, "\n%-16s %12s %12s   (per %s second", "", "ops/s", "µs/op", clock)
		if slices.ContainsFunc(tests, func(t speedTest) bool { return t.group == "tlcp" }) {
			fmt.Fprint(w, "; tlcp: full or resumed handshakes over loopback, both ends in this process")
		}
		fmt.Fprintln(w, ")")
		for _, t := range tests {
			if t.bulk {
				continue
			}
			r := results[t.name][0]
			fmt.Fprintf(w, "%-16s %12.1f %12.1f\n", t.name, r.rate(), 1e6/r.rate())
		}
	}
	return nil
}

func prefixEach(prefix string, list []string) string {
	s := ""
	for _, x := range list {
		s += prefix + x
	}
	return s
}

// cpuFeatures lists the CPU features that SM kernels use.
func cpuFeatures() []string {
	var f []string
	add := func(has bool, name string) {
		if has {
			f = append(f, name)
		}
	}
	switch runtime.GOARCH {
	case "amd64", "386":
		add(cpu.X86.HasAES, "AES-NI")
		add(cpu.X86.HasPCLMULQDQ, "PCLMULQDQ")
		add(cpu.X86.HasAVX, "AVX")
		add(cpu.X86.HasAVX2, "AVX2")
		add(cpu.X86.HasBMI2, "BMI2")
		add(cpu.X86.HasADX, "ADX")
		add(cpu.X86.HasAVX512F, "AVX-512F")
		add(cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL, "AVX-512BW/VL")
		add(cpu.X86.HasAVX512IFMA, "AVX-512IFMA")
		add(cpu.X86.HasAVX512VBMI, "AVX-512VBMI")
		add(cpu.X86.HasAVX512GFNI, "GFNI")
		add(cpu.X86.HasAVX512VAES, "VAES")
		add(cpu.X86.HasAVX512VPCLMULQDQ, "VPCLMULQDQ")
	case "arm64":
		add(cpu.ARM64.HasASIMD, "NEON")
		add(cpu.ARM64.HasAES, "AES")
		add(cpu.ARM64.HasPMULL, "PMULL")
		add(cpu.ARM64.HasSM3, "SM3")
		add(cpu.ARM64.HasSM4, "SM4")
		add(cpu.ARM64.HasSHA3, "SHA3")
	}
	if len(f) == 0 {
		f = append(f, "none used")
	}
	return f
}

// implementations names, per primitive, the kernels impl.List reports
// for this CPU, or the generic Go code.
func implementations(selected []string) []string {
	var lines []string
	for _, pkg := range []string{"sm2", "sm3", "sm4", "zuc"} {
		s := pkg + ": "
		if list := impl.List(pkg); len(list) > 0 {
			s += "kernels " + strings.Join(list, ", ")
		} else {
			s += "generic Go"
		}
		for _, sel := range selected {
			if p, name, _ := strings.Cut(sel, "="); p == pkg {
				s += " (running " + name + " only: -impl)"
			}
		}
		lines = append(lines, s)
	}
	return lines
}

func printSpeedHeader(w io.Writer, selected []string) {
	fmt.Fprintf(w, "smtool speed: %s\n", platform())
	printCPU(w, selected)
}

// platform names the Go release, the target and the CPUs, for the first
// line of speed and version.
func platform() string {
	return fmt.Sprintf("%s %s/%s, %d CPUs (GOMAXPROCS %d)", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
}

// printCPU prints the CPU features and the kernels in use.
func printCPU(w io.Writer, selected []string) {
	fmt.Fprintf(w, "CPU features: %s\n", strings.Join(cpuFeatures(), " "))
	fmt.Fprintf(w, "implementations (the assembly kernels this CPU runs): %s\n", strings.Join(implementations(selected), "; "))
}
