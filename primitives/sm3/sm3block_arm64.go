// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package sm3

// block is the dispatch point for arm64. No assembly kernel exists yet, so
// it runs the generic code. A kernel will add a feature flag read once from
// golang.org/x/sys/cpu, register it in init with impl.Register("sm3", name,
// &flag) so that the tests' impl.ForEach("sm3", ...) runs the vectors
// through it, and test that flag here before falling back to blockGeneric.
func block(dig *digest, p []byte) {
	blockGeneric(dig, p)
}
