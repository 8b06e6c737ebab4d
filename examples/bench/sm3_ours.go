// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import "github.com/shangmi-go/shangmi/primitives/sm3"

func oursSM3Hash(size int) setupFunc  { return hashBench(sm3.New, size) }
func oursSM3KDF(outLen int) setupFunc { return kdfBench(sm3.KDF, outLen) }
