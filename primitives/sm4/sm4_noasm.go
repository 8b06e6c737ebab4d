//go:build purego || !(amd64 || arm64)

package sm4

// cryptBlock processes one block with the round keys rk.
func cryptBlock(rk *[rounds]uint32, dst, src []byte) {
	cryptBlockGeneric(rk, dst, src)
}

// cryptBlocks processes len(src)/BlockSize whole blocks; every mode in the
// package funnels its bulk work through here.
func cryptBlocks(rk *[rounds]uint32, dst, src []byte) {
	cryptBlocksGeneric(rk, dst, src)
}
