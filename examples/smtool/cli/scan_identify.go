// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

// identify names the implementation the server behaves like.
func identify(r *ScanReport) ScanImpl {
	return ScanImpl{Name: "unknown", Evidence: []string{}}
}
