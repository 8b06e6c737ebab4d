// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !unix

package cli

import "time"

// processCPU is unknown here: speed falls back to the wall clock.
func processCPU() time.Duration { return 0 }
