// Command smtool is a small toolbox for the Chinese commercial cryptography
// stack: certificates (smtool cert ...) and a TLCP server and client in the
// spirit of openssl s_server / s_client (smtool s_server, smtool s_client).
//
// Usage:
//
//	smtool <command> [subcommand] [flags] [args]
//	smtool help
//
// Each command group lives in its own file and registers itself with
// register, so new groups can be added without touching this file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one top-level command of smtool.
type command struct {
	name    string
	summary string
	// run executes the command with the arguments after its name. It
	// writes results to stdout and returns an error for the caller to
	// print; a *usageError means the command line was wrong.
	run func(args []string, stdout io.Writer) error
}

var commands = map[string]*command{}

// register adds a top-level command; command group files call it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("smtool: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// usageError reports a malformed command line; it exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "smtool: unknown command %q (try \"smtool help\")\n", args[0])
		return 2
	}
	err := c.run(args[1:], stdout)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	// One line, whatever the error says.
	msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	fmt.Fprintf(stderr, "smtool %s: %s\n", c.name, msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: smtool <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}

// parseInterspersed parses flags that may appear before, between or after
// positional arguments ("verify --roots ca.pem cert.pem --host x") and
// returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string, help io.Writer) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(help, "usage of %s:\n", fs.Name())
				fs.SetOutput(help)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// newFlagSet returns a FlagSet that returns errors instead of exiting and
// prints nothing itself, so that every error is reported on one line.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
