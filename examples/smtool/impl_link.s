//go:build (amd64 || arm64) && !purego

// Empty: its presence lets impl_link.go declare functions without bodies
// (the go:linkname bridge to primitives/internal/impl).
