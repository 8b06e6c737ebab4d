// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build purego || !(amd64 || arm64)

package sm3

// block always runs the generic code: either the architecture has no
// kernel or the purego build tag asked for none.
func block(dig *digest, p []byte) {
	blockGeneric(dig, p)
}
