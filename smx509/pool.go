package smx509

import (
	"bytes"
	"encoding/pem"
	"errors"
	"os"
	"sync"

	smx "github.com/shangmi-go/shangmi/x509"
)

// CertPool is a set of certificates, indexed by subject for chain building.
type CertPool struct {
	bySubject map[string][]int // RawSubject → indexes into certs
	byRaw     map[string]int   // Raw → index, to ignore duplicates
	certs     []*Certificate
}

// NewCertPool returns a new, empty CertPool.
func NewCertPool() *CertPool {
	return &CertPool{
		bySubject: make(map[string][]int),
		byRaw:     make(map[string]int),
	}
}

// Clone returns a copy of s.
func (s *CertPool) Clone() *CertPool {
	p := NewCertPool()
	for _, c := range s.certs {
		p.AddCert(c)
	}
	return p
}

// AddCert adds a certificate to a pool. Adding a certificate already in the
// pool is a no-op.
func (s *CertPool) AddCert(cert *Certificate) {
	if cert == nil {
		panic("adding nil Certificate to CertPool")
	}
	if _, ok := s.byRaw[string(cert.Raw)]; ok {
		return
	}
	n := len(s.certs)
	s.certs = append(s.certs, cert)
	s.byRaw[string(cert.Raw)] = n
	s.bySubject[string(cert.RawSubject)] = append(s.bySubject[string(cert.RawSubject)], n)
}

// AppendCertsFromPEM attempts to parse a series of PEM encoded certificates.
// It appends any certificates found to s and reports whether any
// certificates were successfully parsed. Blocks that are not certificates,
// or do not parse, are skipped.
func (s *CertPool) AppendCertsFromPEM(pemCerts []byte) (ok bool) {
	for len(pemCerts) > 0 {
		var block *pem.Block
		block, pemCerts = pem.Decode(pemCerts)
		if block == nil {
			break
		}
		if block.Type != smx.PEMTypeCertificate || len(block.Headers) != 0 {
			continue
		}
		cert, err := ParseCertificate(block.Bytes)
		if err != nil {
			continue
		}
		s.AddCert(cert)
		ok = true
	}
	return ok
}

// Subjects returns the DER-encoded subjects of all certificates in the pool,
// in the order they were added.
func (s *CertPool) Subjects() [][]byte {
	res := make([][]byte, len(s.certs))
	for i, c := range s.certs {
		res[i] = c.RawSubject
	}
	return res
}

// Certificates returns the certificates in the pool, in the order they were
// added.
func (s *CertPool) Certificates() []*Certificate {
	return append([]*Certificate(nil), s.certs...)
}

// Equal reports whether s and other hold the same certificates.
func (s *CertPool) Equal(other *CertPool) bool {
	if s == nil || other == nil {
		return s == other
	}
	if len(s.byRaw) != len(other.byRaw) {
		return false
	}
	for raw := range s.byRaw {
		if _, ok := other.byRaw[raw]; !ok {
			return false
		}
	}
	return true
}

func (s *CertPool) contains(cert *Certificate) bool {
	if s == nil {
		return false
	}
	_, ok := s.byRaw[string(cert.Raw)]
	return ok
}

// findPotentialParents returns the certificates whose subject is cert's
// issuer, those whose subject key ID matches cert's authority key ID first,
// then those without a key ID, then the rest.
func (s *CertPool) findPotentialParents(cert *Certificate) []*Certificate {
	if s == nil {
		return nil
	}
	var matching, noKeyID, mismatch []*Certificate
	for _, i := range s.bySubject[string(cert.RawIssuer)] {
		c := s.certs[i]
		switch {
		case len(c.SubjectKeyId) == 0 || len(cert.AuthorityKeyId) == 0:
			noKeyID = append(noKeyID, c)
		case bytes.Equal(c.SubjectKeyId, cert.AuthorityKeyId):
			matching = append(matching, c)
		default:
			mismatch = append(mismatch, c)
		}
	}
	out := append(matching, noKeyID...)
	return append(out, mismatch...)
}

// systemBundles are the usual locations of the operating system's PEM root
// bundle on Linux and BSD systems.
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/ssl/cert.pem",
	"/usr/local/etc/ssl/cert.pem",
}

var systemPool = sync.OnceValues(func() (*CertPool, error) {
	p := NewCertPool()
	if f := os.Getenv("SSL_CERT_FILE"); f != "" {
		if data, err := os.ReadFile(f); err == nil {
			p.AppendCertsFromPEM(data)
			return p, nil
		}
	}
	for _, f := range systemBundles {
		if data, err := os.ReadFile(f); err == nil {
			p.AppendCertsFromPEM(data)
			return p, nil
		}
	}
	return nil, errors.New("no system root bundle found")
})

// SystemCertPool returns a copy of the operating system's root pool, read
// from its PEM bundle ($SSL_CERT_FILE, then the usual paths). It contains the
// international roots only; SM2 roots must be supplied by the caller.
func SystemCertPool() (*CertPool, error) {
	p, err := systemPool()
	if err != nil {
		return nil, err
	}
	return p.Clone(), nil
}
