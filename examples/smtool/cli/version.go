// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
)

func init() {
	register(&command{
		name:    "version",
		group:   "Performance",
		summary: "print the build, the CPU features and the kernels in use",
		example: []string{"smtool version"},
		run: func(e *env, cmd *command, args []string) error {
			rest, err := newFlags(cmd).parse(e, args)
			if err != nil {
				return err
			}
			if err := noArgs(rest); err != nil {
				return err
			}
			version := "(unknown)"
			if bi, ok := debug.ReadBuildInfo(); ok {
				version = bi.Main.Version
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						version += " " + s.Value
					}
				}
			}
			fmt.Fprintf(e.stdout, "smtool %s, %s\n", version, platform())
			printCPU(e.stdout, nil)
			fmt.Fprintf(e.stdout, "cipher suites: %s\n", strings.Join(suiteNames(), ", "))
			return nil
		},
	})
}
