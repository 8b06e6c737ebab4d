// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !(amd64 || arm64) || purego

package main

// Builds without assembly kernels (the pure Go build, other
// architectures): the primitives register nothing with
// primitives/internal/impl, which is then not linked in; there is only the
// generic code to name or select.

func implList(pkg string) []string { return nil }

func implSelect(pkg, name string) bool { return name == "generic" }

func implReset(pkg string) {}
