package main

import "github.com/shangmi-go/shangmi/primitives/sm4"

func oursSM4Block() blockCtor { return sm4.NewCipher }
