// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package interop runs package tlcp against gotlcp, an independent TLCP
// implementation (tlcp.md's "GO"), in both directions: every SM2 suite,
// with and without client authentication, both ECDHE ClientKeyExchange
// framings, both client certificate-list shapes, and session resumption.
//
// It lives in its own module. With network access:
//
//	cd tlcp/internal/interop && go mod tidy && go test
//
// Offline, with a gotlcp checkout at DIR:
//
//	go mod edit -replace gitee.com/Trisia/gotlcp=DIR && go mod tidy && go test
package interop
