module github.com/shangmi-go/shangmi/examples/bench

go 1.26.0

require github.com/emmansun/gmsm v0.44.1

require golang.org/x/crypto v0.54.0 // indirect

replace github.com/shangmi-go/shangmi => ../..
