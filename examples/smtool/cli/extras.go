// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shangmi-go/shangmi/smx509"
	"github.com/shangmi-go/shangmi/smx509/ocsp"
	"github.com/shangmi-go/shangmi/tlcp"
)

// extraOpts are s_client's and s_server's flags for OCSP stapling,
// trusted CA indication and the keying material exporter, named as
// OpenSSL names them where it has them.
type extraOpts struct {
	server bool
	// Exporter (both sides): OpenSSL's -keymatexport/-keymatexportlen.
	keymatLabel *string
	keymatLen   *int
	// Stapling: a client's -status/-status_require, a server's
	// -status_file/-status_in_hello.
	status, statusRequire *bool
	statusFile            *string
	statusInHello         *bool
	// trusted_ca_keys (client).
	trustedCA, trustedCAType *string
}

var trustedCATypes = map[string]uint8{
	"pre_agreed": tlcp.TrustedCAPreAgreed,
	"key_sha1":   tlcp.TrustedCAKeySHA1Hash,
	"name":       tlcp.TrustedCAX509Name,
	"cert_sha1":  tlcp.TrustedCACertSHA1Hash,
	"key_sm3":    tlcp.TrustedCAKeySM3Hash,
	"cert_sm3":   tlcp.TrustedCACertSM3Hash,
}

func addExtraFlags(fs *flagSet, server bool) *extraOpts {
	x := &extraOpts{server: server}
	x.keymatLabel = fs.String("keymatexport", "", "after the handshake print keying material exported with `LABEL` (no context), as openssl does")
	x.keymatLen = fs.Int("keymatexportlen", 20, "with -keymatexport: the length in `bytes`")
	if server {
		x.statusFile = fs.String("status_file", "", "staple the DER OCSP response in `FILE` for clients that ask (status_request)")
		x.statusInHello = fs.Bool("status_in_hello", false, "TLCP: staple in the ServerHello's status_request, gotlcp's form, instead of a CertificateStatus message (Tongsuo's)")
		return x
	}
	x.status = fs.Bool("status", false, "ask for the server's OCSP staple (status_request) and print it")
	x.statusRequire = fs.Bool("status_require", false, "as -status, and end the handshake unless the staple is good for the server's certificate")
	x.trustedCA = fs.String("trusted_ca", "", "send trusted_ca_keys naming the CA certificates in `FILE` (PEM)")
	x.trustedCAType = fs.String("trusted_ca_type", "key_sm3", "with -trusted_ca: the identifier `type`: key_sm3, cert_sm3 (GM/T 0024-2023), key_sha1, cert_sha1 (RFC 6066), name or pre_agreed")
	return x
}

// configure applies the flags to cfg; a server's cfg holds its pair.
func (x *extraOpts) configure(o *tlcpOpts, cfg *tlcp.Config) error {
	if *x.keymatLen < 0 {
		return usagef("-keymatexportlen must not be negative")
	}
	if x.server {
		cfg.TLCPStapleInServerHello = *x.statusInHello
		if *x.statusFile == "" {
			return nil
		}
		der, err := os.ReadFile(*x.statusFile)
		if err != nil {
			return err
		}
		if len(cfg.Certificates) == 0 {
			return usagef("-status_file needs a certificate")
		}
		cfg.Certificates[0].Sign.OCSPStaple = der
		return nil
	}
	cfg.RequestOCSPStaple = *x.status
	cfg.RequireOCSPStaple = *x.statusRequire
	if *x.statusRequire && cfg.RootCAs == nil && *o.caFile != "" {
		// s_client verifies the chain itself after the handshake; tlcp
		// finds the staple's issuer in RootCAs when the server does not
		// send it.
		cas, err := readCertificates(*o.caFile)
		if err != nil {
			return err
		}
		cfg.RootCAs = smx509.NewCertPool()
		for _, ca := range cas {
			cfg.RootCAs.AddCert(ca)
		}
	}
	if *x.trustedCA == "" {
		return nil
	}
	typ, ok := trustedCATypes[strings.ToLower(*x.trustedCAType)]
	if !ok {
		return usagef("-trusted_ca_type %q: want key_sm3, cert_sm3, key_sha1, cert_sha1, name or pre_agreed", *x.trustedCAType)
	}
	cas, err := readCertificates(*x.trustedCA)
	if err != nil {
		return err
	}
	for _, ca := range cas {
		ta, err := tlcp.NewTrustedAuthority(ca, typ)
		if err != nil {
			return err
		}
		cfg.TrustedCAIndications = append(cfg.TrustedCAIndications, ta)
	}
	return nil
}

// print adds what the flags ask for to a connection's description.
func (x *extraOpts) print(w io.Writer, st tlcp.ConnectionState) {
	if !x.server && (*x.status || *x.statusRequire) {
		printStaple(w, st)
	}
	if *x.keymatLabel == "" {
		return
	}
	// OpenSSL's layout, so that the two outputs compare line by line.
	fmt.Fprintf(w, "Keying material exporter:\n    Label: '%s'\n    Length: %d bytes\n", *x.keymatLabel, *x.keymatLen)
	ekm, err := st.ExportKeyingMaterial(*x.keymatLabel, nil, *x.keymatLen)
	if err != nil {
		fmt.Fprintf(w, "    Error: %v\n", err)
		return
	}
	fmt.Fprintf(w, "    Keying material: %X\n", ekm)
}

// printStaple describes the server's OCSP staple.
func printStaple(w io.Writer, st tlcp.ConnectionState) {
	if len(st.OCSPResponse) == 0 {
		fmt.Fprintln(w, "OCSP response: no response sent")
		return
	}
	fmt.Fprintf(w, "OCSP response: %d bytes", len(st.OCSPResponse))
	leaf := st.PeerSignCertificate
	if leaf == nil || len(st.VerifiedChains) == 0 || len(st.VerifiedChains[0]) < 2 {
		fmt.Fprintln(w) // without the issuer the CertID cannot be matched
		return
	}
	r, err := ocsp.ParseResponseForCert(st.OCSPResponse, leaf, st.VerifiedChains[0][1])
	if err != nil {
		fmt.Fprintf(w, " (%v)\n", err)
		return
	}
	fmt.Fprintf(w, ", cert status %s, this update %s", ocsp.StatusName(r.Status), opensslTime(r.ThisUpdate))
	if !r.NextUpdate.IsZero() {
		fmt.Fprintf(w, ", next update %s", opensslTime(r.NextUpdate))
	}
	fmt.Fprintln(w)
}
