// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !linux

package main

// The page-cache effect was seen on Linux VMs; elsewhere the bench runs in
// place.
func runFromFreshCopy() {}
func noteFreshCopy()    {}
