//go:build !linux

package main

import "time"

// processCPU is not implemented here; measurements fall back to wall time.
func processCPU() (time.Duration, bool) { return 0, false }
