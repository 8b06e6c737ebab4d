// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package tlcp implements TLCP, the Transport Layer Cryptography Protocol of
// GB/T 38636-2020 (protocol version 0x0101, the protocol also called GM/T
// 0024 "GMSSL" and Tongsuo "NTLS"), and beside it TLS 1.3 with the ShangMi
// cipher suites of RFC 8998 ([VersionTLS13]).
//
// The package is shaped like crypto/tls: a [Config] describes one side,
// [Client] and [Server] wrap a net.Conn into a [Conn], and [Dial],
// [Dialer], [Listen] and [NewListener] cover the usual cases.
// [NewAutoListener] serves TLCP, TLS 1.3-SM and, through crypto/tls,
// ordinary TLS on one port.
//
// # TLS 1.3 with the ShangMi suites
//
// One Config and one Conn type serve both protocols. TLS 1.3 uses the
// suites TLS_SM4_GCM_SM3 and TLS_SM4_CCM_SM3 (ciphersuite.TLS_SM4_GCM_SM3,
// TLS_SM4_CCM_SM3, listed in [Config.CipherSuites] beside the TLCP suites),
// key shares on the post-quantum hybrid curveSM2MLKEM768 (SM2 ECDHE with
// ML-KEM-768, preferred by default) or on curveSM2 ([Config.CurvePreferences],
// [ConnectionState.CurveID]), sm2sig_sm3 signatures with the SM2 ID
// "TLSv1.3+GM+Cipher+Suite" ([TLS13SM2ID]; [Config.TLS13DefaultSM2ID] for the
// default ID), HKDF over HMAC-SM3, and one certificate per side: the Sign
// half of a [CertificatePair]. The full handshake, HelloRetryRequest,
// client authentication, resumption with sealed session tickets
// ([Config.SetSessionCacheKeys]), KeyUpdate, ALPN and SNI are supported;
// 0-RTT is refused. A side updates its sending keys every 2^24 records,
// answers the peer's KeyUpdates, and sends one when the application asks
// ([Conn.SendKeyUpdate], OpenSSL's SSL_key_update).
//
// [Config.MinVersion] and [Config.MaxVersion] choose the protocols. A
// server answers each client in the protocol it asks for (TLS 1.3 and TLCP
// by default). A client speaks TLCP by default, TLS 1.3 if its CipherSuites
// names a TLS 1.3 suite or its range allows only TLS 1.3, and offers both
// in one TLCP-shaped ClientHello if its range holds both.
// [ConnectionState.Version] says what was negotiated. A server that could
// have spoken TLS 1.3 marks its TLCP ServerHellos with RFC 8446's downgrade
// sentinel, and a client that offered TLS 1.3 refuses a marked TLCP answer.
// TLS13.md, shipped beside this package's source, describes all of it with
// what Tongsuo and GmSSL needed ([Config.TLS13NoMiddleboxCompat] for
// GmSSL's server with client authentication).
//
// # HTTP
//
// Serve HTTPS over TLCP with [ListenAndServe](addr, cfg, handler), or
// [ServeHTTP](srv, ln, cfg) for an http.Server of your own: as net/http
// does for TLS, each handshake is bounded in time and its failures are
// logged to the server's ErrorLog ("http: TLCP handshake error from ADDR:
// REASON"), handlers see a non-nil r.TLS, and [ConnectionStateFromRequest]
// returns the full [ConnectionState]. Fetch with an http.Client whose
// Transport is [NewHTTPTransport](cfg), which has http.DefaultTransport's
// settings, proxies from the environment included (through HTTP CONNECT).
//
// # Handshake timeouts
//
// As in crypto/tls, [Config] has no handshake timeout, and connections
// from [Listen] and [NewListener] run their handshake on first use, so a
// server that never sets deadlines keeps a goroutine for every client that
// connects and sends nothing, for as long as the client likes. Bound the
// handshake of every accepted connection:
//
//	for {
//		c, err := ln.Accept()
//		if err != nil {
//			return err
//		}
//		go func() {
//			defer c.Close()
//			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
//			err := c.(*tlcp.Conn).HandshakeContext(ctx)
//			cancel()
//			if err != nil {
//				log.Printf("TLCP handshake with %s: %v", c.RemoteAddr(), err)
//				return
//			}
//			serve(c)
//		}()
//	}
//
// and set read deadlines on the established connection as the protocol
// on top requires. [ServeHTTP] and [ListenAndServe] bound the handshake
// themselves, as net/http bounds TLS handshakes (by the least of the
// http.Server's ReadHeaderTimeout, ReadTimeout and WriteTimeout), or to
// 10 s if the server sets none. On the client side, [Dialer] has
// HandshakeTimeout and [NewHTTPTransport] applies the transport's
// TLSHandshakeTimeout.
//
// # Double certificates
//
// A TLCP server authenticates with two SM2 key pairs: a signing pair, whose
// key signs ServerKeyExchange, and an encryption pair, whose key decrypts the
// premaster secret (ECC suites) or takes part in the SM2 key exchange (ECDHE
// suites). [Config.Certificates] therefore holds [CertificatePair] values
// whose Sign and Enc fields name the roles. Each handshake checks that the
// signing certificate has key usage digitalSignature and the encryption
// certificate keyEncipherment, dataEncipherment or keyAgreement, and fails
// with an error that says so if a pair is swapped.
//
// The server sends SIGN, ENC, then the signing chain's intermediates; it
// never sends a self-signed root. The client accepts that order and the
// SIGN, CA…, ENC order of TASSL, requires at least two certificates,
// verifies both against RootCAs, checks the host name on the signing
// certificate, and checks that the encryption certificate names the same
// entity (same subject, or a DNS name or IP address in common).
//
// The ECDHE suites need the client's encryption key pair too, so the server
// always requests client certificates for them, whatever ClientAuth says,
// and a client offers them only when it has an encryption pair.
//
// # Interoperability choices
//
// GmSSL, Tongsuo, gotlcp, Kona, TASSL and tjfoc do not all read GB/T 38636
// the same way. Where they disagree on the wire, the defaults follow the
// majority and a Config field selects the other form. The decisions are
// numbered D1–D18; INTEROP.md, shipped beside this package's source, gives
// each in full together with the record and message formats the package
// relies on.
//
//   - CertificateVerify signs the SM3 hash of the transcript (GB/T 38636
//     6.4.5.9; D1). GmSSL 3.0.0 and ≥ 3.2 sign the raw transcript instead;
//     a server accepts both forms, which cannot be confused, and
//     [Config.CertificateVerifyRawTranscript] makes a client sign the raw
//     form for such servers.
//   - The ECDHE ClientKeyExchange is sent as the bare 69-byte parameters;
//     [Config.ClientECDHEFraming71] sends the u16-prefixed 71-byte form that
//     GmSSL 3.2 wants (D2). Servers accept both.
//   - For ECC client authentication the client sends SIGN and its chain;
//     [Config.ClientCertIncludeEnc] adds the encryption certificate, which
//     Tongsuo servers require (D3). Servers accept both.
//   - A failure to decrypt or validate the ECC premaster (length, version
//     0x0101) silently substitutes a random premaster, so the handshake
//     fails at Finished without telling an attacker why (D9).
//   - A client sends server_name when [Config.ServerName] is a host name
//     (not an IP address), as crypto/tls does, and ALPN when
//     [Config.NextProtos] is set; [Config.ClientHelloNoExtensions] sends no
//     extension at all, for GmSSL 3.1.1 servers, which refuse any (D6).
//     signature_algorithms is never sent (D5). Unknown extensions from a
//     client are ignored.
//   - Each handshake message goes in its own record (GmSSL cannot parse
//     several in one, D14); received messages may be fragmented or
//     coalesced freely.
//   - The server sends SIGN, ENC, then intermediates; the client also
//     recognises TASSL's SIGN, CA…, ENC order (D4). The ECDHE curve id is
//     sent as 41 and not checked on receipt (D7).
//   - The GCM explicit nonce is the sequence number when sending and is read
//     from the record when receiving, since Tongsuo starts at a random value
//     (D8).
//   - ECDHE servers always send CertificateRequest (D11). Bytes after the
//     DER of an SM2 ciphertext are tolerated (D15). The host name is checked
//     on the signing certificate; the encryption certificate must name the
//     same entity (D16). A server completes client chains from its own
//     intermediates, because gotlcp clients send leaves only (D17).
//
// A client needs none of these switches: it takes the form a server wants
// from the server's flight where the flight tells (GmSSL's servers send an
// empty session ID and ask for certificate type 64 alone; Tongsuo's,
// gotlcp's and tjfoc's list rsa_sign too), and otherwise Dial retries once,
// on a new connection, with the form the server's refusal names,
// remembering it for that server so that the next connection needs no
// retry (INTEROP.md §12). The retry offers the same suites and versions
// and verifies the same way. A switch set forces its form;
// [Config.DisableInteropAdaptation] makes the client use exactly the
// switches' forms. When a server refuses, with an alert or by closing the
// connection, a form that a known peer is known to refuse, the client's
// error names the Config switch for the other form (for example "... for
// such a server set Config.ClientHelloNoExtensions"); the error still
// wraps the alert. A Conn made with [Client] over the caller's connection
// cannot redial: it returns that error, and the caller's next connection
// to the server uses the other form.
//
// There is no renegotiation (a HelloRequest or a new ClientHello is
// declined with a no_renegotiation warning), no session tickets, no
// extended master secret and no compression. Sessions resume by session ID
// on both sides (D12; GmSSL does not resume); a session is forgotten when
// its connection ends with a fatal alert. TLCP never uses tickets (D13);
// TLS 1.3 resumes only with them.
//
// # Keys in hardware
//
// A [Certificate]'s PrivateKey may be an *sm2.PrivateKey or a key held in
// an HSM or cipher machine: any crypto.Signer whose public key is SM2 for
// the signing certificate, and for the encryption certificate a
// crypto.Decrypter (the ECC suites), an [SM2KeyExchanger] (the ECDHE
// suites: the device runs the SM2 key exchange of GB/T 32918.3 with its
// own ephemeral key) or both. The Certificate documentation says exactly
// what each is called with. A server whose encryption key cannot do the
// key exchange negotiates ECC suites only, and a client offers them only.
//
// # Sessions across servers
//
// A server resumes sessions from an in-memory cache by default. Servers
// behind a load balancer share them through a [ServerSessionCache] (one
// on Redis is in examples/sessioncache-redis), which stores each session
// sealed with SM4-GCM under keys set with [Config.SetSessionCacheKeys],
// the same on every server and rotated like TLS session ticket keys.
//
// # Errors
//
// As with crypto/tls, an alert from the peer is a *net.OpError wrapping an
// [AlertError]; a record that is not TLCP is a [RecordHeaderError]; a peer
// certificate that fails verification is a *[CertificateVerificationError]
// with the certificates received. All work with errors.As.
//
// # Limits on what a peer can make a server do
//
// A handshake message may be at most 64 KiB long, a Certificate message
// 256 KiB, as in crypto/tls; longer ones are refused as soon as their
// header arrives. A connection declines up to three requests to
// renegotiate (TLCP has no secure renegotiation) and is closed at the
// fourth, and at more than 16 records in a row that carry nothing (empty
// records, warning alerts).
//
// Parsed certificates are shared between connections through a
// process-wide cache bounded to 4 MiB (estimated: DER plus parsed form;
// about a thousand typical certificates). Only a Config's own
// certificates and a peer's verified certificates enter it; what an
// unauthenticated peer sends is parsed for its connection and released
// with it.
//
// The server's in-memory session cache keeps only what resuming a session
// needs and is bounded in bytes as well as in sessions (see
// [Config.SessionCacheSize]).
//
// # Suites
//
// The four SM2 suites of GB/T 38636-2020 are enabled by default, in the
// order ECC_SM4_GCM_SM3, ECC_SM4_CBC_SM3, ECDHE_SM4_GCM_SM3,
// ECDHE_SM4_CBC_SM3 (the server chooses by its own preference). This
// project's private ZUC-128 suites (0xFF13 ECC_ZUC128_SM3 and 0xFF11
// ECDHE_ZUC128_SM3: ZUC-128 with HMAC-SM3, encrypt-then-MAC, a fresh
// keystream per record; defined in the ciphersuite package) are negotiated
// only when both sides list them in [Config.CipherSuites].
package tlcp
