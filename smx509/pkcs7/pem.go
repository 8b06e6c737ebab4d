package pkcs7

import (
	"encoding/pem"
	"errors"
)

// PEM block types. OpenSSL and Tongsuo's cms write "CMS", GmSSL writes
// "CMS", openssl pkcs7 and smime write "PKCS7"; all are read.
const (
	PEMTypeCMS   = "CMS"
	PEMTypePKCS7 = "PKCS7"
)

// ParsePEM parses the first CMS, PKCS7 or "PKCS #7 SIGNED DATA" PEM block
// of data.
func ParsePEM(data []byte) (*Message, error) {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("pkcs7: no CMS or PKCS7 PEM block found")
		}
		switch block.Type {
		case PEMTypeCMS, PEMTypePKCS7, "PKCS #7 SIGNED DATA":
			return Parse(block.Bytes)
		}
	}
}

// EncodePEM returns der as a PEM block of type typ (PEMTypeCMS or
// PEMTypePKCS7).
func EncodePEM(der []byte, typ string) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
