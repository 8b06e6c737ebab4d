module github.com/shangmi-go/shangmi/examples/interop/dtlcppeer

go 1.26.0

require (
	gitee.com/Trisia/gotlcp v1.5.0
	github.com/emmansun/gmsm v0.44.1
	github.com/shangmi-go/shangmi v0.0.0
)

replace github.com/shangmi-go/shangmi => ../../..
