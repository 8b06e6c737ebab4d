// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package ciphersuite

import (
	"errors"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	want := map[ID]struct {
		name             string
		kx               KeyExchange
		cipher           Cipher
		mac, key, iv     int
		supported, optIn bool
	}{
		0xE013: {"ECC_SM4_CBC_SM3", KeyExchangeECC, CipherSM4CBC, 32, 16, 16, true, false},
		0xE053: {"ECC_SM4_GCM_SM3", KeyExchangeECC, CipherSM4GCM, 0, 16, 4, true, false},
		0xE011: {"ECDHE_SM4_CBC_SM3", KeyExchangeECDHE, CipherSM4CBC, 32, 16, 16, true, false},
		0xE051: {"ECDHE_SM4_GCM_SM3", KeyExchangeECDHE, CipherSM4GCM, 0, 16, 4, true, false},
		0xFF13: {"ECC_ZUC128_SM3", KeyExchangeECC, CipherZUC128, 32, 16, 16, true, true},
		0xFF11: {"ECDHE_ZUC128_SM3", KeyExchangeECDHE, CipherZUC128, 32, 16, 16, true, true},
	}
	for id, w := range want {
		s := Lookup(id)
		if s == nil {
			t.Fatalf("Lookup(%#04x) = nil", id)
		}
		if s.ID != id || s.Name != w.name || s.KeyExchange != w.kx || s.Cipher != w.cipher ||
			s.MACLen != w.mac || s.KeyLen != w.key || s.IVLen != w.iv ||
			s.Supported != w.supported || s.OptIn != w.optIn || s.Hash != HashSM3 {
			t.Errorf("%#04x: %+v", id, *s)
		}
		if got, err := Get(id); got != s || err != nil {
			t.Errorf("Get(%#04x) = %v, %v", id, got, err)
		}
	}

	var prev ID
	for i, s := range All() {
		if i > 0 && s.ID <= prev {
			t.Errorf("All() not in code-point order at %s", s.Name)
		}
		prev = s.ID
		if Name(s.ID) != s.Name || Lookup(s.ID) != s {
			t.Errorf("%s: Name/Lookup disagree", s.Name)
		}
		if _, ok := want[s.ID]; !ok && s.Supported {
			t.Errorf("%s is marked supported", s.Name)
		}
	}
	if n := len(All()); n != 21 {
		t.Errorf("All() has %d suites, want 21 (12 GB/T 38636 + 7 GM/T 0024-only + 2 ZUC)", n)
	}
}

func TestUnsupported(t *testing.T) {
	for id, why := range map[ID]string{
		IBC_SM4_GCM_SM3:    "SM9",
		IBSDH_SM4_CBC_SM3:  "SM9",
		RSA_SM4_CBC_SHA256: "RSA",
		ECC_SM1_SM3:        "SM1",
		RSA_SM4_SHA1:       "RSA",
	} {
		s, err := Get(id)
		if s != nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), Name(id)) ||
			!strings.Contains(err.Error(), why) {
			t.Errorf("Get(%s) = %v, %v", Name(id), s, err)
		}
		if _, err := Lookup(id).NewRecordProtection(Keys{}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: NewRecordProtection: %v", Name(id), err)
		}
	}
	if s, err := Get(0x1301); s != nil || err == nil || !strings.Contains(err.Error(), "0x1301") {
		t.Errorf("Get(0x1301) = %v, %v", s, err)
	}
	if Lookup(0xE10D) != nil {
		t.Error("GmSSL 2's private 0xE10D must stay unknown")
	}
	for id, name := range map[ID]string{0xE0A1: "0xE0A1", 0x00FF: "EMPTY_RENEGOTIATION_INFO_SCSV", 0xE013: "ECC_SM4_CBC_SM3"} {
		if got := Name(id); got != name {
			t.Errorf("Name(%#04x) = %q, want %q", id, got, name)
		}
	}
	if got := Lookup(ECC_SM4_CBC_SM3).Alias; got != "ECC_SM4_SM3" {
		t.Errorf("alias of E013 = %q", got)
	}
}

func TestDefaultPreference(t *testing.T) {
	got := DefaultPreference()
	want := []ID{0xE053, 0xE013, 0xE051, 0xE011}
	if len(got) != len(want) {
		t.Fatalf("DefaultPreference() = %x", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("DefaultPreference() = %x, want %x", got, want)
		}
		if s := Lookup(got[i]); !s.Supported || s.OptIn {
			t.Errorf("%s in the default list", s.Name)
		}
	}
	got[0] = 0 // a fresh copy each time
	if DefaultPreference()[0] != 0xE053 {
		t.Error("DefaultPreference shares its slice")
	}
}
