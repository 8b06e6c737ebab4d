// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !purego

package dudect

const counterName = "CNTVCT_EL0 (virtual counter ticks)"
