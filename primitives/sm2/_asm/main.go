// Command _asm generates the amd64 assembly of primitives/sm2: the field
// kernels (-gen field) and the point formulas (-gen sm2ec).
//
//	go run . -gen field -pkg field -out ../internal/field/fe_amd64.s
//	go run . -gen sm2ec -pkg sm2ec -out ../internal/sm2ec/sm2ec_amd64.s
package main

import (
	"flag"
	"log"

	. "github.com/mmcloughlin/avo/build"
)

func main() {
	gen := flag.String("gen", "", "what to generate: field or sm2ec")
	flag.Parse()
	switch *gen {
	case "field":
		ConstraintExpr("!purego")
		fieldKernels()
		invertKernels()
	case "sm2ec":
		ConstraintExpr("!purego")
		pointKernels()
		lookupKernels()
	default:
		log.Fatalf("unknown -gen %q", *gen)
	}
	Generate()
}
