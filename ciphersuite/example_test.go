// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite_test

import (
	"crypto/rand"
	"fmt"

	"github.com/shangmi-go/shangmi/ciphersuite"
)

func Example() {
	suite, err := ciphersuite.Get(ciphersuite.ECC_SM4_GCM_SM3)
	if err != nil {
		panic(err)
	}

	// In a handshake these come from the hellos and the key exchange.
	clientRandom, serverRandom, premaster := make([]byte, 32), make([]byte, 32), make([]byte, 48)
	rand.Read(clientRandom)
	rand.Read(serverRandom)
	rand.Read(premaster)

	master := ciphersuite.MasterSecret(premaster, clientRandom, serverRandom)
	clientKeys, _ := suite.KeyBlock(master, clientRandom, serverRandom)

	// The client seals with its write keys; the server opens with the same keys.
	clientWrite, _ := suite.NewRecordProtection(clientKeys)
	serverRead, _ := suite.NewRecordProtection(clientKeys)

	const applicationData = 23
	record := []byte{applicationData, 0x01, 0x01, 0, 0} // header, length filled in below
	record, err = clientWrite.Seal(record, applicationData, []byte("hello, TLCP"), nil)
	if err != nil {
		panic(err)
	}
	n := len(record) - 5
	record[3], record[4] = byte(n>>8), byte(n)

	_, plaintext, err := serverRead.Open(record[0], record[5:])
	fmt.Printf("%s %q %v\n", suite.Name, plaintext, err)
	// Output: ECC_SM4_GCM_SM3 "hello, TLCP" <nil>
}

func ExampleName() {
	fmt.Println(ciphersuite.Name(0xE013), ciphersuite.Name(0xE057), ciphersuite.Name(0x1301))
	_, err := ciphersuite.Get(0xE057)
	fmt.Println(err)
	// Output:
	// ECC_SM4_CBC_SM3 IBC_SM4_GCM_SM3 0x1301
	// ciphersuite: cipher suite not supported: IBC_SM4_GCM_SM3 (0xE057): SM9 identity-based key exchange is not implemented
}

func ExampleFinishedVerifyData() {
	master := make([]byte, ciphersuite.MasterSecretLen)
	transcriptHash := make([]byte, 32) // SM3 of the handshake messages so far
	vd := ciphersuite.FinishedVerifyData(master, ciphersuite.LabelClientFinished, transcriptHash)
	fmt.Println(len(vd))
	// Output: 12
}

// A TLS 1.3 record under TLS_SM4_GCM_SM3: the traffic secret comes from the
// HKDF-SM3 key schedule, and both directions' keys come from their own
// secrets.
func ExampleTLS13Suite_NewRecordProtection() {
	suite := ciphersuite.LookupTLS13(ciphersuite.TLS_SM4_GCM_SM3)

	// In a handshake these come from the key share and the transcript.
	shared, helloHash := make([]byte, 32), make([]byte, 32)
	rand.Read(shared)
	rand.Read(helloHash)
	hs := ciphersuite.NewTLS13EarlySecret(nil).HandshakeSecret(shared)
	clientSecret := hs.ClientHandshakeTrafficSecret(helloHash)

	sealer, _ := suite.NewRecordProtection(clientSecret)
	opener, _ := suite.NewRecordProtection(clientSecret)
	fragment, _ := sealer.Seal(nil, 22, []byte("Finished…"), nil)
	typ, content, err := opener.Open(23, fragment)
	fmt.Println(typ, string(content), err, len(fragment)-len(content))
	// Output: 22 Finished… <nil> 17
}

// A sender with several records seals them in one call; a receiver that has
// several whole records opens them in one call and learns how many were
// good. Here the third record is damaged in transit.
func ExampleBatchProtection() {
	suite, _ := ciphersuite.Get(ciphersuite.ECC_SM4_CBC_SM3)
	master := make([]byte, 48)
	rand.Read(master)
	clientKeys, _ := suite.KeyBlock(master, make([]byte, 32), make([]byte, 32))
	w, _ := suite.NewRecordProtection(clientKeys)
	r, _ := suite.NewRecordProtection(clientKeys)
	sealer, opener := w.(ciphersuite.BatchProtection), r.(ciphersuite.BatchProtection)

	const applicationData = 23
	var recs []ciphersuite.BatchRecord
	for _, msg := range []string{"one", "two", "three", "four"} {
		recs = append(recs, ciphersuite.BatchRecord{
			Type:     applicationData,
			Data:     []byte(msg),
			Fragment: make([]byte, 0, sealer.SealedLen(len(msg))),
		})
	}
	if _, err := sealer.SealBatch(recs, nil); err != nil {
		panic(err)
	}

	recs[2].Fragment[20] ^= 1
	n, err := opener.OpenBatch(nil, recs)
	for _, rec := range recs[:n] {
		fmt.Printf("%s ", rec.Data)
	}
	fmt.Println(n, err)
	// Output: one two 2 ciphersuite: bad record MAC
}

// A Master serves the key block and both Finished messages of a handshake
// with one HMAC key schedule.
func ExampleMaster() {
	suite, _ := ciphersuite.Get(ciphersuite.ECC_SM4_GCM_SM3)
	clientRandom, serverRandom, premaster := make([]byte, 32), make([]byte, 32), make([]byte, 48)
	master := ciphersuite.NewMaster(ciphersuite.MasterSecret(premaster, clientRandom, serverRandom))

	client, server := master.KeyBlock(suite, clientRandom, serverRandom)
	transcriptHash := make([]byte, 32)
	fin := master.FinishedVerifyData(ciphersuite.LabelClientFinished, transcriptHash)
	fmt.Println(len(client.Key), len(server.IV), len(fin))
	// Output: 16 4 12
}
