package tlcp

import (
	"io"
	"net"
	"testing"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

func BenchmarkZZBulk(b *testing.B) {
	for _, id := range []uint16{ciphersuite.ECC_SM4_GCM_SM3, ciphersuite.ECC_SM4_CBC_SM3, ciphersuite.ECC_ZUC128_SM3} {
		b.Run(ciphersuite.Name(id), func(b *testing.B) {
			ccfg, scfg := testClientConfig(b), testServerConfig(b)
			ccfg.CipherSuites = []uint16{id}
			scfg.CipherSuites = []uint16{id}
			c, sc := net.Pipe()
			client, server := Client(c, ccfg), Server(sc, scfg)
			errc := make(chan error, 1)
			go func() { errc <- server.Handshake() }()
			if err := client.Handshake(); err != nil {
				b.Fatal(err)
			}
			<-errc
			const total = 64 << 20
			chunk := make([]byte, 256<<10)
			b.SetBytes(total)
			b.ReportAllocs()
			done := make(chan error, 1)
			go func() {
				for {
					if _, err := io.CopyN(io.Discard, server, total); err != nil {
						done <- err
						return
					}
				}
			}()
			for b.Loop() {
				for n := 0; n < total; n += len(chunk) {
					if _, err := client.Write(chunk); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
