// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package cli is the smtool command: every subcommand, its flags, help
// and output. It lives in a package rather than in package main so that
// builds which add a key store the main module cannot carry (the cgo SDF
// binding in examples/sdf) can reuse the whole command; see Main.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// env is what a command may use of its process: tests run commands
// in-process with their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// warnf prints a warning on stderr; it does not change the exit status.
func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "warning: "+format+"\n", args...)
}

// command is one command ("s_client") or subcommand ("cert gen").
type command struct {
	name    string   // as typed: "s_client", "cert gen"
	group   string   // heading in "smtool help"
	summary string   // one line, lower case, no full stop
	args    string   // what follows the flags in the synopsis, e.g. "FILE..."
	about   string   // optional paragraph for "smtool CMD -h"
	example []string // at least one command line
	run     func(e *env, cmd *command, args []string) error
}

// commands, in the order "smtool help" lists them (helpOrder).
var commands []*command

// helpOrder is the order of "smtool help": by task, not by file.
var helpOrder = []string{
	"key gen", "key convert", "key import-enveloped", "pkcs12", "req", "ca sign", "crl gen", "cert gen", "cert show", "crl show", "cert verify",
	"ocsp", "s_client", "s_server", "scan", "speed", "version",
	"cms sign", "cms verify", "cms encrypt", "cms decrypt", "cms show",
}

// register adds a command; command files call it from init.
func register(c *command) {
	for _, o := range commands {
		if o.name == c.name {
			panic("smtool: duplicate command " + c.name)
		}
	}
	if len(c.example) == 0 {
		panic("smtool: command " + c.name + " has no example")
	}
	commands = append(commands, c)
	rank := func(name string) int {
		for i, n := range helpOrder {
			if n == name {
				return i
			}
		}
		return len(helpOrder)
	}
	sort.SliceStable(commands, func(i, j int) bool { return rank(commands[i].name) < rank(commands[j].name) })
}

// groupOf returns the subcommands of a group name such as "cert".
func groupOf(name string) []*command {
	var subs []*command
	for _, c := range commands {
		if strings.HasPrefix(c.name, name+" ") {
			subs = append(subs, c)
		}
	}
	return subs
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// usageError reports a malformed command line; it exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// Main runs smtool with args (without the program name) and returns the
// exit status. Command smtool is a one-line main around it; a build that
// adds key stores needing cgo (examples/sdf) links this package into its
// own main, so that the main module stays free of cgo.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, &env{stdin: stdin, stdout: stdout, stderr: stderr})
}

// run is main without the process: it returns the exit status.
func run(args []string, e *env) int {
	if len(args) == 0 {
		printHelp(e.stdout)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			printHelp(e.stdout)
			return 0
		}
		name := strings.Join(args[1:], " ")
		if c := lookup(name); c != nil {
			printCommandUsage(e.stdout, c, nil)
			return 0
		}
		if subs := groupOf(name); len(subs) > 0 {
			printGroupUsage(e.stdout, name, subs)
			return 0
		}
		fmt.Fprintf(e.stderr, "smtool help: unknown command %q (try \"smtool help\")\n", name)
		return 2
	}
	c := lookup(args[0])
	rest := args[1:]
	if c == nil {
		subs := groupOf(args[0])
		if len(subs) == 0 {
			fmt.Fprintf(e.stderr, "smtool: unknown command %q (try \"smtool help\")\n", args[0])
			return 2
		}
		if len(rest) == 0 || isHelpFlag(rest[0]) {
			printGroupUsage(e.stdout, args[0], subs)
			if len(rest) == 0 {
				fmt.Fprintf(e.stderr, "smtool %s: missing subcommand\n", args[0])
				return 2
			}
			return 0
		}
		if c = lookup(args[0] + " " + rest[0]); c == nil {
			var names []string
			for _, s := range subs {
				names = append(names, strings.TrimPrefix(s.name, args[0]+" "))
			}
			fmt.Fprintf(e.stderr, "smtool %s: unknown subcommand %q (want %s)\n", args[0], rest[0], strings.Join(names, ", "))
			return 2
		}
		rest = rest[1:]
	}
	err := c.run(e, c, rest)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.code
	}
	// One line, whatever the error says.
	msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	fmt.Fprintf(e.stderr, "smtool %s: %s\n", c.name, msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// statusError ends a command with a status and no further message: the
// command has printed what went wrong itself (cert verify of several
// files).
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

const helpFooter = `Run "smtool CMD -h" for the flags of a command. Passwords are given as pass:TEXT,
env:VAR, file:PATH (its first line), fd:N or stdin, as openssl takes them; any other
word is the password itself, as GmSSL takes it. Flags may come before, between or
after the arguments, with one dash or two.`

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "smtool: SM2 keys and certificates, TLCP and TLS 1.3-SM connections, SM benchmarks")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: smtool <command> [subcommand] [flags] [arguments]")
	var groups []string
	for _, c := range commands {
		if !contains(groups, c.group) {
			groups = append(groups, c.group)
		}
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, c := range commands {
			if c.group != g {
				continue
			}
			fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
			fmt.Fprintf(w, "  %-12s   e.g. %s\n", "", c.example[0])
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, helpFooter)
}

func printGroupUsage(w io.Writer, group string, subs []*command) {
	fmt.Fprintf(w, "usage: smtool %s <subcommand> [flags] [arguments]\n\nsubcommands:\n", group)
	for _, c := range subs {
		fmt.Fprintf(w, "  %-12s %s\n", strings.TrimPrefix(c.name, group+" "), c.summary)
		fmt.Fprintf(w, "  %-12s   e.g. %s\n", "", c.example[0])
	}
	fmt.Fprintf(w, "\nRun \"smtool %s SUBCOMMAND -h\" for its flags.\n", group)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
