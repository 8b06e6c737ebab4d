package main

import (
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/primitives/zuc"
)

// smsum runs the command's logic in-process.
func smsum(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(args, bytes.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), status
}

func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDigest(t *testing.T) {
	a := randomBytes(1, 1000)
	b := randomBytes(2, 70000)
	fa, fb := writeFile(t, "a", a), writeFile(t, "b", b)
	sa, sb, sc := sm3.Sum(a), sm3.Sum(b), sm3.Sum([]byte("stdin data"))

	out, errOut, status := smsum(t, []byte("stdin data"), "-a", "sm3", fa, "-", fb)
	want := fmt.Sprintf("%x  %s\n%x  -\n%x  %s\n", sa, fa, sc, sb, fb)
	if status != 0 || out != want || errOut != "" {
		t.Errorf("status %d, stdout %q, stderr %q; want stdout %q", status, out, errOut, want)
	}
	// sm3 is the default, and no file means stdin.
	out, _, status = smsum(t, []byte("stdin data"))
	if want := fmt.Sprintf("%x  -\n", sc); status != 0 || out != want {
		t.Errorf("default: status %d, stdout %q, want %q", status, out, want)
	}
}

func TestHMAC(t *testing.T) {
	data := randomBytes(3, 5000)
	f := writeFile(t, "data", data)
	key := randomBytes(4, 20)
	m := hmac.New(sm3.New, key)
	m.Write(data)
	out, errOut, status := smsum(t, nil, "-a", "hmac-sm3", "-key", hex.EncodeToString(key), f)
	if want := fmt.Sprintf("%x  %s\n", m.Sum(nil), f); status != 0 || out != want {
		t.Errorf("status %d, stdout %q, stderr %q; want %q", status, out, errOut, want)
	}
}

func TestDigestMissingFile(t *testing.T) {
	f := writeFile(t, "ok", []byte("abc"))
	missing := filepath.Join(t.TempDir(), "missing")
	out, errOut, status := smsum(t, nil, missing, f)
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	if want := fmt.Sprintf("%x  %s\n", sm3.Sum([]byte("abc")), f); out != want {
		t.Errorf("stdout %q, want %q (the readable file is still hashed)", out, want)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, missing) {
		t.Errorf("stderr %q, want one line naming the file", errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	key, iv := "00112233445566778899aabbccddeeff", "0f0e0d0c0b0a09080706050403020100"
	for _, args := range [][]string{
		{"-a", "md5"},
		{"-a", "hmac-sm3"},
		{"-a", "hmac-sm3", "-key", "zz"},
		{"-a", "sm3", "-key", key},
		{"-a", "sm4-cbc", "-key", key, "-iv", iv},
		{"-a", "sm4-cbc", "-key", key, "-iv", iv, "-e", "-d"},
		{"-a", "sm4-ctr", "-key", key, "-e"},
		{"-a", "sm4-ctr", "-key", key, "-iv", iv, "-e", "f1", "f2"},
		{"-a", "zuc128", "-key", key, "-iv", iv, "-e", "-aad", "00"},
		{"-nosuchflag"},
	} {
		out, errOut, status := smsum(t, nil, args...)
		if status != 2 || out != "" || errOut == "" {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want status 2 and a message", args, status, out, errOut)
		}
	}
}

func TestCipherErrors(t *testing.T) {
	key, iv := "00112233445566778899aabbccddeeff", "0f0e0d0c0b0a09080706050403020100"
	f := writeFile(t, "in", []byte("0123456789abcdef0123456789abcdef"))
	for _, args := range [][]string{
		{"-a", "sm4-cbc", "-key", "0011", "-iv", iv, "-e", f},
		{"-a", "sm4-cbc", "-key", key, "-iv", "0011", "-e", f},
		{"-a", "zuc128", "-key", key, "-iv", "0011", "-e", f},
		{"-a", "zuc256", "-key", key, "-iv", iv, "-e", f},
		{"-a", "sm4-gcm", "-key", key, "-iv", iv[:24], "-d", f}, // not a sealed message
		{"-a", "sm4-cbc", "-key", key, "-iv", iv, "-d", f},      // padding will not check out
		{"-a", "sm4-ctr", "-key", key, "-iv", iv, "-e", f + ".missing"},
	} {
		out, errOut, status := smsum(t, nil, args...)
		if status != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "smsum: ") {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want status 1 and one line", args, status, out, errOut)
		}
	}
	// A truncated CBC ciphertext.
	out, _, status := smsum(t, make([]byte, 17), "-a", "sm4-cbc", "-key", key, "-iv", iv, "-d")
	if status != 1 || out != "" {
		t.Errorf("truncated CBC: status %d, stdout %q", status, out)
	}
}

// reference computes what each mode should output, with the primitives
// used directly.
func reference(t *testing.T, alg string, key, iv, aad, msg []byte) []byte {
	t.Helper()
	if strings.HasPrefix(alg, "zuc") {
		s, err := zuc.NewCipher(key, iv)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, len(msg))
		s.XORKeyStream(out, msg)
		return out
	}
	b, err := sm4.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	switch alg {
	case "sm4-ctr":
		out := make([]byte, len(msg))
		cipher.NewCTR(b, iv).XORKeyStream(out, msg)
		return out
	case "sm4-cbc":
		pad := 16 - len(msg)%16
		out := append(append([]byte{}, msg...), bytes.Repeat([]byte{byte(pad)}, pad)...)
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, out)
		return out
	default:
		g, err := cipher.NewGCMWithNonceSize(b, len(iv))
		if err != nil {
			t.Fatal(err)
		}
		return g.Seal(nil, iv, msg, aad)
	}
}

func TestCipherRoundTrip(t *testing.T) {
	key16 := randomBytes(5, 16)
	key32 := randomBytes(6, 32)
	iv16 := randomBytes(7, 16)
	cases := []struct {
		alg      string
		key, iv  []byte
		aad      []byte
		withFile bool
	}{
		{"sm4-cbc", key16, iv16, nil, true},
		{"sm4-ctr", key16, iv16, nil, false},
		{"sm4-gcm", key16, iv16[:12], nil, true},
		{"sm4-gcm", key16, iv16[:8], []byte("header"), false},
		{"zuc128", key16, iv16, nil, true},
		{"zuc256", key32, randomBytes(8, 23), nil, false},
	}
	for _, c := range cases {
		for _, n := range []int{0, 1, 15, 16, 17, chunk - 1, chunk, chunk + 1, 3*chunk + 5} {
			msg := randomBytes(uint64(n), n)
			args := []string{"-a", c.alg, "-key", hex.EncodeToString(c.key), "-iv", hex.EncodeToString(c.iv)}
			if c.aad != nil {
				args = append(args, "-aad", hex.EncodeToString(c.aad))
			}
			var stdin []byte
			in := []string{"-"}
			if c.withFile {
				in = []string{writeFile(t, "plain", msg)}
			} else {
				stdin = msg
			}
			ct, errOut, status := smsum(t, stdin, append(append(args, "-e"), in...)...)
			if status != 0 {
				t.Fatalf("%s len %d: encrypt status %d: %s", c.alg, n, status, errOut)
			}
			if want := reference(t, c.alg, c.key, c.iv, c.aad, msg); !bytes.Equal([]byte(ct), want) {
				t.Fatalf("%s len %d: ciphertext differs from the primitive's", c.alg, n)
			}
			pt, errOut, status := smsum(t, []byte(ct), append(args, "-d")...)
			if status != 0 || !bytes.Equal([]byte(pt), msg) {
				t.Fatalf("%s len %d: decrypt status %d (%s), round trip ok=%v", c.alg, n, status, errOut, bytes.Equal([]byte(pt), msg))
			}
			if c.alg == "sm4-gcm" && n > 0 {
				bad := []byte(ct)
				bad[n/2] ^= 1
				out, _, status := smsum(t, bad, append(args, "-d")...)
				if status != 1 || out != "" {
					t.Fatalf("%s len %d: tampered input: status %d, %d bytes out", c.alg, n, status, len(out))
				}
			}
		}
	}
}

// TestOpenSSLInterop checks the SM4 CBC and CTR files against openssl enc.
func TestOpenSSLInterop(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH")
	}
	key, iv := randomBytes(9, 16), randomBytes(10, 16)
	for _, alg := range []string{"sm4-cbc", "sm4-ctr"} {
		for _, n := range []int{0, 5, 32, 1000} {
			msg := randomBytes(uint64(n)+11, n)
			f := writeFile(t, "plain", msg)
			cmd := exec.Command("openssl", "enc", "-"+alg, "-K", hex.EncodeToString(key), "-iv", hex.EncodeToString(iv), "-in", f)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("openssl enc -%s: %v", alg, err)
			}
			got, errOut, status := smsum(t, nil, "-a", alg, "-key", hex.EncodeToString(key), "-iv", hex.EncodeToString(iv), "-e", f)
			if status != 0 || !bytes.Equal([]byte(got), want) {
				t.Errorf("%s len %d: status %d (%s), output differs from openssl enc", alg, n, status, errOut)
			}
		}
	}
}
