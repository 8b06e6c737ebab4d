package main

import "github.com/shangmi-go/shangmi/primitives/sm3"

func oursSM3Hash(size int) setupFunc  { return hashBench(sm3.New, size) }
func oursSM3KDF(outLen int) setupFunc { return kdfBench(sm3.KDF, outLen) }
