package main

// Placeholders until primitives/sm2 lands; replaced by sm2_ours.go.

func oursSM2Sign() setupFunc        { return nil }
func oursSM2Verify() setupFunc      { return nil }
func oursSM2KeyExchange() setupFunc { return nil }
func oursSM2Encrypt() setupFunc     { return nil }
func oursSM2Decrypt() setupFunc     { return nil }
func oursSM2KeyGen() setupFunc      { return nil }
