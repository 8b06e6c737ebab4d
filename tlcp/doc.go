// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package tlcp implements TLCP, the Transport Layer Cryptography Protocol of
// GB/T 38636-2020 (protocol version 0x0101, also known as GM/T 0024 "GMSSL"
// or Tongsuo "NTLS").
//
// The package is shaped like crypto/tls: a [Config] describes one side, [Client]
// and [Server] wrap a net.Conn into a [Conn], and [Dial], [Listen] and
// [NewListener] cover the usual cases.
//
// TLCP differs from TLS in ways that show in the API:
//
//   - A server authenticates with two SM2 key pairs: a signing pair, whose key
//     signs ServerKeyExchange, and an encryption pair, whose key decrypts the
//     premaster (ECC suites) or takes part in the SM2 key exchange (ECDHE
//     suites). [Config.Certificates] therefore holds [CertificatePair] values,
//     each naming both explicitly.
//   - The ECDHE suites need the client's encryption key pair too, so they
//     always use client authentication.
//   - There are no extensions by default, no renegotiation, no session tickets
//     and no extended master secret. Sessions resume by session ID.
//
// Where deployed implementations disagree on the wire (tlcp.md §12), the
// defaults interoperate with the majority and [Config] has a switch for the
// others.
package tlcp
