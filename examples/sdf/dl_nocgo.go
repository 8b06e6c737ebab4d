// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !cgo || !unix

package sdf

import "errors"

func openLibrary(path string) (library, error) {
	return nil, errors.New("sdf: loading " + path + " needs cgo (dlopen) on a Unix system, and this program was built without it (CGO_ENABLED=0, or no C compiler); rebuild with CGO_ENABLED=1 and gcc installed")
}
