// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build (amd64 || arm64) && !purego

package main

import _ "unsafe" // for go:linkname

// speed names and selects the kernels each primitive registered with
// primitives/internal/impl. Go's internal-package rule goes by import path,
// not by module, so examples/smtool may not import that package; until the
// primitives export their registry, these three functions are reached by
// linkname. The package is linked in whatever smtool does, since every
// primitive registers its kernels there: on amd64 and arm64 without the
// purego tag, the builds that have kernels (the primitives' dispatch files
// carry the same constraint; elsewhere impl_none.go answers "none").
// impl_link.s (empty) lets the compiler accept declarations without
// bodies.

//go:linkname implList github.com/shangmi-go/shangmi/primitives/internal/impl.List
func implList(pkg string) []string

//go:linkname implSelect github.com/shangmi-go/shangmi/primitives/internal/impl.Select
func implSelect(pkg, name string) bool

//go:linkname implReset github.com/shangmi-go/shangmi/primitives/internal/impl.Reset
func implReset(pkg string)
