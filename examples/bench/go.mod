module github.com/shangmi-go/shangmi/examples/bench

go 1.26.0

require (
	github.com/emmansun/gmsm v0.44.1
	github.com/shangmi-go/shangmi v0.0.0
	golang.org/x/sys v0.50.0
)

require golang.org/x/crypto v0.59.0 // indirect

replace github.com/shangmi-go/shangmi => ../..
