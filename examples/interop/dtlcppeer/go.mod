module github.com/shangmi-go/shangmi/examples/interop/dtlcppeer

go 1.26.0

require (
	gitee.com/Trisia/gotlcp v1.5.0
	github.com/emmansun/gmsm v0.44.1
	github.com/shangmi-go/shangmi v0.0.0
)

require (
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

// gotlcp is not served by the Go module proxy: ../dtlcp.sh adds
// "replace gitee.com/Trisia/gotlcp => <checkout>" in a copy of this file.
replace github.com/shangmi-go/shangmi => ../../..
