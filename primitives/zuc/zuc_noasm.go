// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build purego || !(amd64 || arm64)

package zuc

func genKeyStream(s *state, ks []uint32) {
	genKeyStreamGeneric(s, ks)
}

func eiaUpdate(t uint32, ks []uint32, p []byte) uint32 {
	return eiaUpdateGeneric(t, ks, p)
}
