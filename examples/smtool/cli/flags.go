// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// flagSet is a flag.FlagSet that remembers the order flags were defined
// in and their aliases (Tongsuo's "-sign_cert" beside "-sign-cert"), so
// that -h lists them as the command's author grouped them.
type flagSet struct {
	*flag.FlagSet
	cmd     *command
	order   []string            // primary names, in definition order
	aliases map[string][]string // primary name -> aliases
	primary map[string]string   // alias -> primary name
}

// newFlags returns the flag set of cmd. It returns errors instead of
// exiting and prints nothing itself, so that every error is one line.
func newFlags(cmd *command) *flagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs, cmd: cmd, aliases: map[string][]string{}, primary: map[string]string{}}
}

func (f *flagSet) String(name, value, usage string) *string {
	f.order = append(f.order, name)
	return f.FlagSet.String(name, value, usage)
}

func (f *flagSet) Bool(name string, value bool, usage string) *bool {
	f.order = append(f.order, name)
	return f.FlagSet.Bool(name, value, usage)
}

func (f *flagSet) Int(name string, value int, usage string) *int {
	f.order = append(f.order, name)
	return f.FlagSet.Int(name, value, usage)
}

func (f *flagSet) Duration(name string, value time.Duration, usage string) *time.Duration {
	f.order = append(f.order, name)
	return f.FlagSet.Duration(name, value, usage)
}

func (f *flagSet) Var(v flag.Value, name, usage string) {
	f.order = append(f.order, name)
	f.FlagSet.Var(v, name, usage)
}

// alias makes each of names another spelling of the flag primary.
func (f *flagSet) alias(primary string, names ...string) {
	p := f.Lookup(primary)
	if p == nil {
		panic("smtool: alias of undefined flag " + primary)
	}
	for _, n := range names {
		f.FlagSet.Var(p.Value, n, "alias of -"+primary)
		f.aliases[primary] = append(f.aliases[primary], n)
		f.primary[n] = primary
	}
}

// isSet reports whether the flag (under any spelling) was given.
func (f *flagSet) isSet(name string) bool {
	if p, ok := f.primary[name]; ok {
		name = p
	}
	set := false
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == name || f.primary[fl.Name] == name {
			set = true
		}
	})
	return set
}

// optionalValue is a flag that may be given alone ("-reconnect") or with
// a value in the next argument ("-reconnect 3"), as openssl's are.
type optionalValue interface {
	flag.Value
	IsBoolFlag() bool
	acceptsNext(arg string) bool
}

// parse parses args, with flags allowed before, between and after the
// positional arguments, which it returns. -h prints the usage on e.stdout
// and returns flag.ErrHelp.
func (f *flagSet) parse(e *env, args []string) ([]string, error) {
	args = f.joinOptionalValues(args)
	var positional []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printCommandUsage(e.stdout, f.cmd, f)
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = f.Args()
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

// joinOptionalValues rewrites "-reconnect 3" as "-reconnect=3" for the
// flags that take an optional value.
func (f *flagSet) joinOptionalValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && !strings.Contains(name, "=") && i+1 < len(args) {
			if fl := f.Lookup(name); fl != nil {
				if ov, ok := fl.Value.(optionalValue); ok && ov.acceptsNext(args[i+1]) {
					out = append(out, a+"="+args[i+1])
					i++
					continue
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// printCommandUsage prints the synopsis, description, flags and examples
// of c.
func printCommandUsage(w io.Writer, c *command, f *flagSet) {
	if f == nil {
		// The flags are defined by run; a dry run with -h defines them.
		var buf strings.Builder
		c.run(&env{stdin: strings.NewReader(""), stdout: &buf, stderr: io.Discard}, c, []string{"-h"})
		fmt.Fprint(w, buf.String())
		return
	}
	synopsis := "smtool " + c.name + " [flags]"
	if c.args != "" {
		synopsis += " " + c.args
	}
	fmt.Fprintf(w, "usage: %s\n\n%s.\n", synopsis, strings.Join(wrap(upperFirst(c.summary), 88), "\n"))
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.about))
	}
	fmt.Fprintln(w, "\nflags:")
	if len(f.order) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, name := range f.order {
		fl := f.Lookup(name)
		valueName, usage := flag.UnquoteUsage(fl)
		names := "-" + name
		for _, a := range f.aliases[name] {
			names += ", -" + a
		}
		if valueName != "" {
			names += " " + valueName
		}
		if ov, ok := fl.Value.(optionalValue); ok && ov.IsBoolFlag() {
			names += " [N]"
		}
		fmt.Fprintf(w, "  %s\n", names)
		if def := fl.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			usage += " (default " + def + ")"
		}
		for _, line := range wrap(usage, 72) {
			fmt.Fprintf(w, "        %s\n", line)
		}
	}
	fmt.Fprintln(w, "\nexample:")
	for _, ex := range c.example {
		fmt.Fprintf(w, "  %s\n", ex)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wrap breaks s into lines of at most width characters at spaces.
func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		lines = append(lines, line)
	}
	return lines
}

// listFlag is a flag that may be repeated; each value may itself be a
// comma-separated list when split is set.
type listFlag struct {
	values []string
	split  bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

func (l *listFlag) Set(v string) error {
	if !l.split {
		l.values = append(l.values, v)
		return nil
	}
	for _, s := range strings.Split(v, ",") {
		l.values = append(l.values, strings.TrimSpace(s))
	}
	return nil
}

// countFlag is "-reconnect [N]": alone it means def.
type countFlag struct {
	n   int
	def int
}

func (c *countFlag) String() string { return "" }

func (c *countFlag) IsBoolFlag() bool { return true }

func (c *countFlag) acceptsNext(arg string) bool {
	n, err := strconv.Atoi(arg)
	return err == nil && n >= 0
}

func (c *countFlag) Set(v string) error {
	switch v {
	case "true":
		c.n = c.def
		return nil
	case "false":
		c.n = 0
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want a count, got %q", v)
	}
	c.n = n
	return nil
}

// secondsFlag is a duration given in seconds ("3", "0.5") as openssl takes
// it, or in Go syntax ("500ms").
type secondsFlag struct{ d time.Duration }

func (s *secondsFlag) String() string {
	if s == nil || s.d == 0 {
		return ""
	}
	return strconv.FormatFloat(s.d.Seconds(), 'f', -1, 64)
}

func (s *secondsFlag) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 {
			return errors.New("must be positive")
		}
		s.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("want seconds (3, 0.5) or a duration (500ms), got %q", v)
	}
	s.d = d
	return nil
}

// noArgs refuses positional arguments.
func noArgs(rest []string) error {
	if len(rest) != 0 {
		return usagef("unexpected arguments %q", rest)
	}
	return nil
}
