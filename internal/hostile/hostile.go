// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package hostile replays scripted misbehaving clients against a TLCP or
// TLS 1.3 server: the bytes an anonymous peer can send before any key is
// agreed, and the alert the server must answer with. The scripts are text
// files (testdata/hostile/*.txt), written by the tlcp package's tests from
// its own message marshallers and replayed there on every test run, so a
// script that no longer draws its alert fails a test; the soak command
// (examples/soak) replays the same files against a loaded server.
//
// A script is one step per line; '#' starts a comment line, and the first
// comment line is the script's description:
//
//	send <hex>          write these bytes (spaces inside the hex are allowed)
//	read-until <type>   read the server's plaintext records until a handshake
//	                    message of this type has arrived (an alert first is
//	                    an error)
//	close-write         half-close the connection
//	expect-alert <n>    read until an alert record arrives: it must be fatal
//	                    with description n, and the server must then close
//	expect-close        the server must close, with or without an alert
//
// Every read has the deadline given to Run, so a server that neither
// answers nor closes fails the script instead of hanging it.
package hostile

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Op is one kind of step.
type Op string

const (
	Send        Op = "send"
	ReadUntil   Op = "read-until"
	CloseWrite  Op = "close-write"
	ExpectAlert Op = "expect-alert"
	ExpectClose Op = "expect-close"
)

// Step is one line of a script.
type Step struct {
	Op   Op
	Data []byte // Send
	N    int    // ReadUntil: handshake type; ExpectAlert: alert description
}

// Script is a named sequence of steps.
type Script struct {
	Name        string // the file's base name, without .txt
	Description string
	Steps       []Step
}

// maxScript bounds a script file; the corpus's largest is a few KiB.
const maxScript = 1 << 20

// Parse reads a script from its text.
func Parse(name string, text []byte) (*Script, error) {
	if len(text) > maxScript {
		return nil, fmt.Errorf("hostile: script %s is %d bytes, over %d", name, len(text), maxScript)
	}
	s := &Script{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), maxScript)
	for line := 1; sc.Scan(); line++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "#") {
			if s.Description == "" {
				s.Description = strings.TrimSpace(strings.TrimPrefix(l, "#"))
			}
			continue
		}
		op, arg, _ := strings.Cut(l, " ")
		arg = strings.TrimSpace(arg)
		var st Step
		switch st.Op = Op(op); st.Op {
		case Send:
			b, err := hex.DecodeString(strings.ReplaceAll(arg, " ", ""))
			if err != nil || len(b) == 0 {
				return nil, fmt.Errorf("hostile: %s:%d: send needs hex bytes", name, line)
			}
			st.Data = b
		case ReadUntil, ExpectAlert:
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 || n > 255 {
				return nil, fmt.Errorf("hostile: %s:%d: %s needs a number from 0 to 255", name, line, op)
			}
			st.N = n
		case CloseWrite, ExpectClose:
			if arg != "" {
				return nil, fmt.Errorf("hostile: %s:%d: %s takes no argument", name, line, op)
			}
		default:
			return nil, fmt.Errorf("hostile: %s:%d: unknown step %q", name, line, op)
		}
		s.Steps = append(s.Steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("hostile: %s: %v", name, err)
	}
	if len(s.Steps) == 0 {
		return nil, fmt.Errorf("hostile: %s: no steps", name)
	}
	if last := s.Steps[len(s.Steps)-1].Op; last != ExpectAlert && last != ExpectClose {
		return nil, fmt.Errorf("hostile: %s: a script ends with what the server must do (expect-alert or expect-close)", name)
	}
	return s, nil
}

// Marshal writes the script in the form Parse reads.
func (s *Script) Marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", s.Description)
	for _, st := range s.Steps {
		switch st.Op {
		case Send:
			// 32 bytes a line keeps long messages readable in a diff.
			h := hex.EncodeToString(st.Data)
			for len(h) > 64 {
				fmt.Fprintf(&b, "send %s\n", h[:64])
				h = h[64:]
			}
			fmt.Fprintf(&b, "send %s\n", h)
		case ReadUntil, ExpectAlert:
			fmt.Fprintf(&b, "%s %d\n", st.Op, st.N)
		default:
			fmt.Fprintf(&b, "%s\n", st.Op)
		}
	}
	return b.Bytes()
}

// Load reads every *.txt script of dir, in name order.
func Load(dir string) ([]*Script, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("hostile: no scripts in %s", dir)
	}
	sort.Strings(names)
	var out []*Script
	for _, n := range names {
		text, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		s, err := Parse(strings.TrimSuffix(filepath.Base(n), ".txt"), text)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// AlertError is a fatal alert the server sent where the script did not
// expect one.
type AlertError struct{ Level, Description int }

func (e *AlertError) Error() string {
	return fmt.Sprintf("server sent alert %d (level %d)", e.Description, e.Level)
}

// Record types and the TLS record limit a reader needs.
const (
	recordAlert     = 21
	recordHandshake = 22
	headerLen       = 5
	// maxRecord is the largest ciphertext record TLS allows (2^14 +
	// 2048); the server sends only plaintext here, far smaller.
	maxRecord = 1<<14 + 2048
)

// Run plays the script on c, which it closes. Every read and write has
// deadline timeout from its start.
func (s *Script) Run(c net.Conn, timeout time.Duration) error {
	defer c.Close()
	r := &reader{c: c, br: bufio.NewReader(c), timeout: timeout}
	for i, st := range s.Steps {
		if err := r.step(st); err != nil {
			return fmt.Errorf("hostile %s, step %d (%s): %w", s.Name, i+1, st.Op, err)
		}
	}
	return nil
}

type reader struct {
	c       net.Conn
	br      *bufio.Reader
	timeout time.Duration
	hand    []byte // handshake bytes read and not yet taken as messages
}

func (r *reader) step(st Step) error {
	r.c.SetDeadline(time.Now().Add(r.timeout))
	switch st.Op {
	case Send:
		_, err := r.c.Write(st.Data)
		return err
	case CloseWrite:
		if cw, ok := r.c.(interface{ CloseWrite() error }); ok {
			return cw.CloseWrite()
		}
		return errors.New("connection cannot half-close")
	case ReadUntil:
		for {
			typ, err := r.message()
			if err != nil {
				return err
			}
			if typ == st.N {
				return nil
			}
		}
	case ExpectAlert:
		for {
			typ, body, err := r.record()
			if err != nil {
				return fmt.Errorf("no alert %d before: %w", st.N, err)
			}
			if typ != recordAlert {
				continue
			}
			if len(body) != 2 || body[0] != 2 || int(body[1]) != st.N {
				return fmt.Errorf("alert %x, want fatal %d", body, st.N)
			}
			return r.closed()
		}
	case ExpectClose:
		return r.closed()
	}
	return fmt.Errorf("unknown step %q", st.Op)
}

// closed reads until the server closes, and fails if it sends anything but
// alerts first or does not close within the deadline.
func (r *reader) closed() error {
	for {
		typ, _, err := r.record()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the server did not close: %w", err)
		}
		if typ != recordAlert {
			return fmt.Errorf("the server sent a record of type %d instead of closing", typ)
		}
	}
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && strings.Contains(op.Err.Error(), "reset")
}

func (r *reader) record() (int, []byte, error) {
	var hdr [headerLen]byte
	if _, err := io.ReadFull(r.br, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int(hdr[3])<<8 | int(hdr[4])
	if n > maxRecord {
		return 0, nil, fmt.Errorf("server record of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r.br, body); err != nil {
		return 0, nil, err
	}
	return int(hdr[0]), body, nil
}

// message returns the type of the next plaintext handshake message.
func (r *reader) message() (int, error) {
	for {
		if len(r.hand) >= 4 {
			n := 4 + (int(r.hand[1])<<16 | int(r.hand[2])<<8 | int(r.hand[3]))
			if len(r.hand) >= n {
				typ := int(r.hand[0])
				r.hand = r.hand[n:]
				return typ, nil
			}
		}
		typ, body, err := r.record()
		if err != nil {
			return 0, err
		}
		switch typ {
		case recordHandshake:
			r.hand = append(r.hand, body...)
		case recordAlert:
			if len(body) == 2 {
				return 0, &AlertError{int(body[0]), int(body[1])}
			}
			return 0, errors.New("malformed alert")
		case 20: // ChangeCipherSpec: a TLS 1.3 server's compatibility one
		default:
			return 0, fmt.Errorf("record of type %d while reading handshake messages", typ)
		}
	}
}
