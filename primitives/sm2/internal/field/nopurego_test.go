//go:build !purego

package field

const purego = false
