// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"strings"
)

// update names README files whose tables a run replaces: so that the
// published tables always come from one run, with one command.
var update = flag.String("update", "", "comma-separated Markdown files: replace each \"#### group\" table (and the notes under it) with this run's, occurrence by occurrence, and the text between <!-- bench-run --> and <!-- /bench-run --> with this run's header; implies -markdown")

var groupHeading = regexp.MustCompile(`^#### (\S+)\s*$`)

// tableBlock is the span of lines [start, end) of one group's table and
// the notes right under it (lines ending in two spaces).
type tableBlock struct{ start, end int }

func tableBlocks(lines []string) map[string][]tableBlock {
	out := map[string][]tableBlock{}
	for i, l := range lines {
		m := groupHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) || !strings.HasPrefix(lines[j], "|") {
			continue
		}
		k := j
		for k < len(lines) && strings.HasPrefix(lines[k], "|") {
			k++
		}
		n := k
		for n < len(lines) && strings.TrimSpace(lines[n]) == "" {
			n++
		}
		if n < len(lines) && strings.HasSuffix(lines[n], "  ") {
			k = n
			for k < len(lines) && strings.HasSuffix(lines[k], "  ") {
				k++
			}
		}
		out[m[1]] = append(out[m[1]], tableBlock{j, k})
	}
	return out
}

// updateFile rewrites path with the tables and header of output.
func updateFile(path string, output, header []byte) (replaced int, err error) {
	old, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	res := strings.Split(string(output), "\n")
	doc := strings.Split(string(old), "\n")
	have, want := tableBlocks(res), tableBlocks(doc)
	type edit struct {
		at  tableBlock
		new []string
	}
	var edits []edit
	for name, blocks := range want {
		for i, b := range blocks {
			if i < len(have[name]) {
				r := have[name][i]
				edits = append(edits, edit{b, res[r.start:r.end]})
			}
		}
	}
	// Apply from the bottom up, so that the earlier spans stay valid.
	for len(edits) > 0 {
		last := 0
		for i, e := range edits {
			if e.at.start > edits[last].at.start {
				last = i
			}
		}
		e := edits[last]
		doc = append(doc[:e.at.start], append(slicesClone(e.new), doc[e.at.end:]...)...)
		edits = append(edits[:last], edits[last+1:]...)
		replaced++
	}
	text := strings.Join(doc, "\n")
	const open, end = "<!-- bench-run -->", "<!-- /bench-run -->"
	if a := strings.Index(text, open); a >= 0 {
		if b := strings.Index(text[a:], end); b >= 0 {
			text = text[:a+len(open)] + "\n```\n" + string(bytes.TrimSpace(header)) + "\n```\n" + text[a+b:]
		}
	}
	return replaced, os.WriteFile(path, []byte(text), 0o644)
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
