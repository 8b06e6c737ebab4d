// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// markdown makes every table a Markdown table, the form the READMEs
// quote, so that a run's output can replace their tables as it is.
var markdown = flag.Bool("markdown", false, "print the tables as Markdown (the READMEs' form)")

// writeTable prints hdr and rows, aligned (the first column left, the
// others right) or, with -markdown, as a Markdown table.
func writeTable(w io.Writer, hdr []string, rows [][]string) {
	if *markdown {
		fmt.Fprintf(w, "\n| %s |\n", strings.Join(hdr, " | "))
		seps := make([]string, len(hdr))
		for i := range seps {
			seps[i] = "---:"
		}
		seps[0] = "---"
		fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		fmt.Fprintln(w)
		return
	}
	width := 0
	for _, r := range append([][]string{hdr}, rows...) {
		width = max(width, len(r[0]))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range append([][]string{hdr}, rows...) {
		r = append([]string{fmt.Sprintf("%-*s", width, r[0])}, r[1:]...)
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}

// heading starts a group's output.
func heading(w io.Writer, name string) {
	if *markdown {
		fmt.Fprintf(w, "\n#### %s\n", name)
		return
	}
	fmt.Fprintf(w, "\n== %s ==\n", name)
}

// note prints the lines under a table; in Markdown each ends with two
// spaces, a line break, as the READMEs have them.
func note(w io.Writer, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if *markdown {
			l += "  "
		}
		fmt.Fprintln(w, l)
	}
}
