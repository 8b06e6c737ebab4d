// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Command respawn serves each TCP connection on -listen with a fresh run of
// a peer's demo server, for the by-hand interop runs of adapt.sh (Linux).
//
// GmSSL's tlcp_server demo serves one connection and exits when a
// handshake fails, so a client that retries on a new connection, as
// tlcp's adaptive client does (tlcp/INTEROP.md §12), finds nothing
// listening; a server built on the library would go on accepting. respawn
// plays that server: for each connection it starts the command, with
// every "{port}" in its arguments replaced by a free port, waits until the
// command listens there, relays the connection to it, and stops it when
// the connection ends.
//
//	respawn -listen 127.0.0.1:24000 -- gmssl tlcp_server -port {port} ...
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to accept on")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		log.Fatal("respawn: no command (respawn -listen addr -- cmd args..., {port} in args)")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening on", ln.Addr())
	// Stopped, respawn stops the servers it started.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-sig
		running.killAll()
		os.Exit(1)
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, args)
	}
}

func serve(c net.Conn, args []string) {
	defer c.Close()
	port, err := freePort()
	if err != nil {
		log.Print(err)
		return
	}
	argv := make([]string, len(args))
	for i, a := range args {
		argv[i] = strings.ReplaceAll(a, "{port}", strconv.Itoa(port))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		log.Print(err)
		return
	}
	running.add(cmd.Process)
	defer func() {
		running.remove(cmd.Process)
		cmd.Process.Kill()
		cmd.Wait()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !listening(port) {
		if time.Now().After(deadline) {
			log.Printf("respawn: %s did not listen on %d", argv[0], port)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		log.Print(err)
		return
	}
	defer s.Close()
	// The demo servers may keep a connection open after the client has
	// gone (GmSSL's waits for more records), so the relay ends shortly
	// after either direction does.
	done := make(chan struct{}, 2)
	go func() { io.Copy(s, c); s.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { io.Copy(c, s); c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	<-done
	select {
	case <-done:
	case <-time.After(500 * time.Millisecond):
	}
}

// processes holds the servers running now.
type processes struct {
	mu sync.Mutex
	m  map[*os.Process]bool
}

var running = processes{m: make(map[*os.Process]bool)}

func (p *processes) add(pr *os.Process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[pr] = true
}

func (p *processes) remove(pr *os.Process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, pr)
}

func (p *processes) killAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pr := range p.m {
		pr.Kill()
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// listening reports whether a socket listens on port, read from
// /proc/net/tcp rather than probed: a probe connection would be the
// one-shot server's only one.
func listening(port int) bool {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return false
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 3 && strings.HasSuffix(fields[1], want) && fields[3] == "0A" {
			return true
		}
	}
	return false
}
