package pkcs7

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// The messages in testdata were made by GmSSL 3 and Tongsuo (gen.sh and
// README.md say how); these tests read them as a user of either would.

func loadKAT(t *testing.T, name string) *Message {
	t.Helper()
	data := read(t, filepath.Join("testdata", name))
	var m *Message
	var err error
	if filepath.Ext(name) == ".pem" {
		m, err = ParsePEM(data)
	} else {
		m, err = Parse(data)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func katMessage(t *testing.T) []byte {
	return read(t, filepath.Join("testdata", "message.txt"))
}

func TestKnownAnswerSigned(t *testing.T) {
	want := katMessage(t)
	opts := VerifyOptions{Roots: tlcpRoots(t), CurrentTime: testTime}
	for _, tc := range []struct {
		file     string
		family   Family
		signers  int
		attrs    bool
		detached bool
		ski      bool
	}{
		{"gmssl_signed.pem", GMT0010, 1, false, false, false},
		{"tongsuo_signed.pem", PKCS7, 1, true, false, false},
		{"tongsuo_signed_detached.pem", PKCS7, 1, true, true, false},
		{"tongsuo_signed_noattr.pem", PKCS7, 1, false, false, false},
		{"tongsuo_signed_keyid.pem", PKCS7, 1, true, false, true},
		{"tongsuo_signed_two.pem", PKCS7, 2, true, false, false},
		{"tongsuo_signed_ber.der", PKCS7, 1, true, false, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m := loadKAT(t, tc.file)
			if m.Type != SignedDataType || m.Family != tc.family {
				t.Fatalf("got %v in the %v family", m.Type, m.Family)
			}
			sd := m.Signed
			if len(sd.Signers) != tc.signers {
				t.Fatalf("%d signers, want %d", len(sd.Signers), tc.signers)
			}
			if (sd.Signers[0].SignedAttributes != nil) != tc.attrs {
				t.Errorf("signed attributes: %v, want %v", sd.Signers[0].SignedAttributes != nil, tc.attrs)
			}
			if (sd.Signers[0].ID.SubjectKeyId != nil) != tc.ski {
				t.Errorf("signer named by subject key id: %v, want %v", sd.Signers[0].ID.SubjectKeyId != nil, tc.ski)
			}
			if tc.attrs {
				if _, ok := sd.Signers[0].SigningTime(); !ok {
					t.Error("no signing time")
				}
			}
			if sd.Detached != tc.detached {
				t.Fatalf("detached %v, want %v", sd.Detached, tc.detached)
			}
			if tc.detached {
				if err := sd.Verify(opts); !errors.Is(err, ErrDetachedContent) {
					t.Errorf("Verify of a detached signature: %v", err)
				}
				must(t, sd.VerifyDetached(bytes.NewReader(want), opts))
				err := sd.VerifyDetached(bytes.NewReader(append(want, 'x')), opts)
				if !errors.Is(err, ErrDigestMismatch) {
					t.Errorf("altered detached content: %v, want ErrDigestMismatch", err)
				}
				return
			}
			if !bytes.Equal(sd.Content, want) {
				t.Fatalf("content %q", sd.Content)
			}
			must(t, sd.Verify(opts))
		})
	}
}

func TestKnownAnswerEnveloped(t *testing.T) {
	want := katMessage(t)
	m := loadKAT(t, "gmssl_enveloped.pem")
	if m.Type != EnvelopedDataType || m.Family != GMT0010 || len(m.Enveloped.Recipients) != 2 {
		t.Fatalf("got %v, %v family, %d recipients", m.Type, m.Family, len(m.Enveloped.Recipients))
	}
	for _, name := range []string{"server_enc", "client_enc"} {
		p := tlcpParty(t, name)
		got, err := m.Enveloped.Decrypt(p.cert, p.key)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got %q", name, got)
		}
		got, err = m.Enveloped.Decrypt(nil, p.key)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Errorf("%s without the certificate: got %q", name, got)
		}
	}
	p := tlcpParty(t, "server_sign")
	if _, err := m.Enveloped.Decrypt(p.cert, p.key); !errors.Is(err, ErrNoRecipient) {
		t.Errorf("a non-recipient: %v, want ErrNoRecipient", err)
	}
	if _, err := m.Enveloped.Decrypt(nil, p.key); err == nil {
		t.Error("a non-recipient's key decrypted the message")
	}
}

func TestKnownAnswerGmSSLLibrary(t *testing.T) {
	want := katMessage(t)
	m := loadKAT(t, "gmssl_signed_and_enveloped.pem")
	if m.Type != SignedAndEnvelopedDataType || m.Family != GMT0010 {
		t.Fatalf("got %v %v", m.Type, m.Family)
	}
	p := tlcpParty(t, "server_enc")
	opts := VerifyOptions{Roots: tlcpRoots(t), CurrentTime: testTime}
	got, err := m.SignedAndEnveloped.Open(p.cert, p.key, opts)
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	opts.StrictZ = true
	if _, err := m.SignedAndEnveloped.Open(p.cert, p.key, opts); !errors.Is(err, ErrBadSignature) {
		t.Errorf("GmSSL's no-Z signature with StrictZ: %v", err)
	}
	other := tlcpParty(t, "client_enc")
	if _, err := m.SignedAndEnveloped.Open(other.cert, other.key, VerifyOptions{Roots: tlcpRoots(t), CurrentTime: testTime}); !errors.Is(err, ErrNoRecipient) {
		t.Errorf("wrong recipient: %v", err)
	}

	m = loadKAT(t, "gmssl_encrypted.pem")
	if m.Type != EncryptedDataType || m.Family != GMT0010 || m.Encrypted.Version != 1 {
		t.Fatalf("got %v %v version %d", m.Type, m.Family, m.Encrypted.Version)
	}
	got, err = m.Encrypted.Decrypt([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}

func TestKnownAnswerEncryptedAndDigested(t *testing.T) {
	want := katMessage(t)
	m := loadKAT(t, "tongsuo_encrypted.pem")
	if m.Type != EncryptedDataType {
		t.Fatalf("got %v", m.Type)
	}
	key := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	got, err := m.Encrypted.Decrypt(key)
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	key[0] ^= 1
	if got, err := m.Encrypted.Decrypt(key); err == nil && bytes.Equal(got, want) {
		t.Error("a wrong key decrypted the message")
	}

	m = loadKAT(t, "tongsuo_digested.pem")
	if m.Type != DigestedDataType || !bytes.Equal(m.Digested.Content, want) {
		t.Fatalf("got %v %q", m.Type, m.Digested.Content)
	}
	must(t, m.Digested.Verify(nil))
	if err := m.Digested.Verify(append(want, 'x')); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("altered content: %v", err)
	}
}
