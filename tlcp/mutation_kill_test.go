// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package tlcp

// Tests written for the mutants of internal/mutation that survived the
// existing tests: each fails if its check is removed.

import (
	"crypto/x509/pkix"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
	"github.com/shangmi-go/shangmi/smx509"
)

// TestClientEncCertOtherEntity: the server refuses a client whose
// encryption certificate chains to ClientCAs but names another entity
// than its signing certificate (mutant tlcp-client-same-entity), as the
// client refuses such a server pair (TestEncCertOtherEntity).
func TestClientEncCertOtherEntity(t *testing.T) {
	p := getPKI(t)
	cert, key := mustIssue(t, &smx509.Certificate{
		Subject:               pkix.Name{CommonName: "someone.else"},
		DNSNames:              []string{"someone.else"},
		KeyUsage:              smx509.KeyUsageKeyEncipherment | smx509.KeyUsageKeyAgreement,
		ExtKeyUsage:           []smx509.ExtKeyUsage{smx509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}, p.ca, p.caKey)
	for _, suite := range []uint16{ciphersuite.ECDHE_SM4_GCM_SM3, ciphersuite.ECC_SM4_GCM_SM3} {
		ccfg := testClientConfig(t)
		ccfg.CipherSuites = []uint16{suite}
		ccfg.ClientCertIncludeEnc = true // the ECC suite sends the encryption certificate too
		ccfg.Certificates = []CertificatePair{{Sign: p.client.Sign, Enc: Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}}}
		scfg := testServerConfig(t)
		scfg.ClientAuth = RequireAndVerifyClientCert
		_, _, cerr, serr := handshakePair(t, ccfg, scfg)
		if serr == nil || !strings.Contains(serr.Error(), "different entities") {
			t.Errorf("%s: server error %v (client %v), want the different-entities refusal", ciphersuite.Name(suite), serr, cerr)
		}
	}
}
