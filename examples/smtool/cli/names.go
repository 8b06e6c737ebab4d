// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strings"
)

// Distinguished names: parsed from openssl's -subj syntax, printed in
// openssl's one-line form ("C=CN, O=shangmi, CN=server"), in the order
// the certificate holds them.

var nameAttrs = []struct {
	short string
	oid   asn1.ObjectIdentifier
}{
	{"C", asn1.ObjectIdentifier{2, 5, 4, 6}},
	{"ST", asn1.ObjectIdentifier{2, 5, 4, 8}},
	{"L", asn1.ObjectIdentifier{2, 5, 4, 7}},
	{"street", asn1.ObjectIdentifier{2, 5, 4, 9}},
	{"O", asn1.ObjectIdentifier{2, 5, 4, 10}},
	{"OU", asn1.ObjectIdentifier{2, 5, 4, 11}},
	{"CN", asn1.ObjectIdentifier{2, 5, 4, 3}},
	{"serialNumber", asn1.ObjectIdentifier{2, 5, 4, 5}},
	{"title", asn1.ObjectIdentifier{2, 5, 4, 12}},
	{"postalCode", asn1.ObjectIdentifier{2, 5, 4, 17}},
	{"name", asn1.ObjectIdentifier{2, 5, 4, 41}},
	{"GN", asn1.ObjectIdentifier{2, 5, 4, 42}},
	{"SN", asn1.ObjectIdentifier{2, 5, 4, 4}},
	{"emailAddress", asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}},
	{"DC", asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}},
	{"UID", asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}},
}

// parseSubject parses "/C=CN/O=Example/CN=www.example.cn" into the DER of
// a Name, keeping the order given. "\/" is a literal slash; "+" joins
// attributes into one multi-valued RDN, as openssl's -multivalue-rdn does.
func parseSubject(s string) ([]byte, error) {
	if !strings.HasPrefix(s, "/") {
		return nil, fmt.Errorf("%q: want /TYPE=value/TYPE=value..., e.g. /C=CN/O=Example/CN=www.example.cn", s)
	}
	var rdns pkix.RDNSequence
	for _, part := range splitUnescaped(s[1:], '/') {
		if part == "" {
			continue // "//" or a trailing slash, as openssl allows
		}
		var rdn pkix.RelativeDistinguishedNameSET
		for _, av := range splitUnescaped(part, '+') {
			typ, val, ok := strings.Cut(av, "=")
			if !ok || typ == "" {
				return nil, fmt.Errorf("%q: %q is not TYPE=value", s, av)
			}
			oid, err := attrOID(typ)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", s, err)
			}
			val = unescape(val)
			if val == "" {
				return nil, fmt.Errorf("%q: %s is empty", s, typ)
			}
			if typ == "C" && len(val) != 2 {
				return nil, fmt.Errorf("%q: the country (C) is a two-letter code such as CN, not %q", s, val)
			}
			rdn = append(rdn, pkix.AttributeTypeAndValue{Type: oid, Value: val})
		}
		rdns = append(rdns, rdn)
	}
	if len(rdns) == 0 {
		return nil, fmt.Errorf("%q: empty subject", s)
	}
	return asn1.Marshal(rdns)
}

func attrOID(typ string) (asn1.ObjectIdentifier, error) {
	var known []string
	for _, a := range nameAttrs {
		if strings.EqualFold(a.short, typ) {
			return a.oid, nil
		}
		known = append(known, a.short)
	}
	switch strings.ToLower(typ) {
	case "commonname":
		return nameAttrs[6].oid, nil
	case "email":
		return nameAttrs[13].oid, nil
	}
	return nil, fmt.Errorf("unknown attribute type %q (known: %s)", typ, strings.Join(known, ", "))
}

// splitUnescaped splits s at sep where it is not preceded by a backslash.
func splitUnescaped(s string, sep byte) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// subjectFromFields builds a subject from GmSSL-style -C -ST -L -O -OU -CN
// flags, in that order; empty values are left out.
func subjectFromFields(fields [][2]string) ([]byte, error) {
	var parts []string
	for _, f := range fields {
		if f[1] != "" {
			parts = append(parts, f[0]+"="+strings.ReplaceAll(strings.ReplaceAll(f[1], `\`, `\\`), "/", `\/`))
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return parseSubject("/" + strings.Join(parts, "/"))
}

// nameString prints the DER Name raw as openssl's one-line form does:
// "C=CN, O=shangmi, CN=shangmi test server", attributes in certificate
// order, multi-valued RDNs joined with " + ".
func nameString(raw []byte) string {
	var rdns pkix.RDNSequence
	if rest, err := asn1.Unmarshal(raw, &rdns); err != nil || len(rest) != 0 {
		return fmt.Sprintf("(unparsable name: % x)", raw)
	}
	var parts []string
	for _, rdn := range rdns {
		var avs []string
		for _, av := range rdn {
			name := av.Type.String()
			for _, a := range nameAttrs {
				if a.oid.Equal(av.Type) {
					name = a.short
				}
			}
			avs = append(avs, fmt.Sprintf("%s=%v", name, av.Value))
		}
		parts = append(parts, strings.Join(avs, " + "))
	}
	return strings.Join(parts, ", ")
}

// commonName returns the CN of a DER Name, or the whole name if it has
// none, for short listings.
func commonName(raw []byte) string {
	var rdns pkix.RDNSequence
	if _, err := asn1.Unmarshal(raw, &rdns); err == nil {
		for i := len(rdns) - 1; i >= 0; i-- {
			for _, av := range rdns[i] {
				if av.Type.Equal(nameAttrs[6].oid) {
					return fmt.Sprint(av.Value)
				}
			}
		}
	}
	return nameString(raw)
}

// sans are the subject alternative names of a certificate or request.
type sans struct {
	dns    []string
	ips    []net.IP
	emails []string
	uris   []*url.URL
}

// addHosts adds a -hosts list: comma-separated DNS names and IP addresses.
func (s *sans) addHosts(list string) error {
	for _, h := range strings.Split(list, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return fmt.Errorf("%q: empty name between commas", list)
		}
		if err := s.addTyped(h, true); err != nil {
			return err
		}
	}
	return nil
}

// addSAN adds an openssl subjectAltName list: "DNS:a.example,IP:10.0.0.1,
// email:x@example.cn,URI:https://example.cn/"; untyped entries are DNS
// names or IP addresses.
func (s *sans) addSAN(list string) error {
	list = strings.TrimPrefix(list, "subjectAltName=")
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			return fmt.Errorf("%q: empty name between commas", list)
		}
		if err := s.addTyped(e, false); err != nil {
			return err
		}
	}
	return nil
}

func (s *sans) addTyped(e string, hostsOnly bool) error {
	typ, val, typed := strings.Cut(e, ":")
	if typed && !hostsOnly {
		switch strings.ToUpper(typ) {
		case "DNS":
			return s.addDNS(val)
		case "IP":
			ip := net.ParseIP(val)
			if ip == nil {
				return fmt.Errorf("IP:%s is not an IP address", val)
			}
			s.ips = append(s.ips, ip)
			return nil
		case "EMAIL":
			if a, err := mail.ParseAddress(val); err != nil || a.Address != val {
				return fmt.Errorf("email:%s is not an e-mail address", val)
			}
			s.emails = append(s.emails, val)
			return nil
		case "URI":
			u, err := url.Parse(val)
			if err != nil || u.Scheme == "" {
				return fmt.Errorf("URI:%s is not an absolute URI", val)
			}
			s.uris = append(s.uris, u)
			return nil
		}
	}
	if ip := net.ParseIP(e); ip != nil {
		s.ips = append(s.ips, ip)
		return nil
	}
	if typed && hostsOnly {
		return fmt.Errorf("%q is neither a DNS name nor an IP address (use -san for typed names such as email:)", e)
	}
	if typed {
		return fmt.Errorf("%q: unknown name type %q (want DNS, IP, email or URI)", e, typ)
	}
	return s.addDNS(e)
}

// addDNS checks a DNS name (RFC 1035 letters, digits and hyphens; a
// wildcard only as the whole leftmost label, with two labels after it) and
// adds it.
func (s *sans) addDNS(name string) error {
	if err := checkDNSName(name); err != nil {
		return err
	}
	s.dns = append(s.dns, name)
	return nil
}

func checkDNSName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%q is not a valid DNS name: %s", name, why) }
	if name == "" {
		return bad("empty")
	}
	if len(name) > 253 {
		return bad("longer than 253 characters")
	}
	labels := strings.Split(strings.TrimSuffix(name, "."), ".")
	for i, l := range labels {
		switch {
		case l == "":
			return bad("empty label")
		case l == "*" && i == 0:
			if len(labels) < 3 {
				return bad("a wildcard needs at least two labels after it (*.example.cn)")
			}
			continue
		case strings.Contains(l, "*"):
			return bad("a wildcard may only be the whole leftmost label")
		case len(l) > 63:
			return bad("a label is longer than 63 characters")
		case l[0] == '-' || l[len(l)-1] == '-':
			return bad("a label starts or ends with a hyphen")
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return bad(fmt.Sprintf("%q is not allowed (letters, digits, hyphens and underscores only; internationalised names in their xn-- form)", c))
			}
		}
	}
	return nil
}

// String lists the names as openssl prints them.
func (s *sans) String() string {
	var uris []string
	for _, u := range s.uris {
		uris = append(uris, u.String())
	}
	return sansString(s.dns, s.emails, s.ips, uris)
}

func sansString(dns, emails []string, ips []net.IP, uris []string) string {
	var parts []string
	for _, d := range dns {
		parts = append(parts, "DNS:"+d)
	}
	for _, ip := range ips {
		parts = append(parts, "IP Address:"+ip.String())
	}
	for _, e := range emails {
		parts = append(parts, "email:"+e)
	}
	for _, u := range uris {
		parts = append(parts, "URI:"+u)
	}
	return strings.Join(parts, ", ")
}
