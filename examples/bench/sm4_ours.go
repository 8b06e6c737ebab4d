// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import "github.com/shangmi-go/shangmi/primitives/sm4"

func oursSM4Block() blockCtor { return sm4.NewCipher }
