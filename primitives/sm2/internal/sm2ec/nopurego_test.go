//go:build !purego

package sm2ec

const purego = false
