// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shangmi-go/shangmi/tlcp"
)

// The TLS 1.3 key exchange groups: -groups takes OpenSSL's syntax, names
// separated by colons, most preferred first (Tongsuo: -groups
// curveSM2MLKEM768:curveSM2), and GmSSL's name of curveSM2.

// knownGroups are the groups tlcp implements, by every name users type.
var knownGroups = map[string]tlcp.CurveID{
	"curvesm2mlkem768": tlcp.CurveSM2MLKEM768,
	"sm2mlkem768":      tlcp.CurveSM2MLKEM768,
	"curvesm2":         tlcp.CurveSM2,
	"sm2":              tlcp.CurveSM2,
	"sm2p256v1":        tlcp.CurveSM2, // GmSSL's -supported_group
}

// otherGroups names groups a peer may offer that tlcp does not implement,
// for -trace.
var otherGroups = map[uint16]string{
	23: "secp256r1", 24: "secp384r1", 25: "secp521r1", 29: "X25519", 30: "X448",
	256: "ffdhe2048", 257: "ffdhe3072", 0x11EB: "SecP256r1MLKEM768", 0x11EC: "X25519MLKEM768",
	0x11ED: "SecP384r1MLKEM1024", 512: "MLKEM512", 513: "MLKEM768", 514: "MLKEM1024",
}

// groupName is a group's name as OpenSSL prints it.
func groupName(id uint16) string {
	if id == uint16(tlcp.CurveSM2) || id == uint16(tlcp.CurveSM2MLKEM768) {
		return tlcp.CurveID(id).String()
	}
	if n, ok := otherGroups[id]; ok {
		return n
	}
	return fmt.Sprintf("group %d", id)
}

// parseGroups parses a -groups list: names or numbers (4590, 0x11EE).
func parseGroups(list string) ([]tlcp.CurveID, error) {
	var out []tlcp.CurveID
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' }) {
		id, ok := knownGroups[strings.ToLower(name)]
		if !ok {
			if v, err := strconv.ParseUint(name, 0, 16); err == nil && (v == uint64(tlcp.CurveSM2) || v == uint64(tlcp.CurveSM2MLKEM768)) {
				id, ok = tlcp.CurveID(v), true
			}
		}
		if !ok {
			return nil, usagef("-groups: unknown or unsupported group %q (TLS 1.3-SM has curveSM2MLKEM768 and curveSM2)", name)
		}
		out = append(out, id)
	}
	if len(out) == 0 {
		return nil, usagef("-groups: no group given")
	}
	return out, nil
}

// protocol applies -groups, -tls1_3 and -tlcp to cfg.
func (o *tlcpOpts) protocol(cfg *tlcp.Config) error {
	if *o.groups != "" {
		groups, err := parseGroups(*o.groups)
		if err != nil {
			return err
		}
		cfg.CurvePreferences = groups
	}
	switch {
	case *o.tls13 && *o.tlcpOnly:
		return usagef("-tls1_3 and -tlcp exclude each other")
	case *o.tls13:
		cfg.MinVersion, cfg.MaxVersion = tlcp.VersionTLS13, tlcp.VersionTLS13
	case *o.tlcpOnly:
		cfg.MinVersion, cfg.MaxVersion = tlcp.VersionTLCP, tlcp.VersionTLCP
	}
	return o.extras.configure(o, cfg)
}

// protocolName is the version as s_client prints it.
func protocolName(v uint16) string {
	switch v {
	case tlcp.VersionTLS13:
		return "TLSv1.3"
	case tlcp.VersionTLCP:
		return "TLCP"
	}
	return fmt.Sprintf("version 0x%04x", v)
}
