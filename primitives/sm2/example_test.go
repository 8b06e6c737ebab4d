package sm2_test

import (
	"bytes"
	"crypto/rand"
	"fmt"

	"github.com/shangmi-go/shangmi/primitives/sm2"
)

func ExampleSignASN1() {
	priv, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	msg := []byte("hello, world")
	// A nil uid means sm2.DefaultUID, as TLCP uses.
	sig, err := sm2.SignASN1(rand.Reader, priv, msg, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(sm2.VerifyASN1(priv.PublicKey(), msg, nil, sig))
	// Output: true
}

func ExampleEncryptASN1() {
	priv, err := sm2.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	premaster := make([]byte, 48)
	rand.Read(premaster)
	// The GM/T 0009 DER form is what a TLCP ClientKeyExchange carries.
	ct, err := sm2.EncryptASN1(rand.Reader, priv.PublicKey(), premaster)
	if err != nil {
		panic(err)
	}
	pt, err := sm2.DecryptASN1(priv, ct)
	if err != nil {
		panic(err)
	}
	fmt.Println(bytes.Equal(pt, premaster))
	// Output: true
}

func ExampleKeyExchange() {
	// Static encryption key pairs of a TLCP server and client.
	serverKey, _ := sm2.GenerateKey(rand.Reader)
	clientKey, _ := sm2.GenerateKey(rand.Reader)

	// The server is the initiator: it sends R_A in ServerKeyExchange.
	server, _ := sm2.NewKeyExchange(serverKey, nil, 48, true)
	rA, _ := server.Init(rand.Reader)

	// The client is the responder: it answers with R_B in ClientKeyExchange.
	client, _ := sm2.NewKeyExchange(clientKey, nil, 48, false)
	clientPremaster, _, err := client.Respond(rand.Reader, serverKey.PublicKey(), nil, rA)
	if err != nil {
		panic(err)
	}
	rB := client.EphemeralPublicKey()

	serverPremaster, _, err := server.Complete(clientKey.PublicKey(), nil, rB, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(serverPremaster), bytes.Equal(serverPremaster, clientPremaster))
	// Output: 48 true
}
