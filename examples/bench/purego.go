//go:build purego

package main

const pureGo = true
