// Command smsum computes SM3 and HMAC-SM3 digests of files, like sha256sum,
// and encrypts or decrypts a file with SM4 (CBC, CTR, GCM) or ZUC.
//
// Usage:
//
//	smsum [-a sm3] [FILE...]
//	smsum -a hmac-sm3 -key HEX [FILE...]
//	smsum -a sm4-cbc|sm4-ctr|sm4-gcm|zuc128|zuc256 -key HEX -iv HEX -e|-d [-aad HEX] [FILE]
//
// With no FILE, or when FILE is -, smsum reads standard input. Digests are
// printed one line per file as "<hex digest>  <name>". Encryption and
// decryption write the result to standard output:
//
//   - sm4-cbc pads with PKCS #7, as openssl enc -sm4-cbc does; -iv is the
//     16-byte IV.
//   - sm4-ctr is compatible with openssl enc -sm4-ctr; -iv is the first
//     16-byte counter block.
//   - sm4-gcm writes the ciphertext followed by the 16-byte tag; -iv is the
//     nonce (12 bytes usually), -aad optional additional data. Decryption
//     prints nothing unless the tag verifies.
//   - zuc128 (16-byte key and IV) and zuc256 (32-byte key, 23- or 25-byte IV)
//     XOR the keystream, so -e and -d do the same.
//
// Errors are reported on one line on standard error; the exit status is 1
// for a failure and 2 for a malformed command line.
package main

import (
	"bufio"
	"crypto/cipher"
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"github.com/shangmi-go/shangmi/primitives/sm3"
	"github.com/shangmi-go/shangmi/primitives/sm4"
	"github.com/shangmi-go/shangmi/primitives/zuc"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options is the parsed command line.
type options struct {
	alg          string
	key, iv, aad []byte
	encrypt      bool
	files        []string
}

// usageError is a malformed command line; it exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "smsum: %s\n", oneLine(err))
		return 2
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	switch opts.alg {
	case "sm3", "hmac-sm3":
		return digestFiles(opts, stdin, out, stderr)
	}
	in, name, closeIn, err := open(opts.files[0], stdin)
	if err == nil {
		err = crypt(opts, in, out)
		closeIn()
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "smsum: %s: %s: %s\n", opts.alg, name, oneLine(err))
		return 1
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("smsum", flag.ContinueOnError)
	fs.SetOutput(stderr)
	alg := fs.String("a", "sm3", "algorithm: sm3, hmac-sm3, sm4-cbc, sm4-ctr, sm4-gcm, zuc128 or zuc256")
	keyHex := fs.String("key", "", "key in hex (hmac-sm3 and the ciphers)")
	ivHex := fs.String("iv", "", "IV or nonce in hex (the ciphers)")
	aadHex := fs.String("aad", "", "additional authenticated data in hex (sm4-gcm)")
	enc := fs.Bool("e", false, "encrypt")
	dec := fs.Bool("d", false, "decrypt")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: smsum [-a sm3|hmac-sm3] [-key HEX] [FILE...]")
		fmt.Fprintln(stderr, "       smsum -a sm4-cbc|sm4-ctr|sm4-gcm|zuc128|zuc256 -key HEX -iv HEX -e|-d [-aad HEX] [FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o := &options{alg: strings.ToLower(*alg), encrypt: *enc, files: fs.Args()}
	if len(o.files) == 0 {
		o.files = []string{"-"}
	}
	var err error
	if o.key, err = decodeHex("-key", *keyHex); err != nil {
		return nil, err
	}
	if o.iv, err = decodeHex("-iv", *ivHex); err != nil {
		return nil, err
	}
	if o.aad, err = decodeHex("-aad", *aadHex); err != nil {
		return nil, err
	}

	switch o.alg {
	case "sm3":
		if *keyHex != "" || *ivHex != "" || *enc || *dec {
			return nil, usagef("-a sm3 takes no -key, -iv, -e or -d")
		}
		return o, nil
	case "hmac-sm3":
		if *keyHex == "" {
			return nil, usagef("-a hmac-sm3 needs -key HEX")
		}
		if *ivHex != "" || *enc || *dec {
			return nil, usagef("-a hmac-sm3 takes no -iv, -e or -d")
		}
		return o, nil
	case "sm4-cbc", "sm4-ctr", "sm4-gcm", "zuc128", "zuc256":
	default:
		return nil, usagef("unknown algorithm %q (want sm3, hmac-sm3, sm4-cbc, sm4-ctr, sm4-gcm, zuc128 or zuc256)", *alg)
	}
	if *enc == *dec {
		return nil, usagef("-a %s needs exactly one of -e (encrypt) and -d (decrypt)", o.alg)
	}
	if *keyHex == "" || *ivHex == "" {
		return nil, usagef("-a %s needs -key HEX and -iv HEX", o.alg)
	}
	if *aadHex != "" && o.alg != "sm4-gcm" {
		return nil, usagef("-aad is only for sm4-gcm")
	}
	if len(o.files) != 1 {
		return nil, usagef("-a %s takes one input file, not %d", o.alg, len(o.files))
	}
	return o, nil
}

func decodeHex(name, s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, usagef("%s is not valid hex: %v", name, err)
	}
	return b, nil
}

// open opens name for reading; "-" is stdin.
func open(name string, stdin io.Reader) (r io.Reader, display string, closeFn func(), err error) {
	if name == "-" {
		return stdin, "-", func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		// The *PathError already names the file; keep only its reason.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, name, nil, err
	}
	return f, name, func() { f.Close() }, nil
}

// digestFiles prints one digest line per file and, like sha256sum, goes on
// past a file it cannot read, failing at the end.
func digestFiles(o *options, stdin io.Reader, out *bufio.Writer, stderr io.Writer) int {
	var h hash.Hash
	if o.alg == "hmac-sm3" {
		h = hmac.New(sm3.New, o.key)
	} else {
		h = sm3.New()
	}
	status := 0
	sum := make([]byte, 0, sm3.Size)
	for _, name := range o.files {
		h.Reset()
		in, display, closeIn, err := open(name, stdin)
		if err == nil {
			_, err = io.Copy(h, in)
			closeIn()
		}
		if err != nil {
			out.Flush() // keep stdout and stderr lines in order
			fmt.Fprintf(stderr, "smsum: %s: %s\n", display, oneLine(err))
			status = 1
			continue
		}
		sum = h.Sum(sum[:0])
		fmt.Fprintf(out, "%x  %s\n", sum, display)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "smsum: writing output: %s\n", oneLine(err))
		return 1
	}
	return status
}

// crypt encrypts or decrypts in to out with the options' cipher.
func crypt(o *options, in io.Reader, out io.Writer) error {
	switch o.alg {
	case "zuc128", "zuc256":
		want := 16
		if o.alg == "zuc256" {
			want = 32
		}
		if len(o.key) != want {
			return fmt.Errorf("key is %d bytes, want %d", len(o.key), want)
		}
		s, err := zuc.NewCipher(o.key, o.iv)
		if err != nil {
			return err
		}
		return stream(s, in, out)
	}

	block, err := sm4.NewCipher(o.key)
	if err != nil {
		return err
	}
	if o.alg != "sm4-gcm" && len(o.iv) != sm4.BlockSize {
		return fmt.Errorf("IV is %d bytes, want %d", len(o.iv), sm4.BlockSize)
	}
	switch o.alg {
	case "sm4-ctr":
		return stream(cipher.NewCTR(block, o.iv), in, out)
	case "sm4-cbc":
		if o.encrypt {
			return cbcEncrypt(cipher.NewCBCEncrypter(block, o.iv), in, out)
		}
		return cbcDecrypt(cipher.NewCBCDecrypter(block, o.iv), in, out)
	default: // sm4-gcm
		return gcm(block, o, in, out)
	}
}

// chunk is how much the streaming modes process at a time; a multiple of
// the SM4 block size.
const chunk = 64 << 10

func stream(s cipher.Stream, in io.Reader, out io.Writer) error {
	_, err := io.Copy(cipher.StreamWriter{S: s, W: out}, in)
	return err
}

// cbcEncrypt encrypts in with PKCS #7 padding: 1 to 16 bytes, each holding
// the padding length, so a whole block of padding follows an input that is
// already a multiple of the block size.
func cbcEncrypt(bm cipher.BlockMode, in io.Reader, out io.Writer) error {
	buf := make([]byte, chunk+sm4.BlockSize)
	for {
		n, err := io.ReadFull(in, buf[:chunk])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			pad := sm4.BlockSize - n%sm4.BlockSize
			for i := range pad {
				buf[n+i] = byte(pad)
			}
			n += pad
			bm.CryptBlocks(buf[:n], buf[:n])
			_, err = out.Write(buf[:n])
			return err
		}
		if err != nil {
			return err
		}
		bm.CryptBlocks(buf[:n], buf[:n])
		if _, err := out.Write(buf[:n]); err != nil {
			return err
		}
	}
}

// cbcDecrypt decrypts in and strips the PKCS #7 padding. The last block is
// held back until the end of the input, since only it carries the padding.
func cbcDecrypt(bm cipher.BlockMode, in io.Reader, out io.Writer) error {
	buf := make([]byte, chunk)
	held := 0
	for {
		n, err := io.ReadFull(in, buf[held:])
		n += held
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if n == 0 || n%sm4.BlockSize != 0 {
				return fmt.Errorf("ciphertext is %d bytes, not a positive multiple of %d", n, sm4.BlockSize)
			}
			bm.CryptBlocks(buf[:n], buf[:n])
			pad := int(buf[n-1])
			if pad == 0 || pad > sm4.BlockSize || pad > n {
				return errors.New("bad padding (wrong key or IV?)")
			}
			for _, b := range buf[n-pad : n] {
				if int(b) != pad {
					return errors.New("bad padding (wrong key or IV?)")
				}
			}
			_, err = out.Write(buf[:n-pad])
			return err
		}
		if err != nil {
			return err
		}
		// buf is full: decrypt all but its last block, which moves to the
		// front. The decrypter's chaining value is then the ciphertext block
		// just before it, so decryption continues correctly from there.
		m := n - sm4.BlockSize
		bm.CryptBlocks(buf[:m], buf[:m])
		if _, err := out.Write(buf[:m]); err != nil {
			return err
		}
		held = copy(buf, buf[m:n])
	}
}

// gcm seals or opens the whole input at once: an authenticated decryption
// must not release any plaintext before the tag has been checked.
func gcm(block cipher.Block, o *options, in io.Reader, out io.Writer) error {
	var aead cipher.AEAD
	var err error
	if len(o.iv) == 12 {
		aead, err = cipher.NewGCM(block)
	} else {
		aead, err = cipher.NewGCMWithNonceSize(block, len(o.iv))
	}
	if err != nil {
		return err
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	if o.encrypt {
		data = aead.Seal(data[:0], o.iv, data, o.aad)
	} else {
		if data, err = aead.Open(data[:0], o.iv, data, o.aad); err != nil {
			return errors.New("authentication failed (wrong key, nonce or AAD, or corrupted input)")
		}
	}
	_, err = out.Write(data)
	return err
}

func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}
