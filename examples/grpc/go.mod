module github.com/shangmi-go/shangmi/examples/grpc

go 1.26.0

require (
	github.com/shangmi-go/shangmi v0.0.0
	github.com/tjfoc/gmsm v1.4.1
	google.golang.org/grpc v1.85.0
)

require (
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace github.com/shangmi-go/shangmi => ../..
