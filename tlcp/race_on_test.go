// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build race

package tlcp

// raceEnabled is set under the race detector, whose sync.Pool drops a
// share of what is put in it (to find misuse), so pooled buffers are
// allocated again now and then.
const raceEnabled = true
